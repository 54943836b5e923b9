# pset-pfscan: the injected pfscan order bug (PSet Table 1 row 3). Main
# starts the scanner threads and only then sets the number of running
# workers, aworkers = N (W_init), under aworker_lock; it then waits on
# aworker_cv until aworkers drops to 0. Each worker scans its files,
# adding the matches of each file under the same lock, and at the end
# decrements aworkers under the lock, signalling when it reaches 0. A
# worker that finishes before main's W_init decrements the BSS zero;
# main's W_init then overwrites it, aworkers never reaches 0, and main
# waits forever (every thread blocked: hang).
#
# Detector shape: every access to aworkers holds aworker_lock, and main
# sets it and waits on it in one critical section, so there is no data
# race and no unserializable triple (happens-before, lockset and AVIO see
# nothing; the per-file match updates make main meet a worker on the lock
# in correct runs too, so even lock-word triples are not new). PSet:
# aworkers has no initialising store, so the early decrement has no
# predecessor; main's W_init then has the worker's decrement as its
# predecessor, which no correct run shows (PSet(W_init) = {}); counting
# lock words, main's acquire already fails (its predecessor is the
# decrementing worker's release). Main holds aworker_lock at W_init and
# the decrement has already happened, so stalling cannot help: rollback
# only (PSet Table 2: stall No). See docs/pset.md for why W0 is a BSS zero
# here rather than a store.
#
# Tuning: the window is main's `delay` between the spawns and W_init (the
# rest of main's start-up) against a worker's scan time (two files of
# `delay` + `work`). A longer scan gives fewer buggy runs.

.kernel  pset-pfscan
.desc    "main sets the running-workers count after starting the workers; a worker that finishes first decrements the uninitialised count and main waits for it to reach 0 forever"
.class   order
.force   "seed=9"
.source  "pset:3"
.cores   4
.expect  12

.data
aworker_lock: .word 0
aworkers:  .word 0                      # running workers (BSS zero)
matches:   .word 0                      # total matches found
           .align 64
aworker_cv: .word 0
           .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, worker, r2
         li     r2, 1
         spawn  r11, worker, r2
         li     r2, 2
         spawn  r12, worker, r2
         delay  60, 300                 # injected: the rest of main's start-up
         call   wait_workers
         join   r10
         join   r11
         join   r12
         ld     r3, matches
         out    r3
         exit

.func wait_workers
wait_workers: lock aworker_lock
         li     r4, 3
         st     r4, aworkers    @bug    # aworkers = nworkers (W_init), after the spawns
ww_loop: ld     r5, aworkers            # while (aworkers > 0)
         blt    r5, 1, ww_out
         cwait  aworker_cv, aworker_lock
         jmp    ww_loop
ww_out:  unlock aworker_lock
         ret

.func worker
worker:  li     r5, 0                   # file number
wk_loop: delay  0, 150                  # scan the next file
         work   20
         add    r2, r1, 1               # matches in it: 1, 2, 3
         call   add_matches
         add    r5, r5, 1
         blt    r5, 2, wk_loop
         call   worker_done
         exit

.func add_matches
add_matches: lock aworker_lock
         ld     r3, matches
         add    r3, r3, r2
         st     r3, matches
         unlock aworker_lock
         ret

.func worker_done
worker_done: lock aworker_lock
         ld     r4, aworkers    @bug    # --aworkers (R_dec)
         sub    r4, r4, 1
         st     r4, aworkers    @bug    # (W_dec)
         bnez   r4, wd_out
         csignal aworker_cv
wd_out:  unlock aworker_lock
         ret
