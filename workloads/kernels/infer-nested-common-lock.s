# infer-nested-common-lock: different locksets that still share a lock.
# t1 updates bal while holding both outer and inner; t2 updates bal holding
# only inner (and t3 holding only outer updates a different word). The
# locksets of the bal accesses, {outer, inner} and {inner}, intersect in
# inner, so the accesses are mutually exclusive: the lockset step drops
# bal, inference reports 0 candidates, and happens-before is silent.
# main prints 12 and 4.

.kernel  infer-nested-common-lock
.desc    "t1 updates bal holding outer and inner, t2 holding only inner: the common lock inner makes them exclusive, race-free"
.class   none
.source  "inference:nested-common-lock"
.cores   4
.expect  12 4

.data
outer:   .word 0
         .align 64
inner:   .word 0
         .align 64
bal:     .word 0
         .align 64
audits:  .word 0
         .align 64

.text
.func main
main:    spawn  r10, t1, r0
         spawn  r11, t2, r0
         spawn  r12, t3, r0
         join   r10
         join   r11
         join   r12
         ld     r2, bal
         out    r2
         ld     r3, audits
         out    r3
         exit

.func t1
t1:      li     r4, 0
t1_loop: delay  0, 200
         lock   outer
         lock   inner
         ld     r2, bal
         add    r2, r2, 2
         st     r2, bal
         unlock inner
         unlock outer
         add    r4, r4, 1
         blt    r4, 4, t1_loop
         exit

.func t2
t2:      li     r4, 0
t2_loop: delay  0, 200
         lock   inner
         ld     r2, bal
         add    r2, r2, 1
         st     r2, bal
         unlock inner
         add    r4, r4, 1
         blt    r4, 4, t2_loop
         exit

.func t3
t3:      li     r4, 0
t3_loop: delay  0, 200
         lock   outer
         ld     r3, audits
         add    r3, r3, 1
         st     r3, audits
         unlock outer
         add    r4, r4, 1
         blt    r4, 4, t3_loop
         exit
