# infer-wait-holding-lock: a deadlock through a condition wait. The waiter
# takes a (its statistics lock), then m, and waits on cv for ready while
# still holding a; the signaller must take a (to bump the statistics) before
# it sets ready and signals. If the waiter gets a first and sleeps, the
# signaller blocks on a and nobody will ever signal: the run hangs. If the
# signaller gets through a first, either ready is already set (the wait is
# skipped) or it sets ready and signals after the waiter sleeps.
#
# Tuning: the two start `delay`s.

.kernel  infer-wait-holding-lock
.desc    "the waiter sleeps on cv while holding lock a, which the signaller needs before it can signal: if the waiter takes a first, both block"
.class   deadlock
.force   "seed=11"
.source  "inference:wait-holding-lock"
.cores   3
.expect  2 1

.data
a:       .word 0
         .align 64
m:       .word 0
         .align 64
cv:      .word 0
         .align 64
ready:   .word 0
         .align 64
stats:   .word 0
         .align 64

.text
.func main
main:    spawn  r10, waiter, r0
         spawn  r11, signaller, r0
         join   r10
         join   r11
         ld     r2, stats
         out    r2
         ld     r3, ready
         out    r3
         exit

.func waiter
waiter:  delay  100, 700
         lock   a               @bug    # held across the wait
         lock   m
w_loop:  ld     r2, ready
         bnez   r2, w_done
         cwait  cv, m           @bug
         jmp    w_loop
w_done:  unlock m
         ld     r3, stats
         add    r3, r3, 1
         st     r3, stats
         unlock a
         exit

.func signaller
signaller: delay 0, 500
         lock   a               @bug    # needs a before it can signal
         ld     r3, stats
         add    r3, r3, 1
         st     r3, stats
         unlock a
         lock   m
         li     r2, 1
         st     r2, ready
         csignal cv
         unlock m
         exit
