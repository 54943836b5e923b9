# falcon-bubblesort2: Falcon Table 3 "BubbleSort2" (ConTest BubbleSort;
# atomicity, paper failure rate 69%, Falcon Table 5 bug pattern W1-R2-W1,
# rank 1).
#
# ConTest's BubbleSort starts one OneBubble thread per pass; each runs one
# bubble pass over the shared array, and the synchronized(arr) block that
# made the passes atomic has been removed ("TO RE-INTRODUCE BUG remove the
# block synchronization"). Three passes sort {4,5,6,1,2,3}. A pass carries
# the largest value it has met to the right: swap(i) stores it into
# arr[i+1] (W1) and swap(i+1) overwrites arr[i+1] again (W1); the swap
# stores the two values the comparison loaded (temp = arr[i] is already in
# a register). Another pass that reads arr[i+1] in between (R2) sees that
# intermediate value and compares and swaps on a stale view: the array
# ends up unsorted, or with one value duplicated and another lost, and
# main prints it (wrong_output against .expect). Falcon's window on
# arr[i+1] holds W1-R2-W1; without the remote read the pass's two writes
# merge into one slot.
#
# Other interleavings of the overlapping passes (lost swaps: R1-W2-W1,
# R1-W2-R1) show up too; W1-R2-W1 is the shape present in most failing
# runs (about 9 in 10).
#
# Tuning: the passes start at uniform times in `delay 0, 560`; each pass
# step costs `work 10` plus the loads and stores, so starts closer than one
# pass's length overlap. A wider start range gives fewer buggy runs.

.kernel  falcon-bubblesort2
.desc    "unsynchronised bubble passes over one array: a value a pass carries between two stores to the same cell is read by another pass, which then sorts on a stale view"
.class   atomicity
.source  "falcon:BubbleSort2"
.cores   4
.force   "seed=2"
.expect  1 2 3 4 5 6

.data
arr:       .word 4
           .word 5
           .word 6
           .word 1
           .word 2
           .word 3
           .align 64

.text
.func main
main:    spawn  r10, one_bubble, r0
         spawn  r11, one_bubble, r0
         spawn  r12, one_bubble, r0
         join   r10
         join   r11
         join   r12
         li     r2, 0
m_out:   shl    r3, r2, 3
         ld     r4, arr[r3]
         out    r4
         add    r2, r2, 1
         blt    r2, 6, m_out
         exit

.func one_bubble
one_bubble: delay 0, 560                # the thread is scheduled
         li     r2, 0                   # i
b_loop:  work   10
         shl    r3, r2, 3
         add    r8, r3, 8
         ld     r4, arr[r3]     @bug    # arr[i] > arr[i+1] ?
         ld     r5, arr[r8]     @bug
         bge    r5, r4, b_next
         call   swap
b_next:  add    r2, r2, 1
         blt    r2, 5, b_loop
         exit

.func swap
swap:    st     r5, arr[r3]     @bug    # arr[i] = arr[i+1]
         st     r4, arr[r8]     @bug    # arr[i+1] = temp
         ret
