# infer-broadcast-waiters: one broadcast releases three waiters. The
# starter fills table[0..2] without the lock, then sets go under m and
# broadcasts; each waiter waits in a Mesa loop for go and then, outside the
# lock, reads its table entry and writes its own result slot. Every waiter
# that waits is released by the same broadcast instance, and a waiter that
# arrives late skips the loop; in both cases table is ordered before the
# reads (happens-before: unlock -> lock; inference's weakened HB: broadcast
# -> every wait of that instance). Race-free: inference reports 0
# candidates and main prints 60.

.kernel  infer-broadcast-waiters
.desc    "the starter fills a table, sets go under m and broadcasts; three waiters (some waiting, some late) then read the table outside the lock: race-free"
.class   none
.source  "inference:broadcast-waiters"
.cores   5
.expect  60

.data
m:       .word 0
         .align 64
cv:      .word 0
         .align 64
go:      .word 0
         .align 64
table:   .space 3
         .align 64
res:     .space 3
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, waiter, r2
         li     r2, 1
         spawn  r11, waiter, r2
         li     r2, 2
         spawn  r12, waiter, r2
         spawn  r13, starter, r0
         join   r10
         join   r11
         join   r12
         join   r13
         ld     r2, res
         ld     r3, res+8
         add    r2, r2, r3
         ld     r3, res+16
         add    r2, r2, r3
         out    r2
         exit

.func starter
starter: delay  0, 300
         li     r2, 10
         st     r2, table
         li     r2, 20
         st     r2, table+8
         li     r2, 30
         st     r2, table+16
         lock   m
         li     r3, 1
         st     r3, go
         cbcast cv                      # wakes every waiter
         unlock m
         exit

.func waiter
waiter:  delay  0, 900
         lock   m
w_loop:  ld     r3, go
         bnez   r3, w_go
         cwait  cv, m
         jmp    w_loop
w_go:    unlock m
         shl    r4, r1, 3
         ld     r2, table[r4]
         st     r2, res[r4]
         exit
