# infer-join-chain: ordering through a chain of forks and joins. main forks
# mid, mid forks leaf; leaf writes x; mid joins leaf and adds to x; main
# joins mid and reads x. main's initial write of x is fork-ordered before
# both, and every later pair is end -> join ordered, transitively across
# three threads. Inference reports 0 candidates; happens-before is silent.
# main prints 111.

.kernel  infer-join-chain
.desc    "main forks mid, mid forks leaf; leaf writes x, mid joins leaf and updates x, main joins mid and reads x: ordered transitively, race-free"
.class   none
.source  "inference:join-chain"
.cores   3
.expect  111

.data
x:       .word 0
         .align 64

.text
.func main
main:    li     r2, 1
         st     r2, x
         spawn  r10, mid, r0
         join   r10
         ld     r2, x
         out    r2
         exit

.func mid
mid:     delay  0, 200
         spawn  r10, leaf, r0
         delay  0, 200
         join   r10
         ld     r2, x
         add    r2, r2, 100
         st     r2, x
         exit

.func leaf
leaf:    delay  0, 200
         ld     r2, x
         add    r2, r2, 10
         st     r2, x
         exit
