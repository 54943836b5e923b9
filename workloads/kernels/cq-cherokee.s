# cq-cherokee: the Cherokee-0.99.48 output non-determinism ConSeq found
# (Section 10.1; no detector columns in Table 3). Reconstruction: the
# server caches the current time (cherokee_bogotime) for its log and
# headers. Each worker thread, when it accepts a connection, reads the
# clock, formats it, and then stores it into the cache under the cache's
# lock, without checking that the cached time is older. A thread that read
# the clock earlier but stores later moves the cached time backwards. At
# shutdown the server writes its final log line with the cached time: in
# most runs it is the newest reading (7), but when the last two updates of
# the two workers are inverted it is an older one, so the output differs
# from run to run: `wrong_output`. The clock is a global counter advanced
# atomically at each reading (`fadd`), standing in for time(NULL).
#
# Detectors: Race: every access to the cached time holds its lock. Atom:
# the workers only write the cached time (local W-W pairs with a remote
# W between are serializable) and main reads it once after the joins, so
# nothing is unserializable; the problem is the order of two lock-ordered
# writes. ConSeq: the final `out` is the OUT site; its argument, the load
# of the cached time, is a critical read at distance 1. In a correct run it
# reads the newest store; the other worker's stores are concurrent with it
# (locks give no order; the joins order both before the read), so ConSeq
# reports that the printed value can differ: output non-determinism.
#
# Tuning: the window is `work 4` + `delay 0, 200` between the clock reading
# and the store; connections arrive every `delay 100, 300`.

.kernel  cq-cherokee
.desc    "worker threads store their clock readings into the cached server time under a lock without an ordering check, so the final logged time can be an older reading"
.class   order
.force   "seed=4"
.source  "conseq:Cherokee"
.cores   3
.expect  7

.data
sys_clock: .word 0                      # time(NULL)
           .align 64
bogo_lock: .word 0                      # cherokee_bogotime's lock
bogo_now:  .word 0                      # the cached time
           .align 64

.text
.func main
main:    spawn  r10, worker, r0
         spawn  r11, worker, r0
         join   r10
         join   r11
         lock   bogo_lock
         ld     r2, bogo_now    @bug    # the final log line's time  (critical read, distance 1)
         unlock bogo_lock
         out    r2                      # the OUT site
         exit

.func worker
worker:  li     r2, 0                   # connections
wk_loop: delay  100, 300                # accept the next connection
         call   bogotime_update
         work   30                      # serve the request
         add    r2, r2, 1
         blt    r2, 4, wk_loop
         exit

.func bogotime_update
bogotime_update: fadd r3, sys_clock, 1  # now = time(NULL)
         work   4                       # cherokee_dtm_gmttime: format the string
         delay  0, 200
         lock   bogo_lock
         st     r3, bogo_now    @bug    # bogo_now = now   (no "if newer" check)
         unlock bogo_lock
         ret
