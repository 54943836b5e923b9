# infer-join-holding-lock: a deadlock through join. main starts a worker,
# later takes m to record the start of a report and, still holding m, joins
# the worker; the worker takes m once to post its result. If the worker has
# already posted (it took and released m before main's lock), the join
# returns. If main takes m first, the worker blocks on m and main blocks in
# join: every live thread is blocked and the run hangs. Inference's deadlock
# check finds lock.main.m before lock.worker.m, which leaves join waiting
# for an end that can never come.
#
# Tuning: main's `delay` before its lock against the worker's `delay`.

.kernel  infer-join-holding-lock
.desc    "main joins the worker while holding m, which the worker needs to post its result: if main locks m first, both block"
.class   deadlock
.force   "seed=6"
.source  "inference:join-holding-lock"
.cores   2
.expect  42 1

.data
m:       .word 0
         .align 64
result:  .word 0
         .align 64
reports: .word 0
         .align 64

.text
.func main
main:    spawn  r10, worker, r0
         delay  100, 700
         lock   m               @bug
         ld     r2, reports
         add    r2, r2, 1
         st     r2, reports
         join   r10             @bug    # waits for the worker while holding m
         unlock m
         ld     r3, result
         out    r3
         ld     r2, reports
         out    r2
         exit

.func worker
worker:  delay  0, 300
         work   50
         lock   m               @bug
         li     r2, 42
         st     r2, result
         unlock m
         exit
