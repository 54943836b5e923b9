# infer-lockset-protected: critical sections that commute harmlessly. Three
# threads each add to a shared total and append to a shared history ten
# times, always under m; the order of the critical sections varies from
# run to run but every access holds m. The prefilter's lockset step drops
# total and history (common lock m), so inference reports 0 candidates;
# happens-before is silent in every order. main prints 60 and 30.

.kernel  infer-lockset-protected
.desc    "three threads update a total and a history index ten times each, always under m: the critical sections reorder freely but never race"
.class   none
.source  "inference:lockset-protected"
.cores   4
.expect  60 30

.data
m:       .word 0
         .align 64
total:   .word 0
nhist:   .word 0
         .align 64
hist:    .space 32
         .align 64

.text
.func main
main:    li     r2, 1
         spawn  r10, adder, r2
         li     r2, 2
         spawn  r11, adder, r2
         li     r2, 3
         spawn  r12, adder, r2
         join   r10
         join   r11
         join   r12
         ld     r2, total
         out    r2
         ld     r3, nhist
         out    r3
         exit

.func adder
adder:   li     r4, 0
a_loop:  delay  0, 100
         lock   m
         ld     r2, total
         add    r2, r2, r1
         st     r2, total
         ld     r3, nhist
         and    r5, r3, 31
         shl    r5, r5, 3
         st     r1, hist[r5]
         add    r3, r3, 1
         st     r3, nhist
         unlock m
         add    r4, r4, 1
         blt    r4, 10, a_loop
         exit
