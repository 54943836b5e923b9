# falcon-account: Falcon Table 3 "Account" (ConTest; atomicity, paper
# failure rate 3%, Falcon Table 5 bug pattern R1-W2-R1, rank 2).
#
# ConTest's Account updates an account's balance while holding some
# other account's lock: transfer() takes only one account's lock and
# changes the other account's amount without it. Here the ATM thread runs
# withdraw(A, 100) under A's lock: it checks the funds (a), spends a while
# verifying the card and counting notes, then debits, re-reading the
# balance (c). The transfer thread moves 100 from A to B holding only B's
# lock, so A's lock does not keep its update (b) out of the ATM's critical
# section. When (b) lands between (a) and (c) the debit finds less than
# 100 although the check passed, and withdraw throws: `fail "overdraft"`,
# and the ATM thread dies without writing the balance, so Falcon's window
# on A.amount holds R1(a)-W2(b)-R1(c) (the transfer's read and write merge
# into one W2 slot). When the transfer lands after (c) the debit writes
# and the window holds the benign R1-W2-W1 shape instead.
#
# Tuning: the bug window is the ATM's `delay 40, 80` between (a) and (c);
# the transfer starts at a uniform time in `delay 0, 1800`, so the rate is
# about the window over that range.

.kernel  falcon-account
.desc    "withdraw(A) checks then re-reads A's balance under A's lock, but a transfer out of A holds only B's lock; a transfer between the two reads makes the debit overdraw"
.class   atomicity
.source  "falcon:Account"
.cores   3
.force   "seed=21"

.data
A_amount:  .word 150
           .align 64
A_lock:    .word 0
           .align 64
B_amount:  .word 500
           .align 64
B_lock:    .word 0
           .align 64
cash:      .word 0                      # notes the ATM dispensed
           .align 64

.text
.func main
main:    spawn  r10, atm, r0
         spawn  r11, transfer, r0
         join   r10
         join   r11
         exit

.func atm
atm:     delay  80, 120                 # the customer walks up
         li     r4, 100                 # withdraw(A, 100)
         lock   A_lock
         ld     r2, A_amount    @bug    # (a) enough funds?
         blt    r2, r4, w_declined
         delay  40, 80                  # verify the card, count the notes
         ld     r3, A_amount    @bug    # (c) debit: re-read the balance
         blt    r3, r4, w_overdraft
         sub    r3, r3, r4
         st     r3, A_amount
         unlock A_lock
         st     r4, cash
         exit
w_overdraft: unlock A_lock              # the exception releases the monitor
         fail   "withdraw: overdraft after the funds check passed"
         exit
w_declined: unlock A_lock
         exit

.func transfer
transfer: delay 0, 1800
         li     r4, 100                 # transfer(A -> B, 100)
         lock   B_lock                  # the wrong lock: only B's
         ld     r2, A_amount    @bug    # (b) A.amount -= 100
         blt    r2, r4, t_declined
         sub    r2, r2, r4
         st     r2, A_amount    @bug    # (b)
         ld     r3, B_amount
         add    r3, r3, r4
         st     r3, B_amount
t_declined: unlock B_lock
         exit
