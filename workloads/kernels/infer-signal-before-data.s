# infer-signal-before-data: the producer publishes too early. It sets ready
# under m and signals, then (after unlocking) writes the payload; the
# consumer waits for ready and then reads payload. The payload write comes
# after the only ordering edge, so it races with the consumer's read; when
# the consumer reads first it sees 0 and main prints 0 instead of 42.
# Inference: the write (after unlock) and the read (after the wait) are in
# unordered segments with no common lock, so the prefilter keeps payload
# and the model gives a counterexample; replay confirms it. Happens-before
# reports it in every run.
#
# Tuning: the producer's `delay` between unlock and the payload write.

.kernel  infer-signal-before-data
.desc    "the producer signals ready and only then writes the payload; a consumer that wakes quickly reads the stale payload"
.class   race
.force   "seed=5"
.source  "inference:signal-before-data"
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
producer: delay 0, 300
         lock   m
         li     r3, 1
         st     r3, ready
         csignal cv
         unlock m
         delay  0, 100                  # fill in the payload (too late)
         li     r2, 42
         st     r2, payload     @bug
         exit

.func consumer
consumer: delay 200, 900
         lock   m
c_wait:  ld     r3, ready
         bnez   r3, c_go
         cwait  cv, m
         jmp    c_wait
c_go:    unlock m
         ld     r2, payload     @bug
         st     r2, got
         exit
