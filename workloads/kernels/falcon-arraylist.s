# falcon-arraylist: Falcon Table 3 "ArrayList" (JDK 1.4.2; atomicity,
# paper failure rate 2%, Falcon Table 5 bug pattern R1-W2-R1, rank 1).
#
# Both lists are Collections.synchronizedList(new ArrayList()). Thread 1
# runs l1.containsAll(l2): the wrapper locks l1's mutex and iterates l2,
# but l2's iterator is the plain ArrayList one, which takes no lock: it
# records l2.modCount when it is created (a) and checks it again in every
# next() (c). Thread 2 runs l2.remove(last) under l2's mutex, which bumps
# modCount (b). A removal during the iteration makes next() throw
# ConcurrentModificationException (`fail`). Thread 1 never writes
# l2.modCount, so Falcon's window on it holds R1(a)-W2(b)-R1(c) (or, when
# the removal falls between two next() calls, R1(c)-W2(b)-R1(c)), in
# failing runs only.
#
# Tuning: the bug window is the whole iteration (four next() calls, each
# followed by a `work 30` contains() scan of l1); thread 2 removes at a
# uniform time in `delay 0, 7000`.

.kernel  falcon-arraylist
.desc    "l1.containsAll(l2) iterates l2 with its unsynchronized iterator while l2.remove() bumps l2.modCount, so next() throws ConcurrentModificationException"
.class   atomicity
.source  "falcon:ArrayList"
.cores   3
.force   "seed=13"

.data
l2_mutex:  .word 0
           .align 64
l2_modcount: .word 0
           .align 64
l2_size:   .word 4
l2_data:   .word 11
           .word 12
           .word 13
           .word 14
           .align 64
l1_mutex:  .word 0
           .align 64
l1_size:   .word 6
l1_data:   .word 10
           .word 11
           .word 12
           .word 13
           .word 14
           .word 15
           .align 64
result:    .word 0
           .align 64

.text
.func main
main:    spawn  r10, checker, r0
         spawn  r11, remover, r0
         join   r10
         join   r11
         exit

.func checker
checker: delay  100, 140
         lock   l1_mutex                # l1.containsAll(l2), synchronized on l1
         ld     r2, l2_modcount @bug    # (a) l2.iterator(): expectedModCount
         li     r3, 0                   # cursor
         li     r9, 1                   # result so far
k_next:  ld     r4, l2_size             # hasNext(): cursor != size()
         beq    r3, r4, k_done
         ld     r5, l2_modcount @bug    # (c) next(): checkForComodification
         bne    r5, r2, k_cme
         shl    r6, r3, 3
         ld     r7, l2_data[r6]         # get(cursor)
         add    r3, r3, 1
         call   l1_contains
         and    r9, r9, r8
         jmp    k_next
k_done:  st     r9, result
         unlock l1_mutex
         exit
k_cme:   unlock l1_mutex                # the exception releases l1's mutex
         fail   "ConcurrentModificationException in l2's iterator"
         exit

# contains(r7): r8 = 1 when l1 holds r7.
.func l1_contains
l1_contains: li  r8, 0
         li     r12, 0
         ld     r13, l1_size
n_loop:  bge    r12, r13, n_done
         shl    r14, r12, 3
         ld     r15, l1_data[r14]
         add    r12, r12, 1
         bne    r15, r7, n_loop
         li     r8, 1
n_done:  work   30                      # equals() on each candidate
         ret

.func remover
remover: delay  0, 7000
         lock   l2_mutex                # l2.remove(size - 1)
         ld     r2, l2_modcount @bug    # (b) modCount++
         add    r2, r2, 1
         st     r2, l2_modcount @bug    # (b)
         ld     r3, l2_size
         sub    r3, r3, 1
         st     r3, l2_size
         shl    r4, r3, 3
         st     r0, l2_data[r4]
         unlock l2_mutex
         exit
