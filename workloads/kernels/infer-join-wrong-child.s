# infer-join-wrong-child: main joins the wrong child before reading. It
# spawns fast and slow, joins fast, and reads slow's result (it should
# have joined slow). slow's write and main's read are ordered only if slow
# happened to finish first, which nothing enforces: the pair is concurrent
# in every run, inference reports it without reordering, replay confirms
# it, and happens-before reports it in every run. When slow is still
# running, main prints 0 for it instead of 7.
#
# Tuning: slow's `delay` against fast's.

.kernel  infer-join-wrong-child
.desc    "main joins the fast child and then reads the slow child's result before joining it; the read can come first"
.class   race
.force   "seed=1"
.source  "inference:join-wrong-child"
.cores   3
.expect  3 7

.data
res_fast: .word 0
          .align 64
res_slow: .word 0
          .align 64

.text
.func main
main:    spawn  r10, fast, r0
         spawn  r11, slow, r0
         join   r10
         ld     r2, res_fast
         out    r2
         ld     r3, res_slow    @bug    # slow has not been joined yet
         out    r3
         join   r11
         exit

.func fast
fast:    delay  100, 400
         li     r2, 3
         st     r2, res_fast
         exit

.func slow
slow:    delay  0, 600
         li     r2, 7
         st     r2, res_slow    @bug
         exit
