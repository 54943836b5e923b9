# pset-apache-log: the Apache 2.0.48 buffered-log atomicity violation
# (PSet Table 1 row 4; the same bug is Bugaboo Table 1 row 11,
# Apache-LogSz). Worker threads append access-log records to one shared
# buffer in ap_buffered_log_writer without a lock: check that the record
# fits (R1: buf->outcnt), take the end of the buffer (R2: idx =
# buf->outcnt), copy the record there, and store the new length (W:
# buf->outcnt = idx + len). Two appends whose R2 .. W windows overlap copy
# to the same place and one length update is lost: records are overwritten
# and the log is corrupt (main prints the wrong length and checksum).
#
# Detector shape: unlocked (happens-before reports the race in every
# run). In a buggy run the later writer's (R2, W) pair is interleaved by
# the other's W (R-W-W), which no correct run shows (AVIO). PSet: the
# earlier W has the other writer's R2 among its readers, or the later W
# has the other's W as predecessor, or an R2 has a remote W between R1 and
# R2 (PSet Table 2: 2 static sites, many dynamic ones); the writers stall
# each other and only rollback over the copy helps (stall No). R1 and R2
# are adjacent so that a whole append can hardly fit between them.
#
# The flush of a full buffer is left out: the buffer holds the whole run's
# log, so R1's overflow test never fails (it is kept as the first read of
# the paper's code).
#
# Tuning: the window is the record copy (LEN words with `work` each)
# between R2 and W, against the writers' think-time `delay`. A longer
# think time gives fewer buggy runs.

.kernel  pset-apache-log
.desc    "worker threads append log records to a shared buffer without a lock; overlapping appends copy to the same offset and lose a length update"
.class   atomicity
.force   "seed=3"
.source  "pset:4 bugaboo:11"
.cores   3
.expect  24 132

.data
outcnt:    .word 0                      # buf->outcnt, in words
           .align 64
outbuf:    .space 64                    # buf->outbuf (LOG_BUFSIZE = 64 words)
           .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         join   r10
         join   r11
         ld     r3, outcnt
         out    r3                      # 2 workers x 4 records x 3 words = 24
         li     r4, 0                   # checksum of the log
         li     r5, 0
cs_loop: shl    r6, r5, 3
         ld     r7, outbuf[r6]
         add    r4, r4, r7
         add    r5, r5, 1
         blt    r5, 64, cs_loop
         out    r4
         exit

.func worker
worker:  li     r2, 0                   # record number
wk_loop: delay  800, 4000                # serve a request
         mul    r3, r1, 4
         add    r3, r3, r2
         add    r3, r3, 1               # the record's id: 1..8
         call   ap_buffered_log_writer
         add    r2, r2, 1
         blt    r2, 4, wk_loop
         exit

.func ap_buffered_log_writer
ap_buffered_log_writer: ld r4, outcnt @bug  # if (len + buf->outcnt > LOG_BUFSIZE) (R1)
         add    r5, r4, 3
         sle    r10, r5, 64
         beqz   r10, lw_full
         ld     r6, outcnt      @bug    # s = &buf->outbuf[buf->outcnt] (R2)
         li     r7, 0                   # memcpy(s, str, len)
lw_copy: add    r8, r6, r7
         shl    r8, r8, 3
         add    r9, r3, r7
         st     r9, outbuf[r8]
         work   8
         add    r7, r7, 1
         blt    r7, 3, lw_copy
         add    r6, r6, 3
         st     r6, outcnt      @bug    # buf->outcnt = idx + len (W)
         ret
lw_full: fail   "log buffer full"       # the flush is left out (see the header)
         ret
