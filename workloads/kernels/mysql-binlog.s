# mysql-binlog: the MySQL-4.0.12 binlog atomicity violation (PSet Table 2
# row 5, Bugaboo Table 1 row 10, ConSeq MySQL1). The rotator
# (MYSQL_LOG::new_file) holds LOCK_log while it closes the log, setting
# log_type to LOG_CLOSED (0), and reopens it, setting log_type back to
# LOG_BIN (3). The inserter (MYSQL_LOG::write) tests is_open() -- log_type
# != LOG_CLOSED -- before it takes LOCK_log, so an insert whose test falls
# between close and reopen skips its binlog entry: the `fail` fires and
# main prints fewer than 20 logged entries.
#
# Tuning: the bug window is the `delay` between log_close and log_open in
# rotator (the time to close the old file and create the new one); the
# chance an insert's test lands in it is roughly that window over the
# insert period (the `work` and `delay` in inserter). The rotator's first
# `delay` places the rotation somewhere inside the inserts.

.kernel  mysql-binlog
.desc    "log rotation closes then reopens the binlog under LOCK_log; an insert that tests log_type without the lock in between skips its entry"
.class   atomicity
.force   "seed=14"                     # this seed shows the bug on the default machine
.source  "pset:5 bugaboo:10"
.cores   3
.expect  20

.data
log_type:  .word 3                      # LOG_BIN = 3, LOG_CLOSED = 0
           .align 64
LOCK_log:  .word 0
log_len:   .word 0                      # entries in the current log file
log_total: .word 0                      # entries in every log file
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
         ld     r2, log_total
         out    r2
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
binlog_write: ld r5, log_type   @bug    # is_open(), tested without LOCK_log
         beqz   r5, bw_skip
         lock   LOCK_log
         ld     r6, log_len
         and    r7, r6, 31
         shl    r7, r7, 3
         st     r4, log_buf[r7]         # append the entry
         add    r6, r6, 1
         st     r6, log_len
         fadd   r8, log_total, 1
         unlock LOCK_log
         ret
bw_skip: fail   "binlog entry skipped"
         ret

.func rotator
rotator: delay  200, 1600               # the log fills up some time during the inserts
         lock   LOCK_log
         call   log_close
         delay  5, 30                   # bug window: close the old file, create the new one
         call   log_open
         unlock LOCK_log
         exit

.func log_close
log_close: st   r0, log_type    @bug    # log_type = LOG_CLOSED
         ret

.func log_open
log_open: st    r0, log_len             # the new file is empty
         li     r9, 3
         st     r9, log_type    @bug    # log_type = LOG_BIN
         ret
