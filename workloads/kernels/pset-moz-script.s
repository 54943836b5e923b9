# pset-moz-script: the Mozilla script-loader atomicity violation (PSet
# Figure 2, Table 1 row 7). The loader thread sets gCurrentScript under
# the lock (W1), launches the load and releases the lock; when the load
# completes it takes the lock again and compiles gCurrentScript (R1). The
# document thread polls under the same lock and, when the page goes away,
# sets gCurrentScript = NULL (W2). Every access holds the lock, so there
# is no data race, but W1 .. R1 is meant to be atomic: a W2 in between
# makes the compile dereference NULL and the run crashes.
#
# Detector shape: race-free (happens-before and lockset see nothing);
# AVIO sees W1-W2-R1 (unserializable) at R1; PSet: W2's predecessor W1 is
# not in PSet(W2) = {R1}, so the check fails at W2, inside the lock;
# stalling W2 cannot help because the loader needs the lock for R1
# (PSet Table 2: stall No). The document thread takes the lock many times
# before it clears the script, so in correct runs every lock-word hand-off
# (loader -> document -> loader, inside a load) is seen too and the first
# failing check is W2, not a lock acquire.
#
# Tuning: the bug window is the loader's `delay` (the network load)
# between W1 and R1; the document thread's first `delay` places the unload
# among the loads. Shorter loads give fewer buggy runs.

.kernel  pset-moz-script
.desc    "the document thread clears gCurrentScript under the lock between the loader setting it and compiling it (both under the lock), and the compile dereferences NULL"
.class   atomicity
.force   "seed=2"
.source  "pset:7"
.cores   3
.expect  4

.data
lk:        .word 0                      # the script loader's lock
           .align 64
gCurrentScript: .word 0
           .align 64
docEvents: .word 0                      # events the document thread handled
compiled:  .word 0                      # scripts compiled
           .align 64

.text
.func main
main:    spawn  r10, loader, r0
         spawn  r11, document, r0
         join   r10
         join   r11
         ld     r2, compiled
         out    r2
         exit

.func loader
loader:  li     r2, 0                   # script number
lo_loop: alloc  r3, 2                   # the script object
         add    r4, r2, 1
         st     r4, [r3]
         call   launch_load
         delay  60, 140                 # the network load
         call   on_load_complete
         delay  20, 60
         add    r2, r2, 1
         blt    r2, 4, lo_loop
         exit

.func launch_load
launch_load: lock lk
         st     r3, gCurrentScript @bug # gCurrentScript = script (W1)
         unlock lk
         ret

.func on_load_complete
on_load_complete: lock lk
         ld     r5, gCurrentScript @bug # gCurrentScript->Compile() (R1)
         ld     r6, [r5]                # NULL after an unload in between
         ld     r7, compiled
         add    r7, r7, 1
         st     r7, compiled
         unlock lk
         ret

.func document
document: delay 100, 2400               # the user navigates some time during the loads
         li     r2, 0                   # poll number
do_loop: delay  20, 60
         call   doc_poll
         add    r2, r2, 1
         blt    r2, 4, do_loop
         exit

.func doc_poll
doc_poll: lock  lk
         ld     r3, docEvents           # handle pending document events
         add    r3, r3, 1
         st     r3, docEvents
         bne    r2, 3, dp_out           # the last poll unloads the page
         st     r0, gCurrentScript @bug # gCurrentScript = NULL (W2)
dp_out:  unlock lk
         ret
