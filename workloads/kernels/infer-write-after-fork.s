# infer-write-after-fork: initialisation after the fork (an order
# violation). main spawns the worker and only then stores the table
# pointer's target value (cfg = 5); the worker reads cfg after a short
# start-up. If the worker reads first it computes with 0 and main prints 0
# instead of 50. The write (after fork) and the read are unordered in every
# run: the prefilter keeps cfg, the model needs no reordering at all to
# put them next to each other, replay confirms it, and happens-before
# reports it in every run.
#
# Tuning: the worker's start-up `delay` against main's `delay`.

.kernel  infer-write-after-fork
.desc    "main initialises cfg after spawning the worker that reads it; an early read sees 0"
.class   order
.force   "seed=10"
.source  "inference:write-after-fork"
.cores   2
.expect  50

.data
cfg:     .word 0
         .align 64
result:  .word 0
         .align 64

.text
.func main
main:    spawn  r10, worker, r0
         delay  0, 250
         li     r2, 5
         st     r2, cfg         @bug    # should precede the spawn
         join   r10
         ld     r2, result
         out    r2
         exit

.func worker
worker:  delay  30, 300                 # start-up
         ld     r2, cfg         @bug
         mul    r2, r2, 10
         st     r2, result
         exit
