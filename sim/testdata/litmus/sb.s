# SB (store buffering). Each thread stores 1 to its own variable, then
# loads the other thread's variable. Under sequential consistency one of
# the two stores comes first in the global order, so at least one load
# sees 1: r1=0 and r2=0 together is forbidden.
#
# Outputs: r1 (thread a's load of y), r2 (thread b's load of x).
#
# Frame shared by every program here: when warm is 1 each test thread
# first loads every test variable (so the lines start shared and stores
# are upgrades); then the test threads meet at a barrier, wait a random
# delay and run their test accesses back to back. sim/litmus_test.go runs
# each program cold (warm 0) and warm (by rewriting the warm line).

.kernel  litmus-sb
.desc    "store buffering litmus test: st x; ld y || st y; ld x"
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
a_st:    st     r2, x
a_ld:    ld     r3, y
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
b_st:    st     r2, y
b_ld:    ld     r3, x
         st     r3, res2
         exit
