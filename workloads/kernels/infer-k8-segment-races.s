# infer-k8-segment-races: several races in one pair of segments (the qsort
# row of Table 2: 2 counterexamples, 6 error locations). The partitioner
# writes three words of lo and three of hi (six stores) and then marks its
# pass under m; the merger marks its pass under m and then reads all six
# words. When the partitioner's section comes first (the usual order) the
# lock edge orders all six pairs. The model can put the merger's section
# first, which makes both segments concurrent: lo and hi are two objects
# (two regions of consecutive shared words), so two checks give two
# counterexamples, and replaying either one makes happens-before report all
# the races between the two segments: six locations. A merger that reads
# before the stores land sums too little: main prints less than 21.
#
# Tuning: the merger's start `delay` against the partitioner's.

.kernel  infer-k8-segment-races
.desc    "the partitioner writes lo[0..2] and hi[0..2] before its critical section, the merger reads all six after its own: one segment pair, two objects, six racing pairs"
.class   race
.force   "seed=5"
.source  "inference:K8-segment-races"
.cores   3
.expect  21 2

.data
lo:      .space 3
         .align 64
hi:      .space 3
         .align 64
m:       .word 0
         .align 64
passes:  .word 0
         .align 64
sum:     .word 0
         .align 64

.text
.func main
main:    spawn  r10, partitioner, r0
         spawn  r11, merger, r0
         join   r10
         join   r11
         ld     r2, sum
         out    r2
         ld     r3, passes
         out    r3
         exit

.func partitioner
partitioner: delay 0, 300
         li     r2, 1
         st     r2, lo          @bug
         work   50                      # partition the next element
         li     r2, 2
         st     r2, lo+8        @bug
         work   50                      # partition the next element
         li     r2, 3
         st     r2, lo+16       @bug
         work   50                      # partition the next element
         li     r2, 4
         st     r2, hi          @bug
         work   50                      # partition the next element
         li     r2, 5
         st     r2, hi+8        @bug
         work   50                      # partition the next element
         li     r2, 6
         st     r2, hi+16       @bug
         lock   m
         ld     r3, passes
         add    r3, r3, 1
         st     r3, passes
         unlock m
         exit

.func merger
merger:  delay  0, 1500
         lock   m
         ld     r3, passes
         add    r3, r3, 1
         st     r3, passes
         unlock m
         ld     r2, lo          @bug
         ld     r4, lo+8        @bug
         add    r2, r2, r4
         ld     r4, lo+16       @bug
         add    r2, r2, r4
         ld     r4, hi          @bug
         add    r2, r2, r4
         ld     r4, hi+8        @bug
         add    r2, r2, r4
         ld     r4, hi+16       @bug
         add    r2, r2, r4
         st     r2, sum
         exit
