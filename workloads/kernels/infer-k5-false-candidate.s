# infer-k5-false-candidate: a false candidate that replay discards (the fft
# row of Table 2: 1 candidate, 0 feasible reports). t1 writes x, then sets
# done under m; t2 reads done under m and reads x only if done was set.
# t2 starts late, so the observed run has t1's section first, t2 reads
# done = 1 and reads x, ordered after the write by unlock -> lock. The
# value-free model may put t2's section first, which makes the write of x
# and the read of x concurrent segments: one candidate
# (fork, start, lock.t2.m, unlock.t2.m, ...). Replaying it, t2 reads
# done = 0 and skips the read, so the synchronisation sequence is the same
# but no race occurs: happens-before reports nothing and the candidate is
# discarded. The program is race-free under happens-before in every run
# and always passes.

.kernel  infer-k5-false-candidate
.desc    "t2 reads x only if it saw done set under m after t1 wrote x: race-free, but the model's reordering gives a candidate that replay discards"
.class   none
.source  "inference:K5-false-candidate"
.cores   3
.expect  1

.data
x:       .word 0
         .align 64
done:    .word 0
         .align 64
m:       .word 0
         .align 64

.text
.func main
main:    spawn  r10, t1, r0
         spawn  r11, t2, r0
         join   r10
         join   r11
         ld     r2, done
         out    r2
         exit

.func t1
t1:      delay  0, 200
         li     r2, 1
         st     r2, x                   # PC A
         lock   m
         st     r2, done
         unlock m
         exit

.func t2
t2:      delay  100, 600
         lock   m
         ld     r3, done
         unlock m
         beqz   r3, t2_out              # the branch the model cannot see
         ld     r4, x                   # PC B: only after done was seen
         assert r4, "done set but x not written"
t2_out:  exit
