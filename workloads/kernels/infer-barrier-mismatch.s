# infer-barrier-mismatch: a barrier whose participant count is read too
# early. The shared config says three workers (nparts = 3); main starts only
# two and then sets nparts = 2, after spawning them. Each worker reads
# nparts just before it arrives at the barrier and uses it as the count. A
# worker that arrives second with the stale count 3 waits for a third
# participant that never comes: both workers block and the run hangs. The
# root cause is the unordered write (main, after the fork) and read
# (workers) of nparts: inference reports it (the write and reads are in
# concurrent segments, no lock) and replay confirms it as a race, and
# happens-before reports it in every run. The hang itself needs the stale
# value, which the value-free synchronisation model cannot predict: only a
# run that reads 3 at the second arrival shows it.
#
# Tuning: main's `delay` before its write against the workers' `delay`s.

.kernel  infer-barrier-mismatch
.desc    "main sets the barrier's participant count to 2 only after spawning the two workers; a worker that reads the stale 3 waits at the barrier for a third that never comes"
.class   order
.force   "seed=10"
.source  "inference:barrier-mismatch"
.cores   3
.expect  3

.data
nparts:  .word 3                        # stale default: three workers
         .align 64
bar:     .word 0
         .align 64
part:    .space 2
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         delay  0, 400
         li     r3, 2
         st     r3, nparts      @bug    # too late: the workers may have read 3
         join   r10
         join   r11
         ld     r2, part
         ld     r3, part+8
         add    r2, r2, r3
         out    r2
         exit

.func worker
worker:  delay  0, 300
         add    r4, r1, 1
         shl    r5, r1, 3
         st     r4, part[r5]            # phase 1: my part
         ld     r6, nparts      @bug    # participant count
         barrier bar, r6        @bug
         exit
