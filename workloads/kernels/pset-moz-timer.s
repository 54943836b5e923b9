# pset-moz-timer: the Mozilla TimerThread.cpp order violation (PSet
# Figure 5, Table 1 row 15). Main starts the timer thread and later calls
# Shutdown(): under the monitor it sets mProcessing = FALSE (Wp) and
# notifies only if the timer thread is waiting (Rw mWaiting), then joins
# it. The timer thread's Run() sets mProcessing = TRUE (Wp') under the same
# monitor and loops: process timers, mWaiting = TRUE (Ww), wait, mWaiting =
# FALSE. If Shutdown runs before Run starts, Run overwrites the FALSE,
# waits, and is never notified: main's join and the wait block forever
# (hang).
#
# Detector shape: every access holds the monitor (no race for
# happens-before or lockset); the bug is an order violation, not an
# atomicity one (AVIO sees no unserializable triple at a learned pair).
# PSet fails twice: at Wp' (predecessor Wp never seen) and at Ww
# (predecessor Rw not in PSet(Ww)); main never touches these words again,
# so stalling the timer thread (which holds the monitor) cannot help:
# rollback only (PSet Table 2: 2 static violations, stall No).
#
# Tuning: the window is the timer thread's start-up `delay` against the
# `delay` before main's Shutdown. A later Shutdown gives fewer buggy runs.

.kernel  pset-moz-timer
.desc    "Shutdown sets mProcessing = FALSE and skips the notify before the timer thread's Run has started; Run sets it TRUE again and waits forever"
.class   order
.force   "seed=1"
.source  "pset:15"
.cores   2
.expect  1

.data
mon:       .word 0                      # TimerThread's monitor (mLock)
mProcessing: .word 0
mWaiting:  .word 0
fired:     .word 0                      # timer rounds processed
           .align 64
mCondVar:  .word 0
           .align 64

.text
.func main
main:    spawn  r10, timer_thread, r0   # TimerThread::Init: start the thread
         delay  40, 400                 # the application runs, then quits
         call   shutdown
         join   r10                     # mThread->Shutdown(): join
         ld     r2, fired
         out    r2
         exit

.func shutdown
shutdown: lock  mon
         st     r0, mProcessing @bug    # mProcessing = PR_FALSE (Wp)
         ld     r3, mWaiting    @bug    # if (mWaiting) (Rw)
         beqz   r3, sd_out
         csignal mCondVar               # PR_NotifyCondVar
sd_out:  unlock mon
         ret

.func timer_thread
timer_thread: delay 60, 200             # thread start-up
         call   run
         exit

.func run
run:     lock   mon
         li     r2, 1
         st     r2, mProcessing @bug   # mProcessing = PR_TRUE (Wp')
r_loop:  ld     r3, mProcessing         # while (mProcessing)
         beqz   r3, r_out
         ld     r4, fired               # fire the due timers
         add    r4, r4, 1
         st     r4, fired
         work   20
         st     r2, mWaiting    @bug    # mWaiting = PR_TRUE (Ww)
         cwait  mCondVar, mon           # PR_WaitCondVar
         st     r0, mWaiting            # mWaiting = PR_FALSE
         jmp    r_loop
r_out:   unlock mon
         ret
