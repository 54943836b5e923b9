# cq-click: the Click-1.8.0 bug ConSeq found (Section 10.1): a spinlock is
# destroyed while a thread still holds it, a non-race order violation that
# neither Race nor Atom detects. ConSeq reported that the error message
#     Spinlock::~Spinlock(): assertion '_depth == 0' failed
# could be printed under another interleaving of a correct run. Here the
# router thread runs tasks that hold an element's Spinlock (acquire:
# _depth++, release: --_depth; the Spinlock's bookkeeping is kept under the
# router's master mutex). At shutdown the driver clears `running`, gives
# the router thread a grace period instead of waiting for it, and destroys
# the element: ~Spinlock checks _depth. If the router thread is still
# inside a task, _depth is 1 and the message is printed: `error`.
#
# Detectors: Race: every _depth access holds the master mutex (the driver
# and the router thread are ordered only by that lock, which is exactly
# why the order can flip). Atom: the router thread's _depth++ and --_depth
# are read-modify-writes, so the driver's read falls between a local write
# and a local read (W-R-R), which is serializable; the bug is an order
# violation. ConSeq: the `fail` is the ERR site, guarded by the branch on
# the _depth load, a critical read at distance 1. In a correct run it reads
# 0 from the last release; the acquire's store (1) is a feasible
# alternative (nothing but locks orders it before the driver's read, and
# it sits in a different master-mutex section from the release).
#
# Tuning: the grace period is `delay 100, 300`; a task holds the spinlock
# for `work 40` + `delay 20, 300`, with `delay 20, 200` between tasks.

.kernel  cq-click
.desc    "the driver stops the router thread with a flag and a grace period, then destroys an element whose Spinlock the thread may still hold: '_depth == 0' fails"
.class   order
.force   "seed=2"
.source  "conseq:Click"
.cores   2

.data
master:  .word 0                        # the router's master mutex
         .align 64
running: .word 1                        # the router is running
         .align 64
spin:    .word 0                        # the element's Spinlock word
         .align 64
depth:   .word 0                        # Spinlock::_depth
owner:   .word 0                        # Spinlock::_owner
         .align 64

.text
.func main
main:    spawn  r10, router_thread, r0
         delay  300, 2400               # the router runs the test configuration
         lock   master
         st     r0, running             # driver: stop the router
         unlock master
         delay  100, 300                # grace period instead of a join
         call   spinlock_destroy        # ~Element -> ~Spinlock
         join   r10
         exit

.func spinlock_destroy
spinlock_destroy: lock master
         ld     r2, depth       @bug    # if (_depth != 0)  (critical read, distance 1)
         unlock master
         beqz   r2, sd_ok
         fail   "Spinlock::~Spinlock(): assertion '_depth == 0' failed"
sd_ok:   ret

.func router_thread
router_thread: tid r9
rt_loop: lock   master
         ld     r2, running
         unlock master
         beqz   r2, rt_exit
         call   spinlock_acquire
         work   40                      # run the element's task with the lock held
         delay  20, 300
         call   spinlock_release
         delay  20, 200                 # other tasks
         jmp    rt_loop
rt_exit: exit

.func spinlock_acquire
spinlock_acquire: lock spin             # the swap loop on _lock
         lock   master
         st     r9, owner               # _owner = current thread
         ld     r3, depth
         add    r3, r3, 1
         st     r3, depth       @bug    # _depth++
         unlock master
         ret

.func spinlock_release
spinlock_release: lock master
         ld     r3, depth
         sub    r3, r3, 1
         st     r3, depth       @bug    # --_depth
         bnez   r3, sr_held
         st     r0, owner               # _owner = 0
sr_held: unlock master
         unlock spin
         ret
