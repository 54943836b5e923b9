# infer-lock-order-gated: an inconsistent lock order that cannot deadlock.
# t1 takes a then b, t2 takes b then a, but both first take the gate lock g
# and hold it across the pair, so the two nested sections never overlap.
# A plain lock-order-graph checker reports the a/b cycle; the synchronisation
# model of inference respects g's mutual exclusion and finds no stuck state,
# and the run always completes. (The paper: "inconsistent lock order does
# not by itself mean a real deadlock".)

.kernel  infer-lock-order-gated
.desc    "t1 locks a then b and t2 b then a, but both hold a gate lock g around the pair, so the inversion can never deadlock"
.class   none
.source  "inference:lock-order-gated"
.cores   3
.expect  100 100

.data
g:       .word 0
         .align 64
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
t1:      delay  0, 600
         lock   g
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
         unlock g
         exit

.func t2
t2:      delay  0, 600
         lock   g
         lock   b
         work   30
         lock   a
         ld     r3, acct_b
         sub    r3, r3, 1
         st     r3, acct_b
         ld     r2, acct_a
         add    r2, r2, 1
         st     r2, acct_a
         unlock a
         unlock b
         unlock g
         exit
