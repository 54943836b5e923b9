# infer-barrier-reuse: one barrier word used for two episodes. Three
# workers write cell[i] (phase 1), meet, read their right neighbour's cell
# into nxt[i] (phase 2), meet again on the same barrier, then overwrite
# cell[i] and read their neighbour's nxt (phase 3). The phase-2 read of
# cell[i+1] and the phase-3 overwrite of cell[i+1] are ordered only by the
# second episode, so the trace must give each episode its own barrier
# instance (enters of episode k before exits of episode k). With that,
# every cross-thread pair is barrier-ordered: inference reports 0
# candidates, happens-before is silent, and main prints 6 and 66.

.kernel  infer-barrier-reuse
.desc    "three workers run three phases separated by two episodes of one reusable barrier; each phase touches neighbours' data only across a barrier: race-free"
.class   none
.source  "inference:barrier-reuse"
.cores   4
.expect  6 66

.data
bar:     .word 0
         .align 64
cell:    .space 3
         .align 64
nxt:     .space 3
         .align 64
fin:     .space 3
         .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         li     r2, 2
         spawn  r12, worker, r2
         join   r10
         join   r11
         join   r12
         ld     r2, nxt
         ld     r3, nxt+8
         add    r2, r2, r3
         ld     r3, nxt+16
         add    r2, r2, r3
         out    r2                      # 1 + 2 + 3
         ld     r2, fin
         ld     r3, fin+8
         add    r2, r2, r3
         ld     r3, fin+16
         add    r2, r2, r3
         out    r2                      # 10 + 20 + 30 + (1 + 2 + 3)
         exit

.func worker
worker:  shl    r2, r1, 3               # my slot
         add    r3, r1, 1
         rem    r3, r3, 3
         shl    r3, r3, 3               # right neighbour's slot
         delay  0, 200
         add    r4, r1, 1
         st     r4, cell[r2]            # phase 1: cell[i] = i+1
         barrier bar, 3                 # episode 0
         delay  0, 200
         ld     r5, cell[r3]            # phase 2: nxt[i] = cell[i+1]
         st     r5, nxt[r2]
         barrier bar, 3                 # episode 1 (same word)
         delay  0, 200
         add    r4, r1, 1
         mul    r4, r4, 10
         st     r4, cell[r2]            # phase 3: overwrite my cell
         ld     r5, nxt[r3]             # and read the neighbour's nxt
         add    r4, r4, r5
         st     r4, fin[r2]
         exit
