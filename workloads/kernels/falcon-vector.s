# falcon-vector: Falcon Table 3 "Vector" (JDK 1.4.2; atomicity, paper
# failure rate 2%, Falcon Table 5 bug pattern R1-W2-R1, rank 1).
#
# JDK 1.4's copy constructor Vector(Collection c) reads c.size() (a) to
# size the new element array and then calls c.toArray(elementData), which
# copies c's current elementCount (c) elements and stores null after them.
# Each call is synchronized on c, but the pair is not. Thread 1 copies v2
# (v3 = new Vector(v2)) and then uses every element of the copy; thread 2
# runs v2.removeElementAt(last) (b). A removal between (a) and (c) leaves
# v3 with elementCount 4 but only 3 elements followed by a null, and the
# use dereferences it: a NullPointerException (`fail`; the thread dies).
# Thread 1 never writes v2.elementCount, so Falcon's window on it holds
# R1(a)-W2(b)-R1(c) only in failing runs (the paper's Vector: 1 pattern,
# score 1).
#
# Tuning: the bug window is the array allocation (`work 10`) between the
# two synchronized calls; thread 2 removes at a uniform time in
# `delay 0, 3600`.

.kernel  falcon-vector
.desc    "new Vector(v2) reads v2.size() and then copies with v2.toArray() under separate locks; a removal in between leaves a null element in the copy, and using it throws NullPointerException"
.class   atomicity
.source  "falcon:Vector"
.cores   3
.force   "seed=13"

.data
v2_lock:   .word 0
           .align 64
v2_count:  .word 4                      # v2.elementCount
v2_data:   .space 4                     # v2.elementData: object references
           .align 64
v3_count:  .word 0                      # the copy
v3_data:   .space 5
           .align 64
total:     .word 0
           .align 64

.text
.func main
main:    li     r2, 0                   # v2 holds four objects with fields 1..4
m_fill:  alloc  r3, 1
         add    r4, r2, 1
         st     r4, [r3]
         shl    r5, r2, 3
         st     r3, v2_data[r5]
         add    r2, r2, 1
         blt    r2, 4, m_fill
         spawn  r10, copier, r0
         spawn  r11, remover, r0
         join   r10
         join   r11
         exit

.func copier
copier:  delay  100, 140
         call   v2_size                 # r2 = c.size()
         st     r2, v3_count            # elementCount = c.size()
         work   10                      # elementData = new Object[size*110/100]
         call   v2_toarray              # c.toArray(elementData)
         li     r6, 0                   # use the copy: sum the elements' fields
         li     r7, 0
c_use:   ld     r8, v3_count
         bge    r6, r8, c_done
         shl    r9, r6, 3
         ld     r12, v3_data[r9]
         beqz   r12, c_npe              # the JVM's null check on the dereference
         ld     r13, [r12]
         add    r7, r7, r13
         add    r6, r6, 1
         jmp    c_use
c_done:  st     r7, total
         exit
c_npe:   fail   "NullPointerException: null element in the copy of v2"
         exit                           # the thread dies with the exception

.func v2_size
v2_size: lock   v2_lock
         ld     r2, v2_count    @bug    # (a) size()
         unlock v2_lock
         ret

# toArray(a): copy elementCount elements into v3_data and null-terminate.
.func v2_toarray
v2_toarray: lock v2_lock
         ld     r3, v2_count    @bug    # (c) elementCount, re-read
         li     r4, 0
t_copy:  bge    r4, r3, t_null
         shl    r5, r4, 3
         ld     r9, v2_data[r5]
         st     r9, v3_data[r5]
         add    r4, r4, 1
         jmp    t_copy
t_null:  shl    r5, r3, 3
         st     r0, v3_data[r5]         # a[elementCount] = null
         unlock v2_lock
         ret

.func remover
remover: delay  0, 3600
         lock   v2_lock                 # v2.removeElementAt(elementCount - 1)
         ld     r2, v2_count    @bug    # (b)
         sub    r2, r2, 1
         st     r2, v2_count    @bug    # (b)
         shl    r3, r2, 3
         st     r0, v2_data[r3]
         unlock v2_lock
         exit
