# pset-moz-nsthread: the Mozilla nsthread.cpp order violation (PSet Table 1
# row 11, from Lu et al.). The nsThread constructor sets mThread = nsnull
# (main, W0). A manager thread then runs nsThread::Init: PR_CreateThread
# builds the PRThread, starts the new thread and only returns the handle
# afterwards, so Init stores mThread = handle (W1) some time after the new
# thread is already running. The new thread's nsThread::Main reads mThread
# (R) and dereferences it; a read before W1 gets nsnull and the run crashes
# on the null page.
#
# Why three threads: W0 must be a remote write whose thread never touches
# mThread again, so that R's immediate predecessor in a buggy run is W0
# (PSet checks R and a stall lets Init reach W1: the paper's "stall Yes").
# If the thread that does W1 also did W0, PSet's condition (c) and AVIO's
# W0-R-W1 triple would change the row (see docs/pset.md).
#
# Tuning: the bug window is the `delay` in init_thread between the spawn
# and W1 (the rest of PR_CreateThread) against the new thread's start-up
# `delay` in thread_main. A longer start-up gives fewer buggy runs.

.kernel  pset-moz-nsthread
.desc    "nsThread::Init stores mThread only after PR_CreateThread has started the thread, whose Main may read the still-null mThread and crash"
.class   order
.force   "seed=2"
.source  "pset:11"
.cores   3
.expect  7

.data
mThread:   .word 0                      # nsThread::mThread
           .align 64
mState:    .word 0                      # what nsThread::Main read from the PRThread
           .align 64

.text
.func main
main:    st     r0, mThread             # nsThread::nsThread(): mThread = nsnull (W0)
         spawn  r10, init_thread, r0    # the thread that calls nsThread::Init
         join   r10
         ld     r2, mState
         out    r2
         exit

.func init_thread
init_thread: call nsthread_init
         join   r11                     # nsThread::Join at shutdown
         exit

.func nsthread_init
nsthread_init: alloc r4, 4              # PR_CreateThread: the PRThread
         li     r5, 7
         st     r5, [r4+8]              # PRThread state = running
         spawn  r11, thread_main, r4    # the new thread starts here
         delay  20, 120                 # the rest of PR_CreateThread before it returns
         st     r4, mThread     @bug    # mThread = PR_CreateThread(...) (W1)
         ret

.func thread_main
thread_main: delay 40, 200              # thread start-up
         ld     r2, mThread     @bug    # nsThread::Main: self->mThread (R)
         ld     r3, [r2+8]              # mThread->state: null page if R came first
         st     r3, mState
         exit
