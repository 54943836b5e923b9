# infer-k1-copies: Listing 1 with N = 3 copies of task. main publishes
# y = 1 after forking the copies and then does its own critical section on
# m; each copy does its critical section on m and then reads y into its own
# result slot. When main's critical section comes first, its unlock orders
# the write of y before every copy's read, which is what the observed run
# usually shows. A copy that takes m before main is unordered with main's
# write, and if it reads y before the write lands it records 0: main prints
# a total below 3. Three copies give three race-pair candidates on y; one
# counterexample is enough to confirm the race (the paper's "N copies of
# t2").
#
# Tuning: the copies' start `delay` is spread wide so that in about seven
# runs of ten every copy locks after main; main's `work` before its write is
# the window an early copy's read can land in.

.kernel  infer-k1-copies
.desc    "Listing 1 with three copies of task: main writes y after forking them, each copy reads y after its critical section; a copy whose critical section precedes main's can read the stale 0"
.class   race
.force   "seed=9"
.source  "inference:K1-copies"
.cores   4
.expect  4 3

.data
y:       .word 0
         .align 64
x:       .word 0
         .align 64
m:       .word 0
         .align 64
seen:    .space 3                       # one slot per copy
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, task, r2
         li     r2, 1
         spawn  r11, task, r2
         li     r2, 2
         spawn  r12, task, r2
         delay  0, 100
         work   300                     # compute y
         li     r2, 1
         st     r2, y           @bug    # publish y after the fork
         lock   m
         ld     r3, x
         add    r3, r3, 1
         st     r3, x
         unlock m
         join   r10
         join   r11
         join   r12
         ld     r3, x
         out    r3
         ld     r4, seen
         ld     r5, seen+8
         add    r4, r4, r5
         ld     r5, seen+16
         add    r4, r4, r5
         out    r4
         exit

.func task
task:    delay  0, 4000
         lock   m
         ld     r3, x
         add    r3, r3, 1
         st     r3, x
         unlock m
         ld     r2, y           @bug    # read y after the critical section
         shl    r5, r1, 3
         st     r2, seen[r5]
         exit
