# cq-trans: ConSeq Trans, the Transmission order violation (assertion;
# Table 3: ConSeq only). Session start-up (tr_sessionInit) spawns the
# libevent thread and only afterwards creates the session's bandwidth
# object and stores it in session->bandwidth. The event thread, once its
# event loop is set up, allocates bandwidth and checks the object with
# assert(tr_isBandwidth(b)) (non-NULL and the right magic). If the event
# thread gets there first it reads the uninitialised NULL and the assert
# fails. Both the store and the load hold the session lock, so there is no
# data race.
#
# Detectors: Race sees the session lock on both accesses (and the magic
# word is written before the locked publish). Atom: each thread touches
# session->bandwidth once, so there is no local pair to interleave: the
# bug is an order violation. ConSeq: the assert is the ASS site; its
# condition comes from `b != NULL` in the same statement as the load of
# session->bandwidth, a critical read at distance 1. In a correct run the
# load reads main's store; no write to it happens-before the load (the
# spawn precedes the store), so ConSeq's uninitialised-read extension
# reports that the load could see the initial NULL.
#
# Tuning: main's remaining start-up between the spawn and the store is
# `delay 100, 500`; the event thread's set-up is `delay 200, 1400`.

.kernel  cq-trans
.desc    "session init spawns the event thread before it stores session->bandwidth; an early event thread reads NULL and assert(tr_isBandwidth(b)) fails"
.class   order
.force   "seed=11"
.source  "conseq:Trans"
.cores   2

.data
session_lock: .word 0
              .align 64
bandwidth:    .word 0                   # session->bandwidth, NULL until init stores it
              .align 64

.text
.func main
main:    spawn  r10, event_thread, r0   # tr_eventInit: start the libevent thread
         delay  100, 500                # the rest of tr_sessionInit (peer manager, prefs)
         call   bandwidth_new
         lock   session_lock
         st     r2, bandwidth   @bug    # session->bandwidth = tr_bandwidthNew(...)
         unlock session_lock
         join   r10
         exit

# bandwidth_new: r2 = a new bandwidth object {magic, rate}.
.func bandwidth_new
bandwidth_new: alloc r2, 2
         li     r3, 43435               # BANDWIDTH_MAGIC
         st     r3, [r2]
         li     r3, 1024
         st     r3, [r2+8]
         ret

.func event_thread
event_thread: delay 200, 1400           # event_base_new, the pipe, the first timer
         lock   session_lock
         ld     r4, bandwidth   @bug    # b = session->bandwidth  (critical read, distance 1)
         unlock session_lock
         sne    r5, r4, 0               # tr_isBandwidth(b): b != NULL ...
         beqz   r5, ev_check
         ld     r6, [r4]
         seq    r5, r6, 43435           # ... && b->magic == BANDWIDTH_MAGIC
ev_check: assert r5, "assert(tr_isBandwidth(b)) failed in tr_bandwidthAllocate"
         ld     r7, [r4+8]              # allocate this period's bandwidth
         exit
