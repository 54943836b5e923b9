# WRC (write-to-read causality). Thread a writes x; thread b reads x, then
# writes y; thread c reads y, then x. Under sequential consistency, if b
# saw a's write and c saw b's write, c also sees a's write: r1=1, r2=1,
# r3=0 is forbidden.
#
# Outputs: r1 (b's x), r2 (c's y), r3 (c's x).
# Frame (warm-up, barrier, delay): see sb.s.

.kernel  litmus-wrc
.desc    "WRC litmus test: st x || ld x; st y || ld y; ld x"
.class   none
.cores   4

.data
warm:    .word 0
         .align 64
bar:     .word 0
         .align 64
x:       .word 0
         .align 64
y:       .word 0
         .align 64
res1:    .word 0
         .align 64
res2:    .word 0
         .align 64
res3:    .word 0
         .align 64

.text
.func main
main:    spawn  r10, ta, r0
         spawn  r11, tb, r0
         spawn  r12, tc, r0
         join   r10
         join   r11
         join   r12
         ld     r2, res1
         out    r2
         ld     r3, res2
         out    r3
         ld     r4, res3
         out    r4
         exit

.func ta
ta:      li     r2, 1
         ld     r5, warm
         beqz   r5, a_go
         ld     r6, x
         ld     r6, y
a_go:    barrier bar, 3
         delay  0, 300
a_st:    st     r2, x
         exit

.func tb
tb:      li     r2, 1
         ld     r5, warm
         beqz   r5, b_go
         ld     r6, x
         ld     r6, y
b_go:    barrier bar, 3
         delay  0, 300
b_ld:    ld     r3, x
b_st:    st     r2, y
         st     r3, res1
         exit

.func tc
tc:      ld     r5, warm
         beqz   r5, c_go
         ld     r6, x
         ld     r6, y
c_go:    barrier bar, 3
         delay  0, 300
c_ldy:   ld     r3, y
c_ldx:   ld     r4, x
         st     r3, res2
         st     r4, res3
         exit
