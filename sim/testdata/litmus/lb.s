# LB (load buffering). Each thread loads one variable, then stores 1 to
# the other. Under sequential consistency one of the loads comes first in
# the global order, before either store, so r1=1 and r2=1 together is
# forbidden.
#
# Outputs: r1 (thread a's load of x), r2 (thread b's load of y).
# Frame (warm-up, barrier, delay): see sb.s.

.kernel  litmus-lb
.desc    "load buffering litmus test: ld x; st y || ld y; st x"
.class   none
.cores   3

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
         ld     r6, y
a_go:    barrier bar, 2
         delay  0, 300
a_ld:    ld     r3, x
a_st:    st     r2, y
         st     r3, res1
         exit

.func tb
tb:      li     r2, 1
         ld     r5, warm
         beqz   r5, b_go
         ld     r6, x
         ld     r6, y
b_go:    barrier bar, 2
         delay  0, 300
b_ld:    ld     r3, y
b_st:    st     r2, x
         st     r3, res2
         exit
