# cq-moz2: ConSeq Moz2 (Mozilla JS-1.5 engine, error message; Table 3:
# ConSeq, Race and Atom). The paper does not describe the bug; the
# recipe asks for an unsynchronised check-then-act on one shared variable
# guarded by an error-message check. Reconstruction: two threads allocate
# GC things from the runtime's free list. js_NewGCThing tests the list
# (fast path) and then takes its head in a second, unlocked read; only the
# refill (new arena) holds rt->gcLock. When the other thread takes the
# last thing between the test and the take, the take sees an empty list
# and the engine reports "out of memory" although there was a free thing
# when it looked (R-W-R on the free count): `error`.
#
# Detectors: Race: the fast-path reads and the pop store hold no lock and
# are unordered. Atom: local read (test), remote write (pop), local read
# (take) is the unserializable R-W-R. ConSeq: the `fail` is the ERR site,
# guarded by the branch on the take's load, a critical read at distance 1;
# the other thread's pop store of 0 is a feasible alternative writer.
#
# Tuning: the window is `work 6` + `delay 0, 12` between the test and the
# take; each thread allocates 8 things with `delay 40, 400` between them
# (the interpreter running script code).

.kernel  cq-moz2
.desc    "js_NewGCThing tests the free list and takes its head in two unlocked reads; another thread taking the last thing in between makes it report out of memory"
.class   atomicity
.force   "seed=11"
.source  "conseq:Moz2"
.cores   3

.data
gcLock:     .word 0                     # rt->gcLock (refill only)
            .align 64
free_count: .word 4                     # things on rt->gcFreeList
            .align 64

.text
.func main
main:    spawn  r10, js_thread, r0
         spawn  r11, js_thread, r0
         join   r10
         join   r11
         exit

.func js_thread
js_thread: li   r2, 0                   # things allocated
jt_loop: delay  40, 400                 # run script code
         call   js_new_gc_thing
         add    r2, r2, 1
         blt    r2, 8, jt_loop
         exit

.func js_new_gc_thing
js_new_gc_thing: ld r3, free_count @bug # if (rt->gcFreeList)  (fast path test)
         beqz   r3, ng_refill
         work   6                       # flags = js_GetGCThingFlags(...): the window
         delay  0, 12
         ld     r4, free_count  @bug    # thing = rt->gcFreeList  (critical read, distance 1)
         bnez   r4, ng_take
         fail   "js_NewGCThing: out of memory (free list empty)"
         ret
ng_take: sub    r4, r4, 1
         st     r4, free_count  @bug    # rt->gcFreeList = thing->next
         ret
ng_refill: lock gcLock                  # last-ditch: allocate a new arena
         ld     r5, free_count
         add    r5, r5, 3               # three things for the list, one for us
         st     r5, free_count
         unlock gcLock
         ret
