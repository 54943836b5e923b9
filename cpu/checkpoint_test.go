package cpu_test

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"weft/coherence"
	"weft/core"
	"weft/cpu"
	"weft/isa"
)

// recorder keeps a textual copy of every event.
type recorder struct{ b strings.Builder }

func (r *recorder) Observe(e *core.Event) {
	b, _ := json.Marshal(e)
	r.b.Write(b)
	r.b.WriteByte('\n')
}

func TestSnapshotRestore(t *testing.T) {
	for _, name := range []string{"prodcons", "counter-locked", "pbzip2-uaf", "stencil"} {
		p := kernel(t, name)
		s := defaultSpec().fit(p)
		rec := &recorder{}
		stream := &core.Stream{}
		stream.Attach(core.AllKinds, rec)
		m := build(t, s, p, 5, stream)
		m.Start()
		full := run(t, s, p, 5)
		if m.RunUntil(full.Cycle / 3) {
			t.Fatalf("%s ended before a third of its cycles", name)
		}
		snap := m.Snapshot()
		rec.b.Reset()
		m.Run()
		first := rec.b.String()
		r1 := collect(m, false)
		m.Restore(snap)
		rec.b.Reset()
		m.Run()
		second := rec.b.String()
		r2 := collect(m, false)
		if first != second {
			t.Errorf("%s: the run after restore differs from the run after the snapshot", name)
		}
		if len(first) == 0 {
			t.Errorf("%s: no events after the snapshot", name)
		}
		if r1.digest() != r2.digest() || r1.digest() != full.digest() {
			t.Errorf("%s: results differ:\n%s\n%s\n%s", name, r1.digest(), r2.digest(), full.digest())
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
	bb := bugabooSpec()
	bb.Entries = 8 // BB-HW's registers and tables roll back too
	for _, tc := range []struct {
		name    string
		bugaboo bool
	}{{"prodcons", false}, {"counter-race", false}, {"mysql-binlog", false}, {"prodcons", true}, {"mysql-binlog", true}} {
		name := tc.name
		p := kernel(t, name)
		s := defaultSpec().fit(p)
		type side struct {
			m      *cpu.Machine
			x      *ckExt
			count  *readCount
			events []string
			snapK  *cpu.Snapshot
			after  *cpu.Snapshot
		}
		mk := func(rollback bool) *side {
			sd := &side{x: &ckExt{k: 20, m: 60, rollback: rollback}, count: &readCount{}}
			stream := &core.Stream{}
			stream.Attach(core.MaskOf(core.KindRead, core.KindWrite), sd.count)
			stream.Attach(core.AllKinds&^core.MaskOf(core.KindCheckpoint, core.KindRollback), core.ObserverFunc(func(e *core.Event) {
				b, _ := json.Marshal(e)
				sd.events = append(sd.events, string(b))
			}))
			var exts []cpu.Extension
			if tc.bugaboo {
				exts = append(exts, newBugaboo(t, bb))
			}
			m := build(t, s, p, 9, stream, append(exts, sd.x)...)
			m.RegisterState("reads", sd.count)
			sd.m = m
			m.Start()
			return sd
		}
		in, out := mk(true), mk(false)
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
		if collect(in.m, false).digest() != collect(out.m, false).digest() {
			t.Errorf("%s: results differ", name)
		}
	}
}

// rollbackSpans runs p on s with seed 3 and a ckExt that checkpoints at
// the 5th checked access and rolls back at the 80th with reseed; it
// returns the accesses (thread and PC, and the cycle when cycles is set)
// from the checkpoint to the rollback and as many after it, and the run's
// result.
func rollbackSpans(t *testing.T, s spec, p *isa.Program, reseed uint64, cycles bool) (before, after []string, r result) {
	t.Helper()
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
				a := string(rune('0'+e.Thread)) + ":" + string(rune(e.PC))
				if cycles {
					a += ":" + string(rune(e.Cycle))
				}
				*cur = append(*cur, a)
			}
		}
	})
	r = run(t, s, p, 3, withExtension(x), withGroups(),
		withObserver(core.MaskOf(core.KindCheckpoint, core.KindRollback, core.KindRead, core.KindWrite, core.KindRMW), obs))
	if len(before) == 0 || len(after) < len(before) {
		t.Fatalf("reseed %d: %d accesses before the rollback, %d after", reseed, len(before), len(after))
	}
	return before, after[:len(before)], r
}

// A rollback without a reseed replays the checkpointed span exactly; a
// reseeded one takes a different interleaving of a racy kernel.
func TestRollbackReseedPerturbs(t *testing.T) {
	p := kernel(t, "counter-race")
	s := defaultSpec().fit(p)
	b, a, _ := rollbackSpans(t, s, p, 0, false)
	if !slices.Equal(a, b) {
		t.Errorf("a rollback without reseed did not replay the span")
	}
	differ := 0
	for _, r := range []uint64{1, 2, 3} {
		b, a, _ := rollbackSpans(t, s, p, r, false)
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
	m := build(t, defaultSpec(), p, 1, nil)
	m.Start()
	m.RunUntil(2000)
	var s cpu.Snapshot
	m.SnapshotInto(&s)
	if n := testing.AllocsPerRun(20, func() { m.SnapshotInto(&s) }); n != 0 {
		t.Errorf("SnapshotInto allocates %v times after the first", n)
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
	m := build(t, defaultSpec(), p, 1, nil, x)
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
	r := run(t, defaultSpec(), q, 1, withExtension(y),
		withObserver(core.MaskOf(core.KindRollback), core.ObserverFunc(func(*core.Event) {})))
	if r.Kind != core.Pass || len(r.Outputs) != 1 || k != 3 {
		t.Errorf("outcome %s, outputs %v, %d checks; want the load checked twice (before and after the rollback)", r.Kind, r.Outputs, k)
	}

	// Restore drops a pending request.
	z := withCheck(nil)
	z.check = func(a *cpu.Access) cpu.Verdict {
		z.port.Machine().RequestCheckpoint()
		return cpu.Verdict{}
	}
	m2 := build(t, defaultSpec(), q, 1, nil, z)
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

// A rollback restores the irritators' draws with the thread's stream: one
// without a reseed replays the checkpointed span exactly, a reseeded one
// (which reseeds the irritators too) takes another interleaving, and a run
// with a reseeded rollback is still a function of its seed.
func TestIrritatorsRollback(t *testing.T) {
	p := kernel(t, "counter-race")
	s := defaultSpec().fit(p)
	s.cpu.IrritatorProb, s.cpu.IrritatorMaxCycles = 0.2, 200
	spans := func(reseed uint64) (before, after []string, res string) {
		before, after, r := rollbackSpans(t, s, p, reseed, true)
		if r.group(t, "irritators", "delays") == 0 {
			t.Fatalf("reseed %d: no irritator", reseed)
		}
		return before, after, r.digest()
	}
	b, a, _ := spans(0)
	if !slices.Equal(a, b) {
		t.Errorf("a rollback without reseed did not replay the span (cycles included)")
	}
	differ := 0
	for _, r := range []uint64{1, 2, 3} {
		b, a, res := spans(r)
		if !slices.Equal(a, b) {
			differ++
		}
		if _, _, again := spans(r); again != res {
			t.Errorf("reseed %d: two equal runs differ", r)
		}
	}
	if differ == 0 {
		t.Errorf("no reseeded rollback changed the interleaving")
	}
}
