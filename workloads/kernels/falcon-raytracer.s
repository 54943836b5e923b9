# falcon-raytracer: Falcon Table 3 "RayTracer" (Java Grande Forum; atomicity,
# paper failure rate 14%, Falcon Table 5 bug pattern R1-W2-W1, rank 2).
#
# JGF's multithreaded RayTracer renders disjoint rows in each thread and
# adds the thread's pixel checksum into a shared checksum at the end. The
# update `checksum1 += checksum` sits in a synchronized block on an object
# that is private to each thread, so the lock excludes nobody. Here three
# render threads each take their own lock and do ld (a) / add / st (c) on
# the shared checksum. When another thread's update (b) falls between a
# thread's load and store, that update is lost and main prints a wrong
# checksum (wrong_output). Falcon's window on checksum holds
# R1(a)-W2(b)-W1(c) (the other thread's load and store merge into W2).
#
# Tuning: the bug window is ld..st in add_checksum (`work 8` plus the
# store's upgrade); the threads finish their four rows at times spread by
# the per-row `delay 0, 1000`.

.kernel  falcon-raytracer
.desc    "render threads add their checksums into a shared total under per-thread (useless) locks, so two overlapping read-add-write updates lose one"
.class   atomicity
.source  "falcon:RayTracer"
.cores   4
.force   "seed=32"
.expect  2850

.data
checksum:  .word 0                      # checksum1, shared
           .align 64
locks:     .word 0                      # one lock word per thread, 64 bytes apart
           .space 7
           .word 0
           .space 7
           .word 0
           .space 7
image:     .space 12                    # 3 threads x 4 rows
           .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, render, r2
         li     r2, 1
         spawn  r11, render, r2
         li     r2, 2
         spawn  r12, render, r2
         join   r10
         join   r11
         join   r12
         ld     r3, checksum            # rows 0..11 give 100 + 25 * row: 2850
         out    r3
         exit

.func render
render:  li     r2, 0                   # row in this thread's band; r1 = thread
         li     r3, 0                   # this thread's checksum
         shl    r9, r1, 6               # the thread's own lock (useless)
r_row:   work   40                      # trace the row's rays
         delay  0, 1000
         shl    r4, r1, 2
         add    r4, r4, r2              # global row
         mul    r5, r4, 25
         add    r5, r5, 100             # the row's pixel sum
         shl    r6, r4, 3
         st     r5, image[r6]
         add    r3, r3, r5
         add    r2, r2, 1
         blt    r2, 4, r_row
         call   add_checksum
         exit

.func add_checksum
add_checksum: lock locks[r9]            # synchronized on a per-thread object
         ld     r7, checksum    @bug    # (a) checksum1 += checksum
         work   8
         add    r7, r7, r3
         st     r7, checksum    @bug    # (c)
         unlock locks[r9]
         ret
