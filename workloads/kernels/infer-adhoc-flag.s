# infer-adhoc-flag: hand-rolled flag synchronisation, correct under the
# simulator's sequentially consistent memory but a data race by definition.
# The sender writes msg and then sets flag with plain stores; the receiver
# spins on flag with plain loads and then reads msg. The output is always
# right (main prints 42), so this is a correct kernel, but the race is
# real: flag (written by one thread, read by the other, no lock, no
# ordering edge) and msg (ordered only through the racy flag) are both
# reported by inference (candidate, confirmed at replay) and by
# happens-before in every run. The race is benign in outcome and visible
# only to a detector (the paper's pitfall: ad-hoc synchronisation is
# reported).

.kernel  infer-adhoc-flag
.desc    "the sender publishes msg through a plain flag that the receiver spins on: correct under SC, but flag and msg are data races that detectors report"
.class   none
.source  "inference:adhoc-flag"
.cores   3
.expect  42

.data
msg:     .word 0
         .align 64
flag:    .word 0
         .align 64
got:     .word 0
         .align 64

.text
.func main
main:    spawn  r10, sender, r0
         spawn  r11, receiver, r0
         join   r10
         join   r11
         ld     r2, got
         out    r2
         exit

.func sender
sender:  delay  0, 300
         li     r2, 42
         st     r2, msg
         li     r3, 1
         st     r3, flag                # plain store: the "release"
         exit

.func receiver
receiver: delay 0, 300
r_spin:  ld     r3, flag                # plain load: the "acquire"
         bnez   r3, r_go
         work   10
         jmp    r_spin
r_go:    ld     r2, msg
         st     r2, got
         exit
