# infer-k1-visible: Listing 1 with the start delays swapped, the
# streamcluster-like case where inference and happens-before agree. task
# usually takes m before main, so in most runs the two y++ after the fork
# are already unordered in the observed execution and a happens-before
# detector reports them without any reordering; inference finds the same
# race from one trace (one candidate, confirmed). An overlap of the two
# y++ loses an update: main prints x = 2, y = 2.
#
# Tuning: main's `delay` before its y++ against task's start `delay`.

.kernel  infer-k1-visible
.desc    "Listing 1 where task usually locks first, so the y++ race is already unordered in the observed run: inference and a single happens-before run agree"
.class   race
.force   "seed=12"
.source  "inference:K1-visible"
.cores   2
.expect  2 3

.data
y:       .word 0
         .align 64
x:       .word 0
         .align 64
m:       .word 0
         .align 64

.text
.func main
main:    ld     r2, y
         add    r2, r2, 1
         st     r2, y
         spawn  r10, task, r0
         delay  200, 700
         ld     r2, y           @bug
         work   40
         add    r2, r2, 1
         st     r2, y           @bug
         lock   m
         ld     r3, x
         add    r3, r3, 1
         st     r3, x
         unlock m
         join   r10
         ld     r3, x
         out    r3
         ld     r2, y
         out    r2
         exit

.func task
task:    delay  0, 100
         lock   m
         ld     r3, x
         add    r3, r3, 1
         st     r3, x
         unlock m
         delay  0, 400
         ld     r2, y           @bug
         work   40
         add    r2, r2, 1
         st     r2, y           @bug
         exit
