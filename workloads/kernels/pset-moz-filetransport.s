# pset-moz-filetransport: the Mozilla nsFileTransport.cpp /
# nsAsyncStreamListener.cpp atomicity violation (PSet Figure 4, Table 1
# row 10). The transport thread stores the result of WriteFrom into
# mStatus (W1); when that is NS_BASE_STREAM_WOULD_BLOCK it re-reads mStatus
# (R1) and resets it to NS_OK (W2): WOULD_BLOCK is a temporary state no
# other thread should see. The listener thread's OnDataAvailable reads
# mStatus (R2) and drops the event unless it is NS_OK. An R2 between W1
# and W2 sees the temporary value and drops the event; main, which waits
# for the event to be delivered, waits forever (every thread blocked).
#
# Detector shape: R2 can land only between W1 and R1 (W-R-R) or between
# R1 and W2 (R-R-W), both serializable, so AVIO misses it; R2 is unlocked,
# so a happens-before detector reports the race. PSet: W1 is not in
# PSet(R2) = {W2}; stalling R2 lets the transport thread reach W2, and the
# re-check passes (PSet Table 2: stall Yes). R1 -> W2 is kept to a branch
# so that R2 almost always lands before R1 (an R2 between R1 and W2 would
# move PSet's check to W2, where stalling cannot help).
#
# Tuning: the window is the transport thread's `delay` between W1 and R1
# against the listener's `delay`. A later listener gives fewer buggy runs.

.kernel  pset-moz-filetransport
.desc    "the listener reads mStatus while the transport thread briefly holds WOULD_BLOCK in it, drops the data event, and main waits for it forever"
.class   atomicity
.force   "seed=15"
.source  "pset:10"
.cores   3
.expect  1

.data
mStatus:   .word 0                      # NS_OK = 0, NS_BASE_STREAM_WOULD_BLOCK = 1
           .align 64
elock:     .word 0
delivered: .word 0                      # the data event reached the consumer
           .align 64
ecv:       .word 0
           .align 64

.text
.func main
main:    spawn  r10, transport, r0
         spawn  r11, listener, r0
         call   wait_delivered
         join   r10
         join   r11
         ld     r2, delivered
         out    r2
         exit

.func wait_delivered
wait_delivered: lock elock
wd_loop: ld     r3, delivered
         bnez   r3, wd_out
         cwait  ecv, elock
         jmp    wd_loop
wd_out:  unlock elock
         ret

.func transport
transport: delay 20, 100                # open the file, fill the buffer
         call   process
         exit

.func process
process: li     r2, 1                   # WriteFrom() returned WOULD_BLOCK
         st     r2, mStatus     @bug    # mStatus = WriteFrom(...) (W1)
         delay  100, 300                # account for the bytes written, update progress
         ld     r3, mStatus     @bug    # if (mStatus == WOULD_BLOCK) (R1)
         beqz   r3, p_out
         st     r0, mStatus     @bug    # mStatus = NS_OK; return (W2)
p_out:   ret

.func listener
listener: delay 60, 1500                # the data-available event is dispatched
         call   on_data_available
         exit

.func on_data_available
on_data_available: ld r2, mStatus @bug  # if (NS_FAILED(mStatus)) return (R2)
         bnez   r2, oda_drop            # the event is dropped
         lock   elock
         li     r4, 1
         st     r4, delivered
         csignal ecv
         unlock elock
oda_drop: ret
