# infer-k3-bounded-buffer: the boundedBuffer application of Table 2 in
# miniature, race-free. One producer puts the items 1..24 into a 2-slot
# ring and two consumers take twelve each; slots, count and the indices are
# only touched under m, and the Mesa wait loops on not_full / not_empty
# re-check their predicate. Several waits are skipped because the predicate
# already holds, which the trace's wait-loop markers must still pair with
# their signal. Every conflicting pair shares lock m (or is ordered by
# fork/join), so the prefilter leaves no candidate: inference reports 0,
# and happens-before reports nothing. main prints the sum 300 and count 0.

.kernel  infer-k3-bounded-buffer
.desc    "race-free bounded buffer: one producer and two consumers share a 2-slot ring under one lock with not_full/not_empty condition variables"
.class   none
.source  "inference:K3-bounded-buffer"
.cores   4
.expect  300 0

.data
m:         .word 0
count:     .word 0
head:      .word 0
tail:      .word 0
buf:       .space 2
           .align 64
not_full:  .word 0
           .align 64
not_empty: .word 0
           .align 64
sums:      .space 2
           .align 64

.text
.func main
main:    spawn  r10, producer, r0
         li     r2, 0
         spawn  r11, consumer, r2
         li     r2, 1
         spawn  r12, consumer, r2
         join   r10
         join   r11
         join   r12
         ld     r3, sums
         ld     r4, sums+8
         add    r3, r3, r4
         out    r3
         ld     r5, count
         out    r5
         exit

.func producer
producer: li    r3, 1                   # next item
p_loop:  delay  0, 60                   # produce it
         lock   m
p_full:  ld     r5, count
         blt    r5, 2, p_put
         cwait  not_full, m
         jmp    p_full
p_put:   ld     r6, tail
         shl    r7, r6, 3
         st     r3, buf[r7]
         add    r6, r6, 1
         and    r6, r6, 1
         st     r6, tail
         add    r5, r5, 1
         st     r5, count
         csignal not_empty
         unlock m
         add    r3, r3, 1
         blt    r3, 25, p_loop
         exit

.func consumer
consumer: li    r2, 0                   # this consumer's sum
         li     r3, 0                   # items taken
c_loop:  lock   m
c_empty: ld     r5, count
         bnez   r5, c_get
         cwait  not_empty, m
         jmp    c_empty
c_get:   ld     r6, head
         shl    r7, r6, 3
         ld     r4, buf[r7]
         add    r6, r6, 1
         and    r6, r6, 1
         st     r6, head
         sub    r5, r5, 1
         st     r5, count
         csignal not_full
         unlock m
         add    r2, r2, r4
         delay  0, 80                   # consume it
         add    r3, r3, 1
         blt    r3, 12, c_loop
         shl    r8, r1, 3
         st     r2, sums[r8]
         exit
