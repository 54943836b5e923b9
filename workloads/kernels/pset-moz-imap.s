# pset-moz-imap: the Mozilla nsImapProtocol.cpp order violation (PSet
# Figure 1, Table 1 row 13). The IMAP thread posts an event to the UI
# thread (PostEvent, under the event-queue lock) and only afterwards
# creates the input stream, m_inputStream = obj (W). The UI thread, woken
# by the event, checks m_inputStream (R) and starts AsyncRead only if it is
# set. The post -> wait edge orders everything before PostEvent, not W, so
# a UI thread that gets there first sees null, drops the read, and the IMAP
# thread waits for data forever (every thread blocked: hang).
#
# m_inputStream has no initialising store (BSS zero), so in a buggy run R
# has no predecessor; PSet's first failing check is at W (predecessor R is
# not in PSet(W) = {}). R has already happened, so only rollback helps
# (PSet Table 2: stall No, window 821).
#
# Tuning: the window is the IMAP thread's `delay` between PostEvent and W
# against the UI thread's `delay` between waking and R. A longer UI-side
# delay gives fewer buggy runs.

.kernel  pset-moz-imap
.desc    "the IMAP thread posts the event before it sets m_inputStream; the UI thread handles the event first, finds no stream, drops the read and the IMAP thread waits forever"
.class   order
.force   "seed=3"
.source  "pset:13"
.cores   3
.expect  5

.data
m_inputStream: .word 0                  # nsImapProtocol::m_inputStream (BSS zero)
           .align 64
qlock:     .word 0                      # the event queue's monitor
event:     .word 0                      # a posted event
dataDone:  .word 0                      # the UI thread has read the data
           .align 64
ev_cv:     .word 0
           .align 64
done_cv:   .word 0
           .align 64
readsum:   .word 0
           .align 64

.text
.func main
main:    spawn  r10, imap_thread, r0
         spawn  r11, ui_thread, r0
         join   r10
         join   r11
         ld     r2, readsum
         out    r2
         exit

.func imap_thread
imap_thread: delay 20, 80               # connect, build the request
         call   post_event
         delay  20, 140                 # the rest of SetupWithUrl
         alloc  r4, 2                   # the input stream
         li     r5, 5
         st     r5, [r4]                # with data in it
         st     r4, m_inputStream @bug  # m_inputStream = obj (W)
         call   wait_for_data
         exit

.func post_event
post_event: lock qlock
         li     r3, 1
         st     r3, event
         csignal ev_cv
         unlock qlock
         ret

.func wait_for_data
wait_for_data: lock qlock
wd_loop: ld     r6, dataDone
         bnez   r6, wd_out
         cwait  done_cv, qlock
         jmp    wd_loop
wd_out:  unlock qlock
         ret

.func ui_thread
ui_thread: call wait_event
         delay  100, 400                # dispatch the event
         ld     r2, m_inputStream @bug  # if (m_inputStream) (R)
         beqz   r2, ui_out              # no stream: the read is never started
         call   async_read
ui_out:  exit

.func wait_event
wait_event: lock qlock
we_loop: ld     r3, event
         bnez   r3, we_out
         cwait  ev_cv, qlock
         jmp    we_loop
we_out:  unlock qlock
         ret

.func async_read
async_read: ld  r4, [r2]                # read the stream
         st     r4, readsum
         lock   qlock
         li     r5, 1
         st     r5, dataDone
         csignal done_cv
         unlock qlock
         ret
