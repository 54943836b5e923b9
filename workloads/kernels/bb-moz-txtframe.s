# bb-moz-txtframe: the Mozilla-0.9 nsTextFrame multi-variable atomicity
# violation (Bugaboo Table 1 row 8). A text frame maps the part
# [mContentOffset, mContentOffset + mContentLength) of a 16-character text
# node; it is the node's last continuation, so it always maps the rest of
# the text (offset + length = 16). The reflow thread moves the line break,
# switching the frame between (6, 10) and (10, 6), and stores the offset
# and then the length with nothing making the pair atomic. The paint thread
# reads offset then length and asserts the frame ends at the end of the
# text before measuring it. A paint whose two reads straddle a reflow's two
# stores sees a mixed pair ((10, 10) or (6, 6)) and the assert fails.
# Offset and length are written by the reflow and read by the paint in
# every run; only the context of the communication differs (the paint's
# read of the new offset lands in the reflow's context before its store to
# the length, or the paint reads the new length right after reading the
# old offset). The two fields are kept on separate cache lines so that
# line-granularity tracking does not alias the offset store with the
# length load (an edge that would exist only in buggy runs).
# Unrelated activity: the reflow marks the frame dirty and the paint clears
# it, both post to the pres shell's locked event counter (PR_Lock through
# mutex_lock/mutex_unlock, one code point each), and between its two
# stores the reflow reads the width the last paint measured.
# The assert is an NS_ASSERTION, which in a release build only prints a
# warning (`fail`): the paint goes on, measuring no further than the end of
# the text.
#
# Tuning: the bug window is the reflow's load of widths (usually a miss)
# and the `delay` in SetOffsets between the two stores, plus the `work`
# between the paint's two loads; the reflow and paint periods (`delay` in
# reflow and paint) set how often they meet.

.kernel  bb-moz-txtframe
.desc    "reflow stores a text frame's offset and length separately; a paint in between sees a pair that does not end at the end of the text"
.force   "seed=4"                     # this seed shows the bug on the default machine
.class   multivar
.source  "bugaboo:8"
.cores   3
.expect  6 10

.data
f_off:     .word 6                      # frame->mContentOffset
           .align 64
f_len:     .word 10                     # frame->mContentLength
           .align 64
f_dirty:   .word 0                      # frame->mState & NS_FRAME_IS_DIRTY
           .align 64
text:      .word 84, 104, 101, 32, 113, 117, 105, 99
           .word 107, 32, 98, 114, 111, 119, 110, 32   # 16 characters
           .align 64
ps_lock:   .word 0
ps_events: .word 0                      # pres shell events posted
           .align 64
widths:    .space 1                     # the width measured at the last paint
           .align 64

.text
.func main
main:    spawn  r10, reflow, r0
         spawn  r11, paint, r0
         join   r10
         join   r11
         ld     r2, f_off
         out    r2
         ld     r2, f_len
         out    r2
         exit

.func reflow
reflow:  li     r13, 0
         delay  0, 200
r_loop:  delay  150, 450                # period: content changes
         and    r2, r13, 1              # even reflows: (10, 6); odd: (6, 10)
         xor    r4, r2, 1
         mul    r4, r4, 4
         add    r4, r4, 6               # offset
         sub    r5, r0, r4
         add    r5, r5, 16              # length = 16 - offset
         call   SetOffsets
         li     r2, 1
         st     r2, f_dirty             # mark dirty
         call   post_event
         add    r13, r13, 1
         blt    r13, 8, r_loop
         exit

.func SetOffsets
SetOffsets: st  r4, f_off       @bug    # mContentOffset = offset
         ld     r6, widths              # the width measured at the last paint
         delay  5, 20                   # bug window: measure the new line
         st     r5, f_len       @bug    # mContentLength = length
         ret

.func paint
paint:   li     r13, 0
         delay  0, 200
p_loop:  delay  100, 300                # period: paint events
         call   PaintText
         add    r13, r13, 1
         blt    r13, 10, p_loop
         exit

.func PaintText
PaintText: li   r9, 0                   # width
         ld     r2, f_off       @bug    # offset = mContentOffset
         work   4
         ld     r3, f_len       @bug    # length = mContentLength
         add    r4, r2, r3
         beq    r4, 16, pt_ok
         fail   "last text frame does not end at the end of its content"   # NS_ASSERTION
pt_ok:   mov    r6, r2                  # measure text[offset .. min(offset + length, 16))
         blt    r4, 17, pt_loop
         li     r4, 16
pt_loop: bge    r6, r4, pt_done
         shl    r7, r6, 3
         ld     r8, text[r7]
         add    r9, r9, r8
         add    r6, r6, 1
         jmp    pt_loop
pt_done: st     r9, widths
         st     r0, f_dirty             # clear dirty
         call   post_event
         ret

.func post_event
post_event: la  r15, ps_lock
         call   mutex_lock
         ld     r2, ps_events   @cp post        # shell->events++
         add    r2, r2, 1       @cp post
         st     r2, ps_events   @cp post
         la     r15, ps_lock
         call   mutex_unlock
         ret

.func mutex_lock
mutex_lock: lock [r15]                  # PR_Lock(r15)
         ret

.func mutex_unlock
mutex_unlock: unlock [r15]              # PR_Unlock(r15)
         ret
