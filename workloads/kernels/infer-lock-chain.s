# infer-lock-chain: a race ordered only by a chain of critical sections on
# two different locks. writer stores data and then passes through m1;
# relay passes through m1 and then m2; reader passes through m2 and then
# reads data. In the usual order (writer, relay, reader) the chain
# unlock m1 -> lock m1 ... unlock m2 -> lock m2 orders the write before the
# read, so happens-before sees nothing. If reader's m2 section precedes
# relay's (or relay's m1 section precedes writer's), the chain breaks, the
# accesses are unordered, and an early read prints the stale 0 instead of 7.
#
# Tuning: writer's `work` (computing data) delays its store; relay's and
# reader's start `delay`s keep the chain in the usual order in about six
# runs of ten, and reader starts early enough to read first in a few.

.kernel  infer-lock-chain
.desc    "write and read of data are ordered only by the chain writer -m1-> relay -m2-> reader; reordering either critical-section pair breaks the chain and the read can see 0"
.class   race
.force   "seed=6"
.source  "inference:lock-chain"
.cores   4
.expect  7 2

.data
data:    .word 0
         .align 64
m1:      .word 0
         .align 64
m2:      .word 0
         .align 64
hops:    .word 0
         .align 64
got:     .word 0
         .align 64

.text
.func main
main:    spawn  r10, writer, r0
         spawn  r11, relay, r0
         spawn  r12, reader, r0
         join   r10
         join   r11
         join   r12
         ld     r2, got
         out    r2
         ld     r3, hops
         out    r3
         exit

.func writer
writer:  delay  0, 100
         work   300                     # compute data
         li     r2, 7
         st     r2, data        @bug
         lock   m1
         unlock m1
         exit

.func relay
relay:   delay  400, 1200
         lock   m1
         ld     r3, hops
         add    r3, r3, 1
         st     r3, hops
         unlock m1
         lock   m2
         ld     r3, hops
         add    r3, r3, 1
         st     r3, hops
         unlock m2
         exit

.func reader
reader:  delay  0, 2500
         lock   m2
         unlock m2
         ld     r2, data        @bug
         st     r2, got
         exit
