# cq-oo: ConSeq OO (OpenOffice, old version, code extracted; infinite
# loop; Table 3: ConSeq only). An anti-atomicity bug with correct locking.
# For each of six requests the main (UI) thread creates a request with an
# osl::Condition, posts it to the worker thread, resets the condition and
# waits until the worker sets it:
#     post(req); ...; req->cond.reset();  while (!req->cond.check()) yield;
#     worker: take(req); process(req); req->cond.set();
# The reset-then-wait region must NOT be atomic: the program is correct
# only when the worker's set lands between the reset and the checks. When
# the worker is quick, its set comes before the reset, the reset erases it,
# and the UI thread waits for ever. The condition's own mutex guards every
# access, so there is no data race, and with six requests no single order
# of two statements decides the outcome.
#
# Livelock oracle: the wait would spin until sim.max_cycles (100M cycles,
# `hang`), too slow for 200 seeds, so the loop counts its iterations and
# after 300 (correct waits take a few) reports `fail "infinite loop"` and
# abandons the request: `error`. In the buggy interleaving nothing would
# ever set the condition again, so the loop is a real endless spin.
#
# Detectors: Race sees the condition mutex on every access. Atom: each
# request's condition is a fresh object, touched by the UI thread (reset,
# checks) and the worker (set) only; the failing order set -> reset ->
# checks is serial, and the unserializable reset -> set -> check is the
# correct run. ConSeq: the loop-exit branch (LOOP site) reads the UI
# thread's `done` (distance 0); the store done = TRUE is at 1; the branch
# on the check's result, with its load, at 2; the two stores of the result
# at 3; the branch on the condition word, with its load, at 4: the critical
# read, in the loop body. In a correct run its last instance reads the
# worker's set (w); the UI thread's own reset (w') is concurrent with it,
# so ConSeq's loop rule reports the pair (same-thread mode in the tester).
#
# Tuning: the UI thread's gap between post and reset is `delay 10, 120`;
# the worker polls every `delay 20, 200` and processes for `work 50`.

.kernel  cq-oo
.desc    "the UI thread posts a request before it resets the request's condition; a quick worker's set is erased by the reset and the wait loop never ends"
.class   order
.force   "seed=3"
.source  "conseq:OO"
.cores   2

.data
qm:        .word 0                      # the request queue's mutex
queue:     .word 0                      # the posted request (0: none)
           .align 64
cm:        .word 0                      # the osl::Condition mutex
           .align 64
ui_result: .word 0                      # the UI thread's check result (UI only)
ui_done:   .word 0                      # the UI thread's bDone (UI only)
           .align 64

.text
.func main
main:    spawn  r10, worker, r0
         li     r2, 0                   # request number
ui_round: work  30                      # handle UI events
         alloc  r11, 2                  # request: {id, cond}
         add    r3, r2, 1
         st     r3, [r11]
         lock   qm
         st     r11, queue              # post(req)
         unlock qm
         delay  10, 120                 # prepare the progress dialog
         lock   cm
         st     r0, [r11+8]     @bug    # req->cond.reset()  (too late)
         unlock cm
         call   ui_wait
         add    r2, r2, 1
         blt    r2, 6, ui_round
         join   r10
         exit

# ui_wait: r11 = the request. while (!bDone) { yield; bDone = check(); }
.func ui_wait
ui_wait: st     r0, ui_done
         li     r4, 0                   # watchdog: iterations
uw_loop: add    r4, r4, 1
         blt    r4, 300, uw_yield
         fail   "infinite loop"         # 300 checks: the wait would never end
         ret
uw_yield: delay 20, 60                  # Application::Yield()
         lock   cm
         ld     r5, [r11+8]     @bug    # osl_checkCondition: the condition word   (distance 4)
         unlock cm
         beqz   r5, uw_notset
         li     r6, 1
         st     r6, ui_result           #   result = sal_True                      (distance 3)
         jmp    uw_result
uw_notset: st   r0, ui_result           #   result = sal_False                     (distance 3)
uw_result: ld   r7, ui_result           # if (result)                              (distance 2)
         beqz   r7, uw_check
         li     r6, 1
         st     r6, ui_done             #     bDone = sal_True                     (distance 1)
uw_check: ld    r8, ui_done             # while (!bDone)   (LOOP site, distance 0)
         beqz   r8, uw_loop
         ret

.func worker
worker:  li     r2, 0                   # requests done
wk_poll: delay  20, 200                 # wait for a request
         lock   qm
         ld     r3, queue
         st     r0, queue
         unlock qm
         beqz   r3, wk_poll
         work   50                      # process the request
         li     r4, 1
         lock   cm
         st     r4, [r3+8]      @bug    # req->cond.set()
         unlock cm
         add    r2, r2, 1
         blt    r2, 6, wk_poll
         exit
