# pset-mysql-idinit: the MySQL node-id initialisation order violation (PSet
# Table 1 row 6, "an unintended interleaving makes a thread read an
# uninitialised value, and every data node becomes a master"; the same bug
# is Bugaboo Table 1 row 9, MySQL-IdInit, Fig. 2: NodeState::setDynamicId
# `dynamicId = id` against MgmtSrvr::Status `myId = node.dynamicId`).
# The startup thread reads its configuration and only then assigns the
# node's dynamic id (W). The status thread answers a status request by
# reading dynamicId (R); nothing orders R after W, and a status request
# during startup reads the BSS zero, reports id 0 and makes the node
# declare itself master: main prints a wrong id and master flag.
#
# dynamicId has no initialising store (BSS zero), so a read before W has
# no predecessor: PSet's first failing check is at W (its predecessor R is
# not in PSet(W) = {}), R has already happened, and only a rollback from
# W back to before R avoids the bug: the longest rollback window of PSet
# Table 2 (4,760 instructions), here the startup loop.
#
# Tuning: the window is the startup loop in startup (CFG_WORDS iterations)
# against the status request's `delay`. An earlier request gives more
# buggy runs.

.kernel  pset-mysql-idinit
.desc    "the status thread reads the node's dynamicId before the startup thread has assigned it, reports id 0 and the node makes itself master"
.class   order
.force   "seed=2"
.source  "pset:6 bugaboo:9"
.cores   3
.expect  3 0

.data
dynamicId: .word 0                      # NodeState::dynamicId (BSS zero)
           .align 64
myId:      .word 0                      # the id the status reply carried
isMaster:  .word 0                      # 1 if the node made itself master
           .align 64
config:    .space 32                    # the node's configuration section
           .align 64
cfgsum:    .word 0
           .align 64

.text
.func main
main:    spawn  r10, startup, r0
         spawn  r11, status_thread, r0
         join   r10
         join   r11
         ld     r2, myId
         out    r2
         ld     r3, isMaster
         out    r3
         exit

.func startup
startup: li     r2, 0                   # read the configuration (thousands of instructions)
         li     r4, 0
su_loop: and    r3, r2, 31
         shl    r3, r3, 3
         ld     r5, config[r3]
         add    r4, r4, r5
         add    r5, r5, r2
         st     r5, config[r3]
         add    r2, r2, 1
         blt    r2, 400, su_loop
         st     r4, cfgsum
         call   set_dynamic_id
         exit

.func set_dynamic_id
set_dynamic_id: li r6, 3
         st     r6, dynamicId   @bug    # NodeState::setDynamicId: dynamicId = id (W)
         ret

.func status_thread
status_thread: delay 3000, 10000         # a status request arrives
         call   mgmt_status
         exit

.func mgmt_status
mgmt_status: ld r2, dynamicId   @bug    # MgmtSrvr::Status: myId = node.dynamicId (R)
         st     r2, myId
         bnez   r2, ms_out
         li     r3, 1                   # no id: the node takes over as master
         st     r3, isMaster
ms_out:  ret
