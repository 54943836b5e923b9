# infer-lock-order-nested: a lock-order inversion hidden in nested calls.
# update_all takes a, calls update_b (takes b), which calls update_c (takes
# c); audit takes c and then calls read_a, which takes a. The inversion
# a ... c against c ... a is two call levels deep on one side. When audit
# holds c while update_all holds a (and b) and wants c, the run hangs.
#
# Tuning: the two start `delay`s against the `work` on each path.

.kernel  infer-lock-order-nested
.desc    "update_all locks a, then b and c in nested calls; audit locks c then calls a function that locks a; interleaved, they deadlock"
.class   deadlock
.force   "seed=3"
.source  "inference:lock-order-nested"
.cores   3
.expect  1 1 1 1

.data
a:       .word 0
         .align 64
b:       .word 0
         .align 64
c:       .word 0
         .align 64
va:      .word 0
         .align 64
vb:      .word 0
         .align 64
vc:      .word 0
         .align 64
seen:    .word 0
         .align 64

.text
.func main
main:    spawn  r10, updater, r0
         spawn  r11, auditor, r0
         join   r10
         join   r11
         ld     r2, va
         out    r2
         ld     r2, vb
         out    r2
         ld     r2, vc
         out    r2
         ld     r2, seen
         out    r2
         exit

.func updater
updater: delay  0, 1800
         call   update_all
         exit

.func update_all
update_all: lock a              @bug
         ld     r2, va
         add    r2, r2, 1
         st     r2, va
         call   update_b
         unlock a
         ret

.func update_b
update_b: lock  b
         ld     r2, vb
         add    r2, r2, 1
         st     r2, vb
         work   20
         call   update_c
         unlock b
         ret

.func update_c
update_c: lock  c               @bug
         ld     r2, vc
         add    r2, r2, 1
         st     r2, vc
         unlock c
         ret

.func auditor
auditor: delay  0, 1800
         lock   c               @bug
         work   20
         call   read_a
         unlock c
         exit

.func read_a
read_a:  lock   a               @bug
         ld     r2, va
         sne    r2, r2, -1
         st     r2, seen
         unlock a
         ret
