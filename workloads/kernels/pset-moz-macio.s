# pset-moz-macio: the Mozilla macio.c / macthr.c order violation (PSet
# Table 1 row 12, from Lu et al.). Before an I/O call, the I/O thread sets
# io_pending = TRUE (W1) and then sleeps until the completion callback
# wakes it. The callback (an asynchronous notifier, modelled as a thread
# that fires after a random delay) reads io_pending (R) and wakes the
# thread only if it is set. Nothing orders W1 before R: a callback that
# fires first sees FALSE, skips the wake-up, and the I/O thread sleeps
# forever (every thread blocked: hang). Main initialised io_pending to
# FALSE (W0) when it created the thread record.
#
# Same shape as pset-moz-nsthread: W0 is a remote write by a thread that
# never touches io_pending again, so PSet checks R in a buggy run and
# stalling the callback lets the I/O thread reach W1 (stall Yes).
#
# Tuning: the window is the I/O thread's `delay` (issuing the read) before
# W1 against the callback's `delay`. A later callback gives fewer buggy
# runs.

.kernel  pset-moz-macio
.desc    "the I/O completion callback reads io_pending before the I/O thread sets it, skips the wake-up, and the I/O thread waits forever"
.class   order
.force   "seed=5"
.source  "pset:12"
.cores   3
.expect  1

.data
io_pending: .word 0                     # thread->io_pending
           .align 64
io_lock:   .word 0                      # the thread's io_lock
io_done:   .word 0
           .align 64
io_cv:     .word 0                      # the thread's io_cv
           .align 64

.text
.func main
main:    st     r0, io_pending          # _MD_InitThread: io_pending = FALSE (W0)
         spawn  r10, io_thread, r0
         spawn  r11, callback, r0
         join   r10
         join   r11
         ld     r2, io_done
         out    r2
         exit

.func io_thread
io_thread: delay 20, 120                # set up the parameter block, issue the read
         li     r3, 1
         st     r3, io_pending  @bug    # io_pending = TRUE (W1)
         call   wait_on_io
         exit

.func wait_on_io
wait_on_io: lock io_lock                # WaitOnThisThread
wo_loop: ld     r4, io_done
         bnez   r4, wo_out
         cwait  io_cv, io_lock
         jmp    wo_loop
wo_out:  unlock io_lock
         ret

.func callback
callback: delay 50, 220                 # the I/O completes
         ld     r2, io_pending  @bug    # if (thread->io_pending) (R)
         beqz   r2, cb_out              # not pending: the notify is skipped
         call   done_waiting
cb_out:  exit

.func done_waiting
done_waiting: lock io_lock              # DoneWaitingOnThisThread
         li     r5, 1
         st     r5, io_done
         csignal io_cv
         unlock io_lock
         ret
