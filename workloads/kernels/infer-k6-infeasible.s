# infer-k6-infeasible: an infeasible counterexample that replay drops (like
# the 10 of fmm's 190 candidates). As in K5, t2 reads y only after seeing
# done set under m, but on that path it first passes through a second lock
# m2 (to log). The observed run (t1 first) has t2's lock m2 in its trace;
# the model's reordering (t2's m section first) gives the candidate
# (fork, start, lock.t2.m, unlock.t2.m, lock.t2.m2, unlock.t2.m2, ...).
# Replaying it, t2 reads done = 0 and goes straight to its end: the next
# synchronisation operation is not the lock m2 the counterexample demands,
# so the replayer aborts and the candidate is dropped as infeasible. The
# program is race-free under happens-before and always passes.

.kernel  infer-k6-infeasible
.desc    "t2 takes a second lock and reads y only if it saw done set under m: race-free; the model's reordering needs a lock m2 that the replayed run never issues, so it is dropped"
.class   none
.source  "inference:K6-infeasible"
.cores   3
.expect  1 1

.data
y:       .word 0
         .align 64
done:    .word 0
         .align 64
m:       .word 0
         .align 64
m2:      .word 0
         .align 64
logged:  .word 0
         .align 64

.text
.func main
main:    spawn  r10, t1, r0
         spawn  r11, t2, r0
         join   r10
         join   r11
         ld     r2, done
         out    r2
         ld     r3, logged
         out    r3
         exit

.func t1
t1:      delay  0, 200
         li     r2, 1
         st     r2, y                   # PC A
         lock   m
         st     r2, done
         unlock m
         exit

.func t2
t2:      delay  300, 600
         lock   m
         ld     r3, done
         unlock m
         bnez   r3, t2_log
         li     r3, 1                   # not done yet: log that instead
         st     r3, logged
         exit
t2_log:  lock   m2                      # only on the done path
         li     r5, 1
         st     r5, logged
         unlock m2
         ld     r4, y                   # PC B
         assert r4, "done set but y not written"
         exit
