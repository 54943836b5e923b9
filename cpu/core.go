package cpu

import (
	"fmt"

	"weft/coherence"
	"weft/core"
	"weft/isa"
)

// status is what a core is doing.
type status uint8

const (
	statusIdle status = iota
	statusRunning
	statusMem
	statusLock
	statusBarrier
	statusCond
	statusJoin
	statusParked
	statusStalled
	statusRollback
	statusDone
)

var statusNames = [...]string{"idle", "running", "waiting for memory", "waiting for a lock",
	"waiting at a barrier", "waiting on a condition variable", "waiting to join", "parked", "stalled", "waiting for a rollback", "done"}

func (s status) String() string { return statusNames[s] }

const opExec int32 = 1

// coreState is a core's whole mutable state: a plain value, so a snapshot
// copies it.
type coreState struct {
	Status    status
	Thread    int32
	PC        int32
	SP        int32
	Time      core.Cycle
	Regs      [isa.NumRegs]int64
	Ret       [isa.ReturnStackDepth]int32
	Issued    bool
	Phase     uint8
	TimedOut  bool
	Bucket    Bucket
	WaitStart core.Cycle
	WaitLine  uint64
	WaitAddr  uint64
	WaitTid   int32
	WaitSeq   uint64
	Gen       uint64
	Start     core.Cycle
	IdleSince core.Cycle
	Instrs    uint64
	Buckets   [NumBuckets]core.Cycle
	RNG       core.RNG
	ParkPC    int32
	ParkRule  int32
	// Counted is set once the access being performed has been counted in
	// the cache statistics (a retry after a stall is not counted again).
	Counted bool
	// TimerSeq is the engine sequence number of a pending park or stall
	// timer (0: none).
	TimerSeq uint64
	// Lat is the latency still to add after the access being performed
	// (the hit latency, zero after a miss whose latency has passed, plus
	// any delay an extension's check charged).
	Lat core.Cycle
	// Hit is set while the access being performed hit in the L1.
	Hit bool
	// NoStore is set while a failed cas or lock swap is performed: an
	// RMW that read and did not write.
	NoStore bool
	// Charge is work an extension charged the core (Port.Charge), added
	// to the latency of its next access.
	Charge core.Cycle
	// IrritatedFrom and IrritatedTo bound the last irritator the thread
	// drew. It is charged to MemStall at once, so a run that ends inside
	// it gives back the part past the end (finish); once the delayed
	// instruction's first access has reached global time, IrritatedTo is
	// at or before the run's end.
	IrritatedFrom, IrritatedTo core.Cycle
	// Stats are the core's processor counters (all its threads').
	Stats Stats
	// PastInstrs counts the instructions of the threads that ran on the
	// core and exited.
	PastInstrs uint64
}

// Core is one in-order, blocking core running at most one thread.
type Core struct {
	m      *Machine
	id     int
	target int32
	st     coreState
}

// ID returns the core's index.
func (c *Core) ID() int { return c.id }

// Thread returns the thread running on the core, or -1.
func (c *Core) Thread() int32 { return c.st.Thread }

// Regs returns the current thread's registers.
func (c *Core) Regs() [isa.NumRegs]int64 { return c.st.Regs }

// PC returns the current thread's PC.
func (c *Core) PC() int32 { return c.st.PC }

func (c *Core) schedule(at core.Cycle) {
	c.m.eng.Schedule(at, c.target, opExec, c.st.Gen)
}

// scheduleTimer queues a wake-up for a park or stall timeout, remembered
// so that an early release can cancel it.
func (c *Core) scheduleTimer(at core.Cycle) {
	c.st.TimerSeq = c.m.eng.Schedule(at, c.target, opExec, c.st.Gen)
}

// cancelTimer removes a pending park or stall timer: a stale timer would
// keep the queue non-empty and hide a deadlock.
func (c *Core) cancelTimer() {
	if c.st.TimerSeq != 0 {
		c.m.eng.Cancel(c.st.TimerSeq)
		c.st.TimerSeq = 0
	}
}

// Handle resumes the core (the engine calls it).
func (c *Core) Handle(now core.Cycle, op int32, arg uint64) {
	if arg != c.st.Gen || c.m.st.ended {
		return
	}
	c.st.TimerSeq = 0
	switch c.st.Status {
	case statusRunning:
		c.run()
	case statusParked, statusStalled:
		c.release(now, true)
	}
}

// TxnDone resumes the core when its bus transaction completes.
func (c *Core) TxnDone(now core.Cycle, frame int) {
	if c.m.st.ended {
		return
	}
	c.endWait(now)
	in := &c.m.prog.Instrs[c.st.PC]
	if c.globalOp(in, frame) {
		c.run()
	}
}

// LineLost wakes a lock waiter whose cached lock line was invalidated.
func (c *Core) LineLost(now core.Cycle, line uint64) {
	if c.st.Status == statusLock && c.st.WaitLine == line {
		c.endWait(now)
		c.schedule(now)
	}
	if c.m.st.waiting > 0 {
		c.m.lineLost(now, line)
	}
}

// wait blocks the core in status s, accounting the time to bucket b.
func (c *Core) wait(s status, b Bucket) {
	c.st.Status = s
	c.st.Bucket = b
	c.st.WaitStart = c.st.Time
	if c.st.Time > c.m.st.frontier {
		c.m.st.frontier = c.st.Time
	}
}

// endWait unblocks the core at cycle now.
func (c *Core) endWait(now core.Cycle) {
	if now > c.st.WaitStart {
		c.st.Buckets[c.st.Bucket] += now - c.st.WaitStart
	}
	if now > c.st.Time {
		c.st.Time = now
	}
	c.st.Status = statusRunning
}

// finish closes the core's accounting at the end of the run.
func (c *Core) finish(at core.Cycle) {
	st := &c.st
	switch st.Status {
	case statusIdle, statusDone:
		if at > st.IdleSince {
			st.Buckets[Idle] += at - st.IdleSince
		}
		st.IdleSince = at
	case statusRunning:
	default:
		if at > st.WaitStart {
			st.Buckets[st.Bucket] += at - st.WaitStart
		}
	}
	if st.IrritatedTo > at {
		// The run ended inside an irritator: its cycles past the end,
		// charged as memory stall when it was drawn, never elapsed.
		// (Jitter is charged the same way and not given back, so that
		// runs without irritators keep their bytes; it is a few cycles.)
		st.Buckets[MemStall] -= st.IrritatedTo - max(at, st.IrritatedFrom)
	}
	if st.Thread >= 0 && st.Start > at && st.Buckets[Idle] >= st.Start-at {
		// The thread was to start (after its random skew) only after the
		// run ended: the idle time counted up to its start is partly
		// beyond the end.
		st.Buckets[Idle] -= st.Start - at
	}
	var waits core.Cycle
	for b := MemStall; b < NumBuckets; b++ {
		waits += st.Buckets[b]
	}
	st.Buckets[Busy] = 0
	if at > waits {
		st.Buckets[Busy] = at - waits
	}
	if st.Thread >= 0 && int(st.Thread) < len(c.m.st.threads) && !c.m.st.threads[st.Thread].Exited {
		c.m.st.threads[st.Thread].Instrs = st.Instrs
		c.m.st.threads[st.Thread].End = at
	}
}

// run executes instructions from the current PC until the core blocks,
// must wait for global time, or its thread ends.
func (c *Core) run() {
	m := c.m
	st := &c.st
	prog := m.prog.Instrs
	alu := m.spec.ALUCycles
	// Local instructions stop at m.horizon (sim.max_cycles, or StopOn's).
	pc, t := st.PC, st.Time
	for !m.st.ended {
		if uint32(pc) >= uint32(len(prog)) {
			st.PC, st.Time = pc, t
			c.syncCrash(fmt.Sprintf("pc %d is outside the program", pc))
			return
		}
		for pc == st.ParkPC {
			// A rule released at once arms the thread's next; one at the
			// same PC sees this arrival too, as after a delayed release.
			rule := st.ParkRule
			st.PC, st.Time = pc, t
			if !c.park() {
				return
			}
			pc, t = st.PC, st.Time
			if st.ParkRule == rule {
				break // an arrival the rule passes (Skip)
			}
		}
		in := &prog[pc]
		if t+alu > m.horizon && localOp(in.Op) {
			// Past sim.max_cycles the instruction does not run, or this
			// is a look at StopOn's channel (pastHorizon). Keep run's
			// lines before its calls where they are: the PGO profile
			// names call sites by line (BENCHMARKS.md, issue 25).
			if c.pastHorizon(pc, t) {
				return
			}
		}
		r := &st.Regs
		var b int64
		if in.UseImm {
			b = in.Imm
		} else {
			b = r[in.Rt&regMask]
		}
		switch in.Op {
		case isa.OpLi, isa.OpLa:
			r[in.Rd&regMask] = in.Imm
		case isa.OpMov:
			r[in.Rd&regMask] = r[in.Rs&regMask]
		case isa.OpAdd:
			r[in.Rd&regMask] = r[in.Rs&regMask] + b
		case isa.OpSub:
			r[in.Rd&regMask] = r[in.Rs&regMask] - b
		case isa.OpMul:
			r[in.Rd&regMask] = r[in.Rs&regMask] * b
		case isa.OpDiv, isa.OpRem:
			if b == 0 {
				st.PC, st.Time = pc, t
				c.syncCrash("division by zero")
				return
			}
			a := r[in.Rs&regMask]
			if b == -1 {
				// Go panics on MinInt64 / -1 for constants only; keep the
				// wrap-around result explicit.
				if in.Op == isa.OpDiv {
					r[in.Rd&regMask] = -a
				} else {
					r[in.Rd&regMask] = 0
				}
			} else if in.Op == isa.OpDiv {
				r[in.Rd&regMask] = a / b
			} else {
				r[in.Rd&regMask] = a % b
			}
		case isa.OpAnd:
			r[in.Rd&regMask] = r[in.Rs&regMask] & b
		case isa.OpOr:
			r[in.Rd&regMask] = r[in.Rs&regMask] | b
		case isa.OpXor:
			r[in.Rd&regMask] = r[in.Rs&regMask] ^ b
		case isa.OpShl:
			r[in.Rd&regMask] = r[in.Rs&regMask] << (uint64(b) & 63)
		case isa.OpShr:
			r[in.Rd&regMask] = int64(uint64(r[in.Rs&regMask]) >> (uint64(b) & 63))
		case isa.OpSar:
			r[in.Rd&regMask] = r[in.Rs&regMask] >> (uint64(b) & 63)
		case isa.OpSeq:
			r[in.Rd&regMask] = b2i(r[in.Rs&regMask] == b)
		case isa.OpSne:
			r[in.Rd&regMask] = b2i(r[in.Rs&regMask] != b)
		case isa.OpSlt:
			r[in.Rd&regMask] = b2i(r[in.Rs&regMask] < b)
		case isa.OpSle:
			r[in.Rd&regMask] = b2i(r[in.Rs&regMask] <= b)
		case isa.OpTid:
			r[in.Rd&regMask] = int64(st.Thread)
		case isa.OpNop:
		case isa.OpWork:
			t += core.Cycle(in.Imm)
		case isa.OpDelay:
			t += core.Cycle(st.RNG.Range(uint64(in.Imm), uint64(in.Imm2)))
		case isa.OpBeq, isa.OpBne, isa.OpBlt, isa.OpBge, isa.OpBeqz, isa.OpBnez, isa.OpJmp:
			var taken bool
			switch in.Op {
			case isa.OpBeq:
				taken = r[in.Rs&regMask] == b
			case isa.OpBne:
				taken = r[in.Rs&regMask] != b
			case isa.OpBlt:
				taken = r[in.Rs&regMask] < b
			case isa.OpBge:
				taken = r[in.Rs&regMask] >= b
			case isa.OpBeqz:
				taken = r[in.Rs&regMask] == 0
			case isa.OpBnez:
				taken = r[in.Rs&regMask] != 0
			default:
				taken = true
			}
			t += alu
			st.Instrs++
			if taken {
				pc = in.Target
			} else {
				pc++
			}
			continue
		case isa.OpCall:
			if st.SP >= isa.ReturnStackDepth {
				st.PC, st.Time = pc, t
				c.syncCrash(fmt.Sprintf("return stack overflow (depth %d)", isa.ReturnStackDepth))
				return
			}
			st.Ret[st.SP] = pc + 1
			st.SP++
			t += alu
			st.Instrs++
			pc = in.Target
			continue
		case isa.OpRet:
			if st.SP == 0 {
				st.PC, st.Time = pc, t
				c.syncCrash("ret with an empty return stack")
				return
			}
			st.SP--
			t += alu
			st.Instrs++
			pc = st.Ret[st.SP]
			continue
		case isa.OpLd, isa.OpSt, isa.OpCas, isa.OpXchg, isa.OpFadd, isa.OpLock, isa.OpUnlock:
			st.PC, st.Time = pc, t
			if !m.noDirect {
				switch c.direct(in) {
				case directDone:
					pc, t = st.PC, st.Time
					continue
				case directStop:
					return
				}
			}
			if !c.globalOp(in, -1) {
				return
			}
			pc, t = st.PC, st.Time
			continue
		default:
			st.PC, st.Time = pc, t
			if !c.globalOp(in, -1) {
				return
			}
			pc, t = st.PC, st.Time
			continue
		}
		r[0] = 0
		t += alu
		st.Instrs++
		pc++
	}
	st.PC, st.Time = pc, t
}

// pastHorizon is run's test of a local instruction at pc that would
// complete past the horizon, from cycle t. It reports whether run must
// return. Past sim.max_cycles the instruction does not run (nor count),
// and the engine declares the hang at global time: without this an
// endless register-only loop counted one instruction more than it had
// cycles. A run interrupted by StopOn's channel ends here. Otherwise only
// the horizon moved, and the run goes on unchanged.
func (c *Core) pastHorizon(pc int32, t core.Cycle) bool {
	m := c.m
	if m.poll(t + m.spec.ALUCycles) {
		return false
	}
	c.st.PC, c.st.Time = pc, t
	if !m.stopped {
		c.schedule(t + m.spec.ALUCycles)
	}
	return true
}

// regMask masks a register index into the register file, so that indexing
// needs no bounds check (the assembler and the builder reject registers
// past isa.NumRegs).
const regMask = isa.NumRegs - 1

// localOp reports whether run executes o on the core alone, without
// entering global order (registers, control, work and delay).
func localOp(o isa.Op) bool {
	switch o {
	case isa.OpLi, isa.OpLa, isa.OpMov, isa.OpAdd, isa.OpSub, isa.OpMul, isa.OpDiv, isa.OpRem,
		isa.OpAnd, isa.OpOr, isa.OpXor, isa.OpShl, isa.OpShr, isa.OpSar,
		isa.OpSeq, isa.OpSne, isa.OpSlt, isa.OpSle, isa.OpTid, isa.OpNop, isa.OpWork, isa.OpDelay,
		isa.OpBeq, isa.OpBne, isa.OpBlt, isa.OpBge, isa.OpBeqz, isa.OpBnez, isa.OpJmp, isa.OpCall, isa.OpRet:
		return true
	}
	return false
}

// rmwValue returns what an ordinary cas, xchg or fadd stores given the
// word's old value and the registers, and whether it stores (a failed cas
// does not): one definition for the direct and the general path.
func rmwValue(in *isa.Instruction, r *[isa.NumRegs]int64, old int64) (v int64, stored bool) {
	switch in.Op {
	case isa.OpCas:
		if old != r[in.Rs&regMask] {
			return old, false
		}
		return r[in.Rt&regMask], true
	case isa.OpXchg:
		return r[in.Rs&regMask], true
	case isa.OpFadd:
		if in.UseImm {
			return old + in.Imm, true
		}
		return old + r[in.Rs&regMask], true
	}
	return old, true
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// syncCrash crashes the run at the core's current time, once that time is
// reached globally.
func (c *Core) syncCrash(msg string) {
	if !c.atGlobal(c.st.Time) {
		c.st.Issued = true
		c.schedule(c.st.Time)
		return
	}
	c.m.crash(core.Crash, c, msg, c.st.Time)
}

// atGlobal reports whether the core may act at cycle t now: either t is
// the cycle of the event being handled (the core's own event or the
// transaction that resumed it, so everything ordered before it has fired)
// or t is strictly before every queued event (the lookahead rule).
// A core never acts past sim.max_cycles: it schedules itself instead, and
// the engine ends the run as a hang. Every cycle at which a core acts
// advances the machine's frontier.
func (c *Core) atGlobal(t core.Cycle) bool {
	m := c.m
	if t > m.spec.MaxCycles || !(t == m.eng.Now() || m.eng.CanRunAt(t)) {
		return false
	}
	if t > m.st.frontier {
		m.st.frontier = t
	}
	return true
}

// What direct did with an access.
const (
	// directGeneral: the access needs the general path (a miss, an
	// illegal address, an extension's check that must run); the
	// instruction is issued (its jitter drawn) and nothing else changed.
	directGeneral int8 = iota
	// directDone: the access was performed and the instruction retired.
	directDone
	// directStop: the core stopped (it gave way to an earlier event and
	// scheduled itself, or a safe point or the run's end was requested).
	directStop
)

// direct is the direct path of a load, store or RMW (cas, xchg, fadd)
// that hits in the L1, and of a lock or unlock (directLock): it performs
// the instruction at its own cycle in global order with the same
// functions, in the same order, as globalOp → step → line → access →
// retire, without the general path's phases and check hooks. It declines
// (directGeneral) when the access misses or its address is illegal, or
// when an extension's check would run: every check must be one the core
// skips because the granule's owner field is the accessing thread's
// (Port.OnCheckOwned), which costs and changes nothing.
//
// Every call of the path is made here, not inside another callee: each is
// then a hot edge of cmd/weft/default.pgo, and profile-guided inlining
// gives the path back its speed (BENCHMARKS.md, issue 22).
func (c *Core) direct(in *isa.Instruction) int8 {
	st := &c.st
	if !st.Issued {
		c.issue(true)
	}
	if !c.reach() {
		return directStop
	}
	a := uint64(st.Regs[in.Base&regMask] + in.Off)
	if !c.m.legal(a) {
		return directGeneral
	}
	if in.Op == isa.OpLock || in.Op == isa.OpUnlock {
		return c.directLock(in, a)
	}
	write := in.Op != isa.OpLd
	f := c.hit(a, write)
	if f < 0 {
		return directGeneral
	}
	st.Bucket = MemStall
	c.access(in, f, a, write)
	c.performed(f, a, write)
	st.PC++
	if !c.retire() {
		return directStop
	}
	return directDone
}

// directLock is the direct path of an uncontended lock (the lock word at
// a is free and the L1 holds it, in E or M for the swap) and of an unlock
// that hits; as direct, with lockStep's and unlockStep's functions and
// order. A held lock, a swap that would upgrade and an unlock of a lock
// the thread does not hold take the general path, before anything is
// committed.
func (c *Core) directLock(in *isa.Instruction, a uint64) int8 {
	st := &c.st
	unlock := in.Op == isa.OpUnlock
	held := int64(st.Thread) + 1
	for {
		write := unlock || st.Phase == 1
		f := c.lookupHit(a, write)
		if f < 0 {
			return directGeneral
		}
		v := c.m.mem.ReadWord(f, a)
		if (unlock && v != held) || (!unlock && v != 0) {
			return directGeneral
		}
		c.m.mem.Commit(c.id, f, write, !st.Counted)
		c.hitLatency()
		switch {
		case unlock:
			st.Bucket = MemStall
			c.unlockWord(f, a)
		case !write:
			// The test: the lock is free, the swap comes next, at its
			// own turn in global order, as in globalOp between phases.
			st.Bucket = LockWait
			c.lockTest(f, a, v)
			st.Phase = 1
			if c.safePoint() || !c.reach() {
				return directStop
			}
			continue
		default:
			st.Bucket = LockWait
			c.count(StatRMWs)
			c.acquire(f, a, held)
		}
		st.PC++
		if !c.retire() {
			return directStop
		}
		return directDone
	}
}

// issue issues the instruction at the core's PC: once, before its first
// phase. A memory instruction (mem) draws its jitter, the random extra
// latency of sim.jitter_cycles, from the thread's stream, then its
// irritator.
func (c *Core) issue(mem bool) {
	m := c.m
	st := &c.st
	st.Issued = true
	if mem {
		if hi := m.spec.JitterCycles; hi > 0 {
			j := core.Cycle(st.RNG.UpTo(hi))
			st.Time += j
			st.Buckets[MemStall] += j
		}
		if m.irritateBelow != 0 {
			c.irritate()
		}
	}
}

// reach reports whether the core may act at its time now (atGlobal); if
// not, the core gives way: it schedules itself at its time, after the
// earlier events.
func (c *Core) reach() bool {
	if c.atGlobal(c.st.Time) {
		return true
	}
	c.schedule(c.st.Time)
	return false
}

// safePoint reports whether a checkpoint or rollback was requested (and
// the run goes on): the core then stops at this instruction (or phase)
// boundary, scheduled at its own time, so that the safe point after this
// event finds it here; being rescheduled gives the same run as going on
// (DESIGN.md §2).
func (c *Core) safePoint() bool {
	m := c.m
	if m.pending != 0 && !m.st.ended {
		c.schedule(c.st.Time)
		return true
	}
	return false
}

// legal reports whether a is a legal data address (badAddr returns "").
func (m *Machine) legal(a uint64) bool {
	return a&(isa.WordBytes-1) == 0 && a >= isa.DataBase && (a < m.dataEnd || a >= m.heapBase) && a < m.st.heapNext &&
		!(m.st.anyFreed && m.isFreed(a))
}

// hit finds a in the L1 with the permission asked for and commits the
// hit (line's hit path without a check phase), or returns -1: a miss,
// or a check the core would not skip.
func (c *Core) hit(a uint64, write bool) int {
	m := c.m
	var f int
	if len(m.checks) == 0 {
		f = m.mem.Hit(c.id, a, write, !c.st.Counted)
	} else if f = c.lookupHit(a, write); f >= 0 {
		m.mem.Commit(c.id, f, write, !c.st.Counted)
	}
	if f >= 0 {
		c.hitLatency()
	}
	return f
}

// lookupHit returns a's L1 frame when a hit with the permission asked for
// needs no check phase (no extension checks, or checksSkipped), else -1.
// Nothing is committed: the caller commits the hit (System.Commit, counted
// unless a retry was) and calls hitLatency, as line does.
func (c *Core) lookupHit(a uint64, write bool) int {
	m := c.m
	f := m.mem.Lookup(c.id, a, write)
	if f < 0 || (len(m.checks) != 0 && !c.checksSkipped(f, a)) {
		return -1
	}
	return f
}

// hitLatency marks the access being performed as an L1 hit, whose latency
// is added once it is performed.
func (c *Core) hitLatency() {
	c.st.Hit, c.st.Lat = true, c.m.spec.HitCycles
}

// checksSkipped reports whether every extension's check of an access to a
// in frame f is one the core skips (OnCheckOwned: the granule's owner
// field holds the accessing thread's id + 1), as checkPhase would.
func (c *Core) checksSkipped(f int, a uint64) bool {
	m := c.m
	own := uint64(c.st.Thread) + 1
	for i := range m.checks {
		h := &m.checks[i]
		if h.owned < 0 || m.mem.MetaWord(f, h.own.Word(a)) != own {
			return false
		}
	}
	return true
}

// globalOp performs an instruction whose effects other threads can see, at
// its own cycle in global order. It reports whether the core may go on
// running; otherwise the core has blocked or scheduled itself. frame is the
// L1 frame a completed transaction just filled, or -1.
func (c *Core) globalOp(in *isa.Instruction, frame int) bool {
	if !c.st.Issued {
		c.issue(in.Op.TouchesMemory())
	}
	for {
		if frame < 0 && !c.reach() {
			return false
		}
		done, ok := c.step(in, frame)
		frame = -1
		if !ok {
			return false
		}
		if done {
			return c.retire()
		}
		if c.safePoint() {
			return false
		}
	}
}

// irritate draws the irritator of the memory instruction being issued,
// from the thread's own stream (so a run stays a function of its config,
// program and seed, and a reseeding rollback reseeds it too): with
// probability Spec.IrritatorProb, a delay of 1..Spec.IrritatorMaxCycles
// cycles before its first access. The delay counts as memory stall, as
// jitter does: the core waits at a memory instruction without executing,
// and busy stays the program's own work (instructions, work, delay).
func (c *Core) irritate() {
	m := c.m
	st := &c.st
	if st.RNG.Uint64()>>11 >= m.irritateBelow {
		return
	}
	d := core.Cycle(st.RNG.Range(1, m.spec.IrritatorMaxCycles))
	st.IrritatedFrom = st.Time
	st.Time += d
	st.Buckets[MemStall] += d
	st.IrritatedTo = st.Time
	m.st.irritators++
	m.st.irritatorCycles += uint64(d)
}

// addr computes a memory operand and checks it; it crashes the run and
// returns false for an illegal address.
func (c *Core) addr(base uint8, off int64) (uint64, bool) {
	a := uint64(c.st.Regs[base] + off)
	if msg := c.m.badAddr(a); msg != "" {
		c.m.crashAt(core.Crash, c, msg, c.st.Time, a)
		return 0, false
	}
	return a, true
}

// badAddr explains why a is not a legal data address, or returns "".
func (m *Machine) badAddr(a uint64) string {
	switch {
	case a < isa.NullPageEnd:
		return fmt.Sprintf("null-page access at %#x", a)
	case a&(isa.WordBytes-1) != 0:
		return fmt.Sprintf("misaligned access at %#x", a)
	case a < isa.DataBase || (a >= m.dataEnd && a < m.heapBase) || a >= m.st.heapNext:
		return fmt.Sprintf("access outside data and heap at %#x", a)
	case m.st.anyFreed && m.isFreed(a):
		return fmt.Sprintf("access to freed word at %#x", a)
	}
	return ""
}

func (m *Machine) wordIndex(a uint64) uint64 { return (a - isa.DataBase) / isa.WordBytes }

func (m *Machine) isFreed(a uint64) bool {
	i := m.wordIndex(a)
	return i/64 < uint64(len(m.st.freed)) && m.st.freed[i/64]&(1<<(i%64)) != 0
}

// line gets addr's line into the L1 with the permission asked for. It
// returns the frame, or -1 when the core must wait (for the bus or a stall).
func (c *Core) line(addr uint64, write bool, frame int) int {
	m := c.m
	st := &c.st
	hit := frame < 0
	if hit {
		frame = m.mem.Lookup(c.id, addr, write)
		if frame < 0 {
			c.wait(statusMem, st.Bucket)
			m.mem.RequestCounted(c.id, st.Thread, addr, write, st.PC, st.Time+m.spec.HitCycles, !st.Counted)
			st.Counted = true
			return -1
		}
		st.Lat = m.spec.HitCycles
	} else {
		st.Lat = 0
	}
	st.Hit = hit
	if len(m.checks) != 0 && !c.checkPhase(frame, addr, write, hit) {
		return -1
	}
	if hit {
		m.mem.Commit(c.id, frame, write, !st.Counted)
	}
	st.Counted = true
	return frame
}

// access performs a load, store or RMW (cas, xchg, fadd) on frame f at a,
// whose line the core holds with the permission asked for: the value, the
// counters and the event. Its callers call performed next: a call there,
// not here, is one that profile-guided inlining sees as hot in the direct
// path.
func (c *Core) access(in *isa.Instruction, f int, a uint64, write bool) {
	st := &c.st
	r := &st.Regs
	mem := c.m.mem
	old := mem.ReadWord(f, a)
	switch in.Op {
	case isa.OpLd:
		r[in.Rd&regMask] = old
		c.count(StatLoads)
		c.emitAccessFlags(core.KindRead, a, old, 0, 0, 0)
	case isa.OpSt:
		v := r[in.Rs&regMask]
		mem.WriteWord(f, a, v)
		c.count(StatStores)
		c.emitAccessFlags(core.KindWrite, a, v, 0, 0, 0)
	default:
		v, stored := rmwValue(in, r, old)
		if stored {
			mem.WriteWord(f, a, v)
		} else {
			st.NoStore = true
		}
		r[in.Rd&regMask] = old
		c.count(StatRMWs)
		c.emitAccessFlags(core.KindRMW, a, v, uint64(old), b2u(stored), 0)
	}
	r[0] = 0
}

// performed finishes an access performed on frame: the extension hook, the
// schedule-control watchers, and the hit latency.
func (c *Core) performed(frame int, a uint64, write bool) {
	m := c.m
	c.st.Counted = false
	if len(m.performs) != 0 {
		c.performHooks(frame, a, write)
	}
	c.st.NoStore = false
	c.st.TimedOut = false // a timeout releases one access, not the instruction's later phases
	if m.st.waiting != 0 {
		m.notifyAccess(c, a, write)
	}
	c.st.Time += c.st.Lat
	if c.st.Charge != 0 {
		c.st.Time += c.st.Charge
		c.st.Charge = 0
	}
}

// retired does the bookkeeping of a core's retired instruction (its own,
// or a waiter's that a barrier's last arrival releases).
func (c *Core) retired() {
	c.st.Issued = false
	c.st.Phase = 0
	c.st.TimedOut = false
	c.st.Instrs++
}

// retire retires the current instruction and reports whether the core
// goes on: the schedule-control predicates are checked again, and the
// core stops when the run ended or a safe point was requested.
func (c *Core) retire() bool {
	c.retired()
	m := c.m
	if m.st.waiting == 0 && m.pending == 0 && !m.st.ended {
		return true
	}
	if m.st.waiting > 0 && !m.st.ended {
		m.recheckPredicates(c.st.Time)
	}
	return !m.st.ended && !c.safePoint()
}

// step performs one phase of in. done says the instruction finished; ok
// says the core may continue (false when it blocked or the run ended).
func (c *Core) step(in *isa.Instruction, frame int) (done, ok bool) {
	m := c.m
	st := &c.st
	r := &st.Regs
	switch in.Op {
	case isa.OpLd, isa.OpSt, isa.OpCas, isa.OpXchg, isa.OpFadd:
		a, good := c.addr(in.Base, in.Off)
		if !good {
			return false, false
		}
		write := in.Op != isa.OpLd
		st.Bucket = MemStall
		f := c.line(a, write, frame)
		if f < 0 {
			return false, false
		}
		c.access(in, f, a, write)
		c.performed(f, a, write)
		st.PC++
		return true, true
	case isa.OpLock:
		return c.lockStep(in.Base, in.Off, frame, 0)
	case isa.OpUnlock:
		return c.unlockStep(in.Base, in.Off, frame)
	case isa.OpBarrier:
		return c.barrierStep(in, frame)
	case isa.OpCwait:
		return c.cwaitStep(in, frame)
	case isa.OpCsignal, isa.OpCbcast:
		return c.signalStep(in, frame)
	case isa.OpSpawn:
		return c.spawn(in)
	case isa.OpJoin:
		return c.join(in)
	case isa.OpExit:
		c.exit()
		return false, false
	case isa.OpAlloc:
		n := in.Imm
		if !in.UseImm {
			n = r[in.Rs&regMask]
		}
		if n < 0 || uint64(n) > (m.heapEnd-m.st.heapNext)/isa.WordBytes {
			m.crash(core.Crash, c, fmt.Sprintf("alloc of %d words: heap exhausted or negative size", n), st.Time)
			return false, false
		}
		r[in.Rd&regMask] = int64(m.st.heapNext)
		r[0] = 0
		m.st.heapNext += uint64(n) * isa.WordBytes
		m.mem.GrowMemory(int(m.wordIndex(m.st.heapNext)))
		return c.aluDone()
	case isa.OpFree:
		return c.free(in)
	case isa.OpAssert:
		if r[in.Rs&regMask] == 0 {
			m.crash(core.Assert, c, m.message(in), st.Time)
			return false, false
		}
		return c.aluDone()
	case isa.OpFail:
		if m.events.Watching(core.KindErrorMsg) {
			c.emit(core.KindErrorMsg, 0, 0)
		}
		m.setOutcome(core.Error, st.PC, st.Thread, m.message(in), st.Time)
		return c.aluDone()
	case isa.OpOut:
		m.st.outputs = append(m.st.outputs, r[in.Rs&regMask])
		if m.events.Watching(core.KindOutput) {
			c.emit(core.KindOutput, 0, r[in.Rs&regMask])
		}
		if m.ckptOnOutput {
			m.pending |= wantCheckpoint
		}
		return c.aluDone()
	case isa.OpRoiBegin:
		if m.st.roiState == roiNone {
			m.openROI(st.Time)
		}
		return c.aluDone()
	case isa.OpRoiEnd:
		if m.st.roiState == roiOpen {
			m.closeROI(st.Time)
		}
		return c.aluDone()
	}
	if uint32(st.PC) >= uint32(len(m.prog.Instrs)) {
		m.crash(core.Crash, c, fmt.Sprintf("pc %d is outside the program", st.PC), st.Time)
		return false, false
	}
	m.st.internal = fmt.Errorf("cpu: opcode %s at pc %d has no global semantics", in.Op, st.PC)
	m.endRun(st.Time)
	return false, false
}

func b2u(b bool) uint64 { return uint64(b2i(b)) }

// aluDone ends a step that costs ALU cycles and touches no line: the
// PC moves on and the instruction is done.
func (c *Core) aluDone() (done, ok bool) {
	c.st.Time += c.m.spec.ALUCycles
	c.st.PC++
	return true, true
}

// count counts one memory operation of kind s on the core.
func (c *Core) count(s Stat) {
	c.st.Stats[s]++
	c.st.Stats[StatMemOps]++
}

func (m *Machine) message(in *isa.Instruction) string {
	if in.Msg >= 0 && int(in.Msg) < len(m.prog.Strings) {
		return m.prog.Strings[in.Msg]
	}
	return ""
}

// readStats fills dst with the core's counters (its "core[i]" group):
// instructions are those of every thread that ran on it.
func (c *Core) readStats(dst []uint64) {
	copy(dst, c.st.Stats[:])
	n := c.st.PastInstrs
	if t := c.st.Thread; t >= 0 && !c.m.st.threads[t].Exited {
		n += c.st.Instrs
	}
	dst[StatInstructions] = n
}

// emitAccessFlags emits a Read, Write or RMW event for the current
// instruction, with event flags (FlagSync for sync words). It inlines to the observer-mask test; the event is built only when
// watched.
func (c *Core) emitAccessFlags(k core.Kind, addr uint64, v int64, w0, w1 uint64, flags uint8) {
	if c.m.events.Watching(k) {
		c.emitAccessEvent(k, addr, v, w0, w1, flags)
	}
}

// emitAccessEvent builds and emits a watched access event.
func (c *Core) emitAccessEvent(k core.Kind, addr uint64, v int64, w0, w1 uint64, flags uint8) {
	m := c.m
	if c.st.Hit {
		flags |= core.FlagHit
	}
	m.ev = core.Event{Kind: k, Flags: flags, Cycle: c.st.Time, Core: int32(c.id), Thread: c.st.Thread, PC: c.st.PC, Addr: addr, Value: v}
	m.ev.Words[0], m.ev.Words[1] = w0, w1
	m.events.Emit(&m.ev)
}

// emit emits a program event of kind k for the current instruction.
func (c *Core) emit(k core.Kind, addr uint64, v int64, words ...uint64) {
	m := c.m
	m.ev = core.Event{Kind: k, Cycle: c.st.Time, Core: int32(c.id), Thread: c.st.Thread, PC: c.st.PC, Addr: addr, Value: v}
	copy(m.ev.Words[:], words)
	m.events.Emit(&m.ev)
}

func (c *Core) free(in *isa.Instruction) (bool, bool) {
	m := c.m
	st := &c.st
	a := uint64(st.Regs[in.Base] + in.Off)
	n := in.Imm
	if n < 0 {
		m.crash(core.Crash, c, fmt.Sprintf("free of %d words", n), st.Time)
		return false, false
	}
	for i := int64(0); i < n; i++ {
		w := a + uint64(i)*isa.WordBytes
		if m.st.anyFreed && w&7 == 0 && w >= isa.DataBase && m.isFreed(w) {
			m.crashAt(core.Crash, c, fmt.Sprintf("double free of word %#x", w), st.Time, w)
			return false, false
		}
		if msg := m.badAddr(w); msg != "" {
			m.crashAt(core.Crash, c, "free: "+msg, st.Time, w)
			return false, false
		}
	}
	for i := int64(0); i < n; i++ {
		idx := m.wordIndex(a + uint64(i)*isa.WordBytes)
		for uint64(len(m.st.freed)) <= idx/64 {
			m.st.freed = append(m.st.freed, 0)
		}
		m.st.freed[idx/64] |= 1 << (idx % 64)
	}
	if n > 0 {
		m.st.anyFreed = true
	}
	if m.events.Watching(core.KindFree) {
		c.emit(core.KindFree, a, n)
	}
	return c.aluDone()
}

var _ coherence.Client = (*Core)(nil)
