# falcon-airlinestickets: Falcon Table 3 "AirlinesTickets" (ConTest
# Airline; atomicity, paper failure rate 54%, Falcon Table 5 bug pattern
# R1-W2-R1, rank 1, highest suspiciousness only 0.33 and no pattern seen
# only in failing runs).
#
# The airline issues 5 tickets for 3 seats. main opens one selling post
# (a thread) per ticket while stopSales is clear (a); each post makes its
# sale (sold++ under the sales lock) and then checks the limit and sets
# stopSales (b). THE BUG (ConTest's comment): stopSales is updated by the
# selling posts, so by the time it is set main may already have opened
# another post, and more tickets than seats are sold; main's check
# `sold <= 3` fails (assert). main's test of stopSales and a post's
# sale-then-flag are not atomic with respect to each other.
#
# Falcon's window on stopSales: main's repeated reads merge into one R1
# slot, the post that reaches the limit writes W2, and main reads again
# (R1) before it stops: R1(a)-W2(b)-R1(a). As in the paper, this happens in
# passing runs too (main always reads the flag once more after it is set,
# unless it ran out of tickets), so the pattern is ranked first with a
# low score and AVIO's "only in failing runs" filter keeps nothing.
#
# Tuning: a run fails when main's pause between posts (`delay 200, 500`)
# is shorter than the third post's customer payment (`delay 100, 500`)
# plus its sale and flag update.

.kernel  falcon-airlinestickets
.desc    "main opens a selling post per ticket while stopSales is clear, but posts set stopSales only after selling, so main can open a post past capacity"
.class   atomicity
.source  "falcon:AirlinesTickets"
.cores   6
.force   "seed=1"

.data
stopSales: .word 0
           .align 64
sold:      .word 0                      # numberOfSeatsSold
           .align 64
sales_lock: .word 0
           .align 64
posts:     .space 5                     # thread ids of the selling posts
           .align 64

.text
.func main
main:    li     r2, 0                   # ticket number
         li     r5, 0                   # posts opened
m_loop:  ld     r3, stopSales   @bug    # (a) if (!stopSales)
         bnez   r3, m_join
         spawn  r4, post, r2            # "make the sale !!!"
         shl    r6, r5, 3
         st     r4, posts[r6]
         add    r5, r5, 1
         delay  200, 500                # open the next selling post
         add    r2, r2, 1
         blt    r2, 5, m_loop
m_join:  li     r7, 0
m_jl:    bge    r7, r5, m_check
         shl    r6, r7, 3
         ld     r4, posts[r6]
         join   r4
         add    r7, r7, 1
         jmp    m_jl
m_check: ld     r8, sold
         sle    r9, r8, 3               # maximumCapacity = 3 seats
         assert r9, "more tickets sold than seats"
         exit

.func post
post:    delay  100, 500                # the customer pays
         lock   sales_lock
         ld     r2, sold                # make the sale
         add    r2, r2, 1
         st     r2, sold
         blt    r2, 3, p_done           # limit reached?
         li     r3, 1
         st     r3, stopSales   @bug    # (b) StopSales = true, too late
p_done:  unlock sales_lock
         exit
