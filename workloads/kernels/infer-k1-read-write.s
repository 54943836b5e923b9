# infer-k1-read-write: critical-section commutativity with a read first.
# reader reads cfg (expecting the initial 0: it runs "before" the update)
# and then logs under m; updater logs under m and then stores cfg = 1. When
# reader's critical section comes first, as the start delays make usual,
# reader's unlock -> updater's lock orders the read before the write and a
# happens-before detector stays silent. If updater's critical section comes
# first, the two are unordered and the read can see the new value: main
# prints 1 instead of 0.
#
# Tuning: updater's start `delay` against reader's `delay` before its read.

.kernel  infer-k1-read-write
.desc    "reader reads cfg then logs under m, updater logs under m then writes cfg; reader locking first orders them, updater locking first lets the read see the write"
.class   race
.force   "seed=13"
.source  "inference:K1-read-write"
.cores   3
.expect  0 2

.data
cfg:     .word 0
         .align 64
logn:    .word 0
         .align 64
m:       .word 0
         .align 64
got:     .word 0
         .align 64

.text
.func main
main:    spawn  r10, reader, r0
         spawn  r11, updater, r0
         join   r10
         join   r11
         ld     r2, got
         out    r2
         ld     r3, logn
         out    r3
         exit

.func reader
reader:  delay  0, 1000
         ld     r2, cfg         @bug    # expects the old value
         st     r2, got
         lock   m
         ld     r3, logn
         add    r3, r3, 1
         st     r3, logn
         unlock m
         exit

.func updater
updater: delay  300, 1500
         lock   m
         ld     r3, logn
         add    r3, r3, 1
         st     r3, logn
         unlock m
         li     r2, 1
         st     r2, cfg         @bug    # the update
         exit
