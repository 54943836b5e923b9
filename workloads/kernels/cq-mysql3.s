# cq-mysql3: ConSeq MySQL3 (MySQL-5.0.16, error message; Table 3: ConSeq,
# Race and Atom). The paper does not describe the bug; the recipe asks for
# the same class as Moz2 on a different variable and routine. Here:
# replication's relay-log space accounting. The slave I/O thread appends
# each event to the relay log and adds its size to rli->log_space_total;
# the SQL thread executes the event and, when it purges it, subtracts the
# size. Both read-modify-writes are unlocked. When the SQL thread's read
# and write straddle the I/O thread's update, the I/O thread's addition is
# lost (R-W-W), the total is one event too small, and a later purge
# takes it below zero: purge_relay_logs marks the accounting corrupt and
# the SQL thread reports "Relay log space accounting went negative"
# (sql_print_error): `error`.
#
# Detectors: Race: the two threads' accesses to log_space_total hold no
# lock (the event queue itself is locked). Atom: the SQL thread's read and
# write with the I/O thread's write in between is the unserializable
# R-W-W. ConSeq: the `fail` is the ERR site. Its guard reads the SQL
# thread's own rli->space_corrupt flag (distance 1), which is stored
# (distance 2) under the branch `if (total - size < 0)` that uses the
# log_space_total load of the same statement: a critical read at distance
# 3. In a correct run the SQL thread's own previous store is a feasible
# alternative writer for that load (nothing orders it before the I/O
# thread's store), and its value makes the total negative.
#
# Tuning: the windows are the `work 6` + `delay 0, 10` between each read
# and write; the I/O thread receives an event every `delay 60, 360`.
#
# Noise (custom synchronisation, not the bug), two start-up handshakes:
# - Recognised: start_slave_threads (main) starts both threads and then
#   positions the relay log (init_relay_log_pos): it stores
#   rli->relay_log_pos and then sets rli->inited; the SQL thread spins
#   `while (!rli->inited) cpu_relax();` and then checks the position
#   (`if (rli->relay_log_pos < BIN_LOG_HEADER_SIZE) sql_print_error(...)`,
#   an ERR site, the load at distance 1). With the spin-flag recogniser on,
#   the loop's exit orders the store before the check and ConSeq reports
#   nothing there; with it off, the uninitialised-read extension reports
#   the initial 0 (a false positive).
# - Not recognised: start_slave_threads (main) waits for the I/O thread to
#   connect with a hand-rolled loop that also counts its rounds into a
#   status variable (`while (!mi->slave_running) { ++slave_start_spins;
#   cpu_relax(); }`), then checks DBUG_ASSERT(mi->master_id) (an ASS site,
#   the load at distance 1). The loop writes data memory, so the recogniser
#   rejects it: ConSeq keeps an uninitialised-read false positive on the
#   master_id read even with the recogniser on (the paper's main FP source,
#   unrecognised custom synchronisation).
# All these words are plain unlocked accesses, benign races.

.kernel  cq-mysql3
.desc    "the relay-log space total is updated with unlocked read-modify-writes by the I/O and SQL threads; a lost addition drives it negative and the SQL thread reports an error"
.class   atomicity
.force   "seed=2"
.source  "conseq:MySQL3"
.cores   3

.data
rli_lock:        .word 0                # rli->data_lock: guards the event queue
queued:          .word 0                # events in the relay log
                 .align 64
log_space_total: .word 0                # rli->log_space_total (bytes)
                 .align 64
space_corrupt:   .word 0                # rli->space_corrupt (SQL thread only)
                 .align 64
master_id:       .word 0                # mi->master_id (0: not connected)
slave_running:   .word 0                # mi->slave_running
                 .align 64
relay_log_pos:   .word 0                # rli->relay_log_pos
rli_inited:      .word 0                # rli->inited
                 .align 64
slave_start_spins: .word 0              # a status variable (main only)
                 .align 64

.text
.func main
main:    spawn  r10, io_thread, r0
         spawn  r11, sql_thread, r0
         work   40                      # init_relay_log_pos: open the relay log
         li     r3, 4
         st     r3, relay_log_pos       # rli->relay_log_pos = BIN_LOG_HEADER_SIZE
         li     r3, 1
         st     r3, rli_inited          # rli->inited = 1
ms_wait: ld     r4, slave_running       # while (!mi->slave_running)
         bnez   r4, ms_up
         ld     r3, slave_start_spins   #     ++slave_start_spins
         add    r3, r3, 1
         st     r3, slave_start_spins
         work   30                      #     cpu_relax()
         jmp    ms_wait
ms_up:   ld     r5, master_id           # DBUG_ASSERT(mi->master_id)  (noise, distance 1)
         sne    r6, r5, 0
         assert r6, "start_slave_threads: I/O thread running with no master id"
         join   r10
         join   r11
         exit

.func io_thread
io_thread: work 80                      # safe_connect() to the master
         li     r3, 2
         st     r3, master_id           # mi->master_id = the master's server_id
         li     r3, 1
         st     r3, slave_running       # mi->slave_running = MYSQL_SLAVE_RUN_CONNECT
         li     r2, 0                   # events received
io_loop: delay  60, 360                 # read the next event from the master
         ld     r3, log_space_total @bug # rli->log_space_total += event size
         work   6                       # write the event to the relay log
         delay  0, 10
         add    r3, r3, 64
         st     r3, log_space_total @bug
         lock   rli_lock
         ld     r4, queued
         add    r4, r4, 1
         st     r4, queued
         unlock rli_lock
         add    r2, r2, 1
         blt    r2, 8, io_loop
         exit

.func sql_thread
sql_thread: ld  r3, rli_inited          # while (!rli->inited)
         bnez   r3, sq_up
         work   20                      #     cpu_relax()
         jmp    sql_thread
sq_up:   ld     r4, relay_log_pos       # if (rli->relay_log_pos < 4)  (noise, distance 1)
         bge    r4, 4, sq_start
         fail   "Error initializing relay log position"
sq_start: li    r2, 0                   # events executed
sq_wait: delay  20, 80                  # wait for the next event
         lock   rli_lock
         ld     r4, queued
         unlock rli_lock
         bge    r2, r4, sq_wait
         work   30                      # execute the event
         call   purge_event
         call   report_space
         add    r2, r2, 1
         blt    r2, 8, sq_wait
         exit

.func purge_event
purge_event: ld r5, log_space_total @bug # t = rli->log_space_total - size  (critical read, distance 3)
         work   6                       # unlink the relay log file
         delay  0, 10
         sub    r5, r5, 64
         bge    r5, 0, pe_ok            # if (t < 0)                        (distance 3)
         li     r6, 1
         st     r6, space_corrupt       #     rli->space_corrupt = TRUE     (distance 2)
pe_ok:   st     r5, log_space_total @bug # rli->log_space_total = t
         ret

.func report_space
report_space: ld r7, space_corrupt      # if (rli->space_corrupt)           (distance 1)
         beqz   r7, rs_done
         st     r0, space_corrupt
         fail   "Relay log space accounting went negative"
rs_done: ret
