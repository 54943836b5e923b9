# falcon-tsp: Falcon Table 3 "Tsp" (travelling salesman solver; paper
# failure rate 0%: it never failed in six hours of runs, and its 24
# unserializable patterns are benign). A CORRECT program.
#
# Four workers take tours (fixed start city 0, the 6 orders of cities
# 1..3) from a shared task counter under the queue lock and compute each
# tour's length over a 4-city distance matrix. Like the original, a worker
# prunes a tour as soon as its partial length reaches minTour, reading
# minTour WITHOUT the lock, and updates minTour under the min lock after
# re-checking it. The unlocked read is a real (benign) data race: a stale
# minTour is never smaller than the true minimum (it only decreases) and
# is the length of a tour already found, so a stale read only costs extra
# work, and main always prints the optimum 23.
#
# The benign patterns Falcon sees on minTour: the pruning read (R1) - a
# remote update (W2) - the next pruning read or the locked re-check (R1),
# R1-W2-R1; a worker's update, a remote update, its next pruning read,
# W1-W2-R1; and on the task counter, W1-W2-W1 between locked increments.
# No run fails, so every score is 0.

.kernel  falcon-tsp
.desc    "four workers search 6 tours, pruning against minTour read without the lock and updating it under a lock after re-checking; correct (the race is benign)"
.class   none
.source  "falcon:Tsp"
.cores   5
.expect  23

.data
qlock:     .word 0
next_task: .word 0
           .align 64
mlock:     .word 0
           .align 64
minTour:   .word 1000000
bestTour:  .word -1
           .align 64
dist:      .word 0                      # dist[i*4 + j]
           .word 2
           .word 9
           .word 10
           .word 2
           .word 0
           .word 6
           .word 4
           .word 9
           .word 6
           .word 0
           .word 8
           .word 10
           .word 4
           .word 8
           .word 0
tours:     .word 1                      # the 6 orders of cities 1..3
           .word 2
           .word 3
           .word 1
           .word 3
           .word 2
           .word 2
           .word 1
           .word 3
           .word 2
           .word 3
           .word 1
           .word 3
           .word 1
           .word 2
           .word 3
           .word 2
           .word 1
           .align 64

.text
.func main
main:    li     r2, 0
m_spawn: spawn  r3, worker, r2
         add    r2, r2, 1
         blt    r2, 4, m_spawn
         li     r2, 1                   # thread ids 1..4
m_join:  join   r2
         add    r2, r2, 1
         blt    r2, 5, m_join
         ld     r4, minTour
         out    r4
         exit

.func worker
worker:  delay  0, 100
w_task:  lock   qlock                   # take the next tour
         ld     r2, next_task
         add    r3, r2, 1
         st     r3, next_task
         unlock qlock
         bge    r2, 6, w_done
         mul    r4, r2, 24              # &tours[t*3]
         li     r5, 0                   # current city
         li     r6, 0                   # partial length
         li     r7, 0                   # step
w_step:  shl    r9, r7, 3
         add    r8, r4, r9
         ld     r10, tours[r8]          # next city
         shl    r11, r5, 2
         add    r11, r11, r10
         shl    r11, r11, 3
         ld     r12, dist[r11]
         add    r6, r6, r12
         work   20                      # expand the search node
         ld     r13, minTour            # prune: read without the lock (benign race)
         bge    r6, r13, w_task
         mov    r5, r10
         add    r7, r7, 1
         blt    r7, 3, w_step
         shl    r11, r5, 2              # back to city 0
         shl    r11, r11, 3
         ld     r12, dist[r11]
         add    r6, r6, r12
         lock   mlock
         ld     r13, minTour            # re-check under the lock
         bge    r6, r13, w_keep
         st     r6, minTour
         st     r2, bestTour
w_keep:  unlock mlock
         jmp    w_task
w_done:  exit
