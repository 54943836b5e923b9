# infer-lock-order-backoff: the K2 pattern fixed by backing off without a
# trylock. t2 first needs b alone (to read acct_b), then finds it also needs
# a; instead of taking a while holding b, it releases b and re-acquires the
# pair in the global order a, b. No thread ever waits for a lock while
# holding another out of order, so no interleaving deadlocks: inference's
# deadlock check finds no stuck state and the run always completes.

.kernel  infer-lock-order-backoff
.desc    "t2 holds b, then needs a: it releases b and takes a then b in the global order, so unlike K2 there is no deadlock"
.class   none
.source  "inference:lock-order-backoff"
.cores   3
.expect  100 100 100

.data
a:       .word 0
         .align 64
b:       .word 0
         .align 64
acct_a:  .word 100
         .align 64
acct_b:  .word 100
         .align 64
peek:    .word 0
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
         ld     r4, peek
         out    r4
         exit

.func t1
t1:      delay  0, 600
         lock   a
         work   30
         lock   b
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
t2:      delay  0, 600
         lock   b                       # first look at acct_b alone
         ld     r3, acct_b
         slt    r4, r3, 100
         unlock b                       # back off: needs a too
         work   30
         lock   a                       # re-acquire in the global order
         lock   b
         ld     r3, acct_b
         sub    r3, r3, 1
         st     r3, acct_b
         ld     r2, acct_a
         add    r2, r2, 1
         st     r2, acct_a
         unlock b
         unlock a
         li     r5, 100
         st     r5, peek
         exit
