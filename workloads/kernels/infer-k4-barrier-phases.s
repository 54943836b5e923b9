# infer-k4-barrier-phases: barrier-separated phases (the lu / water-nsquared
# shape of Table 2), race-free. Four workers each write their own 2-word
# slice of a, meet at a barrier, then read their two neighbours' slices
# (wrapping around) and write the sum into their own slot of s. Every
# cross-thread pair on a is a phase-1 write against a phase-2 read, ordered
# by the barrier instance (all enters before all exits), so inference's
# prefilter drops a and reports 0 candidates; happens-before is silent too.
# main prints the total of s; each slice is summed by both of its
# neighbours, so it is 2 * (1 + ... + 8) = 72.

.kernel  infer-k4-barrier-phases
.desc    "four workers write their own slices, meet at a barrier, then read their neighbours' slices: race-free"
.class   none
.source  "inference:K4-barrier-phases"
.cores   5
.expect  72

.data
bar:     .word 0
         .align 64
a:       .space 8                       # slice i = a[2i], a[2i+1]
         .align 64
s:       .space 4
         .align 64

.text
.func main
main:    li     r2, 0
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
         li     r3, 0
m_sum:   shl    r4, r3, 3
         ld     r5, s[r4]
         add    r2, r2, r5
         add    r3, r3, 1
         blt    r3, 4, m_sum
         out    r2
         exit

.func worker
worker:  delay  0, 300
         shl    r2, r1, 4               # byte offset of my slice
         shl    r3, r1, 1
         add    r3, r3, 1               # values 2i+1, 2i+2
         la     r9, a
         add    r9, r9, r2
         st     r3, [r9]
         add    r3, r3, 1
         st     r3, [r9+8]
         barrier bar, 4
         add    r4, r1, 3               # left neighbour (i-1) mod 4
         and    r4, r4, 3
         shl    r4, r4, 4
         add    r5, r1, 1               # right neighbour (i+1) mod 4
         and    r5, r5, 3
         shl    r5, r5, 4
         la     r9, a
         add    r4, r9, r4
         add    r5, r9, r5
         ld     r6, [r4]
         ld     r7, [r4+8]
         add    r6, r6, r7
         ld     r7, [r5]
         add    r6, r6, r7
         ld     r7, [r5+8]
         add    r6, r6, r7
         shl    r8, r1, 3
         st     r6, s[r8]
         exit
