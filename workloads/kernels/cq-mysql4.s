# cq-mysql4: ConSeq MySQL4 (MySQL-5.0.41, infinite loop; Table 3: ConSeq
# only). An order violation on a flag whose every access holds LOCK_open,
# in the style of the paper's Figure 1(b): the client thread posts a
# refresh request to the handler thread and only then marks the refresh
# pending; it then waits until the handler clears the mark:
#     client:  post(request); ...; S1: refresh_pending = TRUE;
#              thd->state = WAITING;
#              while (thd->state == WAITING) {
#                  timed wait; if (!refresh_pending) thd->state = DONE; }
#     handler: wait for a request; refresh; S2: refresh_pending = FALSE;
# If the handler is quick, S2 runs before S1, S1 overwrites the FALSE, and
# the client waits for ever. Locks cannot fix the order, and every access
# is locked, so there is no data race.
#
# Livelock oracle: a buggy run would spin until sim.max_cycles (100M
# cycles) and end as `hang`, far too slow for 200 seeds. The wait loop
# therefore counts its iterations and, after 300 (about 100x the longest
# correct wait), reports `fail "infinite loop"` and gives up: `error`. The
# loop itself never exits in the buggy interleaving (nobody clears the
# flag again); the counter only stands in for the watchdog.
#
# Detectors: Race sees LOCK_open on every access. Atom: in the failing
# run the handler's S2 comes entirely before the client's S1 and reads, a
# serial order; the unserializable W-W-R (S1, S2, read) is the correct
# run. ConSeq: the loop-exit branch (LOOP site) reads thd->state (distance
# 0); the store thd->state = DONE is at 1; the branch on refresh_pending
# that guards it, with its load, at 2 (a critical read in the loop body).
# In a correct run the last read takes FALSE from S2 (w); the client's own
# S1 (w', TRUE) is concurrent with S2, so the loop rule reports it.
#
# Tuning: the client's gap between posting and S1 is `delay 20, 140`; the
# handler polls every `delay 20, 160` and refreshes for `work 60`.
#
# Noise (custom synchronisation, not the bug): the request carries its
# table list. The client stores request_tables and then posts the request
# flag; the handler's poll loop (lock; read `request`; unlock; until set)
# is a spin flag in ConSeq's sense, and after it the handler reads the list
# and checks DBUG_ASSERT(tables) (an ASS site, the load at distance 1).
# With the spin-flag recogniser on, the loop's exit orders the client's
# store before the check and ConSeq reports nothing there; with it off the
# check's read has no write ordered before it, and the uninitialised-read
# extension reports the initial NULL (a false positive: the handler cannot
# see the request before the list). The client stores the list under
# LOCK_open; the handler, which owns the request once it has seen the
# flag, reads it without the lock.

.kernel  cq-mysql4
.desc    "the client posts a refresh request before it marks the refresh pending; a quick handler clears the mark first and the client's wait loop never ends"
.class   order
.force   "seed=3"
.source  "conseq:MySQL4"
.cores   2

.data
LOCK_open:       .word 0
                 .align 64
request:         .word 0                # the handler's request slot: the posted flag
request_tables:  .word 0                #   and its table list (NULL: none)
                 .align 64
refresh_pending: .word 0
                 .align 64
table_list:      .space 4               # the statement's TABLE_LIST
                 .align 64
thd_state:       .word 0                # the client's thd->state (client only): 1 WAITING, 0 DONE
                 .align 64

.text
.func main
main:    spawn  r10, handler, r0
         work   40                      # parse the statement
         call   client_refresh
         join   r10
         exit

.func client_refresh
client_refresh: li r2, 1
         la     r6, table_list
         lock   LOCK_open
         st     r6, request_tables      # request->tables = the statement's table list
         st     r2, request             # post(request): the handler may start now
         unlock LOCK_open
         delay  20, 140                 # close this thread's own tables
         lock   LOCK_open
         st     r2, refresh_pending @bug # S1: refresh_pending = TRUE (too late)
         unlock LOCK_open
         st     r2, thd_state           # thd->state = WAITING
         li     r3, 0                   # watchdog: iterations
cr_loop: add    r3, r3, 1
         blt    r3, 300, cr_wait
         fail   "infinite loop"         # 300 waits: the loop would never end
         ret
cr_wait: delay  20, 60                  # timed wait on COND_refresh
         lock   LOCK_open
         ld     r4, refresh_pending @bug # if (!refresh_pending)      (distance 2)
         unlock LOCK_open
         bnez   r4, cr_still
         st     r0, thd_state           #     thd->state = DONE      (distance 1)
cr_still: ld    r5, thd_state           # while (thd->state == WAITING)  (LOOP site, distance 0)
         bnez   r5, cr_loop
         ret

.func handler
handler: delay  20, 160                 # wait for a request
         lock   LOCK_open
         ld     r2, request
         unlock LOCK_open
         beqz   r2, handler
         ld     r3, request_tables      # tables = request->tables  (noise, distance 1)
         sne    r4, r3, 0
         assert r4, "handle_refresh: DBUG_ASSERT(tables) failed"
         work   60                      # close and reopen the tables
         lock   LOCK_open
         st     r0, refresh_pending @bug # S2: refresh_pending = FALSE
         st     r0, request
         unlock LOCK_open
         exit
