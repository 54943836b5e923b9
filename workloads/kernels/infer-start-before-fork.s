# infer-start-before-fork: a child cannot start before its fork. main sets
# up the config words and only then spawns the child, which reads them as
# soon as it starts; after the spawn main works on other data only. The
# write -> read pairs on cfg are ordered by fork -> start and nothing else,
# so a model without the FORK process (one that let the child's first
# segment move before main's fork) would report them. Inference's model
# keeps fork before start: 0 candidates; happens-before is silent.
# main prints 3 and 8.

.kernel  infer-start-before-fork
.desc    "main writes cfg and then spawns the child, which reads cfg at once: ordered only by fork -> start, race-free"
.class   none
.source  "inference:start-before-fork"
.cores   2
.expect  3 8

.data
cfg:     .space 2
         .align 64
result:  .word 0
         .align 64
local:   .word 0
         .align 64

.text
.func main
main:    li     r2, 1
         st     r2, cfg                 # set up before the fork
         li     r2, 2
         st     r2, cfg+8
         spawn  r10, child, r0
         li     r3, 0                   # main's own work after the fork
m_loop:  ld     r4, local
         add    r4, r4, 2
         st     r4, local
         add    r3, r3, 1
         blt    r3, 4, m_loop
         join   r10
         ld     r2, result
         out    r2
         ld     r4, local
         out    r4
         exit

.func child
child:   ld     r2, cfg                 # first thing after start
         ld     r3, cfg+8
         add    r2, r2, r3
         st     r2, result
         exit
