# infer-fork-join-ordered: every cross-thread access ordered by fork and
# join alone. main fills in[0..3] and spawns two workers; each squares its
# two inputs into out; main joins both and sums out, then reuses in for a
# second round with two new workers. Conflicting pairs (main's writes of
# in against the workers' reads, the workers' writes of out against main's
# reads, and round two against round one) are all fork -> start or
# end -> join ordered, so the weakened happens-before step of the
# prefilter drops every pair: inference reports 0 candidates and
# happens-before is silent. main prints 30 and 174.

.kernel  infer-fork-join-ordered
.desc    "main writes inputs, forks two workers, joins them and reads their outputs, twice: every cross-thread pair is ordered by fork or join"
.class   none
.source  "inference:fork-join-ordered"
.cores   3
.expect  30 174

.data
in:      .space 4
         .align 64
out:     .space 4
         .align 64

.text
.func main
main:    li     r5, 0                   # round
m_round: li     r3, 0
m_fill:  shl    r4, r3, 3
         add    r2, r3, 1
         mul    r6, r5, 4
         add    r2, r2, r6              # round 0: 1..4, round 1: 5..8
         st     r2, in[r4]
         add    r3, r3, 1
         blt    r3, 4, m_fill
         li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         join   r10
         join   r11
         li     r2, 0
         li     r3, 0
m_sum:   shl    r4, r3, 3
         ld     r6, out[r4]
         add    r2, r2, r6
         add    r3, r3, 1
         blt    r3, 4, m_sum
         out    r2                      # 1+4+9+16 = 30, 25+36+49+64 = 174
         add    r5, r5, 1
         blt    r5, 2, m_round
         exit

.func worker
worker:  delay  0, 200
         shl    r2, r1, 4               # my two slots
         la     r3, in
         add    r3, r3, r2
         la     r4, out
         add    r4, r4, r2
         ld     r5, [r3]
         mul    r5, r5, r5
         st     r5, [r4]
         ld     r5, [r3+8]
         mul    r5, r5, r5
         st     r5, [r4+8]
         exit
