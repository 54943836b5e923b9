# infer-signal-not-broadcast: csignal where cbcast was needed. Two workers
# wait (Mesa loops under m) for start; the starter sets start and signals
# once. If both workers are asleep when the signal comes, only one wakes
# and the other sleeps forever: the run hangs. If a worker arrives after
# start is set it skips its wait and the single signal suffices. There is
# no data race (everything is under m), so happens-before reports nothing;
# the synchronisation model cannot express that a signal wakes only one
# waiter of its instance, so inference finds no candidate from a passing
# trace either. Only the hang itself shows the bug (a documented miss).
#
# Tuning: the workers' start `delay`s against the starter's.

.kernel  infer-signal-not-broadcast
.desc    "the starter wakes two waiting workers with one csignal instead of cbcast; when both are asleep one never wakes"
.class   deadlock
.force   "seed=14"
.source  "inference:signal-not-broadcast"
.cores   4
.expect  2

.data
m:       .word 0
         .align 64
cv:      .word 0
         .align 64
start:   .word 0
         .align 64
ran:     .word 0
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         spawn  r12, starter, r0
         join   r10
         join   r11
         join   r12
         ld     r2, ran
         out    r2
         exit

.func worker
worker:  delay  0, 1000
         lock   m
w_loop:  ld     r3, start
         bnez   r3, w_go
         cwait  cv, m           @bug    # one of two sleepers is never woken
         jmp    w_loop
w_go:    ld     r4, ran
         add    r4, r4, 1
         st     r4, ran
         unlock m
         exit

.func starter
starter: delay  150, 500
         lock   m
         li     r3, 1
         st     r3, start
         csignal cv             @bug    # wakes one waiter only
         unlock m
         exit
