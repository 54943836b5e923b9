# counter-locked: the correct twin of counter-race. Four workers each add 1
# to a shared counter 200 times inside lock/unlock; main joins them and
# prints the total, which must be exactly 4 x 200.

.kernel  counter-locked
.desc    "four threads each increment a shared counter 200 times under a lock; main prints the total"
.class   none
.source  ""
.cores   5
.expect  800

.data
tids:    .space 4                       # worker thread ids (main only)
         .align 64
L:       .word 0                        # the lock word
count:   .word 0                        # guarded by L
         .align 64

.text
.func main
main:    li     r2, 0                   # i
m_spawn: spawn  r3, worker, r2          # r1 = i in the worker
         shl    r4, r2, 3
         st     r3, tids[r4]
         add    r2, r2, 1
         blt    r2, 4, m_spawn
         li     r2, 0
m_join:  shl    r4, r2, 3
         ld     r3, tids[r4]
         join   r3
         add    r2, r2, 1
         blt    r2, 4, m_join
         ld     r5, count
         out    r5
         exit

.func worker
worker:  li     r2, 0                   # iteration
w_loop:  lock   L
         ld     r3, count
         add    r3, r3, 1
         st     r3, count
         unlock L
         work   5                       # work outside the critical section
         add    r2, r2, 1
         blt    r2, 200, w_loop
         exit
