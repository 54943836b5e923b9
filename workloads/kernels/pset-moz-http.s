# pset-moz-http: the Mozilla nsHttpConnection.cpp order violation (PSet
# Table 1 row 14, from Lu et al.). Main creates the connection
# (mTransaction = nsnull, W0) and starts the socket thread and the event
# thread. The socket thread's AsyncWrite writes the request and only then
# sets mTransaction (W1). OnHeadersAvailable, run on the event thread when
# the response headers arrive, reads mTransaction (R) and dereferences it;
# nothing makes it wait for AsyncWrite to return, so headers that arrive
# early find nsnull and the run crashes on the null page.
#
# Same shape as pset-moz-nsthread: W0 is a remote write by a thread (main)
# that never touches mTransaction again, so in a buggy run R's immediate
# predecessor is W0, which PSet never saw before R; stalling R lets the
# socket thread reach W1 (PSet Table 2: stall Yes).
#
# Tuning: the window is AsyncWrite's `work`+`delay` before W1 against the
# event thread's `delay` (network round trip). A longer round trip gives
# fewer buggy runs.

.kernel  pset-moz-http
.desc    "AsyncWrite sets mTransaction only after writing the request; OnHeadersAvailable on another thread may run first, read the null mTransaction and crash"
.class   order
.force   "seed=2"
.source  "pset:14"
.cores   3
.expect  200

.data
mTransaction: .word 0                   # nsHttpConnection::mTransaction
           .align 64
status:    .word 0                      # the response status seen by the transaction
           .align 64
sock:      .space 8                     # the socket's send buffer
           .align 64

.text
.func main
main:    st     r0, mTransaction        # nsHttpConnection(): mTransaction = nsnull (W0)
         alloc  r4, 4                   # the nsHttpTransaction
         spawn  r10, socket_thread, r4
         spawn  r11, event_thread, r0
         join   r10
         join   r11
         ld     r2, status
         out    r2
         exit

.func socket_thread
socket_thread: call async_write
         exit

.func async_write
async_write: li  r5, 0                  # write the request into the socket
aw_loop: shl    r6, r5, 3
         st     r5, sock[r6]
         add    r5, r5, 1
         blt    r5, 8, aw_loop
         delay  20, 100                 # the rest of AsyncWrite
         st     r1, mTransaction @bug   # mTransaction = trans (W1)
         ret

.func event_thread
event_thread: delay 120, 420            # the response headers arrive
         call   on_headers_available
         exit

.func on_headers_available
on_headers_available: ld r2, mTransaction @bug  # (R)
         li     r3, 200
         st     r3, [r2+16]             # mTransaction->mResponseStatus: null page if R came first
         ld     r4, [r2+16]
         st     r4, status
         ret
