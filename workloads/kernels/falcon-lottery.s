# falcon-lottery: Falcon Table 3 "Lottery" (ConTest; atomicity, paper
# failure rate 43%, Falcon Table 5 bug pattern R1-W2-R1, rank 1).
#
# A draw thread publishes four draws: it stores the draw number in `round`
# and meets the two players at a barrier. Each player then reads `round`
# (a), looks up that draw's winning number and compares it with its two
# tickets; the holder of the winning ticket validates it and claims the
# prize, re-reading `round` (c) to find the draw it is claiming. The draw
# thread does not wait for claims: once its pause is over it publishes the
# next draw (b). A claim whose validation outlasts that pause is filed
# under the next draw, which then has two winners (`fail "two winners for
# one draw"` when the real winner claims) and the validated draw has none.
# The player writes the claim table, never `round`, so Falcon's window on
# round holds R1(a)-W2(b)-R1(c).
#
# Tuning: a winner's validation is `delay 60, 360` and the draw thread's
# pause before the next draw is `delay 350, 650` (the winner's reads of
# `round` and `win` after the barrier miss in the cache, which lengthens
# its window); the rate is the chance that the validation outlasts the
# pause at least once in the first three draws.
#
# Every player re-reads `round` at (c), winner or not, so that in a
# passing round the player's (a) and (c) reads merge into one R slot
# ending at (c): the (a)-(b)-(c) key then arises only when (b) falls
# between them.

.kernel  falcon-lottery
.desc    "a player reads the draw number to check its ticket and re-reads it to file the claim; a new draw in between files the prize under the wrong draw (two winners)"
.class   atomicity
.source  "falcon:Lottery"
.cores   4
.force   "seed=4"

.data
round:     .word 0                      # the current draw
           .align 64
win:       .word 3                      # winning number of draws 0..3
           .word 5
           .word 8
           .word 9
owner:     .word 1                      # player holding that number
           .word 2
           .word 1
           .word 2
tickets:   .word 0                      # player p holds tickets[2p], tickets[2p+1]
           .word 0
           .word 3
           .word 8
           .word 5
           .word 9
           .align 64
claim:     .space 4                     # claim[d] = player paid for draw d
           .align 64
draw_bar:  .word 0
           .align 64

.text
.func main
main:    spawn  r10, draw, r0
         li     r2, 1
         spawn  r11, player, r2
         li     r2, 2
         spawn  r12, player, r2
         join   r10
         join   r11
         join   r12
         li     r2, 0                   # every draw paid to its ticket's owner
m_chk:   shl    r3, r2, 3
         ld     r4, claim[r3]
         ld     r5, owner[r3]
         beq    r4, r5, m_next
         fail   "a draw's prize went to the wrong player"
m_next:  add    r2, r2, 1
         blt    r2, 4, m_chk
         exit

.func draw
draw:    li     r2, 0                   # draw number
d_loop:  st     r2, round       @bug    # (b) publish the draw
         barrier draw_bar, 3
         delay  350, 650                # until the next draw
         add    r2, r2, 1
         blt    r2, 4, d_loop
         exit

.func player
player:  li     r2, 0                   # draws seen; r1 = player id
         shl    r3, r1, 4
         ld     r8, tickets[r3]         # this player's two numbers
         add    r3, r3, 8
         ld     r9, tickets[r3]
p_loop:  barrier draw_bar, 3
         ld     r4, round       @bug    # (a) which draw is out?
         shl    r5, r4, 3
         ld     r6, win[r5]
         li     r10, 0                  # won?
         beq    r6, r8, p_won
         beq    r6, r9, p_won
         jmp    p_file
p_won:   li     r10, 1
         delay  60, 360                 # validate the ticket
p_file:  ld     r4, round       @bug    # (c) the draw to file the result under, re-read
         beqz   r10, p_next
         shl    r5, r4, 3
         ld     r7, claim[r5]
         beqz   r7, p_claim
         fail   "two winners for one draw"
p_claim: st     r1, claim[r5]
p_next:  add    r2, r2, 1
         blt    r2, 4, p_loop
         exit
