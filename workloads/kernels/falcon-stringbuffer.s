# falcon-stringbuffer: Falcon Table 3 "StringBuffer" (JDK 1.4.2; atomicity,
# paper failure rate 3%, Falcon Table 5 bug pattern R1-W2-R1, rank 1).
#
# The known JDK 1.4 bug: StringBuffer.append(StringBuffer sb) is
# synchronized on this, but it calls sb.length() and then
# sb.getChars(0, len, value, count), each synchronized on sb separately.
# Thread 1 runs sb1.append(sb2): length() reads sb2.count (a), the buffer
# grows (ensureCapacity), and getChars() checks the range against sb2.count
# again (c). Thread 2 runs sb2.setLength(0) (b). When (b) falls between the
# two calls, getChars finds len > count and throws
# StringIndexOutOfBoundsException (`fail`). Every access holds sb2's lock:
# an atomicity violation without a data race. Thread 1 never writes
# sb2.count, so Falcon's window on it holds R1(a)-W2(b)-R1(c), in failing
# runs only (the paper's StringBuffer has 2 patterns, top score 1).
#
# Tuning: the bug window is ensureCapacity's `work 10` plus the lock
# hand-offs; thread 2 truncates sb2 at a uniform time in `delay 0, 1500`.

.kernel  falcon-stringbuffer
.desc    "sb1.append(sb2) reads sb2.length() and later copies with getChars under separate sb2 locks; sb2.setLength(0) in between makes getChars throw"
.class   atomicity
.source  "falcon:StringBuffer"
.cores   3
.force   "seed=6"

.data
sb2_lock:  .word 0
           .align 64
sb2_count: .word 6                      # sb2 = "abcdef"
sb2_value: .word 97
           .word 98
           .word 99
           .word 100
           .word 101
           .word 102
           .align 64
sb1_lock:  .word 0
           .align 64
sb1_count: .word 2                      # sb1 = "xy"
sb1_value: .word 120
           .word 121
           .space 14
           .align 64

.text
.func main
main:    spawn  r10, appender, r0
         spawn  r11, truncator, r0
         join   r10
         join   r11
         exit

.func appender
appender: delay 100, 140
         lock   sb1_lock                # sb1.append(sb2) is synchronized
         call   sb2_length              # r2 = len
         work   10                      # ensureCapacity(count + len)
         call   sb2_getchars
         beqz   r3, a_throw
         ld     r4, sb1_count
         add    r4, r4, r2
         st     r4, sb1_count
         unlock sb1_lock
         exit
a_throw: unlock sb1_lock
         fail   "StringIndexOutOfBoundsException in sb2.getChars"
         exit

.func sb2_length
sb2_length: lock sb2_lock
         ld     r2, sb2_count   @bug    # (a) len = sb2.count
         unlock sb2_lock
         ret

# getChars(0, len, sb1.value, sb1.count): r3 = 1 when copied, 0 when it throws.
.func sb2_getchars
sb2_getchars: lock sb2_lock
         ld     r5, sb2_count   @bug    # (c) srcEnd > count?
         li     r3, 0
         blt    r5, r2, g_done
         ld     r6, sb1_count
         li     r7, 0
g_copy:  bge    r7, r2, g_ok
         shl    r8, r7, 3
         ld     r9, sb2_value[r8]
         add    r12, r6, r7
         shl    r12, r12, 3
         st     r9, sb1_value[r12]
         add    r7, r7, 1
         jmp    g_copy
g_ok:    li     r3, 1
g_done:  unlock sb2_lock
         ret

.func truncator
truncator: delay 0, 1500
         call   sb2_setlength
         exit

.func sb2_setlength
sb2_setlength: lock sb2_lock
         ld     r2, sb2_count   @bug    # (b) sb2.setLength(0)
         st     r0, sb2_count   @bug
         unlock sb2_lock
         ret
