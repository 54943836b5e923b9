# falcon-cache4j: Falcon Table 3 "Cache4j" (order violation, paper failure
# rate 3%, Falcon Table 5 bug pattern W1-R2 (conflicting), rank 1).
#
# Cache4j keeps cached objects in a synchronized map and runs a cleaner
# thread that sweeps out entries it considers stale. main puts an object
# under key k1 and starts the client and the cleaner. The client's first
# get(k1) is meant to come before the cleaner's first sweep, which drops
# entries that have never been read; nothing enforces that order. When the
# sweep runs first it removes k1 (a) and frees the object, and the
# client's get (b) returns null, which the client dereferences: a
# NullPointerException (a crash on the null page). Every access holds the
# cache lock, so this is neither a data race nor an atomicity violation:
# Falcon's conflicting pattern W1(a)-R2(b) occurs in failing runs only,
# R2(b)-W1(a) in passing runs.
#
# Tuning: the client's get comes at a uniform time in `delay 0, 400` and
# the first sweep at a uniform time in `delay 100, 1400`.

.kernel  falcon-cache4j
.desc    "the cache cleaner's first sweep is meant to run after the client's first get; when it runs first it evicts the entry and the client dereferences null"
.class   order
.source  "falcon:Cache4j"
.cores   3
.force   "seed=13"
.expect  42

.data
cache_lock: .word 0
           .align 64
k1_entry:  .word 0                      # the cached object for k1, or null
           .align 64
k2_entry:  .word 0                      # another entry the client reads later
           .align 64

.text
.func main
main:    alloc  r2, 2                   # cache.put(k1, obj): obj.value = 42
         li     r3, 42
         st     r3, [r2]
         st     r2, k1_entry
         alloc  r4, 2                   # cache.put(k2, obj2)
         li     r3, 7
         st     r3, [r4]
         st     r4, k2_entry
         spawn  r10, client, r0
         spawn  r11, cleaner, r0
         join   r10
         join   r11
         exit

.func client
client:  delay  0, 400                  # the first request arrives
         lock   cache_lock              # get(k1)
         ld     r2, k1_entry    @bug    # (b)
         ld     r3, [r2]                # obj.value: NullPointerException on null
         unlock cache_lock
         out    r3
         delay  200, 400
         lock   cache_lock              # get(k2): may legitimately miss
         ld     r4, k2_entry
         unlock cache_lock
         exit

.func cleaner
cleaner: delay  100, 1400               # the first sweep
         lock   cache_lock
         ld     r2, k1_entry
         beqz   r2, cl_k2
         st     r0, k1_entry    @bug    # (a) evict k1: never read, "stale"
         free   [r2], 2
cl_k2:   unlock cache_lock
         exit
