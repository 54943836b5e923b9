# bb-moz-macnetio: the Mozilla-0.9 Mac network I/O multi-variable atomicity
# violation (Bugaboo Table 1 row 7), a check-then-act on two fields. A
# socket stream has a `valid` flag and a `data` pointer to its receive
# buffer. The network thread's read callback tests s->valid and, if set,
# goes on to fetch s->data and copy from it. The UI thread cancels and
# reopens the connection: close clears valid and then sets data to the
# INVALID (null) pointer; open installs a fresh filled buffer and then sets
# valid. Nothing makes the callback's test and its use atomic with the
# close, so a close between them hands the callback a null buffer and the
# run crashes.
# Open and close go through the same setters (stream_set_valid,
# stream_set_data), so the setter → callback communication on both fields
# happens in every run; only the context in which the callback reads data
# (right after a remote close) is new in buggy runs.
# Unrelated activity: the callback adds the bytes it copies to a shared
# counter and posts a "data available" event to a locked event queue that
# the UI thread drains.
#
# Tuning: the bug window is the `delay` in net_read_callback between the
# test and the fetch; the callbacks' period (`delay` in net_thread) and the
# UI thread's cancel period set how often a close can fall in it.

.kernel  bb-moz-macnetio
.desc    "a read callback tests the stream's valid flag, then fetches its data pointer; a close in between makes it copy from the INVALID (null) pointer"
.force   "seed=3"                     # this seed shows the bug on the default machine
.class   multivar
.source  "bugaboo:7"
.cores   3
.expect  5

.data
s_valid:   .word 0                      # stream->valid
           .align 64
s_data:    .word 0                      # stream->data: receive buffer or INVALID (0)
           .align 64
n_bytes:   .word 0                      # bytes delivered to the page
           .align 64
ev_lock:   .word 0
ev_count:  .word 0                      # pending "data available" events
           .align 64
copied:    .space 4                     # the page's copy of the last read
           .align 64
n_opens:   .word 0                      # connections opened (UI thread only)
           .align 64

.text
.func main
main:    spawn  r10, ui_thread, r0
         spawn  r11, net_thread, r0
         join   r10
         join   r11
         ld     r2, n_opens
         out    r2                      # connections opened
         exit

.func ui_thread
ui_thread: call stream_open             # connect
         li     r13, 0
u_loop:  delay  300, 900                # the user keeps reloading
         call   stream_close            # cancel the load
         call   drain_events
         delay  20, 60                   # reconnect
         call   stream_open
         add    r13, r13, 1
         blt    r13, 4, u_loop
         exit

.func stream_open
stream_open: alloc r4, 4                # a fresh receive buffer
         li     r5, 0
so_fill: shl    r6, r5, 3
         add    r6, r6, r4
         add    r7, r5, 1
         st     r7, [r6]                # received bytes
         add    r5, r5, 1
         blt    r5, 4, so_fill
         call   stream_set_data         # s->data = buf
         li     r4, 1
         call   stream_set_valid        # s->valid = 1
         ld     r2, n_opens
         add    r2, r2, 1
         st     r2, n_opens
         ret

.func stream_close
stream_close: li r4, 0
         call   stream_set_valid        # s->valid = 0
         li     r4, 0
         call   stream_set_data         # s->data = INVALID
         ret

.func stream_set_valid
stream_set_valid: st r4, s_valid @bug
         ret

.func stream_set_data
stream_set_data: st r4, s_data  @bug
         ret

.func drain_events
drain_events: la r15, ev_lock
         call   mutex_lock
         ld     r2, ev_count    @cp ev_take     # events = q->count; q->count = 0
         st     r0, ev_count    @cp ev_take
         la     r15, ev_lock
         call   mutex_unlock
         ret

.func net_thread
net_thread: li  r13, 0
         delay  100, 200
n_loop:  call   net_read_callback
         delay  60, 200                 # wait for the next packet
         add    r13, r13, 1
         blt    r13, 20, n_loop
         exit

.func net_read_callback
net_read_callback: ld r2, s_valid @bug  # if (s->valid)
         beqz   r2, nr_done
         delay  5, 30                   # bug window: check the read size
         ld     r3, s_data      @bug    # buf = s->data
         ld     r4, [r3]                # copy from buf (null when INVALID)
         ld     r5, [r3+8]
         st     r4, copied
         st     r5, copied+8
         add    r6, r4, r5
         fadd   r7, n_bytes, r6         # bytes delivered
         call   post_event
nr_done: ret

.func post_event
post_event: la  r15, ev_lock
         call   mutex_lock
         ld     r2, ev_count    @cp ev_post     # q->count++
         add    r2, r2, 1       @cp ev_post
         st     r2, ev_count    @cp ev_post
         la     r15, ev_lock
         call   mutex_unlock
         ret

.func mutex_lock
mutex_lock: lock [r15]                  # PR_Lock(r15)
         ret

.func mutex_unlock
mutex_unlock: unlock [r15]              # PR_Unlock(r15)
         ret
