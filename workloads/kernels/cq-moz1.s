# cq-moz1: ConSeq Moz1, the Mozilla-1.7 mail client multi-variable
# atomicity violation of the paper's Figure 1(c) and Figure 5. The IMAP
# protocol object has two correlated fields, m_runningUrl and
# m_urlInProgress. The IMAP thread finishing a URL clears them in two
# steps (S1 runningUrl = NULL; S2 InProgress = FALSE); main (the URL
# dispatcher) sets both again for the next URL. The UI thread's IsBusy
# check reads them in two steps too:
#     S3: if (InProgress) isBusy = TRUE;
#         ...
#     S4: if (isBusy) if (!runningUrl) nsDebug::Assertion(...)
# Every access to the two fields holds the protocol monitor m, so there is
# no data race, and no thread touches either field twice, so there is no
# single-variable pattern for an atomicity detector. Both S1->S2->S3->S4
# and S3->S4->S1->S2 are correct; the bug is S3 -> S1 -> S4: the UI thread
# sees the old InProgress (TRUE) and the new runningUrl (NULL), and the
# assert fails.
#
# ConSeq distances (the paper's statement model): the assert
# is the ASS site; its condition, the runningUrl load, is at distance 1;
# the isBusy load (the guarding branch) at 2; the isBusy store at 3 (a
# store->load edge); the InProgress load (the branch guarding the store)
# at 4. isBusy is touched by the UI thread only, so it is no critical read
# at run time. The suspicious pair is w' = S1 (runningUrl = NULL) for the
# runningUrl read, which is concurrent with it because locks give no order.
#
# Tuning: the bug window is the UI thread's S3..S4 gap (`work` + `delay`
# in ui_isbusy); the IMAP threads clear the fields once per URL, two URLs
# per run, and the UI check starts at a random time over both.

.kernel  cq-moz1
.desc    "UI thread reads InProgress then runningUrl in separate monitor sections; an IMAP thread clearing runningUrl in between makes IsBusy assert on a NULL URL"
.class   multivar
.force   "seed=1"
.source  "conseq:Moz1"
.cores   4

.data
m:           .word 0                    # the protocol monitor
             .align 64
runningUrl:  .word 1001                 # m_runningUrl: URL 1 queued before the threads start
             .align 64
InProgress:  .word 1                    # m_urlInProgress
             .align 64
isBusy:      .word 0                    # the UI thread's busy flag
             .align 64

.text
.func main
main:    spawn  r11, ui_thread, r0
         spawn  r10, imap_thread, r0    # runs URL 1
         join   r10
         call   dispatch_url            # queue URL 2
         spawn  r10, imap_thread, r0    # runs URL 2
         join   r10
         join   r11
         exit

.func dispatch_url
dispatch_url: delay 20, 120             # build the next URL
         li     r2, 1002
         li     r3, 1
         lock   m
         st     r2, runningUrl          # runningUrl = url (the code "not shown" in Figure 1c)
         st     r3, InProgress          # InProgress = TRUE
         unlock m
         ret

.func imap_thread
imap_thread: delay 300, 1500            # fetch and parse the mailbox
         lock   m
         st     r0, runningUrl  @bug    # S1: runningUrl = NULL
         unlock m
         work   4                       # release the URL object
         lock   m
         st     r0, InProgress  @bug    # S2: InProgress = FALSE
         unlock m
         exit

.func ui_thread
ui_thread: delay 0, 3600                # the user clicks at some time
         call   ui_isbusy
         exit

.func ui_isbusy
ui_isbusy: lock m
         ld     r2, InProgress  @bug    # S3: if (InProgress)  (distance 4)
         unlock m
         beqz   r2, ui_l1
         li     r3, 1
         st     r3, isBusy              #       isBusy = TRUE   (distance 3)
ui_l1:   work   40                      # the rest of IsBusy's caller
         delay  0, 40
         ld     r4, isBusy              # S4: if (isBusy)       (distance 2)
         beqz   r4, ui_done
         lock   m
         ld     r5, runningUrl  @bug    #       if (!runningUrl) (distance 1)
         unlock m
         assert r5, "nsDebug::Assertion: busy IMAP protocol with no running URL"
ui_done: ret
