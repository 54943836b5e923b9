# CoRR (coherence of read-read). Thread a writes x=1; thread b reads x
# twice. Under sequential consistency (indeed under coherence alone) a
# later read never sees an older value than an earlier one: r1=1, r2=0
# is forbidden. b's second load normally hits in its L1, so a stale line
# left behind by a lost invalidation would show up here.
#
# Outputs: r1 (b's first x), r2 (b's second x).
# Frame (warm-up, barrier, delay): see sb.s.

.kernel  litmus-corr
.desc    "CoRR litmus test: st x || ld x; ld x"
.class   none
.cores   3

.data
warm:    .word 0
         .align 64
bar:     .word 0
         .align 64
x:       .word 0
         .align 64
res1:    .word 0
         .align 64
res2:    .word 0
         .align 64

.text
.func main
main:    spawn  r10, ta, r0
         spawn  r11, tb, r0
         join   r10
         join   r11
         ld     r2, res1
         out    r2
         ld     r3, res2
         out    r3
         exit

.func ta
ta:      li     r2, 1
         ld     r5, warm
         beqz   r5, a_go
         ld     r6, x
a_go:    barrier bar, 2
         delay  0, 300
a_st:    st     r2, x
         exit

.func tb
tb:      ld     r5, warm
         beqz   r5, b_go
         ld     r6, x
b_go:    barrier bar, 2
         delay  0, 300
b_ld1:   ld     r3, x
b_ld2:   ld     r4, x
         st     r3, res1
         st     r4, res2
         exit
