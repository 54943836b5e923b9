package cpu_test

import (
	"slices"
	"strings"
	"testing"

	"weft/coherence"
	"weft/core"
	"weft/cpu"
)

// checkExt is a test extension with no metadata that runs a check function
// in the check phase of every access.
type checkExt struct {
	name  string
	check func(*cpu.Access) cpu.Verdict
	port  *cpu.Port
}

func (x *checkExt) Name() string                { return x.name }
func (x *checkExt) Meta() coherence.MetaRequest { return coherence.MetaRequest{} }
func (x *checkExt) Attach(p *cpu.Port) error {
	x.port = p
	p.OnCheck(verdictOf(func(a *cpu.Access) cpu.Verdict { return x.check(a) }))
	return nil
}
func withCheck(f func(*cpu.Access) cpu.Verdict) *checkExt {
	return &checkExt{name: "check", check: f}
}

// verdictOf adapts a check that returns its verdict.
func verdictOf(f func(*cpu.Access) cpu.Verdict) cpu.CheckFunc {
	return func(a *cpu.Access, v *cpu.Verdict) { *v = f(a) }
}

// tagExt is a test extension that reserves metadata fields, writes a tag
// into them on every access it performs and checks, in every callback,
// that it sees only its own fields.
type tagExt struct {
	t      *testing.T
	name   string
	gran   coherence.Granularity
	fields []coherence.Field
	tag    uint64
	words  int // region words it must see
	region coherence.Region
	fills  int // c2c fills that brought the supplier's tag
	perfs  uint64
}

func (x *tagExt) Name() string { return x.name }
func (x *tagExt) Meta() coherence.MetaRequest {
	return coherence.MetaRequest{Gran: x.gran, Fields: x.fields}
}

func (x *tagExt) own(where string, meta []uint64) {
	if len(meta) != x.words {
		x.t.Errorf("%s: %s sees %d metadata words, want its own %d", x.name, where, len(meta), x.words)
	}
	for _, v := range meta {
		if v != 0 && v>>16 != x.tag {
			x.t.Errorf("%s: %s sees %#x, which another extension wrote", x.name, where, v)
		}
	}
}

func (x *tagExt) Attach(p *cpu.Port) error {
	x.region = p.Region()
	if err := p.Stats([]string{"performs"}, func(dst []uint64) { dst[0] = x.perfs }); err != nil {
		return err
	}
	p.OnPerform(func(a *cpu.Access) {
		x.perfs++
		x.own("perform", a.Meta)
		g := x.region.Granule(a.Meta, a.Addr)
		g[0] = x.tag<<16 | uint64(a.PC)
	})
	p.OnCheck(verdictOf(func(a *cpu.Access) cpu.Verdict {
		x.own("check", a.Meta)
		return cpu.Verdict{}
	}))
	return p.Protocol(coherence.Hooks{
		OnSnoop: func(tx *coherence.Txn, sn *coherence.Snoop, resp, req []uint64, scratch *uint64) {
			x.own("snoop resp", resp)
			x.own("snoop req", req)
		},
		OnFill: func(tx *coherence.Txn, meta []uint64, scratch *uint64) {
			x.own("fill", meta)
			if tx.Supplier >= 0 && x.region.Granule(meta, tx.Addr)[0]>>16 == x.tag {
				x.fills++
			}
		},
		OnEvict: func(c int, line uint64, meta []uint64) { x.own("evict", meta) },
	})
}

const payloadSrc = `
.data
x: .word 0
.text
main:  li r1, 7
wr:    st r1, x
       spawn r2, t1, r0
       join r2
       exit
t1:    ld r3, x
       li r4, 9
       st r4, x
       exit
`

// Two extensions active together: each sees only its fields, the bus
// payload (and so the latency of every transaction that carries a record)
// grows by exactly their bits, and the metadata rides the replies.
func TestTwoExtensions(t *testing.T) {
	p := assemble(t, payloadSrc)
	type busLat struct {
		kind core.Kind
		lat  core.Cycle
	}
	s := defaultSpec()
	runWith := func(exts ...cpu.Extension) (result, []busLat) {
		var lats []busLat
		opts := []option{withObserver(core.MaskOf(core.KindBusRd, core.KindBusRdX, core.KindBusUpgr), core.ObserverFunc(func(e *core.Event) {
			lats = append(lats, busLat{e.Kind, e.Cycle - core.Cycle(e.Words[0])})
		}))}
		for _, x := range exts {
			opts = append(opts, withExtension(x))
		}
		return run(t, s, p, 1, opts...), lats
	}
	// 2×16+8 = 24 bits a line, and 12 bits for each of 8 words = 96: 120
	// bits, 15 bytes on the bus with every record.
	a := &tagExt{t: t, name: "a", gran: coherence.PerLine, tag: 0xa, words: 2,
		fields: []coherence.Field{{Name: "tag", Bits: 16}, {Name: "pc", Bits: 8}}}
	b := &tagExt{t: t, name: "b", gran: coherence.PerWord, tag: 0xb, words: 8,
		fields: []coherence.Field{{Name: "w", Bits: 12}}}
	base, baseLats := runWith()
	with, withLats := runWith(a, b)
	a2, b2 := *a, *b
	a2.perfs, b2.perfs, a2.fills, b2.fills = 0, 0, 0, 0
	r := run(t, s, p, 1, withExtension(&a2), withExtension(&b2), withGroups())
	okB := slices.ContainsFunc(r.Groups, func(n core.Named) bool { return n.Name == "ext.b.performs" })
	memOps := uint64(r.Stats[cpu.StatMemOps.String()])
	if pa := r.group(t, "ext.a", "performs"); !okB || pa != memOps || a2.perfs == 0 {
		t.Errorf("extension statistics groups: ext.a %v performs for %v memory ops, ext.b found %v", pa, memOps, okB)
	}
	if a.region.Off != 0 || b.region.Off != 2 || b.region.Granules != 8 || a.region.Bits != 24 || b.region.Bits != 96 {
		t.Errorf("layout: a %+v, b %+v", a.region, b.region)
	}
	if a.fills != 1 || b.fills != 1 {
		t.Errorf("c2c fills that brought the supplier's tag: a %d, b %d; want 1 each", a.fills, b.fills)
	}
	const metaBytes = 15
	if got := uint64(with.Stats[coherence.StatMetaBytes.String()]); got != 2*metaBytes {
		t.Errorf("meta_bytes %v, want %d (one read reply and one invalidation ack)", got, 2*metaBytes)
	}
	if got := uint64(base.Stats[coherence.StatMetaBytes.String()]); got != 0 {
		t.Errorf("meta_bytes %v without extensions", got)
	}
	xfer := func(bytes int) core.Cycle {
		return core.Cycle((bytes + s.mem.BusWidth - 1) / s.mem.BusWidth)
	}
	line := s.mem.LineBytes
	snoop, c2c, mem := s.mem.SnoopCycles, s.mem.C2CCycles, s.mem.MemCycles
	want := []busLat{
		{core.KindBusRdX, snoop + mem + xfer(line)},          // main's store: memory, no record
		{core.KindBusRd, snoop + c2c + xfer(line+metaBytes)}, // t1's load: c2c with the record
		{core.KindBusUpgr, snoop + xfer(metaBytes)},          // t1's store: one sharer's ack with its record
	}
	wantBase := []busLat{{core.KindBusRdX, snoop + mem + xfer(line)}, {core.KindBusRd, snoop + c2c + xfer(line)}, {core.KindBusUpgr, snoop}}
	if !slices.Equal(withLats, want) {
		t.Errorf("bus latencies with both extensions %v, want %v", withLats, want)
	}
	if !slices.Equal(baseLats, wantBase) {
		t.Errorf("bus latencies without extensions %v, want %v", baseLats, wantBase)
	}
	if with.Cycle != base.Cycle+2 {
		t.Errorf("run with extensions took %d cycles, without %d: want exactly the 2 payload cycles more", with.Cycle, base.Cycle)
	}
}

// An extension with no fields and no callbacks costs nothing: the run is
// byte-identical to one without it.
type idleExt struct{}

func (idleExt) Name() string                { return "idle" }
func (idleExt) Meta() coherence.MetaRequest { return coherence.MetaRequest{} }
func (idleExt) Attach(*cpu.Port) error      { return nil }

func TestIdleExtensionInvisible(t *testing.T) {
	for _, name := range []string{"prodcons", "mysql-binlog", "stencil"} {
		p := kernel(t, name)
		s := defaultSpec().fit(p)
		a := run(t, s, p, 4)
		b := run(t, s, p, 4, withExtension(idleExt{}))
		if a.digest() != b.digest() {
			t.Errorf("%s: an idle extension changed the run", name)
		}
	}
}

func TestBadExtensionFields(t *testing.T) {
	p := assemble(t, payloadSrc)
	for _, c := range []struct {
		fields []coherence.Field
		want   string
	}{
		{[]coherence.Field{{Name: "w", Bits: 0}}, `extension bad: metadata field "w" is 0 bits wide (want 1 to 64)`},
		{[]coherence.Field{{Name: "w", Bits: 65}}, `extension bad: metadata field "w" is 65 bits wide (want 1 to 64)`},
		{[]coherence.Field{{Name: "h", Bits: 3, Host: true}}, `extension bad: host metadata field "h" has 3 bits (want 0: it is not on the bus)`},
		{[]coherence.Field{{Name: "", Bits: 3}}, `extension bad: metadata field 0 has no name`},
		{[]coherence.Field{{Name: "w", Bits: 3}, {Name: "w", Bits: 4}}, `extension bad: metadata field "w" reserved twice`},
	} {
		x := &tagExt{t: t, name: "bad", fields: c.fields}
		_, err := runErr(defaultSpec(), p, 1, withExtension(x))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fields %v: error %v, want %q", c.fields, err, c.want)
		}
	}
}

// A check verdict's Delay charges the core exactly that many cycles after
// the access (a trap), and a stall until a cycle holds the access until
// then; both on a one-thread program whose cycles are its critical path.
func TestVerdictDelayAndStallUntilCycle(t *testing.T) {
	p := assemble(t, `
.data
x: .word 0
.text
main:  li r1, 5
acc:   st r1, x
       ld r2, x
       out r2
       exit
`)
	s := defaultSpec()
	s.cpu.JitterCycles = 0
	acc := pcOf(t, p, "acc")
	runV := func(v cpu.Verdict) (result, core.Cycle) {
		once := false
		var at core.Cycle
		r := run(t, s, p, 1, withExtension(withCheck(func(a *cpu.Access) cpu.Verdict {
			if a.PC == acc && !once {
				once = true
				return v
			}
			return cpu.Verdict{}
		})), withObserver(core.MaskOf(core.KindWrite), core.ObserverFunc(func(e *core.Event) { at = e.Cycle })))
		return r, at
	}
	base, baseAt := runV(cpu.Verdict{})
	delayed, delayedAt := runV(cpu.Verdict{Delay: 100})
	if delayed.Cycle != base.Cycle+100 || delayedAt != baseAt {
		t.Errorf("a 100-cycle delay: %d cycles (store at %d), without %d (store at %d); want +100 after the store", delayed.Cycle, delayedAt, base.Cycle, baseAt)
	}
	stalled, stalledAt := runV(cpu.Verdict{Kind: cpu.Stall, Wait: core.Wait{Until: core.UntilCycle, Cycle: 5000}})
	if stalledAt != 5000 || stalled.Outputs[0] != 5 {
		t.Errorf("stall until cycle 5000: store performed at %d, outputs %v", stalledAt, stalled.Outputs)
	}
	timed, timedAt := runV(cpu.Verdict{Kind: cpu.Stall, Wait: core.Wait{Until: core.UntilWrite, Addr: 0x10000, Timeout: 300}})
	if timedAt < baseAt+300 || timed.Kind != core.Pass {
		t.Errorf("stall until a write nobody makes, timeout 300: store at %d (unstalled %d), outcome %s", timedAt, baseAt, timed.Kind)
	}
	// A rollback without a checkpoint lets the access proceed.
	if r, at := runV(cpu.Verdict{Kind: cpu.Rollback}); r.digest() != base.digest() || at != baseAt {
		t.Errorf("a rollback with no checkpoint changed the run")
	}
}

// A stall verdict with an invalid wait ends the run with a clear internal
// error (never a panic); one whose condition already holds proceeds.
func TestStallVerdictChecked(t *testing.T) {
	p := assemble(t, payloadSrc)
	s := defaultSpec()
	_, err := runErr(s, p, 1, withExtension(withCheck(func(a *cpu.Access) cpu.Verdict {
		return cpu.Verdict{Kind: cpu.Stall, Wait: core.Wait{Until: core.UntilPredicate}}
	})))
	if err == nil || !strings.Contains(err.Error(), "an extension stalled pc") || !strings.Contains(err.Error(), "needs a predicate") {
		t.Errorf("error %v", err)
	}
	r, err := runErr(s, p, 1, withExtension(withCheck(func(a *cpu.Access) cpu.Verdict {
		return cpu.Verdict{Kind: cpu.Stall, Wait: core.Wait{Until: core.UntilPredicate, Pred: func(core.View) bool { return true }}}
	})))
	base := run(t, s, p, 1)
	if err != nil || r.digest() != base.digest() {
		t.Errorf("a stall whose condition holds changed the run: %v", err)
	}
}

func TestCheckPhaseStall(t *testing.T) {
	// Thread 1 loads x; the check stalls that load until thread 2 writes x,
	// so thread 1 must see 5 although it would otherwise load first.
	p := assemble(t, `
.data
x: .word 0
.align 64
y: .word 0
.text
main:  spawn r2, reader, r0
       spawn r3, writer, r0
       join r2
       join r3
       exit
reader: nop
rd:    ld r4, x
       out r4
       exit
writer: work 3000
       li r5, 5
       st r5, x
       exit
`)
	rdPC := pcOf(t, p, "rd")
	var stalls, retries int
	r := run(t, defaultSpec(), p, 1, withExtension(withCheck(func(a *cpu.Access) cpu.Verdict {
		if a.PC != rdPC {
			return cpu.Verdict{}
		}
		if stalls == 0 {
			stalls++
			return cpu.StallOnLine(a, 100000)
		}
		retries++
		return cpu.Verdict{}
	})), withObserver(core.MaskOf(core.KindStallBegin, core.KindStallEnd), core.ObserverFunc(func(e *core.Event) {
		if e.Kind == core.KindStallEnd && e.Words[0] != 0 {
			t.Errorf("stall timed out instead of resolving on the write")
		}
	})))
	if len(r.Outputs) != 1 || r.Outputs[0] != 5 || stalls != 1 || retries != 1 {
		t.Errorf("outputs %v, %d stalls, %d retries; want [5], 1, 1", r.Outputs, stalls, retries)
	}
}

const stallSrc = `
.data
x: .word 0
.align 64
L: .word 0
.text
main:  spawn r2, reader, r0
       spawn r3, writer, r0
       join r2
       join r3
       exit
reader: nop
rd:    ld r4, x
       lock L
       lock L
       exit
writer: work 300
       li r5, 5
       st r5, x
       exit
`

// A stall released early cancels its timer, so a later deadlock is found
// at once, and the stalled load is counted once.
func TestStallTimerCancelled(t *testing.T) {
	p := assemble(t, stallSrc)
	rd := pcOf(t, p, "rd")
	stalled := false
	r := run(t, defaultSpec(), p, 1, withExtension(withCheck(func(a *cpu.Access) cpu.Verdict {
		if a.PC == rd && !stalled {
			stalled = true
			return cpu.StallOnLine(a, 1_000_000)
		}
		return cpu.Verdict{}
	})))
	if r.Kind != core.Hang || !strings.Contains(r.Msg, "deadlock") || r.Cycle > 10000 {
		t.Errorf("outcome %s at cycle %d (%q), want a deadlock soon after the stall resolves", r.Kind, r.Cycle, r.Msg)
	}
	reads := uint64(r.Stats[coherence.StatReads.String()])
	loads := uint64(r.Stats[cpu.StatLoads.String()])
	if reads != loads {
		t.Errorf("%v L1 reads for %v loads: the stalled load was counted twice", reads, loads)
	}
}
