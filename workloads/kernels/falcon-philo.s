# falcon-philo: Falcon Table 3 "Philo" (dining philosophers; paper failure
# rate 0%: it never failed in six hours of runs, and its 9 unserializable
# patterns are benign). A CORRECT program.
#
# Five philosophers eat three meals each. Forks are locks, taken in global
# order (lower-numbered fork first), so there is no deadlock. The shared
# table state (each philosopher's THINKING/HUNGRY/EATING state and the
# meal count) is guarded by the table lock; each fork's use count by the
# fork's lock. While holding both forks a philosopher asserts that neither
# neighbour is eating. Every shared access holds a lock, so the program is
# race-free under happens-before and always prints 15 meals.
#
# The benign patterns Falcon still sees (it does not understand locks):
# on state[i], HUNGRY (W1) - a neighbour's check (R2) - EATING (W1), the
# W1-R2-W1 shape; on the meal count, W1-W2-W1 and W1-W2-R1 between
# philosophers' locked increments; on a fork's use count, W1-W2-W1
# between neighbours. None of them occurs in a failing run (there is none),
# so every score is 0.

.kernel  falcon-philo
.desc    "five dining philosophers with ordered fork locks and a locked table state; correct, but full of benign conflicting and unserializable interleavings"
.class   none
.source  "falcon:Philo"
.cores   6
.expect  15

.data
tlock:     .word 0                      # the table lock
meals:     .word 0
state:     .space 5                     # 0 thinking, 1 hungry, 2 eating
           .align 64
forks:     .space 40                    # fork f: lock word at f*64, use count at f*64+8
           .align 64

.text
.func main
main:    li     r2, 0
m_spawn: spawn  r3, philosopher, r2
         add    r2, r2, 1
         blt    r2, 5, m_spawn
         li     r2, 1                   # thread ids 1..5
m_join:  join   r2
         add    r2, r2, 1
         blt    r2, 6, m_join
         ld     r4, meals
         out    r4
         exit

.func philosopher
philosopher: li r2, 0                   # meals eaten; r1 = philosopher i
         add    r3, r1, 1               # right neighbour's fork (i+1) % 5
         rem    r3, r3, 5
         mov    r4, r1                  # first = min(i, (i+1)%5), second = max
         mov    r5, r3
         blt    r4, r5, p_order
         mov    r4, r3
         mov    r5, r1
p_order: shl    r4, r4, 6               # fork offsets
         shl    r5, r5, 6
         shl    r6, r1, 3               # state[i]
         add    r7, r1, 4               # left neighbour (i+4) % 5
         rem    r7, r7, 5
         shl    r7, r7, 3
         shl    r8, r3, 3               # right neighbour (i+1) % 5
p_loop:  delay  50, 400                 # think
         lock   tlock
         li     r9, 1
         st     r9, state[r6]           # HUNGRY
         unlock tlock
         lock   forks[r4]
         lock   forks[r5]
         lock   tlock
         ld     r10, state[r7]          # neither neighbour may be eating
         sne    r11, r10, 2
         assert r11, "left neighbour eats with my fork"
         ld     r10, state[r8]
         sne    r11, r10, 2
         assert r11, "right neighbour eats with my fork"
         li     r9, 2
         st     r9, state[r6]           # EATING
         ld     r12, meals
         add    r12, r12, 1
         st     r12, meals
         unlock tlock
         work   60                      # eat
         add    r13, r4, 8
         ld     r14, forks[r13]         # both forks were used once more
         add    r14, r14, 1
         st     r14, forks[r13]
         add    r13, r5, 8
         ld     r14, forks[r13]
         add    r14, r14, 1
         st     r14, forks[r13]
         lock   tlock
         st     r0, state[r6]           # THINKING, before the forks go down
         unlock tlock
         unlock forks[r5]
         unlock forks[r4]
         add    r2, r2, 1
         blt    r2, 3, p_loop
         exit
