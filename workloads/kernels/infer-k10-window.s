# infer-k10-window: a race hidden across analysis windows (the paper's
# documented false negative of splitting traces into 10,000-event windows).
# early does one x++ at a random time; late first does 6,000 private
# lock/unlock pairs (12,000 synchronisation events of bookkeeping) and then
# its own x++. Nothing orders the two x++: it is a real race, and a
# happens-before detector (no window) reports it in every run. In most
# traces, though, early's x++ comes in the first 10,000 events and late's
# after them, so the two accesses fall in different windows and inference
# never builds a model holding both: a miss. Only when early's x++ comes
# late enough to share late's window does inference find it, and only when
# the two x++ overlap in time (both compute for a long time between the
# load and the store) is an update lost: main prints 1 instead of 2.
#
# Tuning: early's `delay` spreads its x++ over the length of late's loop;
# the `work` inside each x++ is the overlap window.

.kernel  infer-k10-window
.desc    "x++ in early and x++ in late race, but late reaches its x++ only after 12,000 synchronisation events, so the two accesses usually fall in different 10,000-event windows"
.class   race
.force   "seed=4"
.source  "inference:K10-window"
.cores   3
.expect  2

.data
x:       .word 0
         .align 64
p:       .word 0
         .align 64

.text
.func main
main:    spawn  r10, early, r0
         spawn  r11, late, r0
         join   r10
         join   r11
         ld     r2, x
         out    r2
         exit

.func early
early:   delay  0, 60000
         ld     r2, x           @bug
         work   2000
         add    r2, r2, 1
         st     r2, x           @bug
         exit

.func late
late:    li     r3, 0
l_loop:  lock   p                       # private bookkeeping: sync events only
         unlock p
         add    r3, r3, 1
         blt    r3, 6000, l_loop
         ld     r2, x           @bug
         work   2000
         add    r2, r2, 1
         st     r2, x           @bug
         exit
