# msgpass: flag-based message passing. For each of four rounds the writer
# stores a two-word message, then publishes it by storing the round number
# to flag; the reader spins on flag with plain loads, reads the message,
# prints its two words added, and acknowledges through ack. Plain loads
# and stores suffice because the machine is sequentially consistent; the
# flag protocol is invisible to lock- and happens-before-based detectors.

.kernel  msgpass
.desc    "a writer stores a message then sets a flag; the reader spins on the flag with ld, reads the message and acks; four rounds"
.class   none
.source  ""
.cores   3
.expect  101 202 303 404

.data
flag:    .word 0                        # number of the last published message
         .align 64
ack:     .word 0                        # number of the last message read
         .align 64
msg:     .space 2
         .align 64

.text
.func main
main:    spawn  r10, writer, r0
         spawn  r11, reader, r0
         join   r10
         join   r11
         exit

.func writer
writer:  li     r2, 0                   # round
w_loop:  delay  20, 120                 # prepare the message
         add    r3, r2, 1               # message number
         st     r3, msg
         mul    r4, r3, 100
         st     r4, msg+8
         st     r3, flag                # publish
w_ack:   ld     r5, ack
         bne    r5, r3, w_ack           # wait until it was read
         add    r2, r2, 1
         blt    r2, 4, w_loop
         exit

.func reader
reader:  li     r2, 0                   # round
r_loop:  add    r3, r2, 1               # message number expected
r_spin:  ld     r5, flag
         bne    r5, r3, r_spin
         ld     r6, msg
         ld     r7, msg+8
         add    r6, r6, r7
         out    r6
         st     r3, ack
         add    r2, r2, 1
         blt    r2, 4, r_loop
         exit
