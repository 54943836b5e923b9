# bb-log-sweep: the LogAndSweep atomicity violation (Bugaboo Table 1 row 3,
# synthetic). Three writer threads append records (1..18) to a shared log
# (log_append: i = len; buf[i] = rec; len = i + 1, under log_lock, so the
# writers are atomic among themselves). A sweeper thread periodically
# flushes the log: log_flush copies buf[0..len) to the file under the lock,
# but resets len = 0 in a second critical section (log_reset). A record
# appended between the flush and the reset is dropped without ever reaching
# the file, and the next record overwrites its slot. Main joins the writers,
# stops the sweeper, which flushes a last time, and prints how many records
# reached the file and their sum (expect 18 and 171).
# The writer's append → sweeper's reset communication (WAW on len) and the
# reset → writer's read of len happen in every run; only the context of the
# reset (an append since the flush) differs.
# Unrelated activity: the writers count records in a shared statistic with
# fadd and poll the sweeper's flush count; the sweeper polls main's stop
# flag. Locks are taken through mutex_lock/mutex_unlock, one code point
# each, as pthread's are.
#
# Tuning: the bug window runs from the flush's unlock to the reset's lock:
# the `delay` in sweeper between log_flush and log_reset plus re-taking the
# lock, which a writer that queued on the lock during the flush usually
# wins. So the rate is roughly (flush + window) over the writers' combined
# append period (their think `delay`), times the number of sweeps (the
# sweep period `delay`).

.kernel  bb-log-sweep
.desc    "a sweeper flushes a shared log and resets its length in two separate critical sections; a record appended between them is lost"
.force   "seed=3"                     # this seed shows the bug on the default machine
.class   atomicity
.source  "bugaboo:3"
.cores   5
.expect  18 171

.data
log_lock:  .word 0
           .align 64
log_len:   .word 0                      # records in buf
           .align 64
log_buf:   .space 32                    # more than all the records
           .align 64
file_n:    .word 0                      # records written to the file
file_sum:  .word 0                      # sum of the records written
           .align 64
file:      .space 32
           .align 64
stop:      .word 0                      # main: writers are done
           .align 64
flushes:   .word 0                      # sweeps done (read by writers)
           .align 64
n_recs:    .word 0                      # statistic: records produced
           .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, writer, r2
         li     r2, 1
         spawn  r11, writer, r2
         li     r2, 2
         spawn  r12, writer, r2
         spawn  r13, sweeper, r0
         join   r10
         join   r11
         join   r12
         li     r2, 1
         st     r2, stop
         join   r13
         ld     r2, file_n
         out    r2
         ld     r2, file_sum
         out    r2
         exit

.func writer
writer:  mul    r13, r1, 6              # records r1*6+1 .. r1*6+6
         li     r14, 0
         delay  0, 2000
w_loop:  work   20                      # build the record
         add    r4, r13, r14
         add    r4, r4, 1               # rec
         call   log_append
         fadd   r5, n_recs, 1           # stats->records++
         ld     r5, flushes             # progress: sweeps seen so far
         delay  2000, 6000              # think time
         add    r14, r14, 1
         blt    r14, 6, w_loop
         exit

.func log_append
log_append: la     r15, log_lock
         call   mutex_lock
         ld     r2, log_len     @cp a_idx @bug  # i = log->len
         shl    r3, r2, 3       @cp a_rec
         st     r4, log_buf[r3] @cp a_rec @bug  # log->buf[i] = rec
         add    r2, r2, 1       @cp a_len
         st     r2, log_len     @cp a_len @bug  # log->len = i + 1
         la     r15, log_lock
         call   mutex_unlock
         ret

.func sweeper
sweeper: delay  3000, 6000              # sweep period
         ld     r2, stop
         bnez   r2, s_last
         call   log_flush
         delay  5, 30                   # write the records out: bug window
         call   log_reset
         fadd   r3, flushes, 1
         jmp    sweeper
s_last:  call   log_flush               # writers are done: final flush
         call   log_reset
         exit

.func log_flush
log_flush: la     r15, log_lock
         call   mutex_lock
         ld     r2, log_len     @cp f_n @bug    # n = log->len
         li     r3, 0
         ld     r5, file_n
         ld     r6, file_sum
f_loop:  bge    r3, r2, f_done
         shl    r4, r3, 3
         ld     r7, log_buf[r4] @cp f_rec        # rec = log->buf[k]
         and    r8, r5, 31
         shl    r8, r8, 3
         st     r7, file[r8]                    # write(file, rec)
         add    r5, r5, 1
         add    r6, r6, r7
         add    r3, r3, 1
         jmp    f_loop
f_done:  st     r5, file_n
         st     r6, file_sum
         la     r15, log_lock
         call   mutex_unlock
         ret

.func log_reset
log_reset: la     r15, log_lock
         call   mutex_lock
         st     r0, log_len     @bug            # log->len = 0
         la     r15, log_lock
         call   mutex_unlock
         ret

.func mutex_lock
mutex_lock: lock [r15]                  # pthread_mutex_lock(r15)
         ret

.func mutex_unlock
mutex_unlock: unlock [r15]              # pthread_mutex_unlock(r15)
         ret
