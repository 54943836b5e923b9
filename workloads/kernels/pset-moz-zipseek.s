# pset-moz-zipseek: the Mozilla nsZipArchive.cpp run-once atomicity
# violation (PSet Table 1 row 8). SeekToItem tests whether the central
# directory has been read (R: mBuilt); if not, it reads it: it adds a copy
# of the directory to the archive's item table, walks the entries using
# the item pointer mItem as its cursor (W: small integers, not pointers),
# publishes the item (W: mItem = item) and sets mBuilt (W). Then it uses
# mItem. Two threads that both test before either sets mBuilt both run the
# run-once region: the table holds the directory twice (main prints 2, not
# 1: wrong output), and when the later walk is still moving the cursor
# while the earlier thread already uses mItem, that thread dereferences a
# cursor value (garbage) and the run crashes. Either way the run is buggy
# exactly when both threads passed the test.
#
# Detector shape: unlocked (happens-before reports the race). Every buggy
# run has the unserializable R-W-W on mBuilt (one thread's test .. set is
# interleaved by the other's set), never seen in a correct run (AVIO; the
# garbage read adds W-W-R / R-W-R on mItem). PSet: the first set of mBuilt
# has the other thread's test among its readers, and the second walker's
# first cursor write has the first walker's write as predecessor; neither
# occurs in a correct run (PSet Table 2: 2 static violations). The
# threads never return to a tested predecessor, so stalling cannot help
# (stall No).
#
# Tuning: the window is the length of the run-once region (8 entries x
# the `work` in read_central) against the spread of the two threads'
# `delay` before SeekToItem. A wider spread gives fewer buggy runs.

.kernel  pset-moz-zipseek
.desc    "two threads both pass SeekToItem's run-once test: the directory is read twice, and one thread may dereference mItem while the other still uses it as its walk cursor"
.class   atomicity
.force   "seed=3"
.force   "seed=4"
.source  "pset:8"
.cores   3
.expect  42 42 1

.data
mBuilt:    .word 0                      # the central directory has been read
           .align 64
mItem:     .word 0                      # the item (the walk's cursor while building)
           .align 64
result:    .space 2                     # what each thread read from the item
           .align 64
mBuilds:   .word 0                      # copies of the directory in the item table
           .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, reader, r2
         li     r2, 1
         spawn  r11, reader, r2
         join   r10
         join   r11
         ld     r3, result
         out    r3
         ld     r3, result+8
         out    r3
         ld     r3, mBuilds             # the run-once region must have run once
         out    r3
         exit

.func reader
reader:  delay  0, 3200                 # open the jar entry some time
         call   seek_to_item
         shl    r2, r1, 3
         st     r9, result[r2]
         exit

.func seek_to_item
seek_to_item: ld r3, mBuilt     @bug    # if (!mBuilt) (R)
         bnez   r3, si_use
         call   read_central            # run once
si_use:  li     r9, 0
         li     r4, 0
si_loop: ld     r5, mItem       @bug    # use the item (garbage while another walk runs)
         ld     r6, [r5+8]              # item->offset
         add    r9, r9, r6
         work   30                      # extract a block
         add    r4, r4, 1
         blt    r4, 8, si_loop
         div    r9, r9, 8
         ret

.func read_central
read_central: fadd r6, mBuilds, 1       # a new copy of the directory joins the item table
         alloc  r8, 2                   # the item being built
         li     r6, 42
         st     r6, [r8+8]              # item->offset
         li     r7, 1                   # walk the central directory
rc_loop: st     r7, mItem       @bug    # cursor = entry r7 (a small integer, not a pointer)
         work   20                      # parse the entry
         add    r7, r7, 1
         blt    r7, 9, rc_loop
         st     r8, mItem       @bug    # mItem = item (W)
         li     r6, 1
         st     r6, mBuilt      @bug    # mBuilt = PR_TRUE (W)
         ret
