# pset-moz-nsslock: the Mozilla nsNSSComponent.cpp check-and-free
# atomicity violation (PSet Table 1 row 9). At shutdown two threads run the
# same cleanup: if the component's lock is still set (R), shut the rest of
# NSS down, clear the pointer (W) and destroy the lock. Nothing makes the
# test and the clear atomic: when both threads test before either clears
# (R, R, W, W) both destroy the lock, and the second PR_DestroyLock is a
# double free: the run crashes.
#
# Deviation: the paper's code destroys the lock before it clears the
# pointer. Our simulator faults on the second `free` at once (a real double
# free corrupts the heap and crashes later), so the kernel clears first and
# destroys after; then both writes happen before the crash, and the second
# thread's (R, W) pair is interleaved by the first thread's W (R-W-W), the
# unserializable triple AVIO reports. PSet: the first W's readers include
# the other thread's R, never seen in a correct run (violation at W; both
# threads end up stalled at W, so only rollback helps: stall No).
#
# Tuning: the window is the `work` between R and W (the rest of the NSS
# shutdown) against the spread of the two threads' `delay`. A wider spread
# gives fewer buggy runs.

.kernel  pset-moz-nsslock
.desc    "two shutdown paths both find the NSS lock set before either clears it, and both destroy it: double free"
.class   atomicity
.force   "seed=4"
.source  "pset:9"
.cores   3
.expect  0

.data
mutex:     .word 0                      # nsNSSComponent's lock (PRLock *)
           .align 64

.text
.func main
main:    alloc  r4, 2                   # PR_NewLock
         st     r4, mutex               # the component's lock
         spawn  r10, shutdown_thread, r0
         spawn  r11, shutdown_thread, r0
         join   r10
         join   r11
         ld     r2, mutex
         out    r2
         exit

.func shutdown_thread
shutdown_thread: delay 20, 900          # shutdown reaches the component
         call   shutdown_nss
         exit

.func shutdown_nss
shutdown_nss: ld r2, mutex      @bug    # if (mutex) (R)
         beqz   r2, sn_out
         work   60                      # NSS_Shutdown and the rest of the cleanup
         st     r0, mutex       @bug    # mutex = nsnull (W)
         free   [r2], 2         @bug    # PR_DestroyLock(mutex): double free
sn_out:  ret
