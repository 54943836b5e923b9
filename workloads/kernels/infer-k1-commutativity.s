# infer-k1-commutativity: Listing 1 of the interleaving-inference paper,
# the "critical-section commutativity" case that most of TSAN's misses in
# Table 1 share. main increments y, forks task, increments y again and then
# updates x under m; task updates x under m and then increments y. The two
# y++ after the fork (main's line 6, task's line 17) are a real race, but
# when main takes m first its unlock -> task's lock edge orders them, so a
# happens-before detector watching that run stays silent. Only when task
# takes m first are the two y++ unordered, and only then can they overlap
# and lose an update: main prints x = 2 and y = 2 instead of y = 3.
#
# Tuning: task's start `delay` is long and spread out, so main locks first
# in about three runs of four (the happens-before detector is silent there);
# the `work` inside main's y++ (computing the new value) is the window in
# which an early task's critical section and y++ can land.

.kernel  infer-k1-commutativity
.desc    "Listing 1: y++ in main after fork and y++ in task after its critical section race, but main locking first orders them; task locking first can lose an update"
.class   race
.force   "seed=16"
.source  "inference:K1-commutativity"
.cores   2
.expect  2 3

.data
y:       .word 0
         .align 64
x:       .word 0
         .align 64
m:       .word 0
         .align 64

.text
.func main
main:    ld     r2, y                   # line 4: y++ (before the fork: ordered)
         add    r2, r2, 1
         st     r2, y
         spawn  r10, task, r0           # line 5
         delay  0, 100
         ld     r2, y           @bug    # line 6: y++
         work   300
         add    r2, r2, 1
         st     r2, y           @bug
         lock   m                       # line 7
         ld     r3, x                   # line 8: x++
         add    r3, r3, 1
         st     r3, x
         unlock m                       # line 9
         join   r10                     # line 10
         ld     r3, x
         out    r3
         ld     r2, y
         out    r2
         exit

.func task
task:    delay  0, 1500
         lock   m                       # line 14
         ld     r3, x                   # line 15: x++
         add    r3, r3, 1
         st     r3, x
         unlock m                       # line 16
         ld     r2, y           @bug    # line 17: y++
         work   40
         add    r2, r2, 1
         st     r2, y           @bug
         exit
