# infer-lock-order-join-ordered: an inverted lock order that join makes
# harmless. t1 takes a then b; t2 takes b then a, but only after joining
# t1 (main passes t1's id to t2). The end(t1) -> join edge puts every t1
# section before t2's, so no interleaving of the synchronisation model gets
# both threads holding one lock each: inference reports no deadlock and the
# run always completes.

.kernel  infer-lock-order-join-ordered
.desc    "t1 locks a then b, t2 joins t1 and then locks b then a: the inversion is ordered by join, so no deadlock is possible"
.class   none
.source  "inference:lock-order-join-ordered"
.cores   3
.expect  2 2

.data
a:       .word 0
         .align 64
b:       .word 0
         .align 64
va:      .word 0
         .align 64
vb:      .word 0
         .align 64

.text
.func main
main:    spawn  r10, t1, r0
         spawn  r11, t2, r10            # t2 gets t1's id
         join   r11
         join   r10
         ld     r2, va
         out    r2
         ld     r3, vb
         out    r3
         exit

.func t1
t1:      delay  0, 400
         lock   a
         work   30
         lock   b
         ld     r2, va
         add    r2, r2, 1
         st     r2, va
         ld     r3, vb
         add    r3, r3, 1
         st     r3, vb
         unlock b
         unlock a
         exit

.func t2
t2:      delay  0, 400
         join   r1                      # wait for t1 first
         lock   b
         work   30
         lock   a
         ld     r2, va
         add    r2, r2, 1
         st     r2, va
         ld     r3, vb
         add    r3, r3, 1
         st     r3, vb
         unlock a
         unlock b
         exit
