# histogram: main fills 256 values in 0..7 from a linear congruential
# generator, then four workers each bin 64 of them into eight shared bins
# with fadd (atomic fetch-and-add), all bins on one contended line. Main
# prints the eight bin totals.

.kernel  histogram
.desc    "four threads bin 256 values into eight shared bins with fadd; main prints the bin totals"
.class   none
.source  ""
.cores   5
.expect  29 25 40 30 39 32 28 33

.data
vals:    .space 256
         .align 64
bins:    .space 8                       # one line, shared by every worker
         .align 64

.text
.func main
main:    li     r2, 0                   # i
         li     r3, 12345               # LCG state
m_fill:  mul    r3, r3, 1103515245
         add    r3, r3, 12345
         and    r3, r3, 2147483647
         shr    r4, r3, 16
         and    r4, r4, 7
         shl    r5, r2, 3
         st     r4, vals[r5]
         add    r2, r2, 1
         blt    r2, 256, m_fill
         li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         li     r2, 2
         spawn  r12, worker, r2
         li     r2, 3
         spawn  r13, worker, r2
         join   r10
         join   r11
         join   r12
         join   r13
         li     r2, 0
m_out:   shl    r5, r2, 3
         ld     r6, bins[r5]
         out    r6
         add    r2, r2, 1
         blt    r2, 8, m_out
         exit

.func worker
worker:  shl    r2, r1, 6               # first index = 64 * r1
         add    r3, r2, 64              # one past the last
w_loop:  shl    r5, r2, 3
         ld     r4, vals[r5]
         shl    r4, r4, 3
         fadd   r6, bins[r4], 1
         work   3                       # per-item work
         add    r2, r2, 1
         blt    r2, r3, w_loop
         exit
