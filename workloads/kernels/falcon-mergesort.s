# falcon-mergesort: Falcon Table 3 "MergeSort" (ConTest; atomicity, paper
# failure rate 84%, Falcon Table 5 bug pattern W1-R2-W1, rank 1).
#
# ConTest's MergeSort forks sorting threads and counts the live ones in a
# shared counter that the parent polls before it merges. Here main sorts
# the left half itself and hands the right half to a worker (busy = 1).
# The worker sorts the first pair, then hands the rest to a helper thread:
# it decrements busy for itself (a), prepares the helper's range and then
# increments busy for the helper (c) before spawning it. The decrement and
# increment should be one atomic hand-off (or in the other order): main,
# polling busy under the same lock (b), can read the transient 0 between
# them, conclude that every sorter is done and merge a half that is not
# sorted yet, printing an unsorted array (wrong_output). All accesses to
# busy hold the lock, so this is an atomicity violation without a data
# race. Falcon's window on busy holds W1(a)-R2(b)-W1(c); without main's
# read in between the worker's two updates merge into one W1 slot.
#
# Tuning: the bug window is the worker's `delay 60, 160` between (a) and
# (c), which main polls every `delay 10, 30` cycles; a run passes only when
# main is still sorting its own half (`work` in sort) during the window,
# so the worker's start `delay 90, 390` sets the rate.

.kernel  falcon-mergesort
.desc    "a sorter decrements the live-thread count for itself before incrementing it for the helper it forks; the parent polls the count, sees 0 in between and merges an unsorted half"
.class   atomicity
.source  "falcon:MergeSort"
.cores   4
.force   "seed=1"
.expect  1 2 3 4 5 6 7 8

.data
arr:       .word 7
           .word 3
           .word 5
           .word 1
           .word 8
           .word 2
           .word 6
           .word 4
           .align 64
busy:      .word 0                      # live sorting threads
           .align 64
busy_lock: .word 0
           .align 64

.text
.func main
main:    li     r2, 1
         st     r2, busy                # the worker is alive
         spawn  r10, worker, r0
         li     r11, 0                  # sort arr[0..4) myself
         li     r12, 4
         call   sort
m_poll:  lock   busy_lock
         ld     r3, busy        @bug    # (b) all sorters done?
         unlock busy_lock
         beqz   r3, m_merge
         delay  10, 30
         jmp    m_poll
m_merge: li     r4, 0                   # i: left half, j: right half
         li     r5, 4
m_loop:  bge    r4, 4, m_right
         bge    r5, 8, m_left
         shl    r6, r4, 3
         ld     r7, arr[r6]
         shl    r6, r5, 3
         ld     r8, arr[r6]
         blt    r8, r7, m_takej
         out    r7
         add    r4, r4, 1
         jmp    m_loop
m_takej: out    r8
         add    r5, r5, 1
         jmp    m_loop
m_left:  shl    r6, r4, 3
         ld     r7, arr[r6]
         out    r7
         add    r4, r4, 1
         blt    r4, 4, m_left
         jmp    m_done
m_right: bge    r5, 8, m_done
         shl    r6, r5, 3
         ld     r8, arr[r6]
         out    r8
         add    r5, r5, 1
         jmp    m_right
m_done:  join   r10
         exit

.func worker
worker:  delay  90, 390                  # the thread gets going
         li     r11, 4                  # sort the first pair of arr[4..8)
         li     r12, 2
         call   sort
         lock   busy_lock
         ld     r2, busy
         sub    r2, r2, 1
         st     r2, busy        @bug    # (a) my part is done: busy--
         unlock busy_lock
         delay  60, 160                 # set up the helper's range
         lock   busy_lock
         ld     r2, busy
         add    r2, r2, 1
         st     r2, busy        @bug    # (c) the helper is alive: busy++
         unlock busy_lock
         spawn  r3, helper, r0
         join   r3
         exit

.func helper
helper:  li     r11, 4                  # sort all of arr[4..8)
         li     r12, 4
         call   sort
         lock   busy_lock
         ld     r2, busy
         sub    r2, r2, 1
         st     r2, busy
         unlock busy_lock
         exit

# sort: bubble sort arr[r11 .. r11+r12) in place (r11, r12 kept; clobbers r2-r5, r13, r14).
.func sort
sort:    sub    r13, r12, 1             # passes left
s_pass:  beqz   r13, s_done
         li     r14, 0                  # position in the pass
s_step:  bge    r14, r13, s_next
         add    r2, r11, r14
         shl    r2, r2, 3
         add    r3, r2, 8
         ld     r4, arr[r2]
         ld     r5, arr[r3]
         work   25                      # compare
         bge    r5, r4, s_noswap
         st     r5, arr[r2]
         st     r4, arr[r3]
s_noswap: add   r14, r14, 1
         jmp    s_step
s_next:  sub    r13, r13, 1
         jmp    s_pass
s_done:  ret
