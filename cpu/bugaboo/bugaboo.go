// Package bugaboo is BB-HW, the architectural support of Bugaboo (Lucia and
// Ceze, "Finding Concurrency Bugs with Context-Aware Communication Graphs",
// MICRO 2009), as a hardware extension of the machine:
//
//   - a context register per core: the last S communication events it saw,
//     2 bits each (core.ContextCode). A local read miss shifts in LcRd
//     (served cache to cache, or also by memory as an option), a local
//     write or upgrade miss LcWr, a snooped read that hits an owned line
//     (or any line, as an option) RmRd, a snooped invalidation that hits
//     RmWr. An instruction's context is taken when its miss is issued,
//     before its own event is shifted in (at the fill).
//   - writer metadata on every cache line: the writer's PC (kept modulo
//     2^pc_bits) and context, set by write and upgrade misses (or every
//     write), carried by read replies and invalidation acks, copied into
//     the requester's line on a read fill (or not), lost on eviction (or
//     kept, as an option of the memory system).
//   - a communication table per core (or one central table) of edges:
//     a read reply inserts RAW (the supplier's record → the missing load),
//     an invalidation ack WAW (the invalidated line's record → the missing
//     store; one per sharer, or one per transaction), a read miss served
//     by memory a NULL-source edge. When a table fills it traps: the
//     software handler drains it (a CTDrain event the graph detectors
//     read) and the trapping core is charged trap_cycles +
//     drain_cycles_per_entry × entries (nothing with a spare core). Inserts
//     into a table while its drain runs are dropped and counted (or make
//     the inserting core wait for the drain to end). The run's end drains
//     what is left, free.
//
// The choices the paper leaves open are Spec fields whose defaults (set
// by sim from the [bugaboo] config table) are the paper's reading.
package bugaboo

import (
	"fmt"

	"weft/coherence"
	"weft/core"
	"weft/cpu"
)

// Spec is BB-HW's configuration.
type Spec struct {
	// Code is the context encoding (size S and the empty code).
	Code core.ContextCode
	// LcRdOnMemoryMiss shifts LcRd on read misses served by memory too.
	LcRdOnMemoryMiss bool
	// RmRdAny shifts RmRd on snooped reads that hit an S line too (not only
	// the M or E owner that supplies it).
	RmRdAny bool
	// SaveOnSwitch saves a core's context register with the thread that
	// leaves the core and restores the arriving thread's (empty when new).
	SaveOnSwitch bool
	// PCBits is the writer-PC field's width (1 to 64).
	PCBits int
	// UpdateEveryWrite sets a line's record on every write, not only on
	// write and upgrade misses.
	UpdateEveryWrite bool
	// ReadFillNone leaves a read fill's record empty instead of copying the
	// supplier's.
	ReadFillNone bool
	// Central uses one communication table for all cores.
	Central bool
	// Entries is each table's capacity (≥ 1).
	Entries int
	// RecordMemoryMisses inserts NULL-source edges for memory-served reads.
	RecordMemoryMisses bool
	// DedupAcks inserts one WAW edge per transaction, not one per sharer.
	DedupAcks bool
	// WaitDuringTrap makes an insert into a draining table wait for the
	// drain to end instead of being dropped.
	WaitDuringTrap bool
	// TrapCycles is a trap's fixed cost in cycles.
	TrapCycles core.Cycle
	// DrainCyclesPerEntry is the handler's cost per drained entry.
	DrainCyclesPerEntry core.Cycle
	// SpareCore drains on a spare core: the trapping core is not charged.
	SpareCore bool
}

// Edge kinds (CTInsert and CTDrop Words[0]).
const (
	RAW = iota
	WAW
	MEM
)

// NullPC is the source PC of a NULL-source edge (a memory-served miss), as
// CTInsert and CTDrain events carry it.
const NullPC = ^uint64(0)

// The indices of the counters of the statistics group StatGroup.
const (
	statCtxShifts = iota
	statMetaWrites
	statInserts
	statRAW
	statWAW
	statMEM
	statDrops
	statWaits
	statTraps
	statDrained
	statTrapCycles
	numStats
)

// Name is BB-HW's extension name; its counters are the statistics group
// StatGroup.
const Name = "bugaboo"

// StatGroup is the name of BB-HW's statistics group, "ext.bugaboo".
const StatGroup = cpu.ExtGroupPrefix + Name

// The names of the counters of the statistics group StatGroup.
const (
	CounterCtxShifts  = "ctx_shifts"
	CounterMetaWrites = "meta_writes"
	CounterInserts    = "ct_inserts"
	CounterRAW        = "ct_raw"
	CounterWAW        = "ct_waw"
	CounterMEM        = "ct_mem"
	CounterDrops      = "ct_drops"
	CounterWaits      = "ct_waits"
	CounterTraps      = "traps"
	CounterDrained    = "drained"
	CounterTrapCycles = "trap_cycles"
)

var statNames = [numStats]string{CounterCtxShifts, CounterMetaWrites, CounterInserts, CounterRAW, CounterWAW,
	CounterMEM, CounterDrops, CounterWaits, CounterTraps, CounterDrained, CounterTrapCycles}

// entry is one communication-table edge.
type entry struct {
	srcPC, dstPC   uint64
	srcCtx, dstCtx core.Context
}

// state is everything a checkpoint copies.
type state struct {
	ctx     []core.Context // per core
	ct      [][]entry      // per table
	trapEnd []core.Cycle   // per table: the end of its current drain
	open    []bool         // per table: a drain whose TrapEnd is not yet emitted
	dropped []uint64       // per table: drops during the current drain
	drainer []int          // per table: the core charged for the current drain (-1: none)
	saved   []core.Context // per thread: its context when it left its core (SaveOnSwitch)
	stats   [numStats]uint64
}

// HW is BB-HW attached to one machine.
type HW struct {
	spec   Spec
	port   *cpu.Port
	events *core.Stream
	region coherence.Region
	pcMask uint64
	st     state
	ev     core.Event
	list   []uint64
}

// New returns BB-HW with the given spec.
func New(spec Spec) (*HW, error) {
	switch {
	case spec.Code.Size < 0 || spec.Code.Size > 8:
		return nil, fmt.Errorf("bugaboo: context size %d (want 0 to 8)", spec.Code.Size)
	case spec.PCBits < 1 || spec.PCBits > 64:
		return nil, fmt.Errorf("bugaboo: pc_bits %d (want 1 to 64)", spec.PCBits)
	case spec.Entries < 1:
		return nil, fmt.Errorf("bugaboo: %d table entries", spec.Entries)
	}
	h := &HW{spec: spec, pcMask: ^uint64(0)}
	if spec.PCBits < 64 {
		h.pcMask = 1<<uint(spec.PCBits) - 1
	}
	return h, nil
}

// Name returns Name, "bugaboo".
func (h *HW) Name() string { return Name }

// Meta reserves the writer PC and, with a context, the writer context of
// every line.
func (h *HW) Meta() coherence.MetaRequest {
	fs := []coherence.Field{{Name: "pc", Bits: h.spec.PCBits}}
	if b := int(h.spec.Code.Width()); b > 0 {
		fs = append(fs, coherence.Field{Name: "ctx", Bits: b})
	}
	return coherence.MetaRequest{Gran: coherence.PerLine, Fields: fs}
}

// Attach hooks the protocol's issue, snoop and fill phases, the perform
// phase (with UpdateEveryWrite) and the run's end.
func (h *HW) Attach(p *cpu.Port) error {
	h.port = p
	h.events = p.Events()
	h.region = p.Region()
	cores := p.Cores()
	tables := cores
	if h.spec.Central {
		tables = 1
	}
	h.st.ctx = make([]core.Context, cores)
	h.st.ct = make([][]entry, tables)
	for i := range h.st.ct {
		h.st.ct[i] = make([]entry, 0, min(h.spec.Entries, 1<<12))
	}
	h.st.trapEnd = make([]core.Cycle, tables)
	h.st.open = make([]bool, tables)
	h.st.dropped = make([]uint64, tables)
	h.st.drainer = make([]int, tables)
	h.list = make([]uint64, 0, 64)
	if err := p.Stats(statNames[:], func(dst []uint64) { copy(dst, h.st.stats[:]) }); err != nil {
		return err
	}
	p.State(h)
	if h.spec.UpdateEveryWrite {
		p.OnPerform(h.perform)
	}
	p.OnEnd(h.end)
	if h.spec.SaveOnSwitch {
		p.OnThreadStart(h.threadStart)
	}
	return p.Protocol(coherence.Hooks{OnIssue: h.issue, OnSnoop: h.snoop, OnFill: h.fill})
}

// record field indexes in a line's region.
const (
	fieldPC = iota
	fieldCtx
)

// pcField stores pc in a record: masked to pc_bits, plus 1 so that 0 means
// no writer.
func (h *HW) pcField(pc int32) uint64 { return uint64(pc)&h.pcMask + 1 }

// setRecord writes the writer's PC and context into a line's record.
func (h *HW) setRecord(meta []uint64, pc int32, ctx core.Context) {
	meta[fieldPC] = h.pcField(pc)
	if len(meta) > fieldCtx {
		meta[fieldCtx] = uint64(ctx)
	}
	h.st.stats[statMetaWrites]++
}

// Flags in a miss's scratch slot, above the 32-bit context: dedupFlag
// marks that its WAW edge is in, ackFlag that some sharer acked.
const (
	dedupFlag = 1 << 63
	ackFlag   = 1 << 62
)

// issue captures the requester's context with its miss (the MSHR).
func (h *HW) issue(tx *coherence.Txn, scratch *uint64) {
	*scratch = uint64(h.st.ctx[tx.Core])
}

// shift pushes e into core c's context register.
func (h *HW) shift(now core.Cycle, c int, thread int32, pc int32, e core.CommEvent) {
	before := h.st.ctx[c]
	after := h.spec.Code.Push(before, e)
	h.st.ctx[c] = after
	h.st.stats[statCtxShifts]++
	if h.events.Watching(core.KindCtxShift) {
		h.ev = core.Event{Kind: core.KindCtxShift, Cycle: now, Core: int32(c), Thread: thread, PC: pc}
		h.ev.Words = [4]uint64{uint64(e), uint64(before), uint64(after), 0}
		h.events.Emit(&h.ev)
	}
}

// snoop shifts the responder's RmRd or RmWr and inserts the RAW edge of a
// read reply or the WAW edge of an invalidation ack.
func (h *HW) snoop(tx *coherence.Txn, sn *coherence.Snoop, resp, req []uint64, scratch *uint64) {
	now := tx.Done
	switch sn.Event {
	case coherence.SnoopBusRd:
		if h.spec.RmRdAny || sn.Before == coherence.Modified || sn.Before == coherence.Exclusive {
			h.shift(now, sn.Responder, -1, tx.PC, core.RmRd)
		}
	default:
		h.shift(now, sn.Responder, -1, tx.PC, core.RmWr)
	}
	kind := -1
	switch {
	case tx.Kind == coherence.TxnBusRd && sn.Actions&coherence.ActSupply != 0:
		kind = RAW
	case tx.Kind != coherence.TxnBusRd && sn.Actions&coherence.ActInvalAck != 0:
		if h.spec.DedupAcks {
			// One edge per miss: the first ack that holds a record (the
			// last writer's); fill adds a NULL edge if none did.
			*scratch |= ackFlag
			if *scratch&dedupFlag != 0 || resp[fieldPC] == 0 {
				return
			}
			*scratch |= dedupFlag
		}
		kind = WAW
	}
	if kind < 0 {
		return
	}
	src := NullPC
	if resp[fieldPC] != 0 {
		src = resp[fieldPC] - 1
	}
	h.insert(now, tx, kind, src, h.recordCtx(resp), core.Context(*scratch))
}

// recordCtx returns the writer context a record holds (0 without one).
func (h *HW) recordCtx(meta []uint64) core.Context {
	if meta[fieldPC] == 0 || len(meta) <= fieldCtx {
		return 0
	}
	return core.Context(meta[fieldCtx])
}

// fill shifts the requester's own event, inserts a memory-served read's
// NULL edge, and writes the requester's record.
func (h *HW) fill(tx *coherence.Txn, meta []uint64, scratch *uint64) {
	now := tx.Done
	ctx := core.Context(*scratch)
	if tx.Kind == coherence.TxnBusRd {
		if tx.Supplier < 0 {
			// A record memory kept (memory_fill = memory or ideal) is the
			// last writer's: the read communicates with it.
			if meta[fieldPC] != 0 {
				h.insert(now, tx, RAW, meta[fieldPC]-1, h.recordCtx(meta), ctx)
			} else if h.spec.RecordMemoryMisses {
				h.insert(now, tx, MEM, NullPC, 0, ctx)
			}
		}
		if h.spec.ReadFillNone {
			clear(meta)
		}
		h.st.stats[statMetaWrites]++
		if tx.Supplier >= 0 || h.spec.LcRdOnMemoryMiss {
			h.shift(now, tx.Core, tx.Thread, tx.PC, core.LcRd)
		}
		return
	}
	switch {
	case *scratch&(ackFlag|dedupFlag) == ackFlag:
		h.insert(now, tx, WAW, NullPC, 0, ctx)
	case tx.Kind == coherence.TxnBusRdX && len(tx.Responders) == 0 && meta[fieldPC] != 0:
		// A record memory kept (memory_fill = memory or ideal): the write
		// overwrites its writer's value, as an ack would have said.
		h.insert(now, tx, WAW, meta[fieldPC]-1, h.recordCtx(meta), ctx)
	}
	h.setRecord(meta, tx.PC, ctx)
	h.shift(now, tx.Core, tx.Thread, tx.PC, core.LcWr)
}

// perform sets the record on every write (UpdateEveryWrite).
func (h *HW) perform(a *cpu.Access) {
	// A write miss set the record at its fill already.
	if a.Write && a.Hit {
		h.setRecord(a.Meta, a.PC, h.st.ctx[a.Core])
	}
}

// threadStart saves the leaving thread's context and gives the core the
// arriving thread's (SaveOnSwitch).
func (h *HW) threadStart(c int, from, to int32) {
	if from >= 0 {
		for int(from) >= len(h.st.saved) {
			h.st.saved = append(h.st.saved, 0)
		}
		h.st.saved[from] = h.st.ctx[c]
	}
	h.st.ctx[c] = 0
	if int(to) < len(h.st.saved) {
		h.st.ctx[c] = h.st.saved[to]
	}
}

// table returns the communication table core c inserts into.
func (h *HW) table(c int) int {
	if h.spec.Central {
		return 0
	}
	return c
}

// insert adds an edge to the requester's table at cycle now, dropping it
// (or making the requester wait) while the table drains, and traps when
// the table is full.
func (h *HW) insert(now core.Cycle, tx *coherence.Txn, kind int, src uint64, srcCtx, dstCtx core.Context) {
	t := h.table(tx.Core)
	h.closeTrap(t, now)
	if now < h.st.trapEnd[t] {
		if !h.spec.WaitDuringTrap {
			h.st.stats[statDrops]++
			h.st.dropped[t]++
			if h.events.Watching(core.KindCTDrop) {
				h.ev = core.Event{Kind: core.KindCTDrop, Cycle: now, Core: int32(tx.Core), Thread: tx.Thread, PC: tx.PC, Addr: tx.Line << h.port.LineShift()}
				h.ev.Words[0] = uint64(kind)
				h.events.Emit(&h.ev)
			}
			return
		}
		h.st.stats[statWaits]++
		// A core waiting for a drain it runs itself was charged it already.
		if h.st.drainer[t] != tx.Core {
			h.port.Charge(tx.Core, h.st.trapEnd[t]-now)
		}
		now = h.st.trapEnd[t] // the edge enters when the drain ends
		h.closeTrap(t, now)
	}
	e := entry{srcPC: src, srcCtx: srcCtx, dstPC: uint64(tx.PC) & h.pcMask, dstCtx: dstCtx}
	h.st.ct[t] = append(h.st.ct[t], e)
	h.st.stats[statInserts]++
	h.st.stats[statRAW+kind]++
	if h.events.Watching(core.KindCTInsert) {
		h.ev = core.Event{Kind: core.KindCTInsert, Cycle: now, Core: int32(tx.Core), Thread: tx.Thread, PC: tx.PC, Addr: tx.Line << h.port.LineShift()}
		h.ev.Words = [4]uint64{uint64(kind), e.srcPC, uint64(e.srcCtx), uint64(e.dstCtx)}
		h.events.Emit(&h.ev)
	}
	if len(h.st.ct[t]) >= h.spec.Entries {
		h.trap(now, tx.Core, tx.Thread, t)
	}
}

// trap drains table t into the run's graph at cycle now, charging core c
// (the one whose insert filled it) unless a spare core drains.
//
// An insert that waited for a drain (wait_during_trap with a central
// table) can fill the table again before that drain ends: the new drain
// starts when the old one ends, after its TrapEnd, so drains never
// overlap. The inserter has already been charged for that wait.
func (h *HW) trap(now core.Cycle, c int, thread int32, t int) {
	start := max(now, h.st.trapEnd[t])
	h.closeTrap(t, start)
	n := len(h.st.ct[t])
	cost := h.spec.TrapCycles + h.spec.DrainCyclesPerEntry*core.Cycle(n)
	h.st.stats[statTraps]++
	h.st.stats[statTrapCycles] += uint64(cost)
	if h.events.Watching(core.KindCTTrapBegin) {
		h.ev = core.Event{Kind: core.KindCTTrapBegin, Cycle: start, Core: int32(c), Thread: thread, PC: core.NoPC}
		h.ev.Words = [4]uint64{uint64(n), uint64(cost), uint64(t), 0}
		h.events.Emit(&h.ev)
	}
	h.drain(start, c, t, false)
	h.st.trapEnd[t] = start + cost
	h.st.open[t] = true
	h.st.dropped[t] = 0
	h.st.drainer[t] = -1
	if !h.spec.SpareCore {
		h.port.Charge(c, cost)
		h.st.drainer[t] = c
	}
}

// drain emits table t's edges as one CTDrain event and empties it.
func (h *HW) drain(now core.Cycle, c int, t int, final bool) {
	es := h.st.ct[t]
	h.st.stats[statDrained] += uint64(len(es))
	if h.events.Watching(core.KindCTDrain) {
		h.list = h.list[:0]
		for _, e := range es {
			h.list = append(h.list, e.srcPC, uint64(e.srcCtx), e.dstPC, uint64(e.dstCtx))
		}
		h.ev = core.Event{Kind: core.KindCTDrain, Cycle: now, Core: int32(c), Thread: -1, PC: core.NoPC, Value: int64(len(es)), List: h.list}
		h.ev.Words = [4]uint64{uint64(t), b2u(final), uint64(h.spec.Code.Size), b2u(h.spec.Code.DistinctEmpty)}
		h.events.Emit(&h.ev)
	}
	h.st.ct[t] = es[:0]
}

// closeTrap emits table t's TrapEnd once its drain is over at cycle now.
func (h *HW) closeTrap(t int, now core.Cycle) {
	if !h.st.open[t] || now < h.st.trapEnd[t] {
		return
	}
	h.st.open[t] = false
	if h.events.Watching(core.KindCTTrapEnd) {
		h.ev = core.Event{Kind: core.KindCTTrapEnd, Cycle: h.st.trapEnd[t], Core: -1, Thread: -1, PC: core.NoPC}
		h.ev.Words = [4]uint64{uint64(t), h.st.dropped[t], 0, 0}
		h.events.Emit(&h.ev)
	}
}

// end closes open drains and drains what the tables hold, free.
func (h *HW) end(at core.Cycle) {
	for t := range h.st.ct {
		h.closeTrap(t, max(at, h.st.trapEnd[t]))
		c := t
		if h.spec.Central {
			c = -1
		}
		h.drain(at, c, t, true)
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Save copies BB-HW's state for a checkpoint (cpu.Stateful). Events are
// not taken back: after a rollback, the edges a table held at the
// checkpoint and drained before the rollback are drained again, so an
// observer of CTDrain that must not count them twice drops, at the
// Rollback event, what it saw since the checkpoint. (No run rolls back
// with BB-HW on yet: only PSet's hardware asks for rollbacks.)
func (h *HW) Save(buf any) any {
	s, _ := buf.(*state)
	if s == nil {
		s = &state{}
	}
	s.ctx = append(s.ctx[:0], h.st.ctx...)
	for len(s.ct) < len(h.st.ct) {
		s.ct = append(s.ct, nil)
	}
	s.ct = s.ct[:len(h.st.ct)]
	for i := range h.st.ct {
		s.ct[i] = append(s.ct[i][:0], h.st.ct[i]...)
	}
	s.trapEnd = append(s.trapEnd[:0], h.st.trapEnd...)
	s.open = append(s.open[:0], h.st.open...)
	s.dropped = append(s.dropped[:0], h.st.dropped...)
	s.drainer = append(s.drainer[:0], h.st.drainer...)
	s.saved = append(s.saved[:0], h.st.saved...)
	s.stats = h.st.stats
	return s
}

// Load restores BB-HW's state from a checkpoint (cpu.Stateful).
func (h *HW) Load(buf any) {
	s := buf.(*state)
	h.st.ctx = append(h.st.ctx[:0], s.ctx...)
	for i := range h.st.ct {
		h.st.ct[i] = append(h.st.ct[i][:0], s.ct[i]...)
	}
	h.st.trapEnd = append(h.st.trapEnd[:0], s.trapEnd...)
	h.st.open = append(h.st.open[:0], s.open...)
	h.st.dropped = append(h.st.dropped[:0], s.dropped...)
	h.st.drainer = append(h.st.drainer[:0], s.drainer...)
	h.st.saved = append(h.st.saved[:0], s.saved...)
	h.st.stats = s.stats
}
