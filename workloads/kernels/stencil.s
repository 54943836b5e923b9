# stencil: a barrier-phased 1-D three-point stencil. A[1..32] is split into
# four slices of 8, one per worker; A[0] and A[33] are fixed zero halos.
# Phase 0 initialises each slice (A[i] = i*i mod 11). Each of the six
# phases computes B[i] = A[i-1] + 2*A[i] + A[i+1] into B, meets at a
# barrier, copies B back into A, and meets again, so a slice's edge reads
# its neighbours' words only after they were written. Main prints the sum
# and the index-weighted sum of A.

.kernel  stencil
.desc    "four threads run six barrier-separated phases of a 1-D 3-point stencil over their own slices; main prints two checksums"
.class   none
.source  ""
.cores   5
.expect  519354 8569341

.data
bar:     .word 0                        # the reusable barrier
         .align 64
A:       .space 34                      # A[0] and A[33] are halos
         .align 64
B:       .space 34
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         li     r2, 2
         spawn  r12, worker, r2
         li     r2, 3
         spawn  r13, worker, r2
         join   r10
         join   r11
         join   r12
         join   r13
         li     r2, 1                   # i
         li     r3, 0                   # sum
         li     r4, 0                   # weighted sum
m_sum:   shl    r5, r2, 3
         ld     r6, A[r5]
         add    r3, r3, r6
         mul    r6, r6, r2
         add    r4, r4, r6
         add    r2, r2, 1
         blt    r2, 33, m_sum
         out    r3
         out    r4
         exit

.func worker
worker:  mul    r2, r1, 8               # r1 = slice index
         add    r2, r2, 1               # first element
         add    r3, r2, 8               # one past the last
         mov    r4, r2
w_init:  shl    r5, r4, 3
         mul    r6, r4, r4
         rem    r6, r6, 11
         st     r6, A[r5]
         add    r4, r4, 1
         blt    r4, r3, w_init
         barrier bar, 4
         li     r9, 0                   # phase
w_phase: mov    r4, r2
w_comp:  shl    r5, r4, 3
         sub    r7, r5, 8
         ld     r6, A[r7]               # left
         ld     r8, A[r5]               # centre
         add    r6, r6, r8
         add    r6, r6, r8
         add    r7, r5, 8
         ld     r8, A[r7]               # right
         add    r6, r6, r8
         st     r6, B[r5]
         add    r4, r4, 1
         blt    r4, r3, w_comp
         barrier bar, 4
         mov    r4, r2
w_copy:  shl    r5, r4, 3
         ld     r6, B[r5]
         st     r6, A[r5]
         add    r4, r4, 1
         blt    r4, r3, w_copy
         barrier bar, 4
         add    r9, r9, 1
         blt    r9, 6, w_phase
         exit
