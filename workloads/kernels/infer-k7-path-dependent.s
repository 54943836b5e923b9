# infer-k7-path-dependent: two mutually exclusive races on different paths
# (the aget row of Table 2, where 100 happens-before runs found one race
# more than inference). A and B each pass through m; A notes whether it got
# there first. If A was first (path P1, most runs) it then adds 10 to x,
# which B also increments after its section: a race on x. If B was first
# (path P2) A adds 10 to z instead, which B also increments: a race on z.
# One trace shows only one path, so inference finds only that path's race
# (x in most traces); happens-before over many runs sees both. An overlap
# of the unprotected updates loses one: main prints x + z, 12 when correct.
#
# Tuning: the start `delay`s set the P1/P2 split (about 9:1); the `delay`s
# after the critical sections and the `work` inside each update set how
# often an update is lost.

.kernel  infer-k7-path-dependent
.desc    "who takes m first selects whether A races with B on x (usual) or on z (rare); one trace shows one path, so inference finds one of the two races"
.class   race
.force   "seed=8"
.source  "inference:K7-path-dependent"
.cores   3
.expect  12

.data
m:       .word 0
         .align 64
claimed: .word 0
         .align 64
x:       .word 0
         .align 64
z:       .word 0
         .align 64

.text
.func main
main:    spawn  r10, thread_a, r0
         spawn  r11, thread_b, r0
         join   r10
         join   r11
         ld     r2, x
         ld     r3, z
         add    r2, r2, r3
         out    r2
         exit

.func thread_a
thread_a: delay 0, 200
         lock   m
         ld     r2, claimed
         li     r3, 1
         st     r3, claimed
         unlock m
         bnez   r2, a_p2
         delay  0, 1500
         ld     r4, x           @bug    # P1: A was first
         work   20
         add    r4, r4, 10
         st     r4, x           @bug
         exit
a_p2:    delay  0, 1500
         ld     r4, z           @bug    # P2: B was first
         work   20
         add    r4, r4, 10
         st     r4, z           @bug
         exit

.func thread_b
thread_b: delay 80, 400
         lock   m
         li     r3, 1
         st     r3, claimed
         unlock m
         delay  0, 1500
         ld     r4, x           @bug
         work   20
         add    r4, r4, 1
         st     r4, x           @bug
         delay  0, 1500
         ld     r5, z           @bug
         work   20
         add    r5, r5, 1
         st     r5, z           @bug
         exit
