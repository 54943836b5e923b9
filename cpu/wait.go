package cpu

import (
	"fmt"

	"weft/core"
)

// Schedule control (DESIGN.md §5): one wait type, core.Wait, serves park
// rules (a thread held before a PC) and check-phase stalls (an access held
// in its check phase) alike. A core in either wait is released when its
// condition holds or its timeout passes; an access by another thread,
// a line leaving a cache, a globally visible instruction (for predicates)
// and the core's own timer are what can release it.

const (
	parkArmed uint8 = iota
	parkParked
	parkReleased
)

type parkRule struct {
	core.ParkRule
	state  uint8
	passed uint32 // arrivals passed so far (ParkRule.Skip)
	result core.ParkResult
}

// Park adds a schedule-control rule. Add rules before Start. A rule added
// while the run is paused (between RunUntil calls) fires only if its thread
// has not yet reached PC: a core may already have run register-only
// instructions ahead of the engine's clock, and a PC it passed that way is
// not revisited.
func (m *Machine) Park(r core.ParkRule) (int, error) {
	if r.PC < 0 || int(r.PC) >= len(m.prog.Instrs) {
		return 0, fmt.Errorf("park: pc %d is outside the program", r.PC)
	}
	if err := r.Wait.Check(); err != nil {
		return 0, fmt.Errorf("park thread %d at pc %d: %w", r.Thread, r.PC, err)
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
func (m *Machine) ParkResult(i int) core.ParkResult { return m.st.parks[i].result }

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

// curWait returns the wait a parked or stalled core is in.
func (c *Core) curWait() *core.Wait {
	if c.st.Status == statusParked {
		return &c.m.st.parks[c.st.ParkRule].Wait
	}
	return &c.m.st.stallWaits[c.id]
}

// beginWait puts the core into wait w in status s (parked or stalled). It
// reports whether the condition holds at once (the core is then released
// and may go on).
func (c *Core) beginWait(w *core.Wait, s status, b Bucket) bool {
	m := c.m
	st := &c.st
	m.st.waiting++
	c.wait(s, b)
	if m.holdsNow(w, st.Time) {
		c.endCondWait(st.Time, false)
		return true
	}
	wake := core.Cycle(0)
	if w.Until == core.UntilCycle {
		wake = w.Cycle
	}
	if w.Timeout > 0 && (wake == 0 || st.Time+w.Timeout < wake) {
		wake = st.Time + w.Timeout
	}
	if wake > 0 {
		c.scheduleTimer(wake)
	}
	return false
}

// holdsNow reports whether w holds at cycle now without an access (cycle
// reached, predicate true).
func (m *Machine) holdsNow(w *core.Wait, now core.Cycle) bool {
	switch w.Until {
	case core.UntilCycle:
		return now >= w.Cycle
	case core.UntilPredicate:
		return w.Pred(m)
	}
	return false
}

// endCondWait ends the core's park or stall at cycle now; timedOut says its
// timeout, not its condition, ended it. The core is not rescheduled.
func (c *Core) endCondWait(now core.Cycle, timedOut bool) {
	m := c.m
	parked := c.st.Status == statusParked
	m.st.waiting--
	c.cancelTimer()
	c.st.Gen++
	c.endWait(now)
	if parked {
		p := &m.st.parks[c.st.ParkRule]
		p.state = parkReleased
		p.result.Released = true
		p.result.TimedOut = timedOut
		p.result.ReleasedAt = now
		m.armPark(c)
		return
	}
	c.st.TimedOut = timedOut
	if m.events.Watching(core.KindStallEnd) {
		c.emit(core.KindStallEnd, c.st.WaitAddr, 0, b2u(timedOut))
	}
}

// release ends the core's wait at cycle now and resumes it: a parked thread
// goes on at its PC, a stalled access is checked again.
func (c *Core) release(now core.Cycle, fromTimer bool) {
	w := c.curWait()
	timedOut := fromTimer && !(w.Until == core.UntilCycle && now >= w.Cycle)
	c.endCondWait(now, timedOut)
	c.schedule(now)
}

// park parks the core's thread at its current PC under the armed rule. It
// reports whether the thread may go on at once.
func (c *Core) park() bool {
	m := c.m
	st := &c.st
	p := &m.st.parks[st.ParkRule]
	if p.passed < p.Skip || (p.Skip > 0 && p.passed == p.Skip && st.Issued) {
		// An arrival to pass. An issued instruction re-entering the loop
		// at PC (a memory access waiting for its turn) is the same
		// arrival, so it is counted once, when not yet issued.
		if !st.Issued {
			p.passed++
		}
		return true
	}
	if !c.atGlobal(st.Time) {
		c.schedule(st.Time)
		return false
	}
	p.state = parkParked
	p.result.Parked = true
	p.result.ParkedAt = st.Time
	return c.beginWait(&p.Wait, statusParked, Idle)
}

// stall holds the core's access to addr in its check phase until w ends.
func (c *Core) stall(addr uint64, w core.Wait) {
	m := c.m
	c.st.WaitAddr = addr
	if m.events.Watching(core.KindStallBegin) {
		c.emit(core.KindStallBegin, addr, 0, uint64(w.Until), w.Addr, uint64(w.Timeout))
	}
	m.st.stallWaits[c.id] = w
	if c.beginWait(&m.st.stallWaits[c.id], statusStalled, MemStall) {
		c.schedule(c.st.Time)
	}
}

// notifyAccess releases the waits that an access by core c to a ends.
func (m *Machine) notifyAccess(c *Core, a uint64, write bool) {
	now := c.st.Time
	line := m.mem.LineOf(a)
	for _, o := range m.cores {
		if (o.st.Status != statusParked && o.st.Status != statusStalled) || o == c {
			continue
		}
		w := o.curWait()
		var hit bool
		switch w.Until {
		case core.UntilAccess:
			hit = w.Addr == a
		case core.UntilWrite:
			hit = w.Addr == a && write
		case core.UntilLineAccess:
			hit = m.mem.LineOf(w.Addr) == line
		case core.UntilPredicate:
			hit = w.Pred(m)
		}
		if hit && o.st.Thread != c.st.Thread {
			o.release(now, false)
		}
	}
}

// recheckPredicates releases waits whose predicate now holds; called after
// globally visible instructions other than memory accesses.
func (m *Machine) recheckPredicates(now core.Cycle) {
	for _, o := range m.cores {
		if (o.st.Status == statusParked || o.st.Status == statusStalled) && o.curWait().Until == core.UntilPredicate && o.curWait().Pred(m) {
			o.release(now, false)
		}
	}
}

// lineLost releases waits until the line leaves a cache.
func (m *Machine) lineLost(now core.Cycle, line uint64) {
	for _, o := range m.cores {
		if o.st.Status != statusParked && o.st.Status != statusStalled {
			continue
		}
		if w := o.curWait(); w.Until == core.UntilInvalidate && m.mem.LineOf(w.Addr) == line {
			o.release(now, false)
		}
	}
}

// Word returns the coherent value of a data or heap word (core.View).
func (m *Machine) Word(addr uint64) (int64, bool) {
	if m.badAddr(addr) != "" {
		return 0, false
	}
	return m.mem.CoherentWord(addr), true
}

// ThreadPC returns the PC of a live thread (core.View).
func (m *Machine) ThreadPC(tid int32) (int32, bool) {
	if tid < 0 || int(tid) >= len(m.st.threads) || m.st.threads[tid].Exited {
		return 0, false
	}
	for _, c := range m.cores {
		if c.st.Thread == tid {
			return c.st.PC, true
		}
	}
	return 0, false
}

// Exited reports whether thread tid has exited (core.View).
func (m *Machine) Exited(tid int32) bool {
	return tid >= 0 && int(tid) < len(m.st.threads) && m.st.threads[tid].Exited
}

var _ core.View = (*Machine)(nil)
