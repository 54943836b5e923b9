# falcon-shop: Falcon Table 3 "Shop" (ConTest; atomicity, paper failure
# rate 2%, Falcon Table 5 bug pattern R1-W2-R1, rank 2).
#
# A supplier restocks the shop's shelf (stock += 2 under the shop lock)
# and two customers buy four items each. A customer looks at the shelf
# without the lock (a): when it is empty the customer waits and looks
# again; otherwise it picks an item, and at the counter, under the lock,
# the sale re-reads stock (c) and takes the item. The look and the sale
# are not atomic: when the other customer buys the last item (b) while
# this one is picking, the sale finds the shelf empty and throws (`fail
# "sold an item that is no longer in stock"`); the customer leaves
# without writing stock. Falcon's window on stock holds R1(a)-W2(b)-R1(c)
# only in such runs: in a passing sale the customer's read at (c) merges
# with its own decrement into a W1 slot.
#
# Tuning: the bug needs the shelf to hold exactly one item when a customer
# looks and the other customer's sale to land within the picking time
# (`delay 120, 200`); the customers' visits are `delay 100, 600` apart
# and the supplier delivers every `delay 300, 900` cycles. The other
# customer's unlocked look can also fall between a sale's (c) and its
# store, which leaves the R1-W2-R1 key in a few passing runs too (as in
# the paper, where Shop's bug ranks second with a low score).

.kernel  falcon-shop
.desc    "a customer checks the shelf without the lock and buys under it, re-reading stock; the other customer takes the last item in between and the sale finds the shelf empty"
.class   atomicity
.source  "falcon:Shop"
.cores   4
.force   "seed=9"
.expect  0

.data
stock:     .word 2                      # items on the shelf
           .align 64
shop_lock: .word 0
           .align 64
basket:    .space 2                     # items each customer bought
           .align 64

.text
.func main
main:    spawn  r10, supplier, r0
         li     r2, 0
         spawn  r11, customer, r2
         li     r2, 1
         spawn  r12, customer, r2
         join   r10
         join   r11
         join   r12
         ld     r3, stock               # everything was sold
         out    r3
         exit

.func supplier
supplier: li    r2, 0
s_loop:  delay  300, 900                # the next delivery
         lock   shop_lock
         ld     r3, stock
         add    r3, r3, 2
         st     r3, stock
         unlock shop_lock
         add    r2, r2, 1
         blt    r2, 3, s_loop
         exit

.func customer
customer: li    r2, 0                   # items bought; r1 = customer
         shl    r9, r1, 3
c_visit: delay  100, 600               # walk in
c_look:  ld     r3, stock       @bug    # (a) anything on the shelf?
         bnez   r3, c_pick
         delay  20, 60                  # empty: wait for the supplier
         jmp    c_look
c_pick:  delay  120, 200                  # pick the item
         lock   shop_lock
         ld     r4, stock       @bug    # (c) the sale re-reads stock
         beqz   r4, c_empty
         sub    r4, r4, 1
         st     r4, stock       @bug    # (b) in the other customer
         unlock shop_lock
         add    r2, r2, 1
         st     r2, basket[r9]
         blt    r2, 4, c_visit
         exit
c_empty: unlock shop_lock               # the exception releases the lock
         fail   "sold an item that is no longer in stock"
         exit
