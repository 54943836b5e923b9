# counter-race: a lost-update data race (the BankAcct pattern). Two
# depositors each make eight deposits of 1..8 into a shared balance with
# a plain ld/add/st and no lock. When one thread's ld falls between the
# other's ld and st, both add to the same old value and a deposit is lost,
# so main prints less than the expected 72.
#
# Unrelated activity: every deposit is also recorded in a journal (a
# transaction count under its own lock) that both depositors update in
# every run, so Bugaboo's ranking has more than the two balance accesses
# to choose from.
#
# Tuning: the race window is ld..st in deposit (the `work` there plus the
# store's upgrade); how often the two windows overlap is set by the think
# time `delay` in depositor. A longer think time gives fewer buggy runs.

.kernel  counter-race
.desc    "two threads deposit into a shared balance with unlocked ld/add/st, so a concurrent deposit can be lost"
.class   race
.force   "seed=3"                     # this seed shows the bug on the default machine
.source  "bugaboo:1"
.cores   3
.expect  72

.data
balance: .word 0
         .align 64
j_lock:  .word 0                        # the journal's lock
         .align 64
j_count: .word 0                        # transactions journalled
         .align 64

.text
.func main
main:    spawn  r10, depositor, r0
         spawn  r11, depositor, r0
         join   r10
         join   r11
         ld     r2, balance
         out    r2
         exit

.func depositor
depositor: li   r2, 0                   # deposit number
d_loop:  delay  300, 900                # think time: sets how often the windows meet
         add    r3, r2, 1               # amount = 1..8
         call   deposit
         call   journal
         add    r2, r2, 1
         blt    r2, 8, d_loop
         exit

.func deposit
deposit: ld     r4, balance     @bug    # read the old balance
         work   4                       # race window: ld .. st
         add    r4, r4, r3
         st     r4, balance     @bug    # may overwrite a concurrent deposit
         ret

.func journal
journal: lock   j_lock
         ld     r5, j_count     @cp jrn # journal->count++
         add    r5, r5, 1       @cp jrn
         st     r5, j_count     @cp jrn
         unlock j_lock
         ret
