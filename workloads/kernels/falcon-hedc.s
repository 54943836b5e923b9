# falcon-hedc: Falcon Table 3 "Hedc" (ETH web crawler; atomicity, paper
# failure rate 1%, Falcon rank 0: the bug is in library code that Falcon
# did not instrument).
#
# Hedc's crawler tasks share one library object and call its methods from
# several threads. Here the shared object is a library connection pool
# (the lib_pool_* functions) that is not thread-safe: lib_pool_get checks
# that an idle connection is available (a), validates it, and then takes
# the last one, re-reading the count (c); the take throws
# NoSuchElementException when the pool is empty. Two crawler tasks fetch
# three pages each, taking a connection from the pool and returning it.
# When the other task takes the last idle connection (b) while this one is
# validating, the take throws (`fail`). The failing task never writes the
# count, so the pattern on pool_n is R1(a)-W2(b)-R1(c), in failing runs
# only, but every access of the pattern lies inside lib_* functions. A
# Falcon run that instruments application code only (the paper's Soot
# scope) sees none of it, which is why the paper reports rank 0; with
# whole-program instrumentation the pattern is visible.
#
# Tuning: the bug needs exactly one idle connection when a task checks and
# the other task's take within the validation (`delay 3, 12`, plus the
# re-read's miss on the line the other task wrote); the tasks fetch pages
# every `delay 500, 3000` cycles.

.kernel  falcon-hedc
.desc    "two crawler tasks share a non-thread-safe library connection pool whose get() checks for an idle connection and then takes it; the other task takes the last one in between and get() throws"
.class   atomicity
.source  "falcon:Hedc"
.cores   3
.force   "seed=74"

.data
pool_n:    .word 1                      # idle connections
pool:      .word 501                    # connection handles
           .space 3
           .align 64
next_conn: .word 600                    # handle for a freshly opened connection
           .align 64
pages:     .space 2                     # pages fetched per task
           .align 64

.text
.func main
main:    li     r2, 0
         spawn  r10, task, r2
         li     r2, 1
         spawn  r11, task, r2
         join   r10
         join   r11
         exit

.func task
task:    li     r2, 0                   # pages fetched; r1 = task
         shl    r9, r1, 3
t_loop:  delay  500, 3000               # parse the last page, pick the next URL
         call   lib_pool_get            # r3 = connection, or 0 when get() threw
         beqz   r3, t_dead
         work   40                      # fetch the page
         call   lib_pool_put
         add    r2, r2, 1
         st     r2, pages[r9]
         blt    r2, 3, t_loop
         exit
t_dead:  exit                           # the task died with the exception

# lib_pool_get: r3 = an idle connection (or a new one); 0 after the throw.
.func lib_pool_get
lib_pool_get: ld r4, pool_n     @bug    # (a) any idle connection?
         bnez   r4, g_valid
         fadd   r3, next_conn, 1        # none idle: open a new one
         ret
g_valid: delay  3, 12                  # validate the idle connection
         ld     r4, pool_n      @bug    # (c) take the last one: re-read
         beqz   r4, g_throw
         sub    r4, r4, 1
         shl    r5, r4, 3
         ld     r3, pool[r5]
         st     r4, pool_n      @bug    # (b) in the other task
         ret
g_throw: fail   "NoSuchElementException from the connection pool"
         li     r3, 0
         ret

# lib_pool_put: return connection r3 to the pool.
.func lib_pool_put
lib_pool_put: ld r4, pool_n
         shl    r5, r4, 3
         st     r3, pool[r5]
         add    r4, r4, 1
         st     r4, pool_n
         ret
