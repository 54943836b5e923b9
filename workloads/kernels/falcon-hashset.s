# falcon-hashset: Falcon Table 3 "HashSet" (JDK 1.4.2; atomicity, paper
# failure rate 3%, Falcon Table 5 bug pattern R1-W2-R1, rank 1).
#
# Both sets are Collections.synchronizedSet(new HashSet()). Thread 1 runs
# hs1.addAll(hs2): the wrapper locks hs1's mutex and AbstractCollection's
# addAll iterates hs2 through HashMap's HashIterator, which takes no lock
# on hs2: the iterator records hs2's modCount when it is created (a) and
# nextEntry() checks it again (c) before it walks to the next bucket.
# Thread 2 runs hs2.add(y) under hs2's mutex, which bumps modCount (b). An
# add during the walk makes nextEntry() throw
# ConcurrentModificationException (`fail`). Thread 1 never writes hs2's
# modCount, so Falcon's window on it holds R1(a)-W2(b)-R1(c) (or
# R1(c)-W2(b)-R1(c)), in failing runs only.
#
# Tuning: the bug window is the walk over hs2's 8 buckets with a `work 20`
# hs1.add() per entry; thread 2 adds at a uniform time in `delay 0, 5500`.

.kernel  falcon-hashset
.desc    "hs1.addAll(hs2) walks hs2's buckets with an unsynchronized HashIterator while hs2.add() bumps hs2's modCount, so nextEntry() throws ConcurrentModificationException"
.class   atomicity
.source  "falcon:HashSet"
.cores   3
.force   "seed=13"

.data
hs2_mutex: .word 0
           .align 64
hs2_modcount: .word 0
           .align 64
hs2_size:  .word 3
hs2_table: .word 0                      # 8 buckets, key or 0 (key % 8 = bucket)
           .word 17
           .word 0
           .word 0
           .word 12
           .word 0
           .word 22
           .word 0
           .align 64
hs1_mutex: .word 0
           .align 64
hs1_size:  .word 0
hs1_table: .space 8
           .align 64

.text
.func main
main:    spawn  r10, adder, r0
         spawn  r11, inserter, r0
         join   r10
         join   r11
         exit

.func adder
adder:   delay  100, 140
         lock   hs1_mutex               # hs1.addAll(hs2), synchronized on hs1
         ld     r2, hs2_modcount @bug   # (a) new HashIterator(): expectedModCount
         li     r3, 0                   # bucket index
a_next:  ld     r4, hs2_modcount @bug   # (c) nextEntry(): modCount check
         bne    r4, r2, a_cme
a_scan:  bge    r3, 8, a_done           # advance to the next non-empty bucket
         shl    r5, r3, 3
         ld     r6, hs2_table[r5]
         add    r3, r3, 1
         beqz   r6, a_scan
         call   hs1_add
         jmp    a_next
a_done:  unlock hs1_mutex
         exit
a_cme:   unlock hs1_mutex               # the exception releases hs1's mutex
         fail   "ConcurrentModificationException in hs2's HashIterator"
         exit

# hs1.add(r6): hash the key into hs1's table.
.func hs1_add
hs1_add: work   20                      # hashCode() and the bucket search
         and    r7, r6, 7
         shl    r7, r7, 3
         st     r6, hs1_table[r7]
         ld     r8, hs1_size
         add    r8, r8, 1
         st     r8, hs1_size
         ret

.func inserter
inserter: delay 0, 5500
         lock   hs2_mutex               # hs2.add(27)
         ld     r2, hs2_modcount @bug   # (b) modCount++
         add    r2, r2, 1
         st     r2, hs2_modcount @bug   # (b)
         li     r3, 27
         st     r3, hs2_table+24        # bucket 27 % 8 = 3
         ld     r4, hs2_size
         add    r4, r4, 1
         st     r4, hs2_size
         unlock hs2_mutex
         exit
