# infer-k2-lock-order: the classic lock-order inversion. t1 takes a then b,
# t2 takes b then a, each to move one unit between two accounts. The start
# delays usually keep the two critical sections apart, so the observed run
# finishes and shows only the inconsistent order; when both threads hold
# their first lock at the same time each waits for the other's and every
# live thread is blocked: the run hangs.
#
# Tuning: the two start `delay`s against the `work` between the first and
# second acquisition.

.kernel  infer-k2-lock-order
.desc    "t1 locks a then b, t2 locks b then a; when both hold their first lock the run deadlocks"
.class   deadlock
.force   "seed=3"
.source  "inference:K2-lock-order"
.cores   3
.expect  100 100

.data
a:       .word 0
         .align 64
b:       .word 0
         .align 64
acct_a:  .word 100
         .align 64
acct_b:  .word 100
         .align 64

.text
.func main
main:    spawn  r10, t1, r0
         spawn  r11, t2, r0
         join   r10
         join   r11
         ld     r2, acct_a
         out    r2
         ld     r3, acct_b
         out    r3
         exit

.func t1
t1:      delay  0, 1200
         lock   a               @bug
         work   30
         lock   b               @bug
         ld     r2, acct_a
         sub    r2, r2, 1
         st     r2, acct_a
         ld     r3, acct_b
         add    r3, r3, 1
         st     r3, acct_b
         unlock b
         unlock a
         exit

.func t2
t2:      delay  0, 1200
         lock   b               @bug
         work   30
         lock   a               @bug
         ld     r3, acct_b
         sub    r3, r3, 1
         st     r3, acct_b
         ld     r2, acct_a
         add    r2, r2, 1
         st     r2, acct_a
         unlock a
         unlock b
         exit
