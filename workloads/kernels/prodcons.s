# prodcons: two producers and two consumers share a 4-slot ring buffer
# guarded by one lock and two condition variables. Waits are Mesa style:
# every wait sits in a loop that re-checks its condition after waking.
# Producer p puts the values p*64+1 .. p*64+64, so all items are 1..128;
# each consumer takes 64 items and adds its sum into total, which main
# prints: 128*129/2 = 8256.

.kernel  prodcons
.desc    "two producers and two consumers over a 4-slot bounded buffer with a lock and two condition variables (Mesa style); main prints the sum of all items"
.class   none
.source  ""
.cores   5
.expect  8256 0

.data
m:         .word 0                      # the buffer lock
count:     .word 0                      # items in the buffer
head:      .word 0                      # next slot to take
tail:      .word 0                      # next slot to fill
buf:       .space 4
           .align 64
not_full:  .word 0                      # producers wait here
           .align 64
not_empty: .word 0                      # consumers wait here
           .align 64
total:     .word 0                      # sum of every consumed item
           .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, producer, r2
         li     r2, 1
         spawn  r11, producer, r2
         li     r2, 0
         spawn  r12, consumer, r2
         li     r2, 1
         spawn  r13, consumer, r2
         join   r10
         join   r11
         join   r12
         join   r13
         ld     r3, total
         out    r3
         ld     r4, count               # the buffer must be empty again
         out    r4
         exit

.func producer
producer: mul   r2, r1, 64              # r1 = producer index
         li     r3, 0                   # i
p_loop:  add    r4, r2, r3
         add    r4, r4, 1               # item = p*64 + i + 1
         work   8                       # produce it
         lock   m
p_full:  ld     r5, count
         blt    r5, 4, p_put
         cwait  not_full, m             # Mesa: re-check after waking
         jmp    p_full
p_put:   ld     r6, tail
         shl    r7, r6, 3
         st     r4, buf[r7]
         add    r6, r6, 1
         and    r6, r6, 3
         st     r6, tail
         add    r5, r5, 1
         st     r5, count
         csignal not_empty
         unlock m
         add    r3, r3, 1
         blt    r3, 64, p_loop
         exit

.func consumer
consumer: li    r2, 0                   # this consumer's sum
         li     r3, 0                   # items taken
c_loop:  lock   m
c_empty: ld     r5, count
         bnez   r5, c_get
         cwait  not_empty, m            # Mesa: re-check after waking
         jmp    c_empty
c_get:   ld     r6, head
         shl    r7, r6, 3
         ld     r4, buf[r7]
         add    r6, r6, 1
         and    r6, r6, 3
         st     r6, head
         sub    r5, r5, 1
         st     r5, count
         cbcast not_full                # wake every waiting producer
         unlock m
         add    r2, r2, r4
         work   6                       # consume it
         add    r3, r3, 1
         blt    r3, 64, c_loop
         fadd   r8, total, r2
         exit
