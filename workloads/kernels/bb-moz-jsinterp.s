# bb-moz-jsinterp: the Mozilla-0.8 jsinterp property-cache multi-variable
# atomicity violation (Bugaboo Table 1 row 6). The runtime's property cache
# has four entries (pointers to property records) and an occupancy flag.
# An interpreter thread looks a property up: if the cache is full it uses
# the entry, otherwise it resolves the properties and fills the cache
# (every entry, then full = 1). The GC thread, when enough has been
# allocated, flushes the cache (full = 0, then every entry cleared). Flag
# and entries are updated without a common lock, so an interpreter can see
# full = 1 with a cleared entry: either its test falls before a flush and
# its use after it, or a flush falls between its fill and its full = 1.
# The cleared (null) entry is then dereferenced and the run crashes.
# Fill and flush store entries through one helper (cache_set_entry), so
# the entry → lookup communication also happens in correct runs (one
# interpreter's fill read by the other); only its context differs.
# Unrelated activity: the interpreters allocate objects, charging gc_bytes
# under the GC lock, and the GC thread polls gc_bytes to decide when to run.
#
# The GC lock is taken through js_LockGC/js_UnlockGC, one code point each.
#
# Tuning: the windows are the `delay` between the flag test and the use in
# js_LookupProperty and the fill itself; their chance to meet a flush is set
# by the interpreters' think `delay` and by how often the GC runs: every
# 96 bytes (two 48-byte objects; the `blt` in gc_thread) at the GC's next
# poll (its `delay`). A higher threshold gives far fewer buggy runs.

.kernel  bb-moz-jsinterp
.desc    "the property cache's entries and its full flag are updated separately by the interpreters' fill and the GC's flush; a lookup can see full with a cleared entry and dereferences null"
.force   "seed=1"                     # this seed shows the bug on the default machine
.class   multivar
.source  "bugaboo:6"
.cores   4
.expect  400

.data
cache_full: .word 0                     # !cache->empty
           .align 64
cache_ent: .space 4                     # cache->table[4]: property pointers
           .align 64
props:     .word 10, 20, 30, 40         # the property records (one word each)
           .align 64
gc_lock:   .word 0
gc_bytes:  .word 0                      # bytes allocated since the last GC
           .align 64
n_gc:      .word 0                      # GCs run
           .align 64
gc_stop:   .word 0                      # main: the interpreters are done
           .align 64
sums:      .space 2                     # each interpreter's result
           .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, interp, r2
         li     r2, 1
         spawn  r11, interp, r2
         spawn  r12, gc_thread, r0
         join   r10
         join   r11
         li     r2, 1
         st     r2, gc_stop             # stop the GC thread
         join   r12
         ld     r2, sums
         ld     r3, sums+8
         add    r2, r2, r3
         out    r2
         exit

.func interp
interp:  li     r12, 0                  # iteration
         li     r14, 0                  # running sum
         delay  0, 300
i_loop:  and    r6, r12, 3              # property id h
         call   js_LookupProperty       # r7 = property value
         add    r14, r14, r7
         call   js_NewObject
         delay  100, 400                # think time: run the script
         add    r12, r12, 1
         blt    r12, 8, i_loop
         shl    r2, r1, 3
         st     r14, sums[r2]
         exit

.func js_LookupProperty
js_LookupProperty: ld r2, cache_full @cp test @bug  # if (!cache->empty)
         beqz   r2, lp_miss
         delay  20, 100                 # hash the id, check the shape
         shl    r3, r6, 3       @cp use
         ld     r4, cache_ent[r3] @cp use @bug      # sprop = cache->table[h]
         ld     r7, [r4]                # sprop->value: null when cleared
         ret
lp_miss: call   js_FillPropertyCache
         shl    r3, r6, 3
         ld     r7, props[r3]           # resolved the slow way
         ret

.func js_FillPropertyCache
js_FillPropertyCache: li r8, 0
fc_loop: work   15                      # resolve property k
         shl    r9, r8, 3
         la     r4, props
         add    r4, r4, r9              # &props[k]
         call   cache_set_entry
         add    r8, r8, 1
         blt    r8, 4, fc_loop
         li     r2, 1
         st     r2, cache_full  @bug    # cache->empty = false
         ret

.func cache_set_entry
cache_set_entry: st r4, cache_ent[r9] @bug  # cache->table[k] = sprop
         ret

.func js_NewObject
js_NewObject: la r15, gc_lock
         call   js_LockGC
         ld     r2, gc_bytes    @cp gcb         # rt->gcBytes += 48
         add    r2, r2, 48      @cp gcb
         st     r2, gc_bytes    @cp gcb
         la     r15, gc_lock
         call   js_UnlockGC
         ret

.func gc_thread
gc_thread: delay 150, 450               # poll period
         ld     r2, gc_stop             # stop?
         bnez   r2, gt_done
         ld     r2, gc_bytes            # enough allocated?
         blt    r2, 96, gc_thread
         call   js_GC
         jmp    gc_thread
gt_done: exit

.func js_GC
js_GC:   la     r15, gc_lock
         call   js_LockGC
         st     r0, gc_bytes
         la     r15, gc_lock
         call   js_UnlockGC
         call   js_FlushPropertyCache
         ld     r2, n_gc
         add    r2, r2, 1
         st     r2, n_gc
         ret

.func js_FlushPropertyCache
js_FlushPropertyCache: st r0, cache_full @bug  # cache->empty = true
         li     r8, 0
         li     r4, 0
fl_loop: shl    r9, r8, 3
         call   cache_set_entry         # cache->table[k] = NULL
         add    r8, r8, 1
         blt    r8, 4, fl_loop
         ret

.func js_LockGC
js_LockGC: lock [r15]                   # JS_LOCK_GC(rt)
         ret

.func js_UnlockGC
js_UnlockGC: unlock [r15]               # JS_UNLOCK_GC(rt)
         ret
