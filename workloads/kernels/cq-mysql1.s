# cq-mysql1: ConSeq MySQL1, the MySQL-4.0.12 binlog bug as ConSeq's
# Table 2 recipe has it (missing log; Table 3: ConSeq and Atom, not Race).
# The rotator (MYSQL_LOG::new_file) closes the binlog, setting log_type to
# LOG_CLOSED (0), and reopens it, setting log_type back to LOG_BIN (3), in
# two separate LOCK_log sections. The inserter (MYSQL_LOG::write, called
# from mysql_insert) reads log_type under LOCK_log too, so every access is
# locked and there is no data race; but an insert whose read falls between
# the close and the reopen sees LOG_CLOSED and silently skips its binlog
# entry. The entries written to the binlog are the program's output
# (BinLog::Write is ConSeq's user-listed output routine), so a skipped
# entry is a missing output: `wrong_output` against the 20 expected rows.
#
# Detectors: the close -> insert read -> reopen interleaving is the
# single-variable W-R-W pattern on log_type (the rotator's two writes are
# in different critical sections), so Atom predicts it; Race sees a common
# lock on every access. ConSeq: the `out` is the OUT site, control
# dependent on the branch that tests log_type, so the log_type read is a
# critical read at distance 1; in a correct run it reads 3 (the reopen or
# the initial value) and the close store (0) is a feasible alternative.
# Daikon-style invariant: the read always sees 3 (LOG_BIN) in correct runs.
#
# This is the ConSeq reading; the PSet/Bugaboo reading of the same bug (the
# test of log_type outside LOCK_log, a data race) is `mysql-binlog`.
#
# Tuning: the bug window is `delay 5, 30` between log_close and log_open in
# rotator; an insert comes every `work 60` + `delay 0, 20` + the append.

.kernel  cq-mysql1
.desc    "log rotation closes then reopens the binlog in two LOCK_log sections; an insert whose locked read of log_type falls in between skips its entry"
.class   atomicity
.force   "seed=7"
.source  "conseq:MySQL1"
.cores   3
.expect  100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119

.data
LOCK_log:  .word 0
           .align 64
log_type:  .word 3                      # LOG_BIN = 3, LOG_CLOSED = 0
           .align 64
log_len:   .word 0                      # entries in the current log file
           .align 64
log_buf:   .space 32                    # the current log file
           .align 64
table:     .space 32                    # the rows the inserter writes
           .align 64

.text
.func main
main:    spawn  r10, rotator, r0
         spawn  r11, inserter, r0
         join   r10
         join   r11
         exit

.func inserter
inserter: li    r2, 0                   # insert number
i_loop:  work   60                      # parse and execute the INSERT
         delay  0, 20
         shl    r3, r2, 3
         add    r4, r2, 100             # the row
         st     r4, table[r3]
         call   binlog_write
         add    r2, r2, 1
         blt    r2, 20, i_loop
         exit

.func binlog_write
binlog_write: lock LOCK_log
         ld     r5, log_type    @bug    # if (log_type == LOG_CLOSED) skip  (critical read, distance 1)
         unlock LOCK_log
         beqz   r5, bw_skip
         lock   LOCK_log
         ld     r6, log_len
         and    r7, r6, 31
         shl    r7, r7, 3
         st     r4, log_buf[r7]         # append the entry
         add    r6, r6, 1
         st     r6, log_len
         unlock LOCK_log
         out    r4                      # BinLog::Write: the OUT site
bw_skip: ret

.func rotator
rotator: delay  200, 1600               # the log fills up some time during the inserts
         call   log_close
         delay  5, 30                   # bug window: close the old file, create the new one
         call   log_open
         exit

.func log_close
log_close: lock LOCK_log
         st     r0, log_type    @bug    # log_type = LOG_CLOSED
         unlock LOCK_log
         ret

.func log_open
log_open: li    r9, 3
         lock   LOCK_log
         st     r0, log_len             # the new file is empty
         st     r9, log_type    @bug    # log_type = LOG_BIN
         unlock LOCK_log
         ret
