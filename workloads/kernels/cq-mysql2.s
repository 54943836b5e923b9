# cq-mysql2: ConSeq MySQL2, the MySQL-4.0.16 anti-atomicity bug of the
# paper's Figure 8 (assertion; Table 3: ConSeq only). Every access to the
# shared log position holds LOG_lock:
#     slave  S1: lock(LOG_lock); pos = my_pos; unlock
#     master S2: lock(LOG_lock); pos += 4; unlock
#     slave  S3: lock(LOG_lock); log_read(pos);
#                assert(req_pos == pos + pos_in_file); unlock
# S3 wants the position the master defined in S2 (the slave asks for the
# event after my_pos). The slave's S1..S3 must NOT be atomic: the program
# is correct only when the master's S2 lands between them. When the master
# is slow in some round, S3 runs before S2, reads the value the slave wrote
# itself in S1, and the sanity check fails. There are ten rounds, so no
# single S2-S1 or S2-S3 order decides the outcome. After its check the
# slave records its new position and sets pos for the next request in the
# same LOG_lock section as S3.
#
# Detectors: Race sees LOG_lock on every access. Atom: the correct order
# S1 -> S2 -> S3 is the unserializable one (W-W-R on pos); the failing
# order S1 -> S3 -> S2 is serial, and the slave's S3 and next S1 share one
# critical section, so no master access fits between them either: Atom has
# nothing to flag. ConSeq: the assert is the ASS site; its condition reads
# pos in the same statement, so that load is a critical read at distance
# 1. In a correct run it reads the master's S2 store; the slave's own S1
# store is a feasible alternative (w' in r's thread, concurrent with w
# because locks give no order), which ConSeq's tester forces in
# same-thread mode.
#
# Tuning: the slave waits `delay 150, 420` for the event (a timed wait on
# update_cond); the master notices the request after `delay 20, 340`.
#
# Noise (custom synchronisation, not the bug), two start-up handshakes:
# - Recognised: the master opens the binary log, stores its
#   log_file_name and then sets the log's open flag; the slave spins
#   `while (!mysql_bin_log.is_open()) cpu_relax();` before its first
#   request and then checks DBUG_ASSERT(log_file_name) (an ASS site, the
#   load at distance 1). With the spin-flag recogniser on, the loop's exit
#   orders the master's store before the check and ConSeq reports nothing
#   there; with it off, the uninitialised-read extension reports the
#   initial NULL (a false positive).
# - Not recognised: start_slave_thread (main) waits for the slave to
#   register its THD in a loop that sleeps through a call
#   (`while (!mi->slave_running) my_sleep(...);`), then checks
#   DBUG_ASSERT(mi->io_thd) (an ASS site, the load at distance 1). The
#   call puts the loop outside the recogniser's spin-flag pattern, so
#   ConSeq keeps an uninitialised-read false positive on the io_thd read
#   even with the recogniser on (the paper's main FP source, unrecognised
#   custom synchronisation).
# All these words are plain unlocked accesses, benign races.

.kernel  cq-mysql2
.desc    "slave sets pos then expects the master to advance it before its locked log_read; if S3 runs before the master's S2 it reads its own value and the position assert fails"
.class   order
.force   "seed=5"
.source  "conseq:MySQL2"
.cores   3

.data
LOG_lock:    .word 0
             .align 64
pos:         .word 0                    # the shared log position
want:        .word 0                    # the slave asked for the next event
             .align 64
pos_in_file: .word 0                    # the slave's IO_CACHE file base (slave only)
my_pos:      .word 0                    # the slave's own position (slave only)
             .align 64
log_file_name: .word 0                  # mysql_bin_log.log_file_name (NULL: not open)
log_open:    .word 0                    # mysql_bin_log.log_state == LOG_OPENED
             .align 64
binlog_name: .space 4                   # the log file's name
             .align 64
io_thd:      .word 0                    # mi->io_thd: the slave's THD
slave_running: .word 0                  # mi->slave_running
             .align 64

.text
.func main
main:    spawn  r10, master, r0
         spawn  r11, slave, r0
ms_wait: ld     r4, slave_running       # while (!mi->slave_running)
         bnez   r4, ms_up
         call   my_sleep                #     my_sleep(...)
         jmp    ms_wait
ms_up:   ld     r5, io_thd              # DBUG_ASSERT(mi->io_thd)  (noise, distance 1)
         sne    r6, r5, 0
         assert r6, "start_slave_thread: slave running with no THD"
         join   r10
         join   r11
         exit

.func my_sleep
my_sleep: work  30
         ret

.func slave
slave:   tid    r3
         st     r3, io_thd              # mi->io_thd = thd
         li     r3, 1
         st     r3, slave_running       # mi->slave_running = 1
sl_open: ld     r3, log_open            # while (!mysql_bin_log.is_open())
         bnez   r3, sl_up
         work   20                      #     cpu_relax()
         jmp    sl_open
sl_up:   ld     r3, log_file_name       # DBUG_ASSERT(log_file_name)  (noise, distance 1)
         sne    r3, r3, 0
         assert r3, "mysql_binlog_send: binary log open with no file name"
         lock   LOG_lock                # the first request
         st     r0, pos         @bug    # S1: pos = my_pos
         li     r4, 1
         st     r4, want                # ask for the next event
         unlock LOG_lock
         li     r2, 0                   # round
s_loop:  delay  150, 420                # wait for the master (timed wait on update_cond)
         call   read_event              # S3, then S1 of the next round
         work   30                      # send the event to the client
         add    r2, r2, 1
         blt    r2, 10, s_loop
         exit

# read_event: r2 = round. S3, and (same LOG_lock section) the next S1.
.func read_event
read_event: ld  r5, my_pos
         add    r5, r5, 4               # req_pos: the event after my_pos
         lock   LOG_lock
         ld     r6, pos         @bug    # S3: log_read(pos)  (critical read, distance 1)
         ld     r7, pos_in_file
         add    r8, r6, r7
         seq    r9, r8, r5              # req_pos == pos + pos_in_file
         assert r9, "log_read: req_pos != pos + pos_in_file"
         st     r5, my_pos              # my_pos = req_pos
         bge    r2, 9, re_last
         st     r5, pos         @bug    # S1: pos = my_pos (the next request)
         li     r4, 1
         st     r4, want
re_last: unlock LOG_lock
         ret

.func master
master:  work   60                      # MYSQL_LOG::open: create the binary log
         la     r3, binlog_name
         st     r3, log_file_name       # log_file_name = name
         li     r3, 1
         st     r3, log_open            # log_state = LOG_OPENED
         li     r2, 0                   # events appended
m_loop:  delay  20, 340                 # the master's event loop
         lock   LOG_lock
         ld     r3, want
         beqz   r3, m_idle
         ld     r4, pos         @bug    # S2: pos += 4 (append the event)
         add    r4, r4, 4
         st     r4, pos         @bug
         st     r0, want
         unlock LOG_lock
         add    r2, r2, 1
         blt    r2, 10, m_loop
         exit
m_idle:  unlock LOG_lock
         jmp    m_loop
