# infer-signal-before-wait: condition-variable handoff where the signal
# usually comes before the wait, so the consumer's wait loop is skipped.
# The producer writes payload without the lock, then sets ready under m and
# signals; the consumer starts late, takes m, finds ready already set and
# never calls cwait, then reads payload after unlocking. Happens-before
# orders the write and the read through unlock(m) -> lock(m), in the runs
# that skip the wait and in the few that do wait. For inference the write
# is lock-free and so is the read, so only the signal -> wait edge of the
# weakened HB orders them: the wait-loop markers must pair the skipped loop
# with the signal, and then inference reports 0 candidates. A tool that
# pairs only executed cwaits would let the consumer's lock move before the
# producer's and report a false candidate on payload (replay then
# discards it: the consumer would wait and still be ordered).

.kernel  infer-signal-before-wait
.desc    "producer writes payload, sets ready under m and signals; the late consumer finds ready set and skips its wait loop, then reads payload: race-free"
.class   none
.source  "inference:signal-before-wait"
.cores   3
.expect  42

.data
m:       .word 0
         .align 64
cv:      .word 0
         .align 64
ready:   .word 0
         .align 64
payload: .word 0
         .align 64
got:     .word 0
         .align 64

.text
.func main
main:    spawn  r10, producer, r0
         spawn  r11, consumer, r0
         join   r10
         join   r11
         ld     r2, got
         out    r2
         exit

.func producer
producer: delay 0, 200
         li     r2, 42
         st     r2, payload             # no lock: ordered by the handoff
         lock   m
         li     r3, 1
         st     r3, ready
         csignal cv                     # usually nobody is waiting yet
         unlock m
         exit

.func consumer
consumer: delay 100, 700
         lock   m
c_wait:  ld     r3, ready
         bnez   r3, c_go                # usually already set: wait skipped
         cwait  cv, m
         jmp    c_wait
c_go:    unlock m
         ld     r2, payload
         st     r2, got
         exit
