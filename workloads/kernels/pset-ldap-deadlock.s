# pset-ldap-deadlock: the OpenLDAP back-bdb/cache.c lock-order deadlock
# (PSet Table 1 row 17). bdb_cache_add takes the cache lock c_rwlock and
# then lru_mutex to put the new entry on the LRU list; the LRU purge takes
# lru_mutex and then c_rwlock to drop the oldest entry from the cache.
# Each releases its inner lock first and finishes some bookkeeping under
# the outer one. When one thread holds c_rwlock and the other holds
# lru_mutex, each waits for the other's lock forever (hang).
#
# Detector shape: every access to the cache and the LRU list holds its
# lock (no race for happens-before or lockset; no unserializable triple
# for AVIO). PSet: the deadlock consists of lock-word hand-offs (a thread
# reads a lock word last written by the other thread's acquire) that
# correct runs show too: because each thread keeps its outer lock for a
# while after releasing the inner one, the other thread often takes the
# free lock and then reads the outer lock while it is held. So no PSet
# check fails (PSet Table 1: No; the paper notes a context-sensitive PSet
# would be needed). A lock-order detector would report the cycle.
#
# Tuning: the window is the `work` between a thread's first and second
# acquire against the `delay` between operations. A longer delay gives
# fewer buggy runs.

.kernel  pset-ldap-deadlock
.desc    "bdb_cache_add takes c_rwlock then lru_mutex while the LRU purge takes lru_mutex then c_rwlock; each can hold one and wait for the other forever"
.class   deadlock
.force   "seed=2"
.source  "pset:17"
.cores   3
.expect  1

.data
c_rwlock:  .word 0                      # the entry cache's lock
c_count:   .word 0                      # entries in the cache
           .align 64
lru_mutex: .word 0                      # the LRU list's lock
lru_count: .word 0                      # entries on the LRU list
           .align 64

.text
.func main
main:    spawn  r10, adder, r0
         spawn  r11, purger, r0
         join   r10
         join   r11
         ld     r2, c_count
         ld     r3, lru_count
         seq    r4, r2, r3              # every cached entry is on the LRU list
         out    r4
         exit

.func adder
adder:   li     r2, 0
ad_loop: delay  100, 1200                # a search result to cache
         call   bdb_cache_add
         add    r2, r2, 1
         blt    r2, 6, ad_loop
         exit

.func bdb_cache_add
bdb_cache_add: lock c_rwlock    @bug    # write-lock the cache
         ld     r3, c_count             # insert the entry
         add    r3, r3, 1
         st     r3, c_count
         work   20
         lock   lru_mutex       @bug    # then the LRU list
         ld     r4, lru_count
         add    r4, r4, 1
         st     r4, lru_count
         unlock lru_mutex
         work   150                     # finish the entry under the cache lock
         unlock c_rwlock
         ret

.func purger
purger:  li     r2, 0
pu_loop: delay  100, 1200                # the cache is over its limit
         call   lru_purge
         add    r2, r2, 1
         blt    r2, 6, pu_loop
         exit

.func lru_purge
lru_purge: lock lru_mutex       @bug    # lock the LRU list
         ld     r4, lru_count
         beqz   r4, lp_none
         sub    r4, r4, 1               # take the oldest entry off it
         st     r4, lru_count
         work   20
         lock   c_rwlock        @bug    # then the cache, to drop the entry
         ld     r3, c_count
         sub    r3, r3, 1
         st     r3, c_count
         unlock c_rwlock
         work   150                     # free the entry under the LRU lock
lp_none: unlock lru_mutex
         ret
