package sim_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"weft/coherence"
	"weft/configs"
	"weft/core"
	"weft/cpu"
	"weft/sim"
)

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
	run := func(exts ...cpu.Extension) (sim.Result, []busLat) {
		var lats []busLat
		opts := []sim.Option{sim.WithObserver(core.MaskOf(core.KindBusRd, core.KindBusRdX, core.KindBusUpgr), core.ObserverFunc(func(e *core.Event) {
			lats = append(lats, busLat{e.Kind, e.Cycle - core.Cycle(e.Words[0])})
		}))}
		for _, x := range exts {
			opts = append(opts, sim.WithExtension(x))
		}
		r, err := sim.Run(configs.Default(), p, 1, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return r, lats
	}
	// 2×16+8 = 24 bits a line, and 12 bits for each of 8 words = 96: 120
	// bits, 15 bytes on the bus with every record.
	a := &tagExt{t: t, name: "a", gran: coherence.PerLine, tag: 0xa, words: 2,
		fields: []coherence.Field{{Name: "tag", Bits: 16}, {Name: "pc", Bits: 8}}}
	b := &tagExt{t: t, name: "b", gran: coherence.PerWord, tag: 0xb, words: 8,
		fields: []coherence.Field{{Name: "w", Bits: 12}}}
	base, baseLats := run()
	with, withLats := run(a, b)
	a2, b2 := *a, *b
	a2.perfs, b2.perfs, a2.fills, b2.fills = 0, 0, 0, 0
	r, err := sim.Run(configs.Default(), p, 1, sim.WithExtension(&a2), sim.WithExtension(&b2), sim.WithStatGroups())
	if err != nil {
		t.Fatal(err)
	}
	ga, okA := r.Groups.Get("ext.a")
	_, okB := r.Groups.Get("ext.b")
	memOps, _ := r.Stats.Get("mem_ops")
	if pa, _ := ga.Stats.Get("performs"); !okA || !okB || pa != memOps || a2.perfs == 0 {
		t.Errorf("extension statistics groups: ext.a %v (%v performs for %v memory ops), ext.b found %v", ga, pa, memOps, okB)
	}
	if a.region.Off != 0 || b.region.Off != 2 || b.region.Granules != 8 || a.region.Bits != 24 || b.region.Bits != 96 {
		t.Errorf("layout: a %+v, b %+v", a.region, b.region)
	}
	if a.fills != 1 || b.fills != 1 {
		t.Errorf("c2c fills that brought the supplier's tag: a %d, b %d; want 1 each", a.fills, b.fills)
	}
	const metaBytes = 15
	if got, _ := with.Stats.Get("meta_bytes"); got != 2*metaBytes {
		t.Errorf("meta_bytes %v, want %d (one read reply and one invalidation ack)", got, 2*metaBytes)
	}
	if got, _ := base.Stats.Get("meta_bytes"); got != 0 {
		t.Errorf("meta_bytes %v without extensions", got)
	}
	cfg := configs.Default()
	xfer := func(bytes int) core.Cycle {
		return core.Cycle((bytes + cfg.Bus.WidthBytes - 1) / cfg.Bus.WidthBytes)
	}
	line := cfg.Cache.L1.LineBytes
	snoop, c2c, mem := core.Cycle(cfg.Bus.SnoopCycles), core.Cycle(cfg.Bus.C2CCycles), core.Cycle(cfg.Memory.LatencyCycles)
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
	if with.Cycles != base.Cycles+2 {
		t.Errorf("run with extensions took %d cycles, without %d: want exactly the 2 payload cycles more", with.Cycles, base.Cycles)
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
		cfg, _ := sim.FitCores(configs.Default(), p)
		a, err := sim.Run(cfg, p, 4)
		if err != nil {
			t.Fatal(err)
		}
		b, err := sim.Run(cfg, p, 4, sim.WithExtension(idleExt{}))
		if err != nil {
			t.Fatal(err)
		}
		if jsonOf(t, a) != jsonOf(t, b) {
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
		_, err := sim.Run(configs.Default(), p, 1, sim.WithExtension(x))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("fields %v: error %v, want %q", c.fields, err, c.want)
		}
	}
}

// ckExt requests a checkpoint at its k-th checked access and, in rollback
// mode, a rollback at its m-th (or the first after the checkpoint exists);
// otherwise it only flags that access so the test can restore from outside.
type ckExt struct {
	k, m     int
	rollback bool
	reseed   uint64
	n        int
	atK, atM bool
	port     *cpu.Port
}

func (x *ckExt) Name() string                { return "ck" }
func (x *ckExt) Meta() coherence.MetaRequest { return coherence.MetaRequest{} }
func (x *ckExt) Attach(p *cpu.Port) error {
	x.port = p
	p.OnCheck(verdictOf(func(a *cpu.Access) cpu.Verdict {
		x.n++
		if x.n == x.k {
			// Both sides take the checkpoint (it does not change the run),
			// so both reach the m-th access under the same condition.
			x.atK = true
			p.Machine().RequestCheckpoint()
		}
		// A checkpoint is taken at the safe point after the event, so the
		// rollback waits for one to exist.
		if x.n >= x.m && !x.atM && p.Machine().HasCheckpoint() {
			x.atM = true
			if x.rollback {
				return cpu.Verdict{Kind: cpu.Rollback, Reseed: x.reseed}
			}
		}
		return cpu.Verdict{}
	}))
	return nil
}

// readCount is an observer that asks to be rolled back with the machine.
type readCount struct{ n int }

func (r *readCount) Observe(*core.Event) { r.n++ }
func (r *readCount) Save(buf any) any    { return r.n }
func (r *readCount) Load(buf any)        { r.n = buf.(int) }

// A rollback requested from a check callback restores the state a snapshot
// taken from outside at the checkpoint holds (every part, a registered
// observer's included), and the run that follows is the run that follows
// a restore from outside.
func TestRollbackFromCallback(t *testing.T) {
	bb := configs.Default()
	bb.Bugaboo.Enabled, bb.Bugaboo.CT.Entries = true, 8 // BB-HW's registers and tables roll back too
	for _, tc := range []struct {
		name string
		base configs.Config
	}{{"prodcons", configs.Default()}, {"counter-race", configs.Default()}, {"mysql-binlog", configs.Default()}, {"prodcons", bb}, {"mysql-binlog", bb}} {
		name := tc.name
		p := kernel(t, name)
		cfg, _ := sim.FitCores(tc.base, p)
		type side struct {
			m      *cpu.Machine
			x      *ckExt
			count  *readCount
			events []string
			snapK  *cpu.Snapshot
			after  *cpu.Snapshot
		}
		build := func(rollback bool) *side {
			s := &side{x: &ckExt{k: 20, m: 60, rollback: rollback}, count: &readCount{}}
			stream := &core.Stream{}
			stream.Attach(core.MaskOf(core.KindRead, core.KindWrite), s.count)
			stream.Attach(core.AllKinds&^core.MaskOf(core.KindCheckpoint, core.KindRollback), core.ObserverFunc(func(e *core.Event) {
				b, _ := json.Marshal(e)
				s.events = append(s.events, string(b))
			}))
			m, err := sim.Build(cfg, p, 9, stream, s.x)
			if err != nil {
				t.Fatal(err)
			}
			m.RegisterState("reads", s.count)
			s.m = m
			m.Start()
			return s
		}
		in, out := build(true), build(false)
		// The callback side: step until the rollback has been carried out.
		for !in.x.atM {
			if in.m.Step() {
				t.Fatalf("%s: run ended before the rollback", name)
			}
		}
		in.after = in.m.Snapshot()
		if in.m.Rollbacks() != 1 || !in.m.HasCheckpoint() {
			t.Fatalf("%s: %d rollbacks, checkpoint %v", name, in.m.Rollbacks(), in.m.HasCheckpoint())
		}
		// The outside side: snapshot after the step of the k-th access,
		// restore after the step of the m-th.
		for !out.x.atK {
			out.m.Step()
		}
		out.snapK = out.m.Snapshot()
		for !out.x.atM {
			out.m.Step()
		}
		out.m.Restore(out.snapK)
		out.after = out.m.Snapshot()
		if !reflect.DeepEqual(in.after, out.after) {
			t.Fatalf("%s: state after the callback's rollback differs from the outside restore", name)
		}
		if !reflect.DeepEqual(in.m.Checkpoint(), out.snapK) {
			t.Errorf("%s: the checkpoint differs from the outside snapshot at the same point", name)
		}
		if in.count.n != out.count.n || in.count.n == 0 {
			t.Errorf("%s: registered observer has %d after the rollback, %d after the restore", name, in.count.n, out.count.n)
		}
		in.events, out.events = in.events[:0], out.events[:0]
		in.m.Run()
		out.m.Run()
		if !slices.Equal(in.events, out.events) || len(in.events) == 0 {
			t.Errorf("%s: the runs after the rollback and after the outside restore differ (%d vs %d events)", name, len(in.events), len(out.events))
		}
		if jsonOf(t, sim.Collect(in.m, cfg, 9)) != jsonOf(t, sim.Collect(out.m, cfg, 9)) {
			t.Errorf("%s: results differ", name)
		}
	}
}

// A rollback without a reseed replays the checkpointed span exactly; a
// reseeded one takes a different interleaving of a racy kernel.
func TestRollbackReseedPerturbs(t *testing.T) {
	p := kernel(t, "counter-race")
	cfg, _ := sim.FitCores(configs.Default(), p)
	spans := func(reseed uint64) (before, after []string) {
		var cur *[]string
		x := &ckExt{k: 5, m: 80, rollback: true, reseed: reseed}
		obs := core.ObserverFunc(func(e *core.Event) {
			switch e.Kind {
			case core.KindCheckpoint:
				cur = &before
			case core.KindRollback:
				cur = &after
			default:
				if cur != nil {
					*cur = append(*cur, string(rune('0'+e.Thread))+":"+string(rune(e.PC)))
				}
			}
		})
		_, err := sim.Run(cfg, p, 3, sim.WithExtension(x),
			sim.WithObserver(core.MaskOf(core.KindCheckpoint, core.KindRollback, core.KindRead, core.KindWrite, core.KindRMW), obs))
		if err != nil {
			t.Fatal(err)
		}
		if len(before) == 0 || len(after) < len(before) {
			t.Fatalf("reseed %d: %d accesses before the rollback, %d after", reseed, len(before), len(after))
		}
		return before, after[:len(before)]
	}
	b, a := spans(0)
	if !slices.Equal(a, b) {
		t.Errorf("a rollback without reseed did not replay the span")
	}
	differ := 0
	for _, r := range []uint64{1, 2, 3} {
		b, a := spans(r)
		if !slices.Equal(a, b) {
			differ++
		}
	}
	if differ == 0 {
		t.Errorf("no reseeded rollback changed the interleaving")
	}
}

// Taking a snapshot into the same value again allocates nothing.
func TestSnapshotReusesStorage(t *testing.T) {
	p := kernel(t, "prodcons")
	m, err := sim.Build(configs.Default(), p, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	m.RunUntil(2000)
	var s cpu.Snapshot
	m.SnapshotInto(&s)
	if n := testing.AllocsPerRun(20, func() { m.SnapshotInto(&s) }); n != 0 {
		t.Errorf("SnapshotInto allocates %v times after the first", n)
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
	cfg := configs.Default()
	cfg.Sim.JitterCycles = 0
	acc := pcOf(t, p, "acc")
	run := func(v cpu.Verdict) (sim.Result, core.Cycle) {
		once := false
		var at core.Cycle
		r, err := sim.Run(cfg, p, 1, sim.WithExtension(withCheck(func(a *cpu.Access) cpu.Verdict {
			if a.PC == acc && !once {
				once = true
				return v
			}
			return cpu.Verdict{}
		})), sim.WithObserver(core.MaskOf(core.KindWrite), core.ObserverFunc(func(e *core.Event) { at = e.Cycle })))
		if err != nil {
			t.Fatal(err)
		}
		return r, at
	}
	base, baseAt := run(cpu.Verdict{})
	delayed, delayedAt := run(cpu.Verdict{Delay: 100})
	if delayed.Cycles != base.Cycles+100 || delayedAt != baseAt {
		t.Errorf("a 100-cycle delay: %d cycles (store at %d), without %d (store at %d); want +100 after the store", delayed.Cycles, delayedAt, base.Cycles, baseAt)
	}
	stalled, stalledAt := run(cpu.Verdict{Kind: cpu.Stall, Wait: core.Wait{Until: core.UntilCycle, Cycle: 5000}})
	if stalledAt != 5000 || stalled.Outputs[0] != 5 {
		t.Errorf("stall until cycle 5000: store performed at %d, outputs %v", stalledAt, stalled.Outputs)
	}
	timed, timedAt := run(cpu.Verdict{Kind: cpu.Stall, Wait: core.Wait{Until: core.UntilWrite, Addr: 0x10000, Timeout: 300}})
	if timedAt < baseAt+300 || timed.Outcome != core.Pass {
		t.Errorf("stall until a write nobody makes, timeout 300: store at %d (unstalled %d), outcome %s", timedAt, baseAt, timed.Outcome)
	}
	// A rollback without a checkpoint lets the access proceed.
	if r, at := run(cpu.Verdict{Kind: cpu.Rollback}); jsonOf(t, r) != jsonOf(t, base) || at != baseAt {
		t.Errorf("a rollback with no checkpoint changed the run")
	}
}

// Checkpoint and rollback requests stop the requesting core at the next
// instruction boundary, so the safe point is where they were asked for,
// even when the core could have run on ahead of the clock; a rollback
// asked for in the event that ends the run is still carried out; and an
// outside Restore drops pending requests.
func TestSafePointTiming(t *testing.T) {
	p := assemble(t, `
.data
x: .word 0
.text
main:  li r1, 1000
loop:  ld r2, x
       add r2, r2, 1
       st r2, x
       sub r1, r1, 1
       bnez r1, loop
       ld r3, x
       assert r3, "never fails"
       exit
`)
	// One thread: with lookahead it runs the whole loop in one event.
	var reqAt uint64
	n := 0
	x := withCheck(nil)
	x.check = func(a *cpu.Access) cpu.Verdict {
		n++
		if n == 7 {
			x.port.Machine().RequestCheckpoint()
		}
		return cpu.Verdict{}
	}
	m, err := sim.Build(configs.Default(), p, 1, nil, x)
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	for !m.HasCheckpoint() {
		if m.Step() {
			t.Fatal("the run ended before the checkpoint was taken")
		}
	}
	// The 7th access is the 4th iteration's load: 1 + 3*5 + 1 instructions
	// have run when it is performed.
	reqAt = 17
	if got := m.Checkpoint().Instructions; got != reqAt {
		t.Errorf("checkpoint holds %d instructions, want %d (the instruction that asked)", got, reqAt)
	}

	// A rollback asked for by the access of the final assert's load, in
	// the event that ends the run, is carried out.
	q := assemble(t, `
.data
x: .word 0
.text
main:  li r1, 1
       st r1, x
       ld r2, x
       out r2
       exit
`)
	k := 0
	y := withCheck(nil)
	y.check = func(a *cpu.Access) cpu.Verdict {
		k++
		mm := y.port.Machine()
		switch {
		case k == 1:
			mm.RequestCheckpoint()
		case mm.Rollbacks() == 0 && mm.HasCheckpoint() && a.Write == false:
			mm.RequestRollback(0)
		}
		return cpu.Verdict{}
	}
	r, err := sim.Run(configs.Default(), q, 1, sim.WithExtension(y),
		sim.WithObserver(core.MaskOf(core.KindRollback), core.ObserverFunc(func(*core.Event) {})))
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != core.Pass || len(r.Outputs) != 1 || k != 3 {
		t.Errorf("outcome %s, outputs %v, %d checks; want the load checked twice (before and after the rollback)", r.Outcome, r.Outputs, k)
	}

	// Restore drops a pending request.
	z := withCheck(nil)
	z.check = func(a *cpu.Access) cpu.Verdict {
		z.port.Machine().RequestCheckpoint()
		return cpu.Verdict{}
	}
	m2, err := sim.Build(configs.Default(), q, 1, nil, z)
	if err != nil {
		t.Fatal(err)
	}
	m2.Start()
	s0 := m2.Snapshot()
	for !m2.HasCheckpoint() {
		m2.Step()
	}
	m2.Restore(s0)
	z.check = func(*cpu.Access) cpu.Verdict { return cpu.Verdict{} }
	m2.Run()
	if got := m2.Checkpoint().Instructions; got > 3 {
		t.Errorf("a checkpoint after the restore: %d instructions", got)
	}
}

// A stall verdict with an invalid wait ends the run with a clear internal
// error (never a panic); one whose condition already holds proceeds.
func TestStallVerdictChecked(t *testing.T) {
	p := assemble(t, payloadSrc)
	_, err := sim.Run(configs.Default(), p, 1, sim.WithExtension(withCheck(func(a *cpu.Access) cpu.Verdict {
		return cpu.Verdict{Kind: cpu.Stall, Wait: core.Wait{Until: core.UntilPredicate}}
	})))
	if err == nil || !strings.Contains(err.Error(), "an extension stalled pc") || !strings.Contains(err.Error(), "needs a predicate") {
		t.Errorf("error %v", err)
	}
	r, err := sim.Run(configs.Default(), p, 1, sim.WithExtension(withCheck(func(a *cpu.Access) cpu.Verdict {
		return cpu.Verdict{Kind: cpu.Stall, Wait: core.Wait{Until: core.UntilPredicate, Pred: func(core.View) bool { return true }}}
	})))
	base, _ := sim.Run(configs.Default(), p, 1)
	if err != nil || jsonOf(t, r) != jsonOf(t, base) {
		t.Errorf("a stall whose condition holds changed the run: %v", err)
	}
}
