# infer-lost-wakeup: a lost wake-up. The waiter tests ready without the
# lock, and only if it is clear takes m and waits on cv, without testing
# ready again under the lock. The signaller sets ready under m and signals.
# If the whole signal lands between the waiter's unlocked test and its
# cwait, the signal finds no waiter and is lost; the waiter sleeps forever
# and the run hangs. The unlocked read of ready races with the locked write
# (no common lock, no ordering edge): inference reports it as a candidate
# and replay confirms it, and happens-before reports it in every run.
#
# Tuning: the waiter's `work` between its test and its lock is the window;
# the two start `delay`s set how often the signal falls in it.

.kernel  infer-lost-wakeup
.desc    "the waiter tests ready without the lock and then waits without re-testing; a signal between the test and the wait is lost and the waiter sleeps forever"
.class   order
.force   "seed=3"
.source  "inference:lost-wakeup"
.cores   3
.expect  1

.data
m:       .word 0
         .align 64
cv:      .word 0
         .align 64
ready:   .word 0
         .align 64
woke:    .word 0
         .align 64

.text
.func main
main:    spawn  r10, waiter, r0
         spawn  r11, signaller, r0
         join   r10
         join   r11
         ld     r2, woke
         out    r2
         exit

.func waiter
waiter:  delay  0, 800
         ld     r2, ready       @bug    # unlocked test
         bnez   r2, w_done
         work   30                      # window: test .. wait
         lock   m
         cwait  cv, m           @bug    # no re-test under the lock
         unlock m
w_done:  li     r3, 1
         st     r3, woke
         exit

.func signaller
signaller: delay 0, 800
         lock   m
         li     r2, 1
         st     r2, ready       @bug
         csignal cv             @bug    # lost if the waiter is not asleep yet
         unlock m
         exit
