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
#
# Noise (custom synchronisation, not the bug): the server starts its thread
# pool before it binds the listening socket. Main stores srv->socket and
# then sets srv->ready; each worker spins `while (!srv->ready)
# cpu_relax();` before its accept loop and then checks the socket
# (`if (srv->socket < 0) PRINT_ERROR(...)`, an ERR site, the load at
# distance 1). The spin loop is a spin flag in ConSeq's sense: with the
# recogniser on, its exit orders main's socket store before the check and
# ConSeq reports nothing there; with it off, no write is ordered before the
# check's read, and the uninitialised-read extension reports the initial
# -1 (a false positive: a worker cannot pass the spin before the socket is
# stored). Both words are plain unlocked accesses, a benign race.

.kernel  cq-cherokee
.desc    "worker threads store their clock readings into the cached server time under a lock without an ordering check, so the final logged time can be an older reading"
.class   order
.force   "seed=3"
.source  "conseq:Cherokee"
.cores   3
.expect  7

.data
sys_clock: .word 0                      # time(NULL)
           .align 64
bogo_lock: .word 0                      # cherokee_bogotime's lock
bogo_now:  .word 0                      # the cached time
           .align 64
srv_socket: .word -1                    # srv->socket: the listening fd (-1: none yet)
srv_ready: .word 0                      # srv->ready: the server is listening
           .align 64

.text
.func main
main:    spawn  r10, worker, r0
         spawn  r11, worker, r0
         work   120                     # bind and listen on the server port
         li     r3, 5
         st     r3, srv_socket          # srv->socket = fd
         li     r3, 1
         st     r3, srv_ready           # srv->ready = 1
         join   r10
         join   r11
         lock   bogo_lock
         ld     r2, bogo_now    @bug    # the final log line's time  (critical read, distance 1)
         unlock bogo_lock
         out    r2                      # the OUT site
         exit

.func worker
worker:  ld     r4, srv_ready           # while (!srv->ready)
         bnez   r4, wk_up
         work   20                      #     cpu_relax()
         jmp    worker
wk_up:   ld     r5, srv_socket          # if (srv->socket < 0)  (noise, distance 1)
         bge    r5, 0, wk_start
         fail   "cherokee: the server socket is not valid"
wk_start: li    r2, 0                   # connections
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
