# IRIW (independent reads of independent writes). Threads a and b write
# x and y; readers c and d read them in opposite orders. Under sequential
# consistency the two writes happen in one global order that both readers
# see, so c seeing x=1,y=0 while d sees y=1,x=0 is forbidden.
#
# Outputs: c's x, c's y, d's y, d's x.
# Frame (warm-up, barrier, delay): see sb.s.

.kernel  litmus-iriw
.desc    "IRIW litmus test: st x || st y || ld x; ld y || ld y; ld x"
.class   none
.cores   5

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
res4:    .word 0
         .align 64

.text
.func main
main:    spawn  r10, ta, r0
         spawn  r11, tb, r0
         spawn  r12, tc, r0
         spawn  r13, td, r0
         join   r10
         join   r11
         join   r12
         join   r13
         ld     r2, res1
         out    r2
         ld     r3, res2
         out    r3
         ld     r4, res3
         out    r4
         ld     r5, res4
         out    r5
         exit

.func ta
ta:      li     r2, 1
         ld     r5, warm
         beqz   r5, a_go
         ld     r6, x
         ld     r6, y
a_go:    barrier bar, 4
         delay  0, 300
a_st:    st     r2, x
         exit

.func tb
tb:      li     r2, 1
         ld     r5, warm
         beqz   r5, b_go
         ld     r6, x
         ld     r6, y
b_go:    barrier bar, 4
         delay  0, 300
b_st:    st     r2, y
         exit

.func tc
tc:      ld     r5, warm
         beqz   r5, c_go
         ld     r6, x
         ld     r6, y
c_go:    barrier bar, 4
         delay  0, 300
c_ldx:   ld     r3, x
c_ldy:   ld     r4, y
         st     r3, res1
         st     r4, res2
         exit

.func td
td:      ld     r5, warm
         beqz   r5, d_go
         ld     r6, x
         ld     r6, y
d_go:    barrier bar, 4
         delay  0, 300
d_ldy:   ld     r3, y
d_ldx:   ld     r4, x
         st     r3, res3
         st     r4, res4
         exit
