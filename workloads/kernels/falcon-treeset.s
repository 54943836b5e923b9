# falcon-treeset: Falcon Table 3 "TreeSet" (JDK 1.4.2; atomicity, paper
# failure rate 3%, Falcon Table 5 bug pattern R1-W2-R1, rank 2).
#
# Both sets are Collections.synchronizedSet(new TreeSet()). Thread 1 runs
# ts1.removeAll(ts2): the wrapper locks ts1's mutex, and AbstractSet's
# removeAll compares the sizes and then iterates ts2 through TreeMap's
# EntryIterator, which takes no lock on ts2: the iterator records ts2's
# modCount when it is created (a) and nextEntry() checks it again (c)
# before stepping to the in-order successor (parent/child links). Thread 2
# runs ts2.remove(30) under ts2's mutex, which unlinks the node and bumps
# modCount (b). A removal during the walk makes nextEntry() throw
# ConcurrentModificationException (`fail`). Thread 1 never writes ts2's
# modCount, so Falcon's window on it holds R1(a)-W2(b)-R1(c) (or
# R1(c)-W2(b)-R1(c)), in failing runs only.
#
# Tuning: the bug window is the walk over ts2's three nodes, each followed
# by a `work 30` ts1.remove(); thread 2 removes at a uniform time in
# `delay 0, 4000`.

.kernel  falcon-treeset
.desc    "ts1.removeAll(ts2) walks ts2's tree with an unsynchronized TreeMap iterator while ts2.remove() bumps ts2's modCount, so nextEntry() throws ConcurrentModificationException"
.class   atomicity
.source  "falcon:TreeSet"
.cores   3
.force   "seed=21"

# A tree node is 4 words: key, left, right, parent (0 = none).

.data
ts2_mutex: .word 0
           .align 64
ts2_modcount: .word 0
           .align 64
ts2_size:  .word 3
ts2_root:  .word 0                      # set by main: n20
n20:       .word 20
           .space 3
n10:       .word 10
           .space 3
n30:       .word 30
           .space 3
           .align 64
ts1_mutex: .word 0
           .align 64
ts1_size:  .word 4
ts1_keys:  .word 10                     # ts1 = {10, 20, 25, 30} (sorted array model)
           .word 20
           .word 25
           .word 30
           .align 64

.text
.func main
main:    la     r2, n20                 # link ts2 = {10, 20, 30}
         la     r3, n10
         la     r4, n30
         st     r2, ts2_root
         st     r3, [r2+8]              # n20.left = n10
         st     r4, [r2+16]             # n20.right = n30
         st     r2, [r3+24]             # n10.parent = n20
         st     r2, [r4+24]             # n30.parent = n20
         spawn  r10, remover_all, r0
         spawn  r11, remover, r0
         join   r10
         join   r11
         exit

.func remover_all
remover_all: delay 100, 140
         lock   ts1_mutex               # ts1.removeAll(ts2), synchronized on ts1
         ld     r2, ts1_size            # size() > c.size(): iterate c
         ld     r3, ts2_size
         ld     r4, ts2_modcount @bug   # (a) ts2.iterator(): expectedModCount
         ld     r5, ts2_root            # next = firstEntry()
         call   leftmost
r_next:  beqz   r5, r_done              # hasNext(): next != null
         ld     r6, ts2_modcount @bug   # (c) nextEntry(): modCount check
         bne    r6, r4, r_cme
         ld     r7, [r5]                # e = next; key
         call   successor               # next = successor(e)
         call   ts1_remove
         jmp    r_next
r_done:  unlock ts1_mutex
         exit
r_cme:   unlock ts1_mutex               # the exception releases ts1's mutex
         fail   "ConcurrentModificationException in ts2's TreeMap iterator"
         exit

# leftmost: r5 = the leftmost node under r5 (r5 != 0).
.func leftmost
leftmost: ld    r8, [r5+8]
         beqz   r8, l_done
         mov    r5, r8
         jmp    leftmost
l_done:  ret

# successor: r5 = the in-order successor of node r5, or 0.
.func successor
successor: ld   r8, [r5+16]             # right subtree?
         beqz   r8, s_up
         mov    r5, r8
         call   leftmost
         ret
s_up:    ld     r9, [r5+24]             # climb while we are a right child
         beqz   r9, s_none
         ld     r12, [r9+16]
         bne    r12, r5, s_found
         mov    r5, r9
         jmp    s_up
s_found: mov    r5, r9
         ret
s_none:  li     r5, 0
         ret

# ts1.remove(r7): drop the key from ts1's sorted array.
.func ts1_remove
ts1_remove: work 30                     # compareTo() down the tree
         li     r12, 0
         ld     r13, ts1_size
t_find:  bge    r12, r13, t_done
         shl    r14, r12, 3
         ld     r15, ts1_keys[r14]
         add    r12, r12, 1
         bne    r15, r7, t_find
         st     r0, ts1_keys[r14]       # mark removed
t_done:  ret

.func remover
remover: delay  0, 4000
         lock   ts2_mutex               # ts2.remove(30): n30 is a leaf
         la     r2, n20
         st     r0, [r2+16]             # n20.right = null
         ld     r3, ts2_size
         sub    r3, r3, 1
         st     r3, ts2_size
         ld     r4, ts2_modcount @bug   # (b) modCount++
         add    r4, r4, 1
         st     r4, ts2_modcount @bug   # (b)
         unlock ts2_mutex
         exit
