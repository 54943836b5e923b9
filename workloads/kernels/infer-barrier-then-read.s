# infer-barrier-then-read: locked writes, then unlocked reads after a
# barrier. Three workers add their share into acc under m, meet at a
# barrier, and then read acc without the lock. The writes hold m and the
# reads hold nothing, so the lockset step alone would keep acc; the
# barrier instance orders every write before every read, so the weakened
# happens-before step of the prefilter drops it. Race-free: inference
# reports 0 candidates, happens-before is silent, main prints 18 (three
# workers each read 6).

.kernel  infer-barrier-then-read
.desc    "three workers add into acc under a lock, meet at a barrier, then read acc without the lock: ordered by the barrier, race-free"
.class   none
.source  "inference:barrier-then-read"
.cores   4
.expect  18

.data
m:       .word 0
         .align 64
bar:     .word 0
         .align 64
acc:     .word 0
         .align 64
res:     .space 3
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         li     r2, 2
         spawn  r12, worker, r2
         join   r10
         join   r11
         join   r12
         ld     r2, res
         ld     r3, res+8
         add    r2, r2, r3
         ld     r3, res+16
         add    r2, r2, r3
         out    r2
         exit

.func worker
worker:  delay  0, 300
         add    r4, r1, 1               # share: 1, 2, 3
         lock   m
         ld     r5, acc
         add    r5, r5, r4
         st     r5, acc
         unlock m
         barrier bar, 3
         delay  0, 100
         ld     r6, acc                 # no lock: ordered by the barrier
         shl    r7, r1, 3
         st     r6, res[r7]
         exit
