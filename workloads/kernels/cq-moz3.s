# cq-moz3: ConSeq Moz3 (old Mozilla, code extracted; error message;
# Table 3: ConSeq and Race, not Atom). The paper says only that it is an
# atomicity violation involving more than three accesses, with one error
# site (Table 5). Reconstruction: an nsVoidArray-style array {mCount,
# mArray}, neither guarded. The writer appends a fifth element: it builds
# a larger buffer, publishes the new count, and only then the new buffer.
# A reader that looks at the array in between, reading the count and then
# the buffer, sees the new count with the old buffer and its consistency
# check reports "nsVoidArray: count exceeds capacity" (NS_ERROR): `error`.
# The bug needs four accesses in the order
#     W(mCount) [writer]  R(mCount) [reader]  R(mArray) [reader]  W(mArray) [writer]
# and no thread touches either field twice.
#
# Detectors: Race: both fields are read and written with no lock and no
# ordering. Atom: no thread has two accesses to the same field, so there is
# no local pair to interleave (the paper's Atom reports nothing on Moz3).
# ConSeq: the `fail` is the ERR site; its guard compares the count with the
# buffer's capacity in one statement, so the loads of mCount and mArray are
# critical reads at distance 1. In a correct run where the reader saw the
# old pair, the writer's store of the new count is a feasible alternative
# for the mCount load and its value breaks the check (the new buffer,
# by contrast, would not, so value checking prunes it).
#
# Tuning: the window is the writer's `work 30` + `delay 0, 60` between the
# two publishes; the reader and the writer start after `delay 0, 1500`.

.kernel  cq-moz3
.desc    "an array's writer publishes the new count before the new buffer with no lock; a reader between them sees count > capacity and reports an error"
.class   multivar
.force   "seed=1"
.source  "conseq:Moz3"
.cores   3

.data
mCount:  .word 4                        # elements in use
         .align 64
mArray:  .word arr0                     # the element buffer
         .align 64
arr0:    .word 4                        # capacity, then the elements
         .word 11
         .word 12
         .word 13
         .word 14
         .align 64

.text
.func main
main:    spawn  r10, writer, r0
         spawn  r11, reader, r0
         join   r10
         join   r11
         exit

.func writer
writer:  delay  0, 1500                 # some time, the array grows
         alloc  r2, 9                   # new buffer: capacity 8
         li     r3, 8
         st     r3, [r2]
         la     r4, arr0
         li     r5, 0
w_copy:  shl    r6, r5, 3
         add    r7, r4, r6
         ld     r8, [r7+8]
         add    r7, r2, r6
         st     r8, [r7+8]
         add    r5, r5, 1
         blt    r5, 4, w_copy
         li     r8, 15
         st     r8, [r2+40]             # the fifth element
         li     r9, 5
         st     r9, mCount      @bug    # mCount = 5   (published first: the bug)
         work   30                      # release the old buffer's bookkeeping
         delay  0, 60
         st     r2, mArray      @bug    # mArray = new buffer
         exit

.func reader
reader:  delay  0, 1500
         ld     r2, mCount      @bug    # n = mCount            (critical read, distance 1)
         ld     r3, mArray      @bug    # a = mArray            (critical read, distance 1)
         ld     r4, [r3]                # capacity
         bge    r4, r2, r_ok            # if (n > capacity) NS_ERROR
         fail   "nsVoidArray: count exceeds capacity"
         exit
r_ok:    sub    r5, r2, 1
         shl    r5, r5, 3
         add    r5, r5, r3
         ld     r6, [r5+8]              # ElementAt(n - 1)
         exit
