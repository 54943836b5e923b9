package cpu

import (
	"fmt"

	"weft/core"
	"weft/isa"
)

// lockStep runs one phase of a test-and-test-and-set acquire of the lock
// word at Regs[base]+off. Phase phase0 reads the word and sleeps while it is
// held (until the cached line is invalidated); phase phase0+1 swaps it.
func (c *Core) lockStep(base uint8, off int64, frame int, phase0 uint8) (done, ok bool) {
	m := c.m
	st := &c.st
	a, good := c.addr(base, off)
	if !good {
		return false, false
	}
	swap := st.Phase == phase0+1
	st.Bucket = LockWait
	f := c.line(a, swap, frame)
	if f < 0 {
		return false, false
	}
	v := m.mem.ReadWord(f, a)
	if !swap {
		c.lockTest(f, a, v)
		if v != 0 {
			c.st.Stats[StatLockSpins]++
			c.wait(statusLock, LockWait)
			st.WaitLine = m.mem.LineOf(a)
			return false, false
		}
		st.Phase = phase0 + 1
		return false, true
	}
	c.count(StatRMWs)
	if v != 0 {
		// Another thread took the lock between the test and the swap.
		c.emitAccessFlags(core.KindRMW, a, v, uint64(v), 0, core.FlagSync)
		c.st.NoStore = true
		c.performed(f, a, true)
		st.Phase = phase0
		return false, true
	}
	c.acquire(f, a, int64(st.Thread)+1)
	st.PC++
	return true, true
}

// lockTest performs the test of a lock acquire, which read v from the
// lock word at a in frame f.
func (c *Core) lockTest(f int, a uint64, v int64) {
	c.count(StatLoads)
	c.emitAccessFlags(core.KindRead, a, v, 0, 0, core.FlagSync)
	c.performed(f, a, false)
}

// acquire performs the swap of a lock acquire that finds the lock word at
// a in frame f free: it stores held (the thread's id + 1). The RMW is
// counted already.
func (c *Core) acquire(f int, a uint64, held int64) {
	m := c.m
	m.mem.WriteWord(f, a, held)
	c.emitAccessFlags(core.KindRMW, a, held, 0, 1, core.FlagSync)
	if m.events.Watching(core.KindAcquire) {
		c.emit(core.KindAcquire, a, 0)
	}
	c.st.Stats[StatLockAcquires]++
	c.performed(f, a, true)
}

// releaseWord stores 0 into a lock word the thread must hold, emitting the
// Write and Release events. It reports false (after crashing the run) when
// the thread does not hold the lock.
func (c *Core) releaseWord(f int, a uint64, what string) bool {
	m := c.m
	st := &c.st
	v := m.mem.ReadWord(f, a)
	if v != int64(st.Thread)+1 {
		m.crash(core.Crash, c, fmt.Sprintf("%s of lock %#x that thread %d does not hold (lock word is %d)", what, a, st.Thread, v), st.Time)
		return false
	}
	c.unlockWord(f, a)
	return true
}

// unlockWord performs the release of the lock word at a in frame f, which
// the thread holds: it stores 0, with the Write and Release events.
func (c *Core) unlockWord(f int, a uint64) {
	m := c.m
	m.mem.WriteWord(f, a, 0)
	c.count(StatStores)
	c.emitAccessFlags(core.KindWrite, a, 0, 0, 0, core.FlagSync)
	if m.events.Watching(core.KindRelease) {
		c.emit(core.KindRelease, a, 0)
	}
	c.performed(f, a, true)
}

func (c *Core) unlockStep(base uint8, off int64, frame int) (done, ok bool) {
	a, good := c.addr(base, off)
	if !good {
		return false, false
	}
	c.st.Bucket = MemStall
	f := c.line(a, true, frame)
	if f < 0 {
		return false, false
	}
	if !c.releaseWord(f, a, "unlock") {
		return false, false
	}
	c.st.PC++
	return true, true
}

// barrierStep arrives at a reusable barrier. The word holds the generation
// in its upper 32 bits and the arrival count in the lower 32.
func (c *Core) barrierStep(in *isa.Instruction, frame int) (done, ok bool) {
	m := c.m
	st := &c.st
	a, good := c.addr(in.Base, in.Off)
	if !good {
		return false, false
	}
	n := in.Imm
	if !in.UseImm {
		n = st.Regs[in.Rs]
	}
	st.Bucket = BarrierWait
	f := c.line(a, true, frame)
	if f < 0 {
		return false, false
	}
	v := m.mem.ReadWord(f, a)
	gen := uint64(v) >> 32
	count := int64(uint64(v)&0xffffffff) + 1
	c.count(StatRMWs)
	c.st.Stats[StatBarriers]++
	if m.events.Watching(core.KindBarrierArrive) {
		c.emit(core.KindBarrierArrive, a, count, gen, uint64(n))
	}
	if count < n {
		nv := int64(gen<<32 | uint64(count))
		m.mem.WriteWord(f, a, nv)
		c.emitAccessFlags(core.KindRMW, a, nv, uint64(v), 1, core.FlagSync)
		c.performed(f, a, true)
		c.wait(statusBarrier, BarrierWait)
		st.WaitAddr = a
		return false, false
	}
	nv := int64((gen + 1) << 32)
	m.mem.WriteWord(f, a, nv)
	c.emitAccessFlags(core.KindRMW, a, nv, uint64(v), 1, core.FlagSync)
	c.performed(f, a, true)
	now := st.Time
	for _, o := range m.cores {
		if o != c && o.st.Status == statusBarrier && o.st.WaitAddr == a {
			o.endWait(now)
			if m.events.Watching(core.KindBarrierLeave) {
				o.emit(core.KindBarrierLeave, a, 0, gen)
			}
			o.st.PC++
			o.retired()
			o.schedule(now)
		}
	}
	if m.events.Watching(core.KindBarrierLeave) {
		c.emit(core.KindBarrierLeave, a, 0, gen)
	}
	st.PC++
	return true, true
}

// cwaitStep runs a Mesa-style condition wait: register on the condition
// word, release the lock and sleep, then reacquire the lock when woken.
func (c *Core) cwaitStep(in *isa.Instruction, frame int) (done, ok bool) {
	m := c.m
	st := &c.st
	switch st.Phase {
	case 0:
		a, good := c.addr(in.Base, in.Off)
		if !good {
			return false, false
		}
		st.Bucket = CondWait
		f := c.line(a, true, frame)
		if f < 0 {
			return false, false
		}
		v := m.mem.ReadWord(f, a)
		m.mem.WriteWord(f, a, v+1)
		c.count(StatRMWs)
		c.emitAccessFlags(core.KindRMW, a, v+1, uint64(v), 1, core.FlagSync)
		c.performed(f, a, true)
		st.Phase = 1
		return false, true
	case 1:
		la, good := c.addr(in.Base2, in.Off2)
		if !good {
			return false, false
		}
		st.Bucket = CondWait
		f := c.line(la, true, frame)
		if f < 0 {
			return false, false
		}
		if !c.releaseWord(f, la, "cwait") {
			return false, false
		}
		cv := uint64(st.Regs[in.Base] + in.Off)
		c.st.Stats[StatCondWaits]++
		if m.events.Watching(core.KindCondWait) {
			c.emit(core.KindCondWait, cv, 0, la)
		}
		c.wait(statusCond, CondWait)
		st.WaitAddr = cv
		m.st.waitSeq++
		st.WaitSeq = m.st.waitSeq
		st.Phase = 2
		return false, false
	default:
		return c.lockStep(in.Base2, in.Off2, frame, 2)
	}
}

// signalStep wakes the longest-waiting thread on a condition variable
// (csignal) or every waiter (cbcast). A signal with no waiter is lost.
func (c *Core) signalStep(in *isa.Instruction, frame int) (done, ok bool) {
	m := c.m
	st := &c.st
	a, good := c.addr(in.Base, in.Off)
	if !good {
		return false, false
	}
	st.Bucket = MemStall
	f := c.line(a, true, frame)
	if f < 0 {
		return false, false
	}
	v := m.mem.ReadWord(f, a)
	bcast := in.Op == isa.OpCbcast
	woken := int64(0)
	first := ^uint64(0)
	now := st.Time
	for {
		var next *Core
		for _, o := range m.cores {
			if o.st.Status == statusCond && o.st.WaitAddr == a && (next == nil || o.st.WaitSeq < next.st.WaitSeq) {
				next = o
			}
		}
		if next == nil {
			break
		}
		if woken == 0 {
			first = uint64(next.st.Thread)
		}
		woken++
		next.endWait(now)
		m.woken = append(m.woken, next)
		next.schedule(now)
		if !bcast {
			break
		}
	}
	nv := v - woken
	if nv < 0 {
		nv = 0
	}
	m.mem.WriteWord(f, a, nv)
	c.count(StatRMWs)
	c.st.Stats[StatSignals]++
	c.emitAccessFlags(core.KindRMW, a, nv, uint64(v), 1, core.FlagSync)
	if m.events.Watching(core.KindCondSignal) {
		c.emit(core.KindCondSignal, a, woken, first, b2u(bcast))
	}
	// Each waiter's wake follows the signal that caused it (signal → wake),
	// in wake order.
	if m.events.Watching(core.KindCondWake) {
		for _, o := range m.woken {
			o.emit(core.KindCondWake, a, 0, uint64(st.Thread))
		}
	}
	m.woken = m.woken[:0]
	c.performed(f, a, true)
	st.PC++
	return true, true
}

func (c *Core) spawn(in *isa.Instruction) (done, ok bool) {
	m := c.m
	st := &c.st
	var free *Core
	for _, o := range m.cores {
		if o != c && (o.st.Status == statusIdle || o.st.Status == statusDone) {
			free = o
			break
		}
	}
	if free == nil {
		// Too many live threads for the machine is an outcome of this run
		// (a seed whose schedule spawns more threads than machine.cores
		// holds), not an error of the simulator: the run crashes at the
		// spawn, and a batch goes on with its other seeds.
		m.crash(core.Crash, c, fmt.Sprintf("spawn found no free core: all %d cores (machine.cores) are running threads; raise machine.cores",
			len(m.cores)), st.Time)
		return false, false
	}
	child := m.startThread(free, in.Target, st.Regs[in.Rs], st.Thread, st.Time+m.spec.ALUCycles)
	st.Regs[in.Rd] = int64(child)
	st.Regs[0] = 0
	c.st.Stats[StatSpawns]++
	if m.events.Watching(core.KindSpawn) {
		c.emit(core.KindSpawn, 0, int64(child), uint64(child), uint64(free.id))
	}
	return c.aluDone()
}

func (c *Core) join(in *isa.Instruction) (done, ok bool) {
	m := c.m
	st := &c.st
	tid := st.Regs[in.Rs]
	switch {
	case tid == int64(st.Thread):
		m.crash(core.Crash, c, fmt.Sprintf("thread %d joins itself (join waits for another thread to exit)", tid), st.Time)
		return false, false
	case tid < 0 || tid >= int64(len(m.st.threads)):
		m.crash(core.Crash, c, fmt.Sprintf("join of thread %d, which was never spawned (threads so far: 0..%d)", tid, len(m.st.threads)-1), st.Time)
		return false, false
	}
	if !m.st.threads[tid].Exited {
		c.wait(statusJoin, JoinWait)
		st.WaitTid = int32(tid)
		return false, false
	}
	if m.events.Watching(core.KindJoin) {
		c.emit(core.KindJoin, 0, tid, uint64(tid))
	}
	return c.aluDone()
}

func (c *Core) exit() {
	m := c.m
	st := &c.st
	if m.events.Watching(core.KindThreadExit) {
		c.emit(core.KindThreadExit, 0, 0)
	}
	st.Instrs++
	st.PastInstrs += st.Instrs
	th := &m.st.threads[st.Thread]
	th.Exited = true
	th.Instrs = st.Instrs
	th.End = st.Time
	st.Status = statusDone
	st.IdleSince = st.Time
	st.ParkPC = -1
	m.st.live--
	tid := st.Thread
	now := st.Time
	for _, o := range m.cores {
		if o.st.Status == statusJoin && o.st.WaitTid == tid {
			o.endWait(now)
			if m.events.Watching(core.KindJoin) {
				o.emit(core.KindJoin, 0, int64(tid), uint64(tid))
			}
			o.st.PC++
			o.retired()
			o.schedule(now)
		}
	}
	if m.st.live == 0 {
		m.endRun(now)
		return
	}
	if m.st.waiting > 0 {
		m.recheckPredicates(now)
	}
}
