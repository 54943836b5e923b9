# infer-barrier-missing: a write that belongs before the barrier was put
# after it. Three workers meet at a barrier; the leader (worker 0) then
# computes scale and stores it, while the other two read scale right after
# the barrier, assuming it was set in the previous phase. The store and the
# loads sit in the same phase, unordered and lock-free, in every run:
# inference's prefilter keeps scale, the model gives a counterexample and
# replay confirms it; happens-before reports it in every run. A reader that
# loads before the store sees 0 and main prints less than 20.
#
# Tuning: the leader's `delay` before its store against the readers'.

.kernel  infer-barrier-missing
.desc    "the leader stores scale after the barrier instead of before it; the other workers read scale right after the barrier and can see 0"
.class   race
.force   "seed=10"
.source  "inference:barrier-missing"
.cores   4
.expect  20

.data
bar:     .word 0
         .align 64
scale:   .word 0
         .align 64
res:     .space 3
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         li     r2, 2
         spawn  r12, worker, r2
         join   r10
         join   r11
         join   r12
         ld     r2, res+8
         ld     r3, res+16
         add    r2, r2, r3
         out    r2
         exit

.func worker
worker:  delay  0, 200
         barrier bar, 3
         bnez   r1, w_read
         delay  0, 60                   # leader: compute scale (one phase late)
         li     r2, 10
         st     r2, scale       @bug
         exit
w_read:  delay  0, 250
         ld     r2, scale       @bug
         shl    r3, r1, 3
         st     r2, res[r3]
         exit
