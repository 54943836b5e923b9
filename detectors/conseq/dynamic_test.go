package conseq

import (
	"reflect"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// ev builds an event of thread t at pc.
func ev(k core.Kind, t int32, pc int32, addr uint64, v int64) core.Event {
	return core.Event{Kind: k, Thread: t, PC: pc, Addr: addr, Value: v, Core: t}
}

const (
	xAddr = isa.DataBase
	lockL = isa.DataBase + 64
)

// traceOf feeds events to a recorder of a 16-nop program that records
// every read.
func traceOf(t *testing.T, evs ...core.Event) *Recorder {
	t.Helper()
	p := &isa.Program{Instrs: make([]isa.Instruction, 16), Data: make([]int64, 16)}
	rec := NewRecorder(p, nil, nil)
	for i := range evs {
		rec.Observe(&evs[i])
	}
	return rec
}

// at returns the recorded access of thread t at pc (the first).
func at(t *testing.T, rec *Recorder, th int32, pc int32) *access {
	t.Helper()
	for i := int32(0); i < rec.count(); i++ {
		if a := rec.at(i); a.thread == th && a.pc == pc {
			return a
		}
	}
	t.Fatalf("no access of thread %d at pc %d", th, pc)
	return nil
}

func spawnEv(parent, child int32) core.Event {
	e := ev(core.KindSpawn, parent, 9, 0, int64(child))
	e.Words[0] = uint64(child)
	return e
}

func joinEv(joiner, joined int32) core.Event {
	e := ev(core.KindJoin, joiner, 10, 0, int64(joined))
	e.Words[0] = uint64(joined)
	return e
}

// TestAlgorithm1Rules checks each rule of Algorithm 1 on a hand-built
// trace. PCs: 1 = w, 2 = w', 3 = r.
func TestAlgorithm1Rules(t *testing.T) {
	acq := func(th int32) core.Event { return ev(core.KindAcquire, th, 8, lockL, 0) }
	rel := func(th int32) core.Event { return ev(core.KindRelease, th, 8, lockL, 0) }
	W := func(th, pc int32, v int64) core.Event { return ev(core.KindWrite, th, pc, xAddr, v) }
	R := func(th, pc int32, v int64) core.Event { return ev(core.KindRead, th, pc, xAddr, v) }
	cases := []struct {
		name string
		evs  []core.Event
		want bool
	}{
		{"r happens before w' (spawn)", []core.Event{spawnEv(0, 1), W(1, 1, 1), R(0, 3, 1), spawnEv(0, 2), W(2, 2, 2)}, false},
		{"w' then w in program order, w before r (join)", []core.Event{spawnEv(0, 1), W(1, 2, 2), W(1, 1, 1),
			ev(core.KindThreadExit, 1, 11, 0, 0), joinEv(0, 1), R(0, 3, 1)}, false},
		{"w' concurrent with w, both before r: feasible", []core.Event{spawnEv(0, 1), spawnEv(0, 2), W(2, 2, 2), W(1, 1, 1),
			R(1, 3, 1)}, true},
		{"locks give no order: feasible", []core.Event{spawnEv(0, 1), spawnEv(0, 2), acq(1), W(1, 1, 1), rel(1),
			acq(0), R(0, 3, 1), rel(0), acq(2), W(2, 2, 2), rel(2)}, true},
		{"mutual exclusion 1: w then r in one critical section", []core.Event{spawnEv(0, 1), spawnEv(0, 2),
			acq(2), W(2, 2, 2), rel(2), acq(1), W(1, 1, 1), R(1, 3, 1), rel(1)}, false},
		{"w and r in two critical sections: feasible (pitfall 1)", []core.Event{spawnEv(0, 1), spawnEv(0, 2),
			acq(2), W(2, 2, 2), rel(2), acq(1), W(1, 1, 1), rel(1), acq(1), R(1, 3, 1), rel(1)}, true},
		{"mutual exclusion 2: w' then w in one critical section", []core.Event{spawnEv(0, 1), spawnEv(0, 2),
			acq(2), W(2, 2, 2), W(2, 1, 1), rel(2), acq(1), R(1, 3, 1), rel(1)}, false},
		{"w' and w in two critical sections: feasible", []core.Event{spawnEv(0, 1), spawnEv(0, 2),
			acq(2), W(2, 2, 2), rel(2), acq(2), W(2, 1, 1), rel(2), acq(1), R(1, 3, 1), rel(1)}, true},
		{"same-thread w' concurrent with w: feasible (anti-atomicity)", []core.Event{spawnEv(0, 1), W(0, 2, 2),
			W(1, 1, 1), R(0, 3, 1)}, true},
		{"same-thread w' after r: infeasible", []core.Event{spawnEv(0, 1), W(1, 1, 1), R(0, 3, 1), W(0, 2, 2)}, false},
	}
	for _, c := range cases {
		rec := traceOf(t, c.evs...)
		var r, w, alt *access
		for i := int32(0); i < rec.count(); i++ {
			switch rec.at(i).pc {
			case 3:
				r = rec.at(i)
			case 2:
				alt = rec.at(i)
			}
		}
		if r.src >= 0 {
			w = rec.at(r.src)
		}
		if w == nil || w.pc != 1 {
			t.Fatalf("%s: r read from %+v, want the write at pc 1", c.name, w)
		}
		if got := rec.feasible(w, alt, r); got != c.want {
			t.Errorf("%s: feasible %v, want %v", c.name, got, c.want)
		}
	}
}

const pruneSrc = `
.data
x:  .word 3
.text
main:   ld    r1, x
        sne   r2, r1, 0
        assert r2, "x is not zero"
        exit
writer: st    r3, x
        exit
`

// TestPruning checks value pruning, the condition evaluation and the
// uninitialised-read extension on one hand-built trace of pruneSrc.
func TestPruning(t *testing.T) {
	p := asm(t, pruneSrc)
	a := analyze(t, p, Options{})
	ld, st := pcOf(t, p, "ld r1"), pcOf(t, p, "st r3")
	run := func(alt int64, cfg Config) []Report {
		rec := a.NewTraceRecorder(cfg)
		// Thread 1 writes w' and then w; thread 0 reads w.
		evs := []core.Event{spawnEv(0, 1), ev(core.KindWrite, 1, st, xAddr, alt), ev(core.KindWrite, 1, st, xAddr, 5),
			ev(core.KindRead, 0, ld, xAddr, 5)}
		for i := range evs {
			rec.Observe(&evs[i])
		}
		return a.Analyse(rec, cfg).Reports
	}
	// w' wrote 0: the assert fails with it. The initial 3 passes it.
	if reps := run(0, Config{}); len(reps) != 1 || reps[0].Alt.Value != 0 || reps[0].Condition != "violated" {
		t.Errorf("w' = 0: reports %+v, want one with the condition violated", reps)
	}
	// w' wrote 7: the condition holds, pruned; without the condition check
	// it is reported (and the initial value 3 as an uninitialised read).
	if reps := run(7, Config{}); len(reps) != 0 {
		t.Errorf("w' = 7: reports %+v, want none (condition holds)", reps)
	}
	if reps := run(7, Config{NoCondition: true}); len(reps) != 2 {
		t.Errorf("w' = 7 without the condition: %d reports, want 2 (w' and the initial value)", len(reps))
	}
	// w' wrote the value r read: value pruning.
	if reps := run(5, Config{NoCondition: true}); len(reps) != 1 || !reps[0].Uninit {
		t.Errorf("w' = 5: reports %+v, want only the uninitialised read", reps)
	}
	if reps := run(5, Config{NoCondition: true, NoValuePruning: true}); len(reps) != 2 {
		t.Errorf("w' = 5 without value pruning: %d reports, want 2", len(reps))
	}
}

// cqRows are the ConSeq Table 3 rows' kernels.
var cqRows = []string{"cq-aget1", "cq-fft", "cq-mysql1", "cq-moz1", "cq-mysql2", "cq-trans", "cq-moz2", "cq-moz3",
	"cq-mysql3", "cq-mysql4", "cq-oo"}

// isBugReport reports whether a report involves the bug: its read and its
// alternative write (or an uninitialised read) are @bug.
func isBugReport(p *isa.Program, r Report) bool {
	return p.Instrs[r.R.PC].Bug && (r.Uninit || p.Instrs[r.Alt.PC].Bug)
}

// TestKernelsDetectAndTest runs the pipeline on every Table 3 row: the
// first passing seed is traced, ConSeq reports the bug on every row but
// Aget1, and the tester makes each detected row's program fail.
func TestKernelsDetectAndTest(t *testing.T) {
	for _, name := range cqRows {
		p, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), p)
		a := analyze(t, p, Options{})
		var rec *Recorder
		seed := uint64(1)
		for ; seed < 100; seed++ {
			rec = a.NewTraceRecorder(Config{})
			if _, err := sim.Run(cfg, p, seed, sim.WithObserver(rec.Kinds(), rec)); err != nil {
				t.Fatal(err)
			}
			if rec.Passed() {
				break
			}
		}
		res := a.Analyse(rec, Config{})
		tr, err := NewTester(sim.Runner{Config: cfg, Program: p}, p, seed, rec)
		if err != nil {
			t.Fatal(err)
		}
		detected, exposed := false, false
		for _, r := range res.Reports {
			if !isBugReport(p, r) {
				continue
			}
			detected = true
			tres, err := tr.Test(a, r)
			if err != nil {
				t.Fatal(err)
			}
			if tres.Failed && !exposed {
				// Reproducible: the same park points give the same run.
				again, err := tr.Test(a, r)
				if err != nil {
					t.Fatal(err)
				}
				if again.Outcome != tres.Outcome || again.Cycles != tres.Cycles || again.Forced != tres.Forced ||
					len(again.Points) != len(tres.Points) {
					t.Errorf("%s: the test is not reproducible: %+v then %+v", name, tres, again)
				}
				for k := range again.Points {
					if again.Points[k] != tres.Points[k] {
						t.Errorf("%s: park point %d: %v then %v", name, k, tres.Points[k], again.Points[k])
					}
				}
			}
			exposed = exposed || tres.Failed
		}
		if want := name != "cq-aget1"; detected != want || exposed != want {
			t.Errorf("%s (seed %d): detected %v, exposed by the tester %v; want %v", name, seed, detected, exposed, want)
		}
	}
}

// TestDeterministic checks that a recording and its analysis are a pure
// function of (config, program, seed), and that the recorder changes no
// cycle of the run.
func TestDeterministic(t *testing.T) {
	p, err := workloads.Program("cq-moz2")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), p)
	a := analyze(t, p, Options{})
	var prev []Report
	for i := 0; i < 2; i++ {
		rec := a.NewTraceRecorder(Config{})
		res, err := sim.Run(cfg, p, 1, sim.WithObserver(rec.Kinds(), rec))
		if err != nil {
			t.Fatal(err)
		}
		bare, _ := sim.Run(cfg, p, 1)
		if res.Cycles != bare.Cycles || res.Instructions != bare.Instructions {
			t.Errorf("the recorder changed the run: %d cycles, %d bare", res.Cycles, bare.Cycles)
		}
		reps := a.Analyse(rec, Config{}).Reports
		if i == 1 && len(reps) != len(prev) {
			t.Fatalf("run %d: %d reports, %d before", i, len(reps), len(prev))
		}
		for k := range prev {
			if !reflect.DeepEqual(reps[k], prev[k]) {
				t.Errorf("report %d differs: %+v vs %+v", k, reps[k], prev[k])
			}
		}
		prev = reps
	}
}

// TestInvariantSiteAget1 checks ConSeq-Daikon on Aget1: missed at
// MaxDistance 4, found with the invariants learned from 20 passing runs as
// INV sites, and exposed by the tester.
func TestInvariantSiteAget1(t *testing.T) {
	p, err := workloads.Program("cq-aget1")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), p)
	tr := NewTrainer(p, TrainOptions{})
	traced := uint64(0)
	for seed := uint64(1); ; seed++ {
		res, err := sim.Run(cfg, p, seed, sim.WithObserver(tr.Kinds(), tr))
		if err != nil {
			t.Fatal(err)
		}
		tr.EndRun(res.Outcome == core.Pass)
		if res.Outcome == core.Pass && traced == 0 {
			traced = seed
		}
		if n, _ := tr.Runs(); n == 20 {
			break
		}
	}
	invs := tr.Invariants()
	a := analyze(t, p, Options{})
	rec := a.NewTraceRecorder(Config{Invariants: invs})
	if _, err := sim.Run(cfg, p, traced, sim.WithObserver(rec.Kinds(), rec)); err != nil {
		t.Fatal(err)
	}
	plain := a.Analyse(rec, Config{})
	withInv := a.Analyse(rec, Config{Invariants: invs})
	count := func(res *Result) (bug, inv int) {
		for _, r := range res.Reports {
			if isBugReport(p, r) {
				bug++
			}
			if r.Site.Kind == INV {
				inv++
			}
		}
		return
	}
	if b, _ := count(plain); b != 0 {
		t.Errorf("without invariants: %d bug reports, want 0 (Aget1 is beyond MaxDistance)", b)
	}
	b, n := count(withInv)
	if b == 0 {
		t.Fatalf("with %d invariants: no bug report (%d INV reports)", len(invs), n)
	}
	tester, err := NewTester(sim.Runner{Config: cfg, Program: p}, p, traced, rec)
	if err != nil {
		t.Fatal(err)
	}
	exposed := false
	for _, r := range withInv.Reports {
		if r.Site.Kind == INV && isBugReport(p, r) {
			res, err := tester.Test(a, r)
			if err != nil {
				t.Fatal(err)
			}
			exposed = exposed || res.Failed
		}
	}
	if !exposed {
		t.Error("no INV bug report was exposed by the tester")
	}
	t.Logf("%d invariants; %d INV reports, %d of them the bug", len(invs), n, b)
}

const routineSrc = `
.data
x:  .word 1
.text
main:   ld    r1, x
        bnez  r1, ok
        call  report_error
ok:     exit
report_error: li r2, 7
        ret
`

// TestCustomRoutines checks the paper's custom routine lists: a call to a
// listed error routine is an ERR site whose guard's load is at 1, and a
// listed name the program lacks is an error naming it.
func TestCustomRoutines(t *testing.T) {
	p := asm(t, routineSrc)
	if a := analyze(t, p, Options{}); len(a.Sites) != 0 {
		t.Fatalf("without the list: sites %v, want none", a.Sites)
	}
	a := analyze(t, p, Options{ErrorRoutines: []string{"report_error"}})
	call := pcOf(t, p, "call")
	s, ok := a.Site(call)
	if !ok || s.Site.Kind != ERR {
		t.Fatalf("sites %v: want an ERR site at the call (pc %d)", a.Sites, call)
	}
	if got := readsOf(t, a, call); len(got) != 1 || got[pcOf(t, p, "ld r1")] != 1 {
		t.Errorf("reads %v: want the guard's load at 1", got)
	}
	// The evaluator: x = 0 reaches the call.
	rec := a.NewTraceRecorder(Config{})
	evs := []core.Event{spawnEv(0, 1), ev(core.KindWrite, 1, 0, xAddr, 0), ev(core.KindWrite, 1, 0, xAddr, 5),
		ev(core.KindRead, 0, pcOf(t, p, "ld r1"), xAddr, 5)}
	for i := range evs {
		rec.Observe(&evs[i])
	}
	if reps := a.Analyse(rec, Config{}).Reports; len(reps) != 1 || reps[0].Alt.Value != 0 || reps[0].Condition != "violated" {
		t.Errorf("reports %+v: want w' = 0 violating the call site", reps)
	}
	for _, o := range []Options{{ErrorRoutines: []string{"nope"}}, {AssertRoutines: []string{"report_error"}, OutputRoutines: []string{"report_error"}}} {
		if _, err := Analyze(p, o); err == nil {
			t.Errorf("Analyze(%+v) succeeded", o)
		}
	}
}

// TestSpinFlagRecogniser checks the ad-hoc synchronisation recogniser on
// msgpass (a producer publishes data and sets a flag a consumer spins
// on): the spin loop is recognised, and its happens-before edge removes
// the reports on the published data that the recogniser off leaves.
func TestSpinFlagRecogniser(t *testing.T) {
	p, err := workloads.Program("msgpass")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), p)
	a := analyze(t, p, Options{})
	if n := len(a.SpinLoops()); n == 0 {
		t.Fatal("no spin-flag loop recognised in msgpass")
	}
	count := func(c Config) int {
		rec := a.NewTraceRecorder(c)
		if _, err := sim.Run(cfg, p, 1, sim.WithObserver(rec.Kinds(), rec)); err != nil {
			t.Fatal(err)
		}
		if !rec.Passed() {
			t.Fatal("msgpass seed 1 fails")
		}
		return len(a.Analyse(rec, c).Reports)
	}
	on, off := count(Config{}), count(Config{NoAdHocSync: true})
	if on >= off {
		t.Errorf("reports with the recogniser %d, without %d: want fewer with it", on, off)
	}
	t.Logf("msgpass: %d reports with the spin-flag recogniser, %d without", on, off)
}
