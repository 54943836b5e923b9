# pset-aget: the Aget-0.4 SIGINT atomicity violation on bwritten (PSet
# Table 1 row 2; the same bug is Bugaboo Table 1 row 13, AGet-MultVar).
# Download threads write their chunks to the output file and add the
# chunk size to bwritten under bwritten_mutex. Main's progress bar reads
# bwritten (without the mutex) through the same helper the signal handler
# uses. On Ctrl-C the handler (modelled as a thread that fires after a
# random delay) reads bwritten to settle the output file (R_h1: the file
# is kept at that many bytes), then writes the resume log with bwritten
# read again (R_h2), without the mutex. A chunk accounted between the two
# reads makes the log disagree with the file: main's check fails (assert).
#
# Detector shape: the handler reads without the mutex (happens-before
# reports the race). A worker's store between R_h1 and R_h2 is R-W-R,
# unserializable and never seen in a correct run (AVIO). PSet: R_h2 always
# follows R_h1 in correct runs, so PSet(R_h2) = {} and the worker's store
# as its predecessor is a violation; later stores are the same
# instruction, so stalling R_h2 cannot help and the handler has to be
# rolled back to before R_h1 (PSet Table 2: stall No, window 11). The
# shared helper lets the worker's store learn R_h1 as a predecessor from
# the progress bar, so the store itself does not fail its check first.
# Bugaboo: the worker-store -> R_h2 edge exists in every run, only its
# context (a remote write between the handler's reads) is new, so it
# needs context (Bugaboo Table 2: w/o ctx No, w/ ctx Yes).
#
# Tuning: the window is the handler's R_h1 .. R_h2 (a few instructions;
# the log line is fetched beforehand so the stores in between hit) against
# the workers' chunk `delay`; the handler's `delay` places the signal in
# or after the download. The window is kept short so that, in a buggy run,
# the remote access just before R_h2 is almost always the worker's store
# (an AVIO that looks only at the last remote access still sees R-W-R).

.kernel  pset-aget
.desc    "the SIGINT handler reads bwritten twice without the mutex (to settle the file, then for the resume log); a chunk accounted in between makes log and file disagree"
.class   atomicity
.force   "seed=6"
.source  "pset:2 bugaboo:13"
.cores   4
.expect  1

.data
bwritten:  .word 0                      # bytes downloaded and written
           .align 64
bwritten_mutex: .word 0
           .align 64
file_len:  .word 0                      # bytes the handler kept in the output file
log_bytes: .word 0                      # bytes the handler wrote to the resume log
           .align 64
progress:  .word 0                      # the progress bar's last value
           .align 64
outfile:   .space 32                    # the output file
           .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, http_get, r2
         li     r2, 1
         spawn  r11, http_get, r2
         spawn  r12, sigint_handler, r0
         li     r3, 0
m_loop:  delay  150, 450                # update the progress bar now and then
         call   get_bwritten
         st     r2, progress
         add    r3, r3, 1
         blt    r3, 8, m_loop
         join   r10
         join   r11
         join   r12
         ld     r4, file_len
         ld     r5, log_bytes
         seq    r6, r4, r5
         assert r6, "resume log disagrees with the downloaded file"
         out    r6
         exit

.func get_bwritten
get_bwritten: ld r2, bwritten   @bug    # bwritten, read without the mutex (R_h1)
         ret

.func http_get
http_get: li    r2, 0                   # chunk number
hg_loop: delay  100, 300                # recv() the next chunk
         shl    r3, r2, 1
         add    r3, r3, r1              # chunk r2 of thread r1
         shl    r4, r3, 3
         st     r3, outfile[r4]         # pwrite() the chunk
         lock   bwritten_mutex
         ld     r5, bwritten
         add    r5, r5, 512
         st     r5, bwritten    @bug    # bwritten += dw (W)
         unlock bwritten_mutex
         add    r2, r2, 1
         blt    r2, 8, hg_loop
         exit

.func sigint_handler
sigint_handler: delay 200, 1800         # the user presses Ctrl-C some time
         st     r0, log_bytes           # open the resume log
         call   get_bwritten            # settle the output file at bwritten bytes
         st     r2, file_len
         call   save_log
         exit

.func save_log
save_log: work  4                       # fill in the log header
         ld     r3, bwritten    @bug    # h.bwritten = bwritten (R_h2)
         st     r3, log_bytes
         ret
