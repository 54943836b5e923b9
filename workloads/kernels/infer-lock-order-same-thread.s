# infer-lock-order-same-thread: one thread takes a then b, and later b then
# a; the other thread only ever holds one lock at a time. The lock-order
# graph has the cycle a -> b -> a, but both edges come from the same thread
# and nobody else waits while holding a lock, so no interleaving can
# deadlock. Inference's deadlock check finds no stuck state; a lock-order
# checker that does not record which thread made each edge reports one.

.kernel  infer-lock-order-same-thread
.desc    "one thread locks a then b and later b then a, the other holds one lock at a time: a cycle in the lock-order graph that cannot deadlock"
.class   none
.source  "inference:lock-order-same-thread"
.cores   3
.expect  4 4

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
         spawn  r11, t2, r0
         join   r10
         join   r11
         ld     r2, va
         out    r2
         ld     r3, vb
         out    r3
         exit

.func t1
t1:      delay  0, 400
         lock   a
         lock   b
         ld     r2, va
         add    r2, r2, 1
         st     r2, va
         unlock b
         unlock a
         delay  0, 200
         lock   b
         lock   a
         ld     r3, vb
         add    r3, r3, 1
         st     r3, vb
         unlock a
         unlock b
         exit

.func t2
t2:      li     r4, 0
t2_loop: delay  0, 200
         lock   a
         ld     r2, va
         add    r2, r2, 1
         st     r2, va
         unlock a
         lock   b
         ld     r3, vb
         add    r3, r3, 1
         st     r3, vb
         unlock b
         add    r4, r4, 1
         blt    r4, 3, t2_loop
         exit
