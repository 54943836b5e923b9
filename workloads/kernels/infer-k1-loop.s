# infer-k1-loop: Listing 1 with task looping. task runs its "lock m; x++;
# unlock m; y++" body four times, so the trace holds four race-pair
# candidates between main's y++ and task's y++ (one per task segment); the
# paper's one check per shared object needs only one counterexample for
# them. As in Listing 1, main locking first orders its y++ before every
# task iteration; when task gets one or more iterations in first, main's
# y++ is unordered with them and an overlap loses an update: main prints
# x = 5, y < 6.
#
# Tuning: task's start `delay` is long and spread out, so main locks first
# in about three runs of four; the `work` inside main's y++ is the window
# an early task iteration can land in.

.kernel  infer-k1-loop
.desc    "Listing 1 with task looping four times: main's y++ races with every task y++ that runs before main's critical section; one counterexample covers all four race pairs"
.class   race
.force   "seed=16"
.source  "inference:K1-loop"
.cores   2
.expect  5 6

.data
y:       .word 0
         .align 64
x:       .word 0
         .align 64
m:       .word 0
         .align 64

.text
.func main
main:    ld     r2, y                   # y++ before the fork: ordered
         add    r2, r2, 1
         st     r2, y
         spawn  r10, task, r0
         delay  0, 100
         ld     r2, y           @bug    # y++ after the fork
         work   300
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
task:    delay  0, 1800
         li     r4, 0
t_loop:  lock   m
         ld     r3, x
         add    r3, r3, 1
         st     r3, x
         unlock m
         ld     r2, y           @bug    # y++ in every iteration
         work   20
         add    r2, r2, 1
         st     r2, y           @bug
         delay  10, 60
         add    r4, r4, 1
         blt    r4, 4, t_loop
         exit
