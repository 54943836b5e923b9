# falcon-bufwriter: Falcon Table 3 "BufWriter" (ConTest; atomicity, paper
# failure rate 14%, Falcon Table 5 bug pattern R1-W2-R1, rank 1).
#
# Two writer threads append 8 records each to a shared buffer under the
# buffer lock: take the write position pos, store the record, advance pos;
# every 8th record hands the buffer to a flusher thread (flush_req and a
# condition variable). The flusher copies the new records to the file
# without the lock: it reads pos (a) to see how far the buffer is filled,
# copies the records up to there, and then reads pos again (c) to advance
# its `flushed` mark. A record appended between (a) and (c) is counted as
# flushed although it was never copied, so the file misses it: main prints the sum of the file's
# records, which falls short of the expected total (wrong_output). The
# flusher writes the mark elsewhere, never pos, so Falcon's window on pos
# holds R1(a)-W2(b)-R1(c), the writer's read and write of pos merging into
# one W2 slot.
#
# Tuning: the bug window is the copy loop (`work 12` a record) between (a)
# and (c) of the first flush; the writers append every `delay 100, 700`
# cycles. (The second flush starts when all 16 records are in, so only the
# first can lose records.)

.kernel  falcon-bufwriter
.desc    "the flusher reads the buffer's write position once to copy records and again to advance its flushed mark; a record appended in between is marked flushed but never written"
.class   atomicity
.source  "falcon:BufWriter"
.cores   4
.force   "seed=5"
.expect  2456

.data
pos:       .word 0                      # next free slot in buf
           .align 64
buf_lock:  .word 0
           .align 64
buf:       .space 16
           .align 64
file:      .space 16
           .align 64
flush_req: .word 0                      # a full buffer waits for the flusher
           .align 64
flush_cv:  .word 0
           .align 64

.text
.func main
main:    li     r2, 100
         spawn  r10, writer, r2
         li     r2, 200
         spawn  r11, writer, r2
         spawn  r12, flusher, r0
         join   r10
         join   r11
         join   r12
         li     r2, 0                   # sum the file: 100..107 + 200..207 = 2456
         li     r3, 0
m_sum:   shl    r4, r2, 3
         ld     r5, file[r4]
         add    r3, r3, r5
         add    r2, r2, 1
         blt    r2, 16, m_sum
         out    r3
         exit

.func writer
writer:  li     r2, 0                   # record number; r1 = writer base
w_loop:  delay  100, 700                # produce the next record
         add    r3, r1, r2              # the record
         lock   buf_lock
         ld     r4, pos         @bug    # (b) slot = pos
         shl    r5, r4, 3
         st     r3, buf[r5]
         add    r4, r4, 1
         st     r4, pos         @bug    # (b) pos = slot + 1
         and    r6, r4, 7
         bnez   r6, w_next              # 8 more records pending: hand them over
         li     r6, 1
         st     r6, flush_req
         csignal flush_cv
w_next:  unlock buf_lock
         add    r2, r2, 1
         blt    r2, 8, w_loop
         exit

.func flusher
flusher: li     r2, 0                   # open the file: clear its 16 slots
f_open:  shl    r4, r2, 3
         st     r0, file[r4]
         add    r2, r2, 1
         blt    r2, 16, f_open
         li     r2, 0                   # flushed: records already in the file
f_wait:  lock   buf_lock
f_wl:    ld     r6, flush_req
         bnez   r6, f_go
         cwait  flush_cv, buf_lock      # Mesa: re-check after waking
         jmp    f_wl
f_go:    st     r0, flush_req
         unlock buf_lock
         ld     r3, pos         @bug    # (a) how far is the buffer filled?
f_copy:  shl    r4, r2, 3
         ld     r5, buf[r4]
         work   12                       # write the record to the file
         st     r5, file[r4]
         add    r2, r2, 1
         blt    r2, r3, f_copy
         ld     r2, pos         @bug    # (c) flushed = pos: re-read
         blt    r2, 16, f_wait
         exit
