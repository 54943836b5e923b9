# bb-multi-order: the MultiOrder ordering bug (Bugaboo Table 1 row 4, the
# paper's own synthetic ordering bug). A producer publishes items 1..8 in
# a shared slot, one per period; a consumer picks up the slot once per
# period, half a period later, and reports the item back through ack. The
# two threads' accesses to slot must alternate (write, read, write, read,
# ...), but only their timing makes them: nothing in the code orders them.
# When the consumer drifts, two writes (an item is overwritten unseen) or
# two reads (an item is seen twice) become adjacent and the consumer runs
# `fail "item out of order"`.
# The producer's write → consumer's read edge is the only communication on
# slot and happens in every run; what differs is its context: with two
# writes adjacent the producer's second store runs without the consumer's
# read (an RmRd) since its first one, and with two reads adjacent the
# consumer's second load follows its first with no remote event between.
# Unrelated activity: both threads count their steps in a shared locked
# tick counter, the producer reads ack to log the consumer's lag, and a
# monitor thread now and then reads the tick count and the lag log.
#
# Tuning: the periods (`delay` in producer and consumer) are equal on
# average; their spread, cache misses and the shared tick lock make the
# phase between the threads wander, and the bug shows when it wanders by
# half a period. The consumer's start `delay` puts its reads about half a
# period after the producer's (slow, cold-cache) first iterations. A wider
# spread or more items gives more buggy runs.

.kernel  bb-multi-order
.desc    "a producer writes a slot and a consumer reads it once per period; only timing makes the writes and reads alternate, and drift makes two of one kind adjacent"
.force   "seed=3"                     # this seed shows the bug on the default machine
.class   order
.source  "bugaboo:4"
.cores   4
.expect  8

.data
slot:    .word 0                        # the current item
         .align 64
ack:     .word 0                        # the last item the consumer saw
         .align 64
tick_lock: .word 0
         .align 64
ticks:   .word 0                        # steps taken by both threads
         .align 64
lag_log: .space 8                       # producer's log of the consumer's lag
         .align 64
status:  .space 2                       # monitor's display: ticks, lag
         .align 64

.text
.func main
main:    spawn  r10, producer, r0
         spawn  r11, consumer, r0
         spawn  r12, monitor, r0
         join   r10
         join   r11
         join   r12
         ld     r2, ack
         out    r2
         exit

.func producer
producer: li    r13, 1                  # item
p_loop:  work   20                      # make the item
         call   publish
         call   log_lag
         call   tick
         delay  380, 420                # period
         add    r13, r13, 1
         blt    r13, 9, p_loop
         exit

.func publish
publish: st     r13, slot       @bug    # slot = item
         ret

.func log_lag
log_lag: ld     r2, ack                 # lag = item - ack
         sub    r3, r13, r2
         and    r4, r13, 7
         shl    r4, r4, 3
         st     r3, lag_log[r4]
         ret

.func consumer
consumer: li    r12, 0                  # last item seen
         delay  550, 550                # start half a period behind the producer
c_loop:  call   pickup                  # r2 = item
         add    r3, r12, 1
         beq    r2, r3, c_ok
         fail   "item out of order"
c_ok:    mov    r12, r2
         st     r2, ack                 # ack = item
         call   tick
         delay  380, 420                # period
         blt    r12, 8, c_loop
         exit

.func pickup
pickup:  ld     r2, slot        @bug    # item = slot
         work   10                      # consume it
         ret

.func monitor
monitor: li     r13, 0                  # a status display, refreshed now and then
m_loop:  delay  600, 1200
         ld     r2, ticks               # steps so far
         st     r2, status
         and    r3, r13, 7
         shl    r3, r3, 3
         ld     r4, lag_log[r3]         # a recent lag
         st     r4, status+8
         add    r13, r13, 1
         blt    r13, 5, m_loop
         exit

.func tick
tick:    la     r15, tick_lock
         call   mutex_lock
         ld     r2, ticks       @cp tick
         add    r2, r2, 1       @cp tick
         st     r2, ticks       @cp tick
         la     r15, tick_lock
         call   mutex_unlock
         ret

.func mutex_lock
mutex_lock: lock [r15]                  # pthread_mutex_lock(r15)
         ret

.func mutex_unlock
mutex_unlock: unlock [r15]              # pthread_mutex_unlock(r15)
         ret
