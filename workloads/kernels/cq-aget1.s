# cq-aget1: ConSeq Aget1 (Aget-0.4.1, wrong output; Table 3: missed by
# ConSeq, Race and Atom; found only by ConSeq-Daikon). The multi-variable
# atomicity violation of the paper's Figure 9, with Aget's default of 10
# worker threads plus the signal (save-log) thread: 11 threads and 21
# shared variables (wthread[0..9].{offset, bwritten} and bwritten).
#     worker i:  S1: wthread[i].offset += dw (and wthread[i].bwritten += dw)
#                S3: lock(bwritten_mutex); bwritten += dw; unlock
#     signal:    S2: memcpy(dst.wthread, wthread, ...)
#                S4: dst.bwritten = bwritten
# When a worker's S1 and S3 fall on different sides of the handler's S2..S4
# the saved log is inconsistent: its offsets and its byte count disagree.
# Aget resumes from that log and the file comes out wrong. Here the
# handler thread saves the log, writes it, reads it back and resumes the
# way Aget's Resume.c does, then prints the bytes the download will have
# written in total, bwritten + sum(segment end - offset), which is 6000 for
# a consistent log: `wrong_output` otherwise.
#
# Race-freedom: real Aget reads wthread[] in the handler without a lock;
# ConSeq's Table 3 says Race misses Aget1, so here S1 and S2 also hold
# bwritten_mutex (each statement in its own critical section). No two
# conflicting accesses lack a common lock.
#
# Detectors: Race: every shared access holds bwritten_mutex. Atom: S1 and
# S3 are read-modify-writes inside one critical section each, so the
# handler's reads fall between a local write and a local read (W-R-R,
# serializable); the bug needs two variables. ConSeq at MaxDistance <= 5:
# the output's backward slice reaches the shared reads of S2 and S4 only
# at distance 6: the argument load (1), then five store->load edges through
# the total, the resumed state, the header, the log file and the saved log
# (2..6), all in private, statically addressed memory. Every read within
# distance 5 is thread-private, so it reports nothing (the paper: long
# propagation). The Daikon invariant just
# before S4, bwritten == sum(wthread[].bwritten), is the INV site that
# lets ConSeq-Daikon find it (and a worker between S1 and S3 at S4 breaks
# it, the paper's second, new Aget bug).
#
# Tuning: the handler's Ctrl-C comes after `delay 1000, 30000`; each worker
# receives a chunk every `delay 2000, 8000` and updates bwritten `work 30`
# + `delay 0, 60` after the offsets. That gap matters: with none, a worker
# usually re-takes the mutex it has just released before the handler can,
# and the rate falls to about 6%.

.kernel  cq-aget1
.desc    "Aget's save-log handler copies wthread[] and bwritten in separate critical sections; a worker update between them makes the saved log inconsistent and the resumed download wrong"
.class   multivar
.force   "seed=1"
.source  "conseq:Aget1"
.cores   12
.expect  6000

.data
bwritten_mutex: .word 0
             .align 64
bwritten:    .word 0                 # total bytes written by all threads
             .align 64
# wthread[i] = {offset, bwritten}; offset starts at the segment start i*1000
wthread:
             .word 0
             .word 0
             .word 1000
             .word 0
             .word 2000
             .word 0
             .word 3000
             .word 0
             .word 4000
             .word 0
             .word 5000
             .word 0
             .word 6000
             .word 0
             .word 7000
             .word 0
             .word 8000
             .word 0
             .word 9000
             .word 0
             .align 64
# the signal handler's private state: the saved log (dst), the log file,
# the header read back from it, and the resumed download state
dst:         .space 21
             .align 64
logf:        .space 21
             .align 64
hdr:         .space 21
             .align 64
rs:          .space 21
             .align 64
rtotal:      .word 0
             .align 64

.text
.func main
main:    li     r2, 0
m_spawn: spawn  r3, worker, r2
         add    r2, r2, 1
         blt    r2, 10, m_spawn
         spawn  r12, signal_thread, r0
         join   r12
         li     r2, 1
m_join:  join   r2
         add    r2, r2, 1
         blt    r2, 11, m_join
         exit

# worker: r1 = i (Download.c http_get)
.func worker
worker:  shl    r2, r1, 4               # &wthread[i] - wthread
         li     r3, 0                   # chunks
w_loop:  delay  2000, 8000              # recv()
         work   20                      # pwrite() at wthread[i].offset
         lock   bwritten_mutex
         ld     r4, wthread[r2]
         add    r4, r4, 100
         st     r4, wthread[r2]  @bug   # S1: wthread[i].offset += dw
         add    r5, r2, 8
         ld     r6, wthread[r5]
         add    r6, r6, 100
         st     r6, wthread[r5]  @bug   #     wthread[i].bwritten += dw
         unlock bwritten_mutex
         work   30                      # update the progress bar
         delay  0, 60
         lock   bwritten_mutex
         ld     r7, bwritten
         add    r7, r7, 100
         st     r7, bwritten     @bug   # S3: bwritten += dw
         unlock bwritten_mutex
         add    r3, r3, 1
         blt    r3, 6, w_loop
         exit

# signal_thread: SIGINT arrives; save_log (Resume.c), then the resumed run.
.func signal_thread
signal_thread: delay 1000, 30000        # the user presses Ctrl-C
         call   save_log
         call   write_log
         call   read_log
         call   resume_setup
         call   resume_total
         ld     r2, rtotal              # distance 1 (the argument)
         out    r2                      # the OUT site: bytes of the finished download
         exit

.func save_log
save_log: lock  bwritten_mutex
         ld     r3, wthread+0   @bug   # S2: memcpy: wthread[0].offset  (distance 6)
         st     r3, dst+0
         ld     r3, wthread+8   @bug   # S2: memcpy: wthread[0].bwritten (not in the output slice)
         st     r3, dst+8
         ld     r3, wthread+16  @bug   # S2: memcpy: wthread[1].offset  (distance 6)
         st     r3, dst+16
         ld     r3, wthread+24  @bug   # S2: memcpy: wthread[1].bwritten (not in the output slice)
         st     r3, dst+24
         ld     r3, wthread+32  @bug   # S2: memcpy: wthread[2].offset  (distance 6)
         st     r3, dst+32
         ld     r3, wthread+40  @bug   # S2: memcpy: wthread[2].bwritten (not in the output slice)
         st     r3, dst+40
         ld     r3, wthread+48  @bug   # S2: memcpy: wthread[3].offset  (distance 6)
         st     r3, dst+48
         ld     r3, wthread+56  @bug   # S2: memcpy: wthread[3].bwritten (not in the output slice)
         st     r3, dst+56
         ld     r3, wthread+64  @bug   # S2: memcpy: wthread[4].offset  (distance 6)
         st     r3, dst+64
         ld     r3, wthread+72  @bug   # S2: memcpy: wthread[4].bwritten (not in the output slice)
         st     r3, dst+72
         ld     r3, wthread+80  @bug   # S2: memcpy: wthread[5].offset  (distance 6)
         st     r3, dst+80
         ld     r3, wthread+88  @bug   # S2: memcpy: wthread[5].bwritten (not in the output slice)
         st     r3, dst+88
         ld     r3, wthread+96  @bug   # S2: memcpy: wthread[6].offset  (distance 6)
         st     r3, dst+96
         ld     r3, wthread+104 @bug   # S2: memcpy: wthread[6].bwritten (not in the output slice)
         st     r3, dst+104
         ld     r3, wthread+112 @bug   # S2: memcpy: wthread[7].offset  (distance 6)
         st     r3, dst+112
         ld     r3, wthread+120 @bug   # S2: memcpy: wthread[7].bwritten (not in the output slice)
         st     r3, dst+120
         ld     r3, wthread+128 @bug   # S2: memcpy: wthread[8].offset  (distance 6)
         st     r3, dst+128
         ld     r3, wthread+136 @bug   # S2: memcpy: wthread[8].bwritten (not in the output slice)
         st     r3, dst+136
         ld     r3, wthread+144 @bug   # S2: memcpy: wthread[9].offset  (distance 6)
         st     r3, dst+144
         ld     r3, wthread+152 @bug   # S2: memcpy: wthread[9].bwritten (not in the output slice)
         st     r3, dst+152
         unlock bwritten_mutex
         work   10                      # fill in the rest of the header
         lock   bwritten_mutex
         ld     r3, bwritten     @bug   # S4: dst.bwritten = bwritten  (distance 6)
         st     r3, dst+160
         unlock bwritten_mutex
         ret

.func write_log
write_log: work 10                      # write(fd, &dst, sizeof dst)  (distance 5)
         ld     r3, dst+0
         st     r3, logf+0
         ld     r3, dst+16
         st     r3, logf+16
         ld     r3, dst+32
         st     r3, logf+32
         ld     r3, dst+48
         st     r3, logf+48
         ld     r3, dst+64
         st     r3, logf+64
         ld     r3, dst+80
         st     r3, logf+80
         ld     r3, dst+96
         st     r3, logf+96
         ld     r3, dst+112
         st     r3, logf+112
         ld     r3, dst+128
         st     r3, logf+128
         ld     r3, dst+144
         st     r3, logf+144
         ld     r3, dst+160
         st     r3, logf+160
         ret

.func read_log
read_log: work 10                       # resume: read(fd, &h, sizeof h)  (distance 4)
         ld     r3, logf+0
         st     r3, hdr+0
         ld     r3, logf+16
         st     r3, hdr+16
         ld     r3, logf+32
         st     r3, hdr+32
         ld     r3, logf+48
         st     r3, hdr+48
         ld     r3, logf+64
         st     r3, hdr+64
         ld     r3, logf+80
         st     r3, hdr+80
         ld     r3, logf+96
         st     r3, hdr+96
         ld     r3, logf+112
         st     r3, hdr+112
         ld     r3, logf+128
         st     r3, hdr+128
         ld     r3, logf+144
         st     r3, hdr+144
         ld     r3, logf+160
         st     r3, hdr+160
         ret

.func resume_setup
resume_setup: work 10                   # offsets and bwritten from h  (distance 3)
         ld     r3, hdr+0
         st     r3, rs+0
         ld     r3, hdr+16
         st     r3, rs+16
         ld     r3, hdr+32
         st     r3, rs+32
         ld     r3, hdr+48
         st     r3, rs+48
         ld     r3, hdr+64
         st     r3, rs+64
         ld     r3, hdr+80
         st     r3, rs+80
         ld     r3, hdr+96
         st     r3, rs+96
         ld     r3, hdr+112
         st     r3, rs+112
         ld     r3, hdr+128
         st     r3, rs+128
         ld     r3, hdr+144
         st     r3, rs+144
         ld     r3, hdr+160
         st     r3, rs+160
         ret

# resume_total: rtotal = bwritten + sum(segment end - offset)   (distance 2)
.func resume_total
resume_total: ld r4, rs+160
         ld     r5, rs+0
         li     r6, 600
         sub    r6, r6, r5
         add    r4, r4, r6
         ld     r5, rs+16
         li     r6, 1600
         sub    r6, r6, r5
         add    r4, r4, r6
         ld     r5, rs+32
         li     r6, 2600
         sub    r6, r6, r5
         add    r4, r4, r6
         ld     r5, rs+48
         li     r6, 3600
         sub    r6, r6, r5
         add    r4, r4, r6
         ld     r5, rs+64
         li     r6, 4600
         sub    r6, r6, r5
         add    r4, r4, r6
         ld     r5, rs+80
         li     r6, 5600
         sub    r6, r6, r5
         add    r4, r4, r6
         ld     r5, rs+96
         li     r6, 6600
         sub    r6, r6, r5
         add    r4, r4, r6
         ld     r5, rs+112
         li     r6, 7600
         sub    r6, r6, r5
         add    r4, r4, r6
         ld     r5, rs+128
         li     r6, 8600
         sub    r6, r6, r5
         add    r4, r4, r6
         ld     r5, rs+144
         li     r6, 9600
         sub    r6, r6, r5
         add    r4, r4, r6
         st     r4, rtotal
         ret
