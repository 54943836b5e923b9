# infer-access-before-join: main reads the worker's result before joining
# it. The worker computes and stores result; main, after its own work,
# reads result and only then joins. If main's read comes first it prints 0
# instead of 99. The write and the read are in concurrent segments (the
# join comes after the read) in every run: inference reports a candidate
# without any reordering, replay confirms it, and happens-before reports
# it in every run.
#
# Tuning: main's `delay` against the worker's.

.kernel  infer-access-before-join
.desc    "main reads the worker's result and then joins it; a read before the worker's store sees 0"
.class   race
.force   "seed=1"
.source  "inference:access-before-join"
.cores   2
.expect  99

.data
result:  .word 0
         .align 64

.text
.func main
main:    spawn  r10, worker, r0
         delay  100, 500                # main's own work
         ld     r2, result      @bug    # should be after the join
         join   r10
         out    r2
         exit

.func worker
worker:  delay  0, 400
         li     r2, 99
         st     r2, result      @bug
         exit
