# infer-join-then-access: results read only after join. Three workers each
# accumulate a partial sum into their own slot of part with several
# stores; main joins all three and only then reads every slot. Each
# worker's writes and main's reads are ordered by end -> join, so inference
# reports 0 candidates and happens-before is silent. main prints 1 + ... + 12 = 78.

.kernel  infer-join-then-access
.desc    "three workers write partial sums into their slots; main reads the slots only after joining all three: race-free"
.class   none
.source  "inference:join-then-access"
.cores   4
.expect  78

.data
part:    .space 3
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
         ld     r2, part                # after every join
         ld     r3, part+8
         add    r2, r2, r3
         ld     r3, part+16
         add    r2, r2, r3
         out    r2
         exit

.func worker
worker:  shl    r2, r1, 3
         mul    r3, r1, 4               # first value 4i+1
         li     r4, 0
w_loop:  delay  0, 60
         add    r3, r3, 1
         ld     r5, part[r2]
         add    r5, r5, r3
         st     r5, part[r2]
         add    r4, r4, 1
         blt    r4, 4, w_loop           # worker i adds 4i+1 .. 4i+4
         exit
