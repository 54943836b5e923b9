# bb-moz-jsstr: the Mozilla-0.9 jsstr multi-variable atomicity violation
# (Bugaboo Table 1 row 5). The JS runtime keeps string statistics, a string
# count (rt->totalStrings) and a total length (rt->lengthSum), so that the
# mean string length is lengthSum / totalStrings. js_NewString updates them
# in two separate critical sections of the GC lock. A statistics dump
# (js_DumpStringStats) that takes the lock between the two sees a string
# counted whose length is not yet summed. Here every script string is 8
# characters long, so the dump asserts that the mean is 8.
# Each access is under the GC lock, so the program is race-free; the two
# statistics communicate from the creators to the dump in every run, and
# only the context of the dump's reads (an increment of the count not yet
# followed by an add to the sum) tells the buggy run apart.
# Unrelated activity: js_NewGCThing charges every allocation to the
# runtime's GC byte count under the same lock, and the dump reads it too.
# The lock is taken through js_LockGC/js_UnlockGC, one code point each.
#
# Tuning: the bug window is the `delay` in js_CountString between the two
# critical sections plus re-taking the GC lock (a dump that queued on the
# lock during the first one usually gets it first); the dump's period
# (`delay` in dumper) and number of dumps set how often it looks, the
# creators' think `delay` how often a window is open.

.kernel  bb-moz-jsstr
.desc    "js_NewString bumps the string count and the total length in two critical sections; a statistics dump in between sees a mean length that is wrong"
.force   "seed=6"                     # this seed shows the bug on the default machine
.class   multivar
.source  "bugaboo:5"
.cores   4
.expect  16 128 1152

.data
gc_lock:   .word 0                      # rt->gcLock
           .align 64
n_str:     .word 0                      # rt->totalStrings
           .align 64
len_sum:   .word 0                      # rt->lengthSum
           .align 64
gc_bytes:  .word 0                      # rt->gcBytes
           .align 64
dump_out:  .space 4                     # the dump's last printed line
           .align 64

.text
.func main
main:    spawn  r10, creator, r0
         spawn  r11, creator, r0
         spawn  r12, dumper, r0
         join   r10
         join   r11
         join   r12
         ld     r2, n_str
         out    r2
         ld     r2, len_sum
         out    r2
         ld     r2, gc_bytes
         out    r2
         exit

.func creator
creator: li     r13, 0                  # a script that makes 8 strings
         delay  0, 400
c_loop:  work   30                      # scan the literal
         li     r4, 8                   # length
         call   js_NewString
         delay  600, 1600               # think time
         add    r13, r13, 1
         blt    r13, 8, c_loop
         exit

.func js_NewString
js_NewString: call js_NewGCThing        # r5 = the string (header + 8 chars)
         li     r6, 0
ns_fill: shl    r7, r6, 3
         add    r7, r7, r5
         add    r8, r6, 97
         st     r8, [r7+8]              # chars[i] = 'a' + i
         add    r6, r6, 1
         blt    r6, 8, ns_fill
         st     r4, [r5]                # str->length = 8
         call   js_CountString
         ret

.func js_NewGCThing
js_NewGCThing: alloc r5, 9
         la     r15, gc_lock
         call   js_LockGC
         ld     r2, gc_bytes    @cp gcb         # rt->gcBytes += 72
         add    r2, r2, 72      @cp gcb
         st     r2, gc_bytes    @cp gcb
         la     r15, gc_lock
         call   js_UnlockGC
         ret

.func js_CountString
js_CountString: la r15, gc_lock
         call   js_LockGC
         ld     r2, n_str       @cp cnt @bug    # rt->totalStrings++
         add    r2, r2, 1       @cp cnt
         st     r2, n_str       @cp cnt @bug
         la     r15, gc_lock
         call   js_UnlockGC
         delay  10, 40                  # bug window: between the two updates
         la     r15, gc_lock
         call   js_LockGC
         ld     r2, len_sum     @cp sum @bug    # rt->lengthSum += length
         add    r2, r2, r4      @cp sum
         st     r2, len_sum     @cp sum @bug
         la     r15, gc_lock
         call   js_UnlockGC
         ret

.func dumper
dumper:  li     r13, 0                  # the stats dump runs now and then
d_loop:  delay  1000, 2500              # period
         call   js_DumpStringStats
         add    r13, r13, 1
         blt    r13, 3, d_loop
         exit

.func js_DumpStringStats
js_DumpStringStats: la r15, gc_lock
         call   js_LockGC
         ld     r2, len_sum     @cp rd_sum @bug # sum = rt->lengthSum
         ld     r3, n_str       @cp rd_cnt @bug # n = rt->totalStrings
         ld     r4, gc_bytes    @cp rd_gcb      # bytes = rt->gcBytes
         la     r15, gc_lock
         call   js_UnlockGC
         st     r3, dump_out            # print count, bytes
         st     r4, dump_out+8
         beqz   r3, ds_done
         div    r5, r2, r3              # mean = sum / n
         st     r5, dump_out+16         # print mean
         seq    r6, r5, 8
         assert r6, "mean string length is not 8"
ds_done: ret

.func js_LockGC
js_LockGC: lock [r15]                   # JS_LOCK_GC(rt)
         ret

.func js_UnlockGC
js_UnlockGC: unlock [r15]               # JS_UNLOCK_GC(rt)
         ret
