# pset-moz-multivar: a Mozilla multi-variable atomicity violation (PSet
# Table 1 row 16, from Lu et al.). The writer keeps two related fields in
# step: the number of cached strings (nstrings, under count_lock) and
# their total length (totlen, under len_lock); each update sets both, but
# in two critical sections. The reader reads each field through its
# getter, which takes that field's lock: for memory and cache reports it
# reads one field, for the average length it reads both. An average
# computed between the writer's two sections sees a new nstrings with an
# old totlen: the state is inconsistent and the reader's check fails
# (assert).
#
# Detector shape: every access holds the lock of its variable (no data
# race for happens-before or lockset). The reader's and writer's pairs of
# accesses to each variable are interleaved by the other thread in every
# run, buggy or not (AVIO learns no invariant there). PSet sees each
# location alone: on nstrings, on totlen and on each lock word, a buggy
# run shows the same write -> read and read -> write hand-offs as correct
# runs do, so no check fails (PSet Table 1: No; multi-location
# constraints are future work in the paper). Two things keep the
# lock-word hand-offs the same in buggy and correct runs: one lock per
# variable (with one lock for both, the reader's acquire between the
# writer's two sections would be a new lock-word edge), and the
# single-field reports, which make the writer meet the reader inside each
# getter in correct runs as well.
#
# Tuning: the window is the writer's `work` between its two critical
# sections against the reader's `delay`s. Longer reader delays give fewer
# buggy runs.

.kernel  pset-moz-multivar
.desc    "the writer updates nstrings and totlen in two critical sections (one lock each); a reader between them sees a new count with an old total"
.class   multivar
.force   "seed=10"
.source  "pset:16"
.cores   3
.expect  8 80

.data
count_lock: .word 0
nstrings:  .word 0                      # strings in the cache
           .align 64
len_lock:  .word 0
totlen:    .word 0                      # their total length (10 per string)
           .align 64
checks:    .word 0                      # averages the reader computed
report:    .word 0                      # what the last reports saw
           .align 64

.text
.func main
main:    spawn  r10, writer, r0
         spawn  r11, reader, r0
         join   r10
         join   r11
         ld     r2, nstrings
         out    r2
         ld     r3, totlen
         out    r3
         exit

.func writer
writer:  li     r2, 0
wr_loop: delay  100, 300                # make the next string
         add    r2, r2, 1
         call   add_string
         blt    r2, 8, wr_loop
         exit

.func add_string
add_string: lock count_lock
         st     r2, nstrings    @bug    # nstrings = n
         unlock count_lock
         work   40                      # hash the string into the table
         mul    r3, r2, 10
         lock   len_lock
         st     r3, totlen      @bug    # totlen = 10 * n
         unlock len_lock
         ret

.func reader
reader:  li     r2, 0
rd_loop: delay  30, 200                 # a memory report: total length only
         call   get_totlen
         delay  30, 200                 # a cache report: string count only
         call   get_nstrings
         add    r9, r4, r5
         st     r9, report
         delay  30, 200                 # a stats query: the average length
         call   avg_length
         add    r2, r2, 1
         blt    r2, 8, rd_loop
         exit

.func avg_length
avg_length: call get_nstrings           # n = nstrings
         call   get_totlen              # t = totlen
         mul    r6, r4, 10
         seq    r7, r5, r6
         assert r7, "inconsistent string statistics"
         beqz   r4, al_out
         div    r8, r5, r4              # the average length
         ld     r9, checks
         add    r9, r9, r8
         st     r9, checks
al_out:  ret

.func get_nstrings
get_nstrings: lock count_lock
         ld     r4, nstrings    @bug
         unlock count_lock
         ret

.func get_totlen
get_totlen: lock len_lock
         ld     r5, totlen      @bug
         unlock len_lock
         ret
