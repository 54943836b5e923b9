# 2+2W. Thread a writes x=1 then y=2; thread b writes y=1 then x=2. Under
# sequential consistency the final values x=1 and y=1 together are
# forbidden: they would need x=2 before x=1 before y=2 before y=1 before
# x=2. main prints the final values after joining both threads.
#
# Outputs: final x, final y.
# Frame (warm-up, barrier, delay): see sb.s.

.kernel  litmus-2+2w
.desc    "2+2W litmus test: st x=1; st y=2 || st y=1; st x=2"
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

.text
.func main
main:    spawn  r10, ta, r0
         spawn  r11, tb, r0
         join   r10
         join   r11
         ld     r2, x
         out    r2
         ld     r3, y
         out    r3
         exit

.func ta
ta:      li     r2, 1
         li     r3, 2
         ld     r5, warm
         beqz   r5, a_go
         ld     r6, x
         ld     r6, y
a_go:    barrier bar, 2
         delay  0, 300
a_stx:   st     r2, x
a_sty:   st     r3, y
         exit

.func tb
tb:      li     r2, 1
         li     r3, 2
         ld     r5, warm
         beqz   r5, b_go
         ld     r6, x
         ld     r6, y
b_go:    barrier bar, 2
         delay  0, 300
b_sty:   st     r2, y
b_stx:   st     r3, x
         exit
