# infer-lock-order-3: a three-thread, three-lock cycle. t1 takes a then b,
# t2 takes b then c, t3 takes c then a. No two threads invert a pair, so a
# pairwise lock-order check finds nothing; the cycle a -> b -> c -> a only
# deadlocks when all three hold their first lock at once, and the run hangs.
# The observed run usually finishes; inference's deadlock check on the
# synchronisation model finds the state where each thread holds its first
# lock.
#
# Tuning: the three start `delay`s against the `work` between acquisitions.

.kernel  infer-lock-order-3
.desc    "t1 locks a then b, t2 b then c, t3 c then a; when all three hold their first lock the cycle deadlocks"
.class   deadlock
.force   "seed=4"
.source  "inference:lock-order-3"
.cores   4
.expect  3

.data
a:       .word 0
         .align 64
b:       .word 0
         .align 64
c:       .word 0
         .align 64
moves:   .word 0
         .align 64

.text
.func main
main:    spawn  r10, t1, r0
         spawn  r11, t2, r0
         spawn  r12, t3, r0
         join   r10
         join   r11
         join   r12
         ld     r2, moves
         out    r2
         exit

.func t1
t1:      delay  0, 800
         lock   a               @bug
         work   60
         lock   b               @bug
         ld     r2, moves
         add    r2, r2, 1
         st     r2, moves
         unlock b
         unlock a
         exit

.func t2
t2:      delay  0, 800
         lock   b               @bug
         work   60
         lock   c               @bug
         ld     r2, moves
         add    r2, r2, 1
         st     r2, moves
         unlock c
         unlock b
         exit

.func t3
t3:      delay  0, 800
         lock   c               @bug
         work   60
         lock   a               @bug
         ld     r2, moves
         add    r2, r2, 1
         st     r2, moves
         unlock a
         unlock c
         exit
