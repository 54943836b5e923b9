package coherence

import (
	"fmt"
	"strings"
	"testing"

	"weft/core"
)

// stressCore drives random loads, stores and read-modify-writes at random
// times and checks every value against a golden copy of memory kept in
// global order.
type stressCore struct {
	id      int
	h       *stressHarness
	target  int32
	pending struct {
		kind int // 0 load, 1 store, 2 rmw
		addr uint64
		val  int64
	}
	left int
}

type stressHarness struct {
	report     func(msg string)
	eng        *core.Engine
	sys        *System
	cores      []*stressCore
	rng        core.RNG
	addrs      []uint64
	golden     map[uint64]int64
	writer     map[uint64]uint64 // line → last writer core + 1
	policy     MetaPolicy
	piggybacks [4]int
	txns       int
	ops        int
	failures   int
	// seen counts the line states check found, transient ones included.
	seen [numStates]int
}

const stressBase = 0x10000

func (c *stressCore) Handle(now core.Cycle, op int32, arg uint64) {
	if c.left == 0 {
		return
	}
	h := c.h
	r := h.rng.Below(10)
	c.pending.addr = h.addrs[h.rng.Below(uint64(len(h.addrs)))]
	switch {
	case r < 5:
		c.pending.kind = 0
	case r < 8:
		c.pending.kind = 1
		c.pending.val = int64(h.rng.Uint64() >> 1)
	default:
		c.pending.kind = 2
	}
	write := c.pending.kind != 0
	if f := h.sys.Probe(c.id, c.pending.addr, write); f >= 0 {
		c.perform(now, f)
		return
	}
	h.sys.Request(c.id, c.pending.addr, write, int32(c.id), now)
}

func (c *stressCore) TxnDone(now core.Cycle, frame int) { c.perform(now, frame) }

func (c *stressCore) LineLost(now core.Cycle, line uint64) {}

func (c *stressCore) perform(now core.Cycle, f int) {
	h := c.h
	a := c.pending.addr
	got := h.sys.ReadWord(f, a)
	if want := h.golden[a]; got != want {
		h.fail("cycle %d: core %d read %#x = %d, last store in global order was %d", now, c.id, a, got, want)
	}
	switch c.pending.kind {
	case 1:
		h.sys.WriteWord(f, a, c.pending.val)
		h.golden[a] = c.pending.val
	case 2:
		h.sys.WriteWord(f, a, got+1)
		h.golden[a] = got + 1
	}
	if c.pending.kind != 0 {
		// The record a writer leaves on its line, as an extension's
		// perform hook would.
		h.sys.Meta(f)[0] = uint64(c.id) + 1
	}
	if c.pending.kind != 0 {
		h.writer[a>>h.sys.lineShift] = uint64(c.id) + 1
	}
	h.ops++
	c.left--
	if c.left > 0 {
		h.eng.Schedule(now+1+core.Cycle(h.rng.Below(12)), c.target, 0, 0)
	}
}

func (h *stressHarness) fail(format string, args ...any) {
	h.failures++
	if h.failures <= 10 {
		h.report(fmt.Sprintf(format, args...))
	}
}

// check verifies, after a bus transaction, the single-writer/many-reader
// invariant, that every copy holds the last stored values, and the
// metadata invariant of the policy under test.
func (h *stressHarness) check(e *core.Event) {
	h.txns++
	lines := map[uint64]bool{}
	for _, a := range h.addrs {
		lines[a>>h.sys.lineShift] = true
	}
	for line := range lines {
		owners, sharers := 0, 0
		holders := 0
		for c := 0; c < h.sys.spec.Cores; c++ {
			f := h.sys.find(c, line)
			if bit := h.sys.st.present[line-stressBase>>h.sys.lineShift]&(1<<c) != 0; bit != (f >= 0) {
				h.fail("cycle %d: presence bit of core %d for line %#x is %v, but the cache holds it: %v", e.Cycle, c, line, bit, f >= 0)
			}
			if f < 0 {
				continue
			}
			holders++
			h.seen[h.sys.st.states[f]]++
			switch h.sys.st.states[f] {
			case Modified, Exclusive, IMD:
				owners++
			case Shared, ISD:
				sharers++
			}
			for w := 0; w < h.sys.wordsLine; w++ {
				a := line<<h.sys.lineShift + uint64(w*8)
				if got := h.sys.ReadWord(f, a); got != h.golden[a] {
					h.fail("cycle %d after %s: core %d's copy of %#x holds %d, last store was %d", e.Cycle, e.Kind, c, a, got, h.golden[a])
				}
			}
			meta := h.sys.Meta(f)[0]
			want := h.writer[line]
			switch h.policy {
			case MetaIdeal:
				if meta != want {
					h.fail("cycle %d: core %d line %#x metadata %d, last writer %d (ideal policy)", e.Cycle, c, line, meta, want)
				}
			case MetaLost:
				if meta != want && meta != 0 {
					h.fail("cycle %d: core %d line %#x metadata %d, last writer %d or lost", e.Cycle, c, line, meta, want)
				}
			}
			if st := h.sys.st.states[f]; st != Modified && st != IMD {
				for w := 0; w < h.sys.wordsLine; w++ {
					a := line<<h.sys.lineShift + uint64(w*8)
					if got := h.sys.MemoryWord(a); got != h.golden[a] {
						h.fail("cycle %d: line %#x is clean in core %d but memory holds %d for %#x, last store was %d", e.Cycle, line, c, got, a, h.golden[a])
					}
				}
			}
		}
		if owners > 1 || (owners == 1 && sharers > 0) {
			h.fail("cycle %d after %s: line %#x has %d owners (M/E) and %d sharers", e.Cycle, e.Kind, line<<h.sys.lineShift, owners, sharers)
		}
		if holders == 0 && h.policy == MetaIdeal {
			if got := h.sys.memMetaOf(line)[0]; got != h.writer[line] {
				h.fail("cycle %d: line %#x is in no cache; memory metadata %d, last writer %d", e.Cycle, line, got, h.writer[line])
			}
		}
	}
}

func runStress(t *testing.T, cores, opsPerCore int, policy MetaPolicy, seed uint64, report func(string), observe ...func(*System, *core.Stream)) *stressHarness {
	t.Helper()
	return runStressOn(t, stressSpec(cores, policy, seed), opsPerCore, seed, report, observe...)
}

// stressSpec is the stress tester's machine: tiny caches on the atomic bus.
func stressSpec(cores int, policy MetaPolicy, seed uint64) Spec {
	return Spec{Cores: cores, SizeBytes: 256, Assoc: 2, LineBytes: 64, HitCycles: 1, BusWidth: 32,
		ArbCycles: 2, SnoopCycles: 4, C2CCycles: 10, MemCycles: 50, MetaWords: 1, MetaBits: 16, MetaEvict: policy,
		SharerMetaOnMemRead: seed%2 == 0}
}

// runStressOn runs the stress tester on spec.
func runStressOn(t *testing.T, spec Spec, opsPerCore int, seed uint64, report func(string), observe ...func(*System, *core.Stream)) *stressHarness {
	t.Helper()
	eng := &core.Engine{}
	stream := &core.Stream{}
	cores, policy := spec.Cores, spec.MetaEvict
	// 12 lines of 8 words over a 2-set, 2-way cache: constant conflict
	// evictions and writebacks.
	const lines = 12
	sys, err := New(spec, eng, stream, stressBase, lines*8)
	if err != nil {
		t.Fatal(err)
	}
	h := &stressHarness{report: report, eng: eng, sys: sys, rng: core.NewRNG(seed, "stress"),
		golden: map[uint64]int64{}, writer: map[uint64]uint64{}, policy: policy}
	for l := 0; l < lines; l++ {
		for _, w := range []int{0, 3, 7} {
			h.addrs = append(h.addrs, stressBase+uint64(l*64+w*8))
		}
	}
	for _, o := range observe {
		o(sys, stream)
	}
	stream.Attach(MaskOf3(), core.ObserverFunc(h.check))
	stream.Attach(core.MaskOf(core.KindMetaPiggyback), core.ObserverFunc(func(e *core.Event) { h.piggybacks[e.Words[2]]++ }))
	for i := 0; i < cores; i++ {
		c := &stressCore{id: i, h: h, left: opsPerCore}
		c.target = eng.Register(c)
		sys.SetClient(i, c)
		h.cores = append(h.cores, c)
		eng.Schedule(core.Cycle(i), c.target, 0, 0)
	}
	for eng.Step() {
		if err := sys.Err(); err != nil {
			report("protocol error: " + err.Error())
			return h
		}
	}
	if h.ops != cores*opsPerCore {
		t.Fatalf("performed %d operations, want %d", h.ops, cores*opsPerCore)
	}
	return h
}

// MaskOf3 is the set of bus-transaction kinds.
func MaskOf3() core.KindMask { return core.MaskOf(core.KindBusRd, core.KindBusRdX, core.KindBusUpgr) }

func TestStressMESI(t *testing.T) {
	ops := 12500 // 8 cores × 12,500 = 100,000 operations
	for _, policy := range []MetaPolicy{MetaLost, MetaIdeal, MetaWriteback} {
		t.Run(fmt.Sprint(policy), func(t *testing.T) {
			h := runStress(t, 8, ops, policy, 7, func(msg string) { t.Error(msg) })
			st := h.sys.Stats()
			t.Logf("%d ops, %d bus transactions, %d evictions, %d writebacks, %d c2c fills, %d invalidations",
				h.ops, h.txns, st[StatEvictions], st[StatWritebacks], st[StatFillsC2C], st[StatInvalidations])
			for _, s := range []Stat{StatEvictions, StatWritebacks, StatFillsC2C, StatFillsMemory, StatInvalidations, StatBusUpgr, StatBusRdX, StatBusRd} {
				if st[s] == 0 {
					t.Errorf("stress test never exercised %s", s)
				}
			}
			if h.piggybacks[MetaViaReadReply] == 0 || h.piggybacks[MetaViaInvalAck] == 0 {
				t.Errorf("metadata never rode a read reply or an invalidation ack: %v", h.piggybacks)
			}
			if policy != MetaLost && h.piggybacks[MetaViaMemory] == 0 {
				t.Errorf("%s policy never brought metadata back from memory: %v", policy, h.piggybacks)
			}
			if h.txns < 10000 {
				t.Errorf("only %d bus transactions checked", h.txns)
			}
		})
	}
}

// TestStressCatchesBrokenProtocol makes sure the stress tester can fail: a
// protocol whose M owner neither supplies its data nor writes it back on a
// snooped read must be caught as a stale value.
func TestStressCatchesBrokenProtocol(t *testing.T) {
	saved := mesiTable[Modified][SnoopBusRd]
	mesiTable[Modified][SnoopBusRd] = Transition{Next: Shared, Defined: true}
	defer func() { mesiTable[Modified][SnoopBusRd] = saved }()
	var msgs []string
	runStress(t, 4, 2000, MetaLost, 3, func(msg string) { msgs = append(msgs, msg) })
	if len(msgs) == 0 {
		t.Fatal("the stress tester accepted a protocol that loses dirty data")
	}
	if !strings.Contains(msgs[0], "last store") {
		t.Errorf("first complaint %q does not name the stale value", msgs[0])
	}
}

func TestUndefinedTransitionReportsHistory(t *testing.T) {
	eng := &core.Engine{}
	spec := Spec{Cores: 2, SizeBytes: 1024, Assoc: 2, LineBytes: 64, HitCycles: 1, BusWidth: 32, ArbCycles: 2, SnoopCycles: 4, C2CCycles: 10, MemCycles: 50}
	sys, err := New(spec, eng, &core.Stream{}, stressBase, 64)
	if err != nil {
		t.Fatal(err)
	}
	done := &recordClient{}
	sys.SetClient(0, done)
	sys.SetClient(1, done)
	// Core 0 reads the line: it is alone, so it gets E.
	sys.Request(0, stressBase, false, 0, 0)
	for eng.Step() {
	}
	if got := sys.Holds(0, stressBase>>6); got != Exclusive {
		t.Fatalf("core 0 holds line in %s, want E", got)
	}
	// Corrupt core 1 into S on the same line, then upgrade: the snoop finds
	// E against BusUpgr, which the table does not define.
	f := sys.victim(1, stressBase>>6)
	sys.st.tags[f] = stressBase >> 6
	sys.st.states[f] = Shared
	sys.Request(1, stressBase, true, 5, eng.Now())
	for eng.Step() {
	}
	err = sys.Err()
	if err == nil {
		t.Fatal("undefined transition went unreported")
	}
	for _, want := range []string{"undefined MESI transition", "core[0].l1", "0x10000", "in E on SnoopBusUpgr", "history", "I-LocalRead->E"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

type recordClient struct{ done int }

func (r *recordClient) TxnDone(now core.Cycle, frame int)    { r.done++ }
func (r *recordClient) LineLost(now core.Cycle, line uint64) {}

func TestTableUndefinedPairs(t *testing.T) {
	undefined := [][2]int{{int(Invalid), int(Evict)}, {int(Exclusive), int(SnoopBusUpgr)}, {int(Modified), int(SnoopBusUpgr)}}
	for _, p := range undefined {
		if Lookup(State(p[0]), ProtoEvent(p[1])).Defined {
			t.Errorf("(%s, %s) should be undefined", State(p[0]), ProtoEvent(p[1]))
		}
	}
	if tr := Lookup(Modified, SnoopBusRd); tr.Next != Shared || tr.Actions&ActSupply == 0 || tr.Actions&ActWriteback == 0 {
		t.Errorf("M on BusRd = %+v, want S with supply and writeback", tr)
	}
}

// TestTableDrivesLocalTransitions: the local rows of the table decide the
// transaction a miss issues. A write miss that issues BusRd (so sharers are
// never invalidated) must break the single-writer invariant.
func TestTableDrivesLocalTransitions(t *testing.T) {
	saved := mesiTable[Invalid][LocalWrite]
	mesiTable[Invalid][LocalWrite] = Transition{Next: Modified, Actions: ActBusRd, Defined: true}
	defer func() { mesiTable[Invalid][LocalWrite] = saved }()
	var msgs []string
	runStress(t, 4, 2000, MetaLost, 5, func(msg string) { msgs = append(msgs, msg) })
	if len(msgs) == 0 {
		t.Fatal("the stress tester accepted write misses that invalidate nobody")
	}
}

// TestMetaPayloadMatchesMoves: every bus transaction's latency pays for
// exactly the metadata records it moved (the MetaPiggyback events before
// it), free ones of the ideal store excepted, and meta_bytes counts the
// same records; for every eviction policy, with and without taking a
// sharer's record on memory reads (even seeds).
func TestMetaPayloadMatchesMoves(t *testing.T) {
	for _, policy := range []MetaPolicy{MetaLost, MetaWriteback, MetaIdeal} {
		for _, seed := range []uint64{3, 4} {
			var charged, total uint64
			bad := 0
			h := runStress(t, 4, 1500, policy, seed, func(msg string) { t.Error(msg) }, func(sys *System, st *core.Stream) {
				st.Attach(core.MaskOf(core.KindMetaPiggyback, core.KindBusRd, core.KindBusRdX, core.KindBusUpgr), core.ObserverFunc(func(e *core.Event) {
					if e.Kind == core.KindMetaPiggyback {
						via := e.Words[2]
						if !(policy == MetaIdeal && (via == MetaViaSharer || via == MetaViaMemory)) {
							charged++
							total += e.Words[1]
						}
						return
					}
					sp := sys.Spec()
					xfer := func(bytes int) core.Cycle { return core.Cycle((bytes + sp.BusWidth - 1) / sp.BusWidth) }
					lat := sp.SnoopCycles + sp.MemCycles + xfer(sp.LineBytes+int(charged)*2)
					switch {
					case e.Kind == core.KindBusUpgr:
						lat = sp.SnoopCycles + xfer(int(charged)*2)
					case e.Flags&core.FlagC2C != 0:
						lat = sp.SnoopCycles + sp.C2CCycles + xfer(sp.LineBytes+int(charged)*2)
					}
					if got := e.Cycle - core.Cycle(e.Words[0]); got != lat && bad < 5 {
						bad++
						t.Errorf("%s seed %d: %s at %d took %d cycles for %d records, want %d", policy, seed, e.Kind, e.Cycle, got, charged, lat)
					}
					charged = 0
				}))
			})
			// Writebacks of records carry bytes too; meta_bytes counts
			// those of transactions at least.
			if got := h.sys.Stats()[StatMetaBytes]; got < total || total == 0 {
				t.Errorf("%s seed %d: meta_bytes %d, but %d bytes of records rode reads", policy, seed, got, total)
			}
		}
	}
}

// TestStressSplitBus runs the stress tester on the split-transaction bus
// (one bus, and a separate data bus; with and without an L2): 100,000
// operations with many transactions in flight, every value checked, every
// transient state reached, and misses overlapping on the bus.
func TestStressSplitBus(t *testing.T) {
	ops := 12500
	for _, v := range []struct {
		name      string
		separate  bool
		l2        int
		policy    MetaPolicy
		wantL2Hit bool
	}{
		{"one-bus", false, 0, MetaLost, false},
		{"data-bus", true, 0, MetaIdeal, false},
		{"one-bus-l2", false, 256, MetaWriteback, true},
		{"data-bus-l2", true, 512, MetaLost, true},
	} {
		t.Run(v.name, func(t *testing.T) {
			spec := stressSpec(8, v.policy, 7)
			spec.Split, spec.SeparateDataBus = true, v.separate
			if v.l2 > 0 {
				spec.L2SizeBytes, spec.L2Assoc, spec.L2HitCycles = v.l2, 4, 12
			}
			overlap := 0
			inFlight := func(sys *System, st *core.Stream) {
				st.Attach(MaskOf3(), core.ObserverFunc(func(e *core.Event) {
					n := 0
					for _, fl := range sys.st.flights {
						if fl.active {
							n++
						}
					}
					if n > 1 {
						overlap++
					}
				}))
			}
			h := runStressOn(t, spec, ops, 7, func(msg string) { t.Error(msg) }, inFlight)
			st := h.sys.Stats()
			for _, s := range []Stat{StatEvictions, StatWritebacks, StatFillsC2C, StatFillsMemory, StatInvalidations, StatBusUpgr, StatBusRdX, StatBusRd} {
				if st[s] == 0 {
					t.Errorf("stress test never exercised %s", s)
				}
			}
			for _, s := range []State{ISD, IMD} {
				if h.seen[s] == 0 {
					t.Errorf("transient state %s never reached", s)
				}
			}
			if overlap < h.txns/10 {
				t.Errorf("only %d of %d transactions overlapped another in flight", overlap, h.txns)
			}
			if h.txns < 10000 {
				t.Errorf("only %d bus transactions checked", h.txns)
			}
			if l2 := h.sys.st.l2; v.wantL2Hit && (l2[StatL2Hits] == 0 || l2[StatL2Misses] == 0 || l2[StatL2Writebacks] == 0) {
				t.Errorf("L2 counters %v: want hits, misses and writebacks", l2)
			}
			if len(h.sys.st.queue) != 0 {
				t.Errorf("%d requests still queued at the end", len(h.sys.st.queue))
			}
			t.Logf("%d ops, %d transactions (%d overlapped), IS_D %d, IM_D %d, L2 %v", h.ops, h.txns, overlap, h.seen[ISD], h.seen[IMD], h.sys.st.l2)
		})
	}
}
