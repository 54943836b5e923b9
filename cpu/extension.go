package cpu

import (
	"fmt"

	"weft/coherence"
	"weft/core"
	"weft/isa"
)

// Extension is a hardware extension of the machine (Bugaboo's context
// registers and communication table, PSet's checking unit, or a test's):
// it reserves fields in each line's metadata record, attaches callbacks to
// the phases of memory operations, and registers its state for checkpoints.
// Extensions live in their own packages; the core loop never names one.
type Extension interface {
	// Name names the extension in errors, statistics and checkpoints.
	Name() string
	// Meta is the metadata the extension reserves in each line's record
	// (no fields: none). Its Owner is set from Name.
	Meta() coherence.MetaRequest
	// Attach registers the extension's callbacks and state on the port.
	// It runs once, after the caches exist and before the run starts.
	Attach(p *Port) error
}

// Access is the context of one memory access in its check or perform
// phase, as an extension's callback sees it. It is reused between
// callbacks: copy what you keep.
type Access struct {
	// Core is the accessing core.
	Core int
	// Thread is the accessing thread.
	Thread int32
	// PC is the accessing instruction.
	PC int32
	// Addr is the accessed byte address.
	Addr uint64
	// Write reports whether the access writes (stores, RMWs, the swap of a
	// lock acquire, unlocks, barrier and condition-variable updates).
	Write bool
	// RMW reports an atomic read-modify-write (cas, xchg, fadd, a lock's
	// swap, barrier and condition-variable updates): Write is set too.
	RMW bool
	// Stored reports, in the perform phase, that the access wrote: false
	// for reads and for an RMW that did not store (a failed cas or lock
	// swap).
	Stored bool
	// Sync reports an access to a synchronisation word by a sync
	// instruction.
	Sync bool
	// Hit reports that the access was served by the L1 without the bus.
	Hit bool
	// TimedOut reports a retry after a stall that its timeout ended.
	TimedOut bool
	// Cycle is the core's time at the phase.
	Cycle core.Cycle
	// Meta is the extension's region of the line's metadata record (all
	// granules; Region.Granule picks the accessed word's).
	Meta []uint64
}

// VerdictKind is what a check decides for an access.
type VerdictKind uint8

// The check decisions, in increasing precedence when several extensions
// check one access.
const (
	// Proceed lets the access be performed.
	Proceed VerdictKind = iota
	// Stall holds the access until Verdict.Wait ends, then checks it again.
	Stall
	// Rollback asks the machine to roll back to its last checkpoint; the
	// access is not performed. Without a checkpoint the access proceeds.
	Rollback
)

// Verdict is a check callback's decision.
type Verdict struct {
	// Kind is the decision.
	Kind VerdictKind
	// Wait is the stall's condition and timeout (Stall only).
	Wait core.Wait
	// Delay charges the core this many cycles after a proceeding access:
	// a trap to a software handler, say.
	Delay core.Cycle
	// Reseed, for Rollback, perturbs every thread's jitter stream after
	// the rollback (0: the re-execution repeats the same draws).
	Reseed uint64
}

// StallOnLine returns a Stall verdict that waits until another thread
// accesses a's line, or timeout cycles (0: no timeout): PSet's re-check.
func StallOnLine(a *Access, timeout core.Cycle) Verdict {
	return Verdict{Kind: Stall, Wait: core.Wait{Until: core.UntilLineAccess, Addr: a.Addr, Timeout: timeout}}
}

// CheckFunc decides, in the check phase, whether an access proceeds. v
// arrives as Proceed with no delay; a check that decides otherwise sets it.
// (The verdict is written in place rather than returned: a returned struct
// of this size goes through memory and stalls the host on every access.)
type CheckFunc func(a *Access, v *Verdict)

// PerformFunc runs when an access is performed.
type PerformFunc func(a *Access)

type extHook struct {
	region *coherence.Region
	check  CheckFunc
	perf   PerformFunc
	owned  int // the check's owner field, or -1
	// own locates the owner field in a line's record (owned >= 0).
	own coherence.FieldLoc
}

// Port is what an extension attaches through.
type Port struct {
	m      *Machine
	name   string
	region int
}

// Name returns the extension's name.
func (p *Port) Name() string { return p.name }

// Region returns the extension's region of each line's record.
func (p *Port) Region() coherence.Region { return p.m.mem.Spec().Layout.Regions[p.region] }

// Cores returns the number of cores.
func (p *Port) Cores() int { return len(p.m.cores) }

// LineShift returns log2 of the cache line size.
func (p *Port) LineShift() uint { return p.m.mem.LineShift() }

// Machine returns the machine, for requesting checkpoints and rollbacks and
// reading its view.
func (p *Port) Machine() *Machine { return p.m }

// Events returns the machine's event stream, for the extension's events.
func (p *Port) Events() *core.Stream { return p.m.events }

// Protocol attaches callbacks to the protocol's phases (issue, snoop per
// responder, fill, evict); h.Region is set to the extension's.
func (p *Port) Protocol(h coherence.Hooks) error {
	h.Region = p.region
	if err := p.m.mem.Attach(h); err != nil {
		return fmt.Errorf("extension %s: %w", p.name, err)
	}
	return nil
}

// OnCheck attaches f to the check phase of every memory access.
func (p *Port) OnCheck(f CheckFunc) {
	p.m.checks = append(p.m.checks, extHook{region: p.regionPtr(), check: f, owned: -1})
}

// OnCheckOwned attaches f like OnCheck, but the core skips it, without
// building the access, when the accessed granule's field (an index into
// the region's fields, usually a Host field) holds the accessing thread's
// id + 1. The extension keeps that value there only where f would let the
// access proceed at no cost and without side effects, e.g. where every
// record of the granule is that thread's own.
func (p *Port) OnCheckOwned(f CheckFunc, field int) error {
	if r := p.Region(); field < 0 || field >= len(r.Fields) {
		return fmt.Errorf("extension %s: owner field %d out of its %d fields", p.name, field, len(r.Fields))
	}
	r := p.regionPtr()
	p.m.checks = append(p.m.checks, extHook{region: r, check: f, owned: field, own: r.Loc(field)})
	return nil
}

// OnPerform attaches f to the perform phase of every memory access.
func (p *Port) OnPerform(f PerformFunc) {
	p.m.performs = append(p.m.performs, extHook{region: p.regionPtr(), perf: f})
}

// OnEnd attaches f to the end of the run: it runs once, at the cycle the
// run ends, before the RunEnd event (a hardware table's final drain).
func (p *Port) OnEnd(f func(at core.Cycle)) { p.m.onEnd = append(p.m.onEnd, f) }

// OnThreadStart attaches f to every thread start: core c switches from
// thread from (-1 when it ran none) to the new thread to.
func (p *Port) OnThreadStart(f func(c int, from, to int32)) { p.m.onThread = append(p.m.onThread, f) }

// Charge charges core c cycles of work outside the program, such as a trap
// to a software handler: they are added to the core's current or next
// memory access, after it is performed, and count as busy cycles.
func (p *Port) Charge(c int, cycles core.Cycle) { p.m.cores[c].st.Charge += cycles }

// Stats registers the extension's counters as the statistics group
// ExtGroup(NAME), "ext.NAME"; read fills dst with their values and runs
// only when statistics are read (never on the hot path).
func (p *Port) Stats(counters []string, read func(dst []uint64)) error {
	return p.m.stats.Register(core.StatGroup{Name: ExtGroup(p.name), Counters: counters, Read: read})
}

// State registers the extension's state, which checkpoints copy.
func (p *Port) State(s Stateful) { p.m.RegisterState(p.name, s) }

func (p *Port) regionPtr() *coherence.Region { return &p.m.mem.Spec().Layout.Regions[p.region] }

// attachExtensions lays out the extensions' metadata (done in New before
// the caches exist) and attaches each.
func metaRequests(exts []Extension) ([]coherence.MetaRequest, error) {
	reqs := make([]coherence.MetaRequest, len(exts))
	seen := map[string]bool{}
	for i, x := range exts {
		name := x.Name()
		if name == "" {
			return nil, fmt.Errorf("extension %d has no name", i)
		}
		if seen[name] {
			return nil, fmt.Errorf("extension %s attached twice", name)
		}
		seen[name] = true
		reqs[i] = x.Meta()
		reqs[i].Owner = name
	}
	return reqs, nil
}

// checkPhase runs the extensions' checks on the core's access; it reports
// whether the access proceeds (false: stalled, or waiting for a rollback).
func (c *Core) checkPhase(frame int, addr uint64, write, hit bool) bool {
	m := c.m
	st := &c.st
	a := &m.acc
	rec := m.mem.Meta(frame)
	v := Verdict{}
	var delay core.Cycle
	got := &m.verdict
	filled := false
	for i := range m.checks {
		h := &m.checks[i]
		if h.owned >= 0 && m.mem.MetaWord(frame, h.own.Word(addr)) == uint64(st.Thread)+1 {
			continue
		}
		meta := h.region.Of(rec)
		if !filled {
			c.fillAccess(a, m.prog.Instrs[st.PC].Op, addr, write)
			a.Stored, a.Hit, a.TimedOut = false, hit, st.TimedOut
			filled = true
		}
		a.Meta = meta
		*got = Verdict{}
		h.check(a, got)
		delay += got.Delay
		if got.Kind > v.Kind {
			v = *got
		}
	}
	switch v.Kind {
	case Stall:
		if v.Wait.Until == core.UntilLineAccess && v.Wait.Addr == 0 {
			v.Wait.Addr = addr
		}
		if err := v.Wait.Check(); err != nil {
			m.st.internal = fmt.Errorf("cpu: an extension stalled pc %d (thread %d): %w", st.PC, st.Thread, err)
			m.endRun(st.Time)
			return false
		}
		if !m.holdsNow(&v.Wait, st.Time) {
			c.stall(addr, v.Wait)
			return false
		}
		// The stall's condition holds already: the access proceeds.
	case Rollback:
		if m.RequestRollback(v.Reseed) {
			c.wait(statusRollback, MemStall)
			return false
		}
	}
	st.Lat += delay
	return true
}

// performHooks runs the extensions' perform callbacks on the core's access.
func (c *Core) performHooks(frame int, addr uint64, write bool) {
	m := c.m
	st := &c.st
	a := &m.acc
	op := m.prog.Instrs[st.PC].Op
	c.fillAccess(a, op, addr, write)
	a.Stored, a.Hit, a.TimedOut = write && !st.NoStore, st.Hit, false
	rec := m.mem.Meta(frame)
	for i := range m.performs {
		h := &m.performs[i]
		a.Meta = h.region.Of(rec)
		h.perf(a)
	}
}

// fillAccess sets a's fields common to both phases. It assigns field by
// field: a composite literal is built on the stack and copied, which
// stalls the host's store forwarding on every access.
func (c *Core) fillAccess(a *Access, op isa.Op, addr uint64, write bool) {
	st := &c.st
	a.Core, a.Thread, a.PC, a.Addr, a.Cycle = c.id, st.Thread, st.PC, addr, st.Time
	a.Write, a.RMW, a.Sync = write, c.isRMW(op, write), op.IsSync()
}

// isRMW reports whether the current access of an op is an RMW: every
// writing access but a store, an unlock's release and the release of a
// cwait's lock (its phase 1).
func (c *Core) isRMW(op isa.Op, write bool) bool {
	switch {
	case !write, op == isa.OpSt, op == isa.OpUnlock:
		return false
	case op == isa.OpCwait:
		return c.st.Phase != 1
	}
	return true
}
