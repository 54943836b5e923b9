# bb-circular-list: the CircularList atomicity violation (Bugaboo Table 1
# row 2, one of the synthetic bugs the paper took from prior work
# (AVIO/Atom-Aid)). A ring holds the
# elements 1..6 in cyclic order. Three rotator threads repeatedly take the
# element at the head and append it at the tail, which must keep the cyclic
# order. list_remove and list_append each hold the list lock, but the pair
# is not one critical section: when rotator B takes and re-appends its
# element while rotator A is between its remove and its append, B's element
# lands before A's and the cycle order changes. Main walks the ring at the
# end and prints the number of adjacent pairs out of order (expect 0).
# Every static communication (head/tail/slot writes read by the other
# rotators, main's walk) also happens in correct runs; only the context in
# which B's take and append communicate with A's differs.
# Unrelated activity: a locked rotation counter (stat_count) and per-element
# visit counts (fadd) that every rotator updates. Locks are taken through
# mutex_lock/mutex_unlock, one code point each, as pthread's are.
#
# Tuning: the bug needs two rotations to overlap (B's remove between A's
# remove and A's append) and then B's append to come first, which the
# visit `delay` between list_remove and list_append decides about half the
# time. How often rotations overlap is set by the start `delay` and the
# think `delay`: longer think time means fewer buggy runs.

.kernel  bb-circular-list
.desc    "rotators take the head of a circular list and append it at the tail in two separate critical sections; an interleaved rotation reorders the ring"
.force   "seed=2"                     # this seed shows the bug on the default machine
.class   atomicity
.source  "bugaboo:2"
.cores   4
.expect  0 18

.data
q_lock:  .word 0                        # the list's lock (a separate lock object)
         .align 64
q_head:  .word 0                        # index of the first element (mod 16)
q_tail:  .word 6                        # one past the last element
         .align 64
q_slot:  .word 1, 2, 3, 4, 5, 6         # the ring, 16 slots
         .space 10
         .align 64
st_lock: .word 0                        # statistics
st_rot:  .word 0                        # rotations done
         .align 64
visits:  .space 8                       # visits per element (1..6)
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, rotator, r2
         li     r2, 1
         spawn  r11, rotator, r2
         li     r2, 2
         spawn  r12, rotator, r2
         join   r10
         join   r11
         join   r12
         call   list_check
         out    r9
         ld     r2, st_rot
         out    r2
         exit

.func rotator
rotator: li     r13, 0                  # rotation number
         delay  0, 1200                 # threads start at different times
r_loop:  call   list_remove             # r5 = x
         delay  5, 60                   # visit the element: bug window
         call   list_append
         call   stat_count
         delay  600, 2000               # think time
         add    r13, r13, 1
         blt    r13, 6, r_loop
         exit

.func list_remove
list_remove: la     r15, q_lock
         call   mutex_lock
         ld     r2, q_head      @cp take @bug   # x = q->slot[q->head]
         and    r3, r2, 15      @cp take
         shl    r3, r3, 3       @cp take
         ld     r5, q_slot[r3]  @cp take @bug
         add    r2, r2, 1       @cp adv_head    # q->head++
         st     r2, q_head      @cp adv_head @bug
         la     r15, q_lock
         call   mutex_unlock
         ret

.func list_append
list_append: la     r15, q_lock
         call   mutex_lock
         ld     r2, q_tail      @cp put @bug    # q->slot[q->tail] = x
         and    r3, r2, 15      @cp put
         shl    r3, r3, 3       @cp put
         st     r5, q_slot[r3]  @cp put @bug
         add    r2, r2, 1       @cp adv_tail    # q->tail++
         st     r2, q_tail      @cp adv_tail @bug
         la     r15, q_lock
         call   mutex_unlock
         ret

.func stat_count
stat_count: shl r6, r5, 3
         fadd   r7, visits[r6], 1       # visits[x]++
         la     r15, st_lock
         call   mutex_lock
         ld     r7, st_rot      @cp rot         # stats->rotations++
         add    r7, r7, 1       @cp rot
         st     r7, st_rot      @cp rot
         la     r15, st_lock
         call   mutex_unlock
         ret

.func list_check
list_check: ld  r2, q_head              # r9 = pairs out of cyclic order
         ld     r3, q_tail
         li     r9, 0
         and    r4, r2, 15
         shl    r4, r4, 3
         ld     r5, q_slot[r4]          # previous element
         add    r2, r2, 1
c_loop:  bge    r2, r3, c_done
         and    r4, r2, 15
         shl    r4, r4, 3
         ld     r6, q_slot[r4]
         rem    r7, r5, 6
         add    r7, r7, 1               # expected successor of r5
         seq    r8, r6, r7
         bnez   r8, c_ok
         add    r9, r9, 1
c_ok:    mov    r5, r6
         add    r2, r2, 1
         jmp    c_loop
c_done:  ret

.func mutex_lock
mutex_lock: lock [r15]                  # pthread_mutex_lock(r15)
         ret

.func mutex_unlock
mutex_unlock: unlock [r15]              # pthread_mutex_unlock(r15)
         ret
