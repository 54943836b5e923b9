package cpu

import (
	"fmt"

	"weft/core"
)

// Until is the condition a parked thread waits for.
type Until uint8

// The park conditions.
const (
	// UntilAccess releases the thread after another thread accesses Addr.
	// Only accesses performed while the thread is parked count: one that
	// happens before the thread reaches PC does not release it.
	UntilAccess Until = iota
	// UntilWrite releases the thread after another thread writes Addr.
	UntilWrite
	// UntilInvalidate releases the thread when the line holding Addr leaves
	// some cache (invalidated or evicted).
	UntilInvalidate
	// UntilCycle releases the thread at cycle Cycle.
	UntilCycle
	// UntilPredicate releases the thread once Pred holds; Pred is checked
	// when the thread parks, after every memory access, and after every
	// other globally visible instruction (sync, spawn, join, exit, out, …).
	UntilPredicate
)

// ParkRule parks a thread just before it executes PC until a condition
// holds or Timeout cycles pass. Rules of one thread fire in the order they
// were added, each once.
type ParkRule struct {
	// Thread is the thread to park.
	Thread int32
	// PC is the instruction the thread parks before.
	PC int32
	// Until is the condition that releases it.
	Until Until
	// Addr is the byte address UntilAccess, UntilWrite and UntilInvalidate
	// watch.
	Addr uint64
	// Cycle is the release cycle for UntilCycle.
	Cycle core.Cycle
	// Pred is the condition for UntilPredicate.
	Pred func(m *Machine) bool
	// Timeout releases the thread this many cycles after it parked; 0 waits
	// for the condition alone.
	Timeout core.Cycle
}

// ParkResult reports what became of a park rule.
type ParkResult struct {
	// Parked reports whether the thread reached PC and parked.
	Parked bool
	// Released reports whether it has been released.
	Released bool
	// TimedOut reports whether the rule's Timeout released it, not its
	// condition.
	TimedOut bool
	// ParkedAt is the cycle it parked.
	ParkedAt core.Cycle
	// ReleasedAt is the cycle it was released.
	ReleasedAt core.Cycle
}

const (
	parkArmed uint8 = iota
	parkParked
	parkReleased
)

type parkRule struct {
	ParkRule
	state  uint8
	result ParkResult
}

// Park adds a schedule-control rule. Add rules before Start. A rule added
// while the run is paused (between RunUntil calls) fires only if its thread
// has not yet reached PC: a core may already have run register-only
// instructions ahead of the engine's clock, and a PC it passed that way is
// not revisited.
func (m *Machine) Park(r ParkRule) (int, error) {
	if r.PC < 0 || int(r.PC) >= len(m.prog.Instrs) {
		return 0, fmt.Errorf("park: pc %d is outside the program", r.PC)
	}
	if r.Until == UntilPredicate && r.Pred == nil {
		return 0, fmt.Errorf("park: UntilPredicate needs a predicate")
	}
	m.st.parks = append(m.st.parks, parkRule{ParkRule: r})
	for _, c := range m.cores {
		if c.st.Thread == r.Thread && c.st.Status != statusDone && c.st.Status != statusParked {
			m.armPark(c)
		}
	}
	return len(m.st.parks) - 1, nil
}

// ParkResult returns the state of rule i.
func (m *Machine) ParkResult(i int) ParkResult { return m.st.parks[i].result }

// armPark points the core at the next armed rule of its thread.
func (m *Machine) armPark(c *Core) {
	c.st.ParkPC = -1
	for i := range m.st.parks {
		p := &m.st.parks[i]
		if p.state == parkArmed && p.Thread == c.st.Thread {
			c.st.ParkPC = p.PC
			c.st.ParkRule = int32(i)
			return
		}
	}
}

// park parks the core's thread at its current PC under the armed rule. It
// reports whether the thread may go on at once.
func (c *Core) park() bool {
	m := c.m
	st := &c.st
	if !c.atGlobal(st.Time) {
		c.schedule(st.Time)
		return false
	}
	p := &m.st.parks[st.ParkRule]
	p.state = parkParked
	p.result.Parked = true
	p.result.ParkedAt = st.Time
	m.st.parksLive++
	c.wait(statusParked, Idle)
	if m.parkHolds(p, st.Time) {
		c.unpark(p, st.Time, false)
		return true
	}
	wake := core.Cycle(0)
	if p.Until == UntilCycle {
		wake = p.Cycle
	}
	if p.Timeout > 0 && (wake == 0 || st.Time+p.Timeout < wake) {
		wake = st.Time + p.Timeout
	}
	if wake > 0 {
		c.scheduleTimer(wake)
	}
	return false
}

// parkHolds reports whether a parked rule's condition holds at cycle now
// without an access (cycle reached, predicate true).
func (m *Machine) parkHolds(p *parkRule, now core.Cycle) bool {
	switch p.Until {
	case UntilCycle:
		return now >= p.Cycle
	case UntilPredicate:
		return p.Pred(m)
	}
	return false
}

func (c *Core) unpark(p *parkRule, now core.Cycle, timedOut bool) {
	m := c.m
	p.state = parkReleased
	p.result.Released = true
	p.result.TimedOut = timedOut
	p.result.ReleasedAt = now
	m.st.parksLive--
	c.cancelTimer()
	c.st.Gen++
	c.endWait(now)
	m.armPark(c)
}

// releasePark wakes a parked core at cycle now.
func (c *Core) releasePark(now core.Cycle, fromTimer bool) {
	p := &c.m.st.parks[c.st.ParkRule]
	timedOut := fromTimer && !(p.Until == UntilCycle && now >= p.Cycle)
	c.unpark(p, now, timedOut)
	c.schedule(now)
}

// notifyAccess releases parked threads and stalled accesses waiting for an
// access by c to a.
func (m *Machine) notifyAccess(c *Core, a uint64, write bool) {
	now := c.st.Time
	if m.st.parksLive > 0 {
		for _, o := range m.cores {
			if o.st.Status != statusParked {
				continue
			}
			p := &m.st.parks[o.st.ParkRule]
			switch p.Until {
			case UntilAccess, UntilWrite:
				if p.Addr == a && o.st.Thread != c.st.Thread && (write || p.Until == UntilAccess) {
					o.releasePark(now, false)
				}
			case UntilPredicate:
				if p.Pred(m) {
					o.releasePark(now, false)
				}
			}
		}
	}
	if m.st.stalled > 0 {
		line := m.mem.LineOf(a)
		for _, o := range m.cores {
			if o != c && o.st.Status == statusStalled && o.st.WaitLine == line {
				o.resumeStall(now, false)
			}
		}
	}
}

// recheckPredicates releases threads whose predicate now holds; called
// after globally visible instructions other than memory accesses.
func (m *Machine) recheckPredicates(now core.Cycle) {
	for _, o := range m.cores {
		if o.st.Status == statusParked && m.st.parks[o.st.ParkRule].Until == UntilPredicate && m.st.parks[o.st.ParkRule].Pred(m) {
			o.releasePark(now, false)
		}
	}
}

// lineLost releases threads parked until the line leaves a cache.
func (m *Machine) lineLost(now core.Cycle, line uint64) {
	for _, o := range m.cores {
		if o.st.Status != statusParked {
			continue
		}
		p := &m.st.parks[o.st.ParkRule]
		if p.Until == UntilInvalidate && m.mem.LineOf(p.Addr) == line {
			o.releasePark(now, false)
		}
	}
}

// CheckCtx describes a memory access in its check phase.
type CheckCtx struct {
	// Core is the accessing core.
	Core int
	// Thread is the accessing thread.
	Thread int32
	// PC is the PC of the accessing instruction.
	PC int32
	// Addr is the accessed byte address.
	Addr uint64
	// Write reports whether the access writes.
	Write bool
	// Cycle is the core's time at the check.
	Cycle core.Cycle
	// TimedOut is set when the access is retried after a stall timed out.
	TimedOut bool
}

// Verdict is a check's decision.
type Verdict struct {
	// Stall parks the access until another thread touches its line or
	// Timeout cycles pass (0: no timeout); it is then checked again.
	Stall bool
	// Timeout is the stall's limit in cycles (0: none).
	Timeout core.Cycle
}

// CheckFunc decides, in the check phase of a memory operation, whether the
// access proceeds or stalls.
type CheckFunc func(ctx CheckCtx) Verdict

// SetCheck installs the check-phase hook (nil removes it).
func (m *Machine) SetCheck(f CheckFunc) { m.check = f }

// checkPhase runs the check hook; it reports whether the access proceeds.
func (c *Core) checkPhase(addr uint64, write bool) bool {
	m := c.m
	st := &c.st
	v := m.check(CheckCtx{Core: c.id, Thread: st.Thread, PC: st.PC, Addr: addr, Write: write, Cycle: st.Time, TimedOut: st.TimedOut})
	if !v.Stall {
		return true
	}
	if m.events.Watching(core.KindStallBegin) {
		c.emit(core.KindStallBegin, addr, 0)
	}
	c.wait(statusStalled, MemStall)
	st.WaitLine = m.mem.LineOf(addr)
	m.st.stalled++
	if v.Timeout > 0 {
		c.scheduleTimer(st.Time + v.Timeout)
	}
	return false
}

// resumeStall retries a stalled access at cycle now.
func (c *Core) resumeStall(now core.Cycle, timedOut bool) {
	m := c.m
	m.st.stalled--
	c.cancelTimer()
	c.st.Gen++
	c.endWait(now)
	c.st.TimedOut = timedOut
	if m.events.Watching(core.KindStallEnd) {
		c.emit(core.KindStallEnd, 0, 0, b2u(timedOut))
	}
	c.schedule(now)
}

// Snapshot is a copy of a whole machine's state: registers, memory, caches
// and line metadata, the event queue, RNG states, wait queues and park
// rules. Observers and hooks are not part of it.
type Snapshot struct {
	eng   core.EngineState
	mem   coherenceState
	cores []coreState
	st    machineState
}

// Snapshot copies the machine's state.
func (m *Machine) Snapshot() *Snapshot {
	s := &Snapshot{}
	m.eng.Save(&s.eng)
	m.mem.Save(&s.mem)
	s.cores = make([]coreState, len(m.cores))
	for i, c := range m.cores {
		s.cores[i] = c.st
	}
	copyMachineState(&s.st, &m.st)
	return s
}

// Restore returns the machine to a snapshot taken from it.
func (m *Machine) Restore(s *Snapshot) {
	m.eng.Load(&s.eng)
	m.mem.Load(&s.mem)
	for i, c := range m.cores {
		c.st = s.cores[i]
	}
	copyMachineState(&m.st, &s.st)
}

func copyMachineState(dst, src *machineState) {
	threads := append(dst.threads[:0], src.threads...)
	outputs := append(dst.outputs[:0], src.outputs...)
	freed := append(dst.freed[:0], src.freed...)
	parks := append(dst.parks[:0], src.parks...)
	*dst = *src
	dst.threads, dst.outputs, dst.freed, dst.parks = threads, outputs, freed, parks
}
