# matmul: C = A x B for 8x8 matrices, rows split across four workers (two
# rows each). Main fills A[i][j] = i+j+1 and B[i][j] = (i*j mod 5) - 2
# before spawning, so the workers only read shared inputs and write their
# own rows of C. Main prints the sum and the index-weighted sum of C.

.kernel  matmul
.desc    "four threads multiply two 8x8 matrices, two rows of C each; main prints two checksums"
.class   none
.source  ""
.cores   5
.expect  -2228 -83208

.data
A:       .space 64
         .align 64
B:       .space 64
         .align 64
C:       .space 64
         .align 64

.text
.func main
main:    li     r2, 0                   # idx = i*8 + j
m_init:  shr    r3, r2, 3               # i
         and    r4, r2, 7               # j
         add    r5, r3, r4
         add    r5, r5, 1
         shl    r6, r2, 3
         st     r5, A[r6]
         mul    r5, r3, r4
         rem    r5, r5, 5
         sub    r5, r5, 2
         st     r5, B[r6]
         add    r2, r2, 1
         blt    r2, 64, m_init
         li     r2, 0
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
         li     r2, 0                   # idx
         li     r3, 0                   # sum
         li     r4, 0                   # weighted sum
m_sum:   shl    r6, r2, 3
         ld     r5, C[r6]
         add    r3, r3, r5
         add    r7, r2, 1
         mul    r5, r5, r7
         add    r4, r4, r5
         add    r2, r2, 1
         blt    r2, 64, m_sum
         out    r3
         out    r4
         exit

.func worker
worker:  shl    r2, r1, 1               # first row = 2 * r1
         add    r3, r2, 2               # one past the last row
w_row:   li     r4, 0                   # j
w_col:   li     r5, 0                   # k
         li     r6, 0                   # acc
w_dot:   shl    r7, r2, 3
         add    r7, r7, r5
         shl    r7, r7, 3
         ld     r8, A[r7]               # A[i][k]
         shl    r9, r5, 3
         add    r9, r9, r4
         shl    r9, r9, 3
         ld     r10, B[r9]              # B[k][j]
         mul    r8, r8, r10
         add    r6, r6, r8
         add    r5, r5, 1
         blt    r5, 8, w_dot
         shl    r7, r2, 3
         add    r7, r7, r4
         shl    r7, r7, 3
         st     r6, C[r7]               # C[i][j]
         add    r4, r4, 1
         blt    r4, 8, w_col
         add    r2, r2, 1
         blt    r2, r3, w_row
         exit
