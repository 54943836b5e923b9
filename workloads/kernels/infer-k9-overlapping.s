# infer-k9-overlapping: many counterexamples with overlapping locations
# (the fmm row of Table 2: 190 candidates, 50 locations). Four workers run
# four steps each; a step updates the shared step counter under m and then
# adds 1 to one of four force cells without the lock. Workers 0 and 1 use
# cell (k) and workers 2 and 3 cell (k + 2) mod 4 in step k, so every cell
# is updated by two workers in the same step, just after they pass through
# m one after the other. Each cell is its own object, and each has several
# racing segment pairs; with a counterexample bound above 1 inference gives
# many counterexamples, each replay reports the racing pair it forces and
# often others, and the same locations come back from several of them.
# A lost update makes main print a force total below 16.
#
# Tuning: the per-step `delay` and the `work` inside the cell update.

.kernel  infer-k9-overlapping
.desc    "four workers update a counter under m and then a shared force cell without the lock, two workers per cell per step: many racing segment pairs and overlapping counterexamples"
.class   race
.force   "seed=1"
.source  "inference:K9-overlapping"
.cores   5
.expect  16 16

.data
m:       .word 0
         .align 64
steps:   .word 0
         .align 64
f:       .word 0                        # four force cells, one per line
         .align 64
         .word 0
         .align 64
         .word 0
         .align 64
         .word 0
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         li     r2, 2
         spawn  r12, worker, r2
         li     r2, 3
         spawn  r13, worker, r2
         join   r10
         join   r11
         join   r12
         join   r13
         la     r4, f
         ld     r2, [r4]
         ld     r3, [r4+64]
         add    r2, r2, r3
         ld     r3, [r4+128]
         add    r2, r2, r3
         ld     r3, [r4+192]
         add    r2, r2, r3
         out    r2
         ld     r3, steps
         out    r3
         exit

.func worker
worker:  li     r5, 0                   # step k
         shr    r6, r1, 1
         shl    r6, r6, 1               # 0 for workers 0,1; 2 for workers 2,3
w_loop:  delay  0, 200
         lock   m
         ld     r3, steps
         add    r3, r3, 1
         st     r3, steps
         unlock m
         add    r7, r5, r6
         and    r7, r7, 3
         shl    r7, r7, 6
         la     r8, f
         add    r8, r8, r7              # this step's cell
         ld     r2, [r8]        @bug
         work   80
         add    r2, r2, 1
         st     r2, [r8]        @bug
         add    r5, r5, 1
         blt    r5, 4, w_loop
         exit
