# pset-bmove: MySQL's bmove512 over a record whose filled prefix depends
# on timing: PSet Table 3's violations that cannot be resolved (Yu and
# Narayanasamy, ISCA 2009). Both of MySQL's are in bmove512(), which moves
# 512 heap bytes through a loop unrolled 128x (128 reads and 128 writes
# per iteration). In training little of the heap had been touched before
# bmove512 ran, so only a few of the unrolled reads ever had a remote
# predecessor and the others' PSets are empty. A test run that moves a
# record another thread wrote further into gives those reads a remote
# predecessor that no interleaving avoids (the writes are ordered before
# the move), so neither stalling nor rollback helps: the hardware logs the
# violation and adds the pair to the PSet, and the same move does not
# violate again. A correct program: no @bug.
#
# Each of two rounds allocates a fresh 64-word (512-byte) heap record and
# spawns a producer that writes record[i] = base + i for i = 0, 1, ...
# (computing each word: `work`) until its limit or until main, after
# `delay`, sets `stop` (an atomic flag: xchg, polled with fadd, so no
# lock hand-off adds PSet pairs of its own). The n words it writes depend
# on that delay: a timing-dependent prefix, different from seed to seed;
# the delay ends before the producer could write all 64. Main joins the
# producer (its stores are ordered before the move: no race), writes the
# other 64 - n words itself and outputs the record's sum, then moves the
# record to `dst` with bmove (64 straight-line ld/st pairs, one static
# load per word) and outputs dst's weighted checksum. Every value is the
# same whatever n, so .expect holds for every seed. Round 1 refills the
# same n words of a new record (a record of the same length, moved again)
# through the same bmove, so its loads have round 0's PCs and
# predecessors: an online PSet update in round 0 keeps round 1 from
# violating.
#
# bmove's load of word j has a remote predecessor (the producer's store)
# exactly when j < n; words j >= n are main's own. Training learns
# PSet(load j) = {producer store} for j below the largest n among its
# runs and {} above, so a held-out run with a larger n violates at the
# loads in between. A stall cannot help: the producer has exited and no
# other thread will touch the line, so it times out. Rollback cannot
# either: the sum is output before the move, an output cannot be undone,
# so the rollback modes checkpoint after it and a rollback re-executes
# only the move, whose predecessors the join has already fixed.
#
# Values: base = 100 (round 0), 200 (round 1). Sum 64*base + 2016;
# checksum sum over i of (i+1)*dst[i] = 2080*base + 87360.

.kernel  pset-bmove
.desc    "a producer fills a timing-dependent prefix of a fresh 64-word heap record; main joins it, completes the record and moves it with a 64x unrolled copy (MySQL bmove512), twice; prints each record's sum and the copy's checksum"
.class   none
.source  ""
.cores   2
.expect  8416 295360 14816 503360

.data
stop:    .word 0                        # main tells the producer to stop filling (atomics only)
         .align 64
limit:   .word 0                        # the most words the producer fills (main, before spawn)
base:    .word 0                        # the round's first value (main, before spawn)
nfill:   .word 0                        # words the producer filled (read after the join)
psum:    .word 0                        # their sum
         .align 64
dst:     .space 64                      # where bmove moves the record
         .align 64

.text
.func main
main:    li     r12, 0                  # round
         li     r13, 64                 # round 0 may fill the whole record
m_round: alloc  r10, 64                 # a fresh 512-byte heap record
         mul    r2, r12, 100
         add    r2, r2, 100             # base = 100 * (round + 1)
         st     r13, limit
         st     r2, base
         spawn  r11, producer, r10
         bnez   r12, m_join             # round 1 refills the same n words
         delay  0, 8000
         li     r3, 1
         xchg   r3, stop, r3            # stop filling
m_join:  join   r11
         ld     r13, nfill              # n
         ld     r4, psum                # sum of record[0..n-1]
         mov    r5, r13
m_fill:  bge    r5, 64, m_full          # main writes record[n..63]
         add    r3, r2, r5
         shl    r7, r5, 3
         add    r7, r7, r10
         st     r3, [r7]
         add    r4, r4, r3
         add    r5, r5, 1
         jmp    m_fill
m_full:  out    r4                      # the record's sum: 64*base + 2016
         mov    r1, r10
         call   bmove                   # dst = record
         li     r5, 0
         li     r6, 0
m_sum:   shl    r7, r5, 3               # checksum of the moved record
         ld     r3, dst[r7]
         add    r8, r5, 1
         mul    r3, r3, r8
         add    r6, r6, r3
         add    r5, r5, 1
         blt    r5, 64, m_sum
         out    r6                      # 2080*base + 87360
         xchg   r3, stop, r0            # rearm for the next round
         add    r12, r12, 1
         blt    r12, 2, m_round
         exit

.func producer
producer: ld    r9, limit               # r1 = the record
         ld     r8, base
         li     r2, 0                   # i
         li     r4, 0                   # sum
         mov    r7, r1                  # &record[i]
p_loop:  bge    r2, r9, p_done
         fadd   r3, stop, 0             # an atomic read of the flag
         bnez   r3, p_done
         add    r5, r8, r2
         st     r5, [r7]                # record[i] = base + i
         add    r4, r4, r5
         add    r7, r7, 8
         add    r2, r2, 1
         work   100                     # compute the word
         jmp    p_loop
p_done:  st     r2, nfill
         st     r4, psum
         exit

.func bmove
# bmove512: 64 straight-line ld/st pairs, each a different static
# instruction; r1 = the source record.
bmove:   ld     r3, [r1+0]
         st     r3, dst+0
         ld     r3, [r1+8]
         st     r3, dst+8
         ld     r3, [r1+16]
         st     r3, dst+16
         ld     r3, [r1+24]
         st     r3, dst+24
         ld     r3, [r1+32]
         st     r3, dst+32
         ld     r3, [r1+40]
         st     r3, dst+40
         ld     r3, [r1+48]
         st     r3, dst+48
         ld     r3, [r1+56]
         st     r3, dst+56
         ld     r3, [r1+64]
         st     r3, dst+64
         ld     r3, [r1+72]
         st     r3, dst+72
         ld     r3, [r1+80]
         st     r3, dst+80
         ld     r3, [r1+88]
         st     r3, dst+88
         ld     r3, [r1+96]
         st     r3, dst+96
         ld     r3, [r1+104]
         st     r3, dst+104
         ld     r3, [r1+112]
         st     r3, dst+112
         ld     r3, [r1+120]
         st     r3, dst+120
         ld     r3, [r1+128]
         st     r3, dst+128
         ld     r3, [r1+136]
         st     r3, dst+136
         ld     r3, [r1+144]
         st     r3, dst+144
         ld     r3, [r1+152]
         st     r3, dst+152
         ld     r3, [r1+160]
         st     r3, dst+160
         ld     r3, [r1+168]
         st     r3, dst+168
         ld     r3, [r1+176]
         st     r3, dst+176
         ld     r3, [r1+184]
         st     r3, dst+184
         ld     r3, [r1+192]
         st     r3, dst+192
         ld     r3, [r1+200]
         st     r3, dst+200
         ld     r3, [r1+208]
         st     r3, dst+208
         ld     r3, [r1+216]
         st     r3, dst+216
         ld     r3, [r1+224]
         st     r3, dst+224
         ld     r3, [r1+232]
         st     r3, dst+232
         ld     r3, [r1+240]
         st     r3, dst+240
         ld     r3, [r1+248]
         st     r3, dst+248
         ld     r3, [r1+256]
         st     r3, dst+256
         ld     r3, [r1+264]
         st     r3, dst+264
         ld     r3, [r1+272]
         st     r3, dst+272
         ld     r3, [r1+280]
         st     r3, dst+280
         ld     r3, [r1+288]
         st     r3, dst+288
         ld     r3, [r1+296]
         st     r3, dst+296
         ld     r3, [r1+304]
         st     r3, dst+304
         ld     r3, [r1+312]
         st     r3, dst+312
         ld     r3, [r1+320]
         st     r3, dst+320
         ld     r3, [r1+328]
         st     r3, dst+328
         ld     r3, [r1+336]
         st     r3, dst+336
         ld     r3, [r1+344]
         st     r3, dst+344
         ld     r3, [r1+352]
         st     r3, dst+352
         ld     r3, [r1+360]
         st     r3, dst+360
         ld     r3, [r1+368]
         st     r3, dst+368
         ld     r3, [r1+376]
         st     r3, dst+376
         ld     r3, [r1+384]
         st     r3, dst+384
         ld     r3, [r1+392]
         st     r3, dst+392
         ld     r3, [r1+400]
         st     r3, dst+400
         ld     r3, [r1+408]
         st     r3, dst+408
         ld     r3, [r1+416]
         st     r3, dst+416
         ld     r3, [r1+424]
         st     r3, dst+424
         ld     r3, [r1+432]
         st     r3, dst+432
         ld     r3, [r1+440]
         st     r3, dst+440
         ld     r3, [r1+448]
         st     r3, dst+448
         ld     r3, [r1+456]
         st     r3, dst+456
         ld     r3, [r1+464]
         st     r3, dst+464
         ld     r3, [r1+472]
         st     r3, dst+472
         ld     r3, [r1+480]
         st     r3, dst+480
         ld     r3, [r1+488]
         st     r3, dst+488
         ld     r3, [r1+496]
         st     r3, dst+496
         ld     r3, [r1+504]
         st     r3, dst+504
         ret
