# infer-cond-reuse: one condition variable reused for eight handoffs. ping
# and pong take turns on a shared ball: each waits (Mesa loop under m) for
# turn to name it, updates ball outside the lock, then passes the turn and
# broadcasts on the same cv. Each use of cv is its own condition instance
# in the trace, and each handoff orders one thread's ball update before the
# other's (happens-before: unlock -> lock; inference's weakened HB: the
# matched broadcast -> wait of that instance, including skipped waits).
# Race-free: inference reports 0 candidates; main prints 8 and the final
# turn 0.

.kernel  infer-cond-reuse
.desc    "ping and pong hand a turn back and forth eight times over one reused condition variable and update ball outside the lock: race-free"
.class   none
.source  "inference:cond-reuse"
.cores   3
.expect  8 0

.data
m:       .word 0
         .align 64
cv:      .word 0
         .align 64
turn:    .word 0                        # 0: ping's turn, 1: pong's turn
         .align 64
ball:    .word 0
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, player, r2         # ping
         li     r2, 1
         spawn  r11, player, r2         # pong
         join   r10
         join   r11
         ld     r2, ball
         out    r2
         ld     r3, turn
         out    r3
         exit

.func player
player:  li     r5, 0                   # rounds played
p_loop:  delay  0, 120
         lock   m
p_wait:  ld     r3, turn
         beq    r3, r1, p_go
         cwait  cv, m
         jmp    p_wait
p_go:    unlock m
         ld     r2, ball                # outside the lock: ordered by the handoff
         add    r2, r2, 1
         st     r2, ball
         lock   m
         xor    r3, r1, 1
         st     r3, turn
         cbcast cv
         unlock m
         add    r5, r5, 1
         blt    r5, 4, p_loop
         exit
