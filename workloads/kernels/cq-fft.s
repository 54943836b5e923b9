# cq-fft: ConSeq FFT (SPLASH-2 FFT, wrong output; Table 3: ConSeq and
# Atom, not Race). The paper does not describe the bug, so the pattern is
# reconstructed from its detector columns: a single-variable atomicity
# violation in which every access holds the lock. Four processors (main is
# processor 0, as in SPLASH-2) run the transform and then, with dostats on,
# add their transpose time into Global->transtime. The update is split:
#     LOCK(Global->lock); t = Global->transtime; UNLOCK
#     mytime = CLOCK() - start ...
#     LOCK(Global->lock); Global->transtime = t + mytime; UNLOCK
# When another processor's update lands between one processor's read and
# write, that update is lost (R-W-W). Processor 0 then prints each
# processor's time and the average Global->transtime / P, which comes out
# too small: `wrong_output`.
#
# Detectors: Atom predicts the unserializable R-W-W on transtime (the
# local read and write are in different critical sections); Race sees the
# lock on every access. ConSeq: the printed average is the OUT site; its
# argument (the division) is at distance 1 and the transtime load feeding
# it sits in an earlier basic block, so the load is a critical read at
# distance 2 (one cross-block register edge). In a correct run it reads the
# last processor's store; every other processor's store is a feasible
# alternative (locks give no order), which is the lost-update outcome. The
# per-processor times are printed from slots with a single writer that
# join orders before the print, so they add no reports.
#
# Tuning: the window is `work 6` + `delay 0, 10` between read and write in
# update_stats; the processors finish after `delay 0, 4000` of transform.

.kernel  cq-fft
.desc    "FFT processors add their transpose time to Global->transtime with a locked read and a later locked write, so a concurrent update is lost and the printed average is wrong"
.class   atomicity
.force   "seed=4"
.source  "conseq:FFT"
.cores   4
.expect  40 80 120 160 100

.data
glock:      .word 0                     # Global->lock
            .align 64
transtime:  .word 0                     # Global->transtime: sum over processors
            .align 64
ptime:      .space 4                    # Global->transtimes[P]: one slot per processor
            .align 64

.text
.func main
main:    li     r2, 1
         spawn  r10, slave_start, r2
         li     r2, 2
         spawn  r11, slave_start, r2
         li     r2, 3
         spawn  r12, slave_start, r2
         li     r1, 0                   # main is processor 0
         call   slave_body
         join   r10                     # WAIT_FOR_END
         join   r11
         join   r12
         call   print_stats
         exit

.func slave_start
slave_start: call slave_body
         exit

# slave_body: r1 = MyNum.
.func slave_body
slave_body: delay 0, 4000              # the transform's phases (FFT1DOnce, Transpose, ...)
         work   40
         add    r3, r1, 1
         mul    r3, r3, 40              # mytime = this processor's transpose time
         shl    r4, r1, 3
         st     r3, ptime[r4]           # Global->transtimes[MyNum] = mytime
         call   update_stats
         ret

.func update_stats
update_stats: lock glock
         ld     r5, transtime   @bug    # t = Global->transtime
         unlock glock
         work   6                       # mytime = CLOCK() - start: the window
         delay  0, 10
         add    r5, r5, r3
         lock   glock
         st     r5, transtime   @bug    # Global->transtime = t + mytime (may overwrite a concurrent update)
         unlock glock
         ret

.func print_stats
print_stats: lock glock
         ld     r8, transtime   @bug    # critical read (distance 2 from the average's out)
         unlock glock
         li     r2, 0
ps_loop: shl    r3, r2, 3
         ld     r4, ptime[r3]           # per-processor time (single writer, ordered by join)
         out    r4
         add    r2, r2, 1
         blt    r2, 4, ps_loop
         div    r9, r8, 4               # average = Global->transtime / P   (distance 1)
         out    r9                      # the OUT site
         ret
