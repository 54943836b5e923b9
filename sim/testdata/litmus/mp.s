# MP (message passing). Thread a writes the data, then the flag; thread b
# reads the flag, then the data. Under sequential consistency a reader
# that sees the flag also sees the data: flag=1 and data=0 is forbidden.
#
# Outputs: the flag b read, the data b read.
# Frame (warm-up, barrier, delay): see sb.s.

.kernel  litmus-mp
.desc    "message passing litmus test: st data; st flag || ld flag; ld data"
.class   none
.cores   3

.data
warm:    .word 0
         .align 64
bar:     .word 0
         .align 64
data:    .word 0
         .align 64
flag:    .word 0
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
         ld     r6, data
         ld     r6, flag
a_go:    barrier bar, 2
         delay  0, 300
a_data:  st     r2, data
a_flag:  st     r2, flag
         exit

.func tb
tb:      ld     r5, warm
         beqz   r5, b_go
         ld     r6, data
         ld     r6, flag
b_go:    barrier bar, 2
         delay  0, 300
b_flag:  ld     r3, flag
b_data:  ld     r4, data
         st     r3, res1
         st     r4, res2
         exit
