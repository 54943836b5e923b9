# infer-different-locks: two threads protect the same counter with
# different locks. t1 increments hits under m1, t2 under m2; the locksets
# {m1} and {m2} do not intersect and no other edge orders the updates.
# Inference: the prefilter keeps hits and the model puts the two critical
# sections side by side at once; replay confirms the race. Happens-before
# reports it in every run (unlock m1 and lock m2 create no edge). When the
# two ld..st windows overlap an increment is lost: main prints less than 16.
#
# Tuning: the per-iteration `delay` and the `work` inside the update.

.kernel  infer-different-locks
.desc    "t1 increments hits under m1 and t2 under m2, so the locks exclude nothing and an increment can be lost"
.class   race
.force   "seed=4"
.source  "inference:different-locks"
.cores   3
.expect  16

.data
m1:      .word 0
         .align 64
m2:      .word 0
         .align 64
hits:    .word 0
         .align 64

.text
.func main
main:    spawn  r10, t1, r0
         spawn  r11, t2, r0
         join   r10
         join   r11
         ld     r2, hits
         out    r2
         exit

.func t1
t1:      li     r4, 0
t1_loop: delay  200, 800
         lock   m1
         ld     r2, hits        @bug
         work   10
         add    r2, r2, 1
         st     r2, hits        @bug
         unlock m1
         add    r4, r4, 1
         blt    r4, 8, t1_loop
         exit

.func t2
t2:      li     r4, 0
t2_loop: delay  200, 800
         lock   m2
         ld     r2, hits        @bug
         work   10
         add    r2, r2, 1
         st     r2, hits        @bug
         unlock m2
         add    r4, r4, 1
         blt    r4, 8, t2_loop
         exit
