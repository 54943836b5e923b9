# pbzip2-uaf: the PBZip2-0.9.1 order violation (PSet Table 2 row 1,
# Bugaboo Table 1 row 12). Main allocates the block queue (fifo) with its
# mutex in the first word, produces eight blocks, waits until the file
# writer has seen all eight compressed, sets allDone and deletes the queue
# (free). Consumers poll the queue like pthread_cond_timedwait: lock the
# mutex, take a block or, when the queue is empty, test allDone, unlock and
# sleep. Nothing orders a consumer's last poll before the free, so a
# consumer that wakes after it touches the freed mutex and the run crashes.
# The @bug instructions are main's free and the consumer's poll-path
# accesses to the queue (a slow allDone load can put even the exiting
# unlock after the free).
#
# Tuning: a consumer leaves safely only when one of its polls falls in the
# gap between `st allDone` and the free in main; the gap is main's `delay`
# before queue_delete and the poll period is the consumer's `delay`. A
# longer gap (or a shorter poll) gives fewer buggy runs.

.kernel  pbzip2-uaf
.desc    "main frees the block queue and its mutex while a consumer may still poll them, so the consumer touches freed memory"
.class   order
.force   "seed=1"                     # this seed shows the bug on the default machine
.source  "pset:1 bugaboo:12"
.cores   3
.expect  36

# fifo layout (12 words from alloc): +0 mut, +8 count, +16 head, +24 tail,
# +32 buf[8] (one slot per block, so the queue never wraps or fills).

.data
allDone:   .word 0
           .align 64
processed: .word 0                      # blocks compressed (the file writer's view)
outsum:    .word 0                      # sum of the compressed blocks' ids
           .align 64

.text
.func main
main:    call   queue_init              # r10 = fifo
         spawn  r11, consumer, r10
         spawn  r12, consumer, r10
         call   producer
         call   wait_written
         li     r3, 1
         st     r3, allDone
         delay  120, 320                # gap before the delete: consumers may still leave
         call   queue_delete
         join   r11
         join   r12
         ld     r4, outsum
         out    r4
         exit

.func queue_init
queue_init: alloc r10, 12
         ret

.func queue_delete
queue_delete: free [r10], 12    @bug    # destroys fifo->mut and the queue
         ret

.func producer
producer: li    r2, 0                   # block number
p_loop:  work   40                      # read the next block of the file
         add    r3, r2, 1               # block id 1..8
         lock   [r10]
         ld     r4, [r10+24]            # tail
         shl    r5, r4, 3
         add    r5, r5, r10
         st     r3, [r5+32]             # buf[tail] = block
         add    r4, r4, 1
         st     r4, [r10+24]
         ld     r6, [r10+8]
         add    r6, r6, 1
         st     r6, [r10+8]             # count++
         unlock [r10]
         add    r2, r2, 1
         blt    r2, 8, p_loop
         ret

.func wait_written
wait_written: delay 10, 30              # the file writer polls for finished blocks
         ld     r7, processed
         blt    r7, 8, wait_written
         ret

.func consumer
consumer: lock  [r1]            @bug    # fifo->mut: freed memory once main deleted the queue
         ld     r2, [r1+8]      @bug    # count
         bnez   r2, c_take
         ld     r3, allDone
         bnez   r3, c_done
         unlock [r1]            @bug
         delay  100, 300                # pthread_cond_timedwait timeout
         jmp    consumer
c_take:  ld     r4, [r1+16]             # head
         shl    r5, r4, 3
         add    r5, r5, r1
         ld     r6, [r5+32]             # block = buf[head]
         add    r4, r4, 1
         st     r4, [r1+16]
         sub    r2, r2, 1
         st     r2, [r1+8]              # count--
         unlock [r1]
         work   150                     # compress the block
         fadd   r7, outsum, r6
         fadd   r7, processed, 1
         jmp    consumer
c_done:  unlock [r1]            @bug    # may follow the free when the allDone load was slow
         exit
