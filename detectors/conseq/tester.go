package conseq

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"weft/core"
	"weft/isa"
)

// The tester (the paper's Step 4, §8): re-run the traced seed with park
// rules that make the critical read r take its value from the alternative
// write w', and see whether the program fails. The target order is
// w → w' → r (w' the last write r sees):
//   - w' ran after r in the correct run (another thread): r waits at its
//     execution for w', and w' waits at its execution until r has arrived
//     (the paper's pair of delays, each with a timeout);
//   - w' ran before w, at a LOOP site: w' waits until w has run (so every
//     later iteration reads w'), and r waits for w' when it is another
//     thread's;
//   - w' ran before w, w not ordered before r: w waits until r has run
//     (the paper's same-thread mode: no other write to the word lands
//     between w' and r);
//   - otherwise: w' waits for w, and r for w';
//   - an uninitialised read: every thread that wrote the word before r
//     waits at that write until r has run.
// Rules park a thread at one dynamic execution of a PC (core.ParkRule.Skip),
// the one the correct run's report names, and every park has the timeout.
// The failure oracles are the run's outcome (assert, error message, hang,
// crash, wrong output against .expect) and its outputs against the traced
// correct run's.

// DefaultTestTimeout is the tester's park timeout in cycles.
const DefaultTestTimeout core.Cycle = 50000

// ParkPoint is one recorded delay point of a test: thread Thread waits at
// the Skip+1st execution of PC until Until (or the timeout).
type ParkPoint struct {
	// Thread, PC and Skip name the dynamic execution it parks before: the
	// core.ParkRule's (a thread's rules fire in order, so Skip counts the
	// arrivals at PC after the thread's previous park point when Relative
	// is set, from the run's start otherwise).
	Thread   int32
	PC       int32
	Skip     uint32
	Relative bool
	// Until says what releases it: "r arrived", "r ran", "w ran", "w' ran".
	Until string
	// Result is what became of it.
	Result core.ParkResult
}

// String spells the point as "thread T at pc P (execution N) until X".
func (p ParkPoint) String() string {
	s := fmt.Sprintf("thread %d at pc %d (execution %d) until %s", p.Thread, p.PC, p.Skip+1, p.Until)
	if p.Relative {
		s = fmt.Sprintf("thread %d at pc %d (arrival %d after its previous park) until %s", p.Thread, p.PC, p.Skip+1, p.Until)
	}
	switch {
	case !p.Result.Parked:
		s += ": never reached"
	case !p.Result.Released:
		s += fmt.Sprintf(": parked at cycle %d, still parked when the run ended", p.Result.ParkedAt)
	case p.Result.TimedOut:
		s += fmt.Sprintf(": parked at cycle %d, released by the timeout at %d", p.Result.ParkedAt, p.Result.ReleasedAt)
	default:
		s += fmt.Sprintf(": parked at cycle %d, released at %d", p.Result.ParkedAt, p.Result.ReleasedAt)
	}
	return s
}

// TestResult is the tester's verdict on one report.
type TestResult struct {
	// Failed says the run failed: its outcome, or outputs that differ from
	// the correct run's.
	Failed bool
	// Forced says r read w''s value (for an uninitialised read: r ran
	// before every write to the word).
	Forced bool
	// Outcome, OutcomePC and OutcomeMsg are the run's.
	Outcome    core.OutcomeKind
	OutcomePC  int32
	OutcomeMsg string
	// Outputs differ from the correct run's.
	OutputsDiffer bool
	// Points are the park points that reproduce it.
	Points []ParkPoint
	// Cycles is the run's length.
	Cycles uint64
	// Instance is the report's execution forced: 0 for its first, k for
	// Also[k-1].
	Instance int
}

// Verdict is "bug" (the order was forced and the run failed), "failed
// (not as forced)" (the run failed without the order: the delays exposed
// some failure), "pruned" (it passed with the order forced: a false
// positive) or "not forced" (it passed and the order could not be
// forced: pruned as well).
func (t TestResult) Verdict() string {
	switch {
	case t.Failed && t.Forced:
		return "bug"
	case t.Failed:
		return "failed (not as forced)"
	case t.Forced:
		return "pruned"
	}
	return "not forced"
}

// Confirmed reports whether the test forced the order and the run failed.
func (t TestResult) Confirmed() bool { return t.Failed && t.Forced }

// Runner re-runs the traced program on the traced run's machine: the
// tester's forced runs. The analysis package provides one over the
// simulator.
type Runner interface {
	// Run runs the program as p says.
	Run(p core.Probe) (core.ProbeResult, error)
}

// Tester re-runs one correct run with a report's order forced.
type Tester struct {
	// Runner runs the traced program on the traced run's machine.
	Runner Runner
	// Prog and Seed are the traced run's.
	Prog *isa.Program
	Seed uint64
	// Outputs are the traced run's outputs (the golden run).
	Outputs []int64
	// Timeout is the park timeout (DefaultTestTimeout when 0).
	Timeout core.Cycle
	rec     *Recorder
}

// NewTester returns the tester of the reports of rec's run (prog, seed),
// which must have passed; run re-runs prog on the traced run's machine.
func NewTester(run Runner, prog *isa.Program, seed uint64, rec *Recorder) (*Tester, error) {
	if !rec.Ended() || !rec.Passed() {
		return nil, fmt.Errorf("conseq: the traced run did not pass: the tester needs a correct run")
	}
	return &Tester{Runner: run, Prog: prog, Seed: seed, Outputs: slices.Clone(rec.outputs), rec: rec}, nil
}

// forcer tracks the three accesses of a test run.
type forcer struct {
	addr                   uint64
	r, w, alt              Ref
	insts                  map[[2]int32]uint32
	rArrived, rDone, wDone bool
	altDone, forced, anyW  bool
	lastIsAlt              bool
	uninit                 bool
}

func (f *forcer) is(e *core.Event, x Ref, n uint32) bool {
	return x.Thread >= 0 && e.Thread == x.Thread && e.PC == x.PC && n == x.Inst
}

// Observe follows the run's accesses.
func (f *forcer) Observe(e *core.Event) {
	if e.Kind != core.KindRead && e.Kind != core.KindWrite && e.Kind != core.KindRMW {
		return
	}
	k := [2]int32{e.Thread, e.PC}
	n := f.insts[k]
	f.insts[k] = n + 1
	if e.Addr != f.addr || e.Flags&core.FlagSync != 0 {
		return
	}
	read, write := e.Reads(), e.Writes()
	if read && f.is(e, f.r, n) {
		f.rDone = true
		if f.uninit {
			f.forced = !f.anyW
		} else {
			f.forced = f.lastIsAlt
		}
	}
	if write {
		f.anyW = true
		f.lastIsAlt = f.is(e, f.alt, n)
		if f.lastIsAlt {
			f.altDone = true
		}
		if f.is(e, f.w, n) {
			f.wDone = true
		}
	}
}

// Test re-runs the seed with rep's order forced, for its first execution
// and then each of rep.Also until a run fails; it returns the failing
// run's result, or the first execution's when none fails.
func (t *Tester) Test(a *Analysis, rep Report) (TestResult, error) {
	first, err := t.testOne(a, rep)
	if err != nil || first.Failed {
		return first, err
	}
	for k, x := range rep.Also {
		one := rep
		one.R, one.W, one.Alt = x.R, x.W, x.Alt
		res, err := t.testOne(a, one)
		if err != nil {
			return res, err
		}
		if res.Failed {
			res.Instance = k + 1
			return res, nil
		}
	}
	return first, nil
}

// testOne re-runs the seed with one execution of rep's order forced.
func (t *Tester) testOne(a *Analysis, rep Report) (TestResult, error) {
	timeout := t.Timeout
	if timeout == 0 {
		timeout = DefaultTestTimeout
	}
	f := &forcer{addr: rep.Addr, r: rep.R, w: rep.W, alt: rep.Alt, insts: map[[2]int32]uint32{}, uninit: rep.Uninit}
	var points []ParkPoint
	var preds []func(core.View) bool
	var anchors []int32 // each point's access in the trace
	rec := t.rec
	// add parks x's thread at x until pred holds. When x is inside a
	// critical section of a lock the other access (other's Seq) also
	// holds, it parks before the acquire that entered that section (the
	// paper's same-lock mode): parked holding the lock, it would hold up
	// the other thread too.
	add := func(x Ref, until string, pred func(core.View) bool, other Ref) {
		pt := ParkPoint{Thread: x.Thread, PC: x.PC, Skip: x.Inst, Until: until}
		if x.Seq >= 0 && other.Seq >= 0 {
			theirs := rec.lockset(rec.at(other.Seq))
			for _, h := range rec.lockset(rec.at(x.Seq)) {
				if holds(theirs, h.lock) && h.acqPC >= 0 && t.Prog.Instrs[h.acqPC].Op == isa.OpLock {
					pt.PC, pt.Skip = h.acqPC, h.acqInst
					pt.Until += " (before the lock)"
					break
				}
			}
		}
		points = append(points, pt)
		preds = append(preds, pred)
		anchors = append(anchors, x.Seq)
	}
	rArrived := func(core.View) bool { return f.rArrived }
	rDone := func(core.View) bool { return f.rDone }
	wDone := func(core.View) bool { return f.wDone }
	// rWaits parks r until w' ran, noting its arrival.
	rWaits := func() {
		add(rep.R, "w' ran", func(core.View) bool { f.rArrived = true; return f.altDone }, rep.Alt)
	}
	wFirst := false // the order needs w before w'
	switch {
	case rep.Uninit:
		seen := map[int32]bool{}
		for _, j := range rec.writesOf(rep.Addr) {
			if j > rep.R.Seq {
				break
			}
			if x := ref(rec, j); !seen[x.Thread] && x.Thread != rep.R.Thread {
				seen[x.Thread] = true
				add(x, "r ran", rDone, rep.R)
			}
		}
	case rep.Alt.Seq > rep.R.Seq:
		rWaits()
		add(rep.Alt, "r arrived", rArrived, rep.R)
	case rep.Site.Kind == LOOP && rep.W.Thread >= 0:
		wFirst = true
		add(rep.Alt, "w ran", wDone, rep.W)
		if rep.Alt.Thread != rep.R.Thread {
			rWaits()
		}
	case rep.W.Thread >= 0 && !rec.hb(rec.at(rep.W.Seq), rec.at(rep.R.Seq)):
		add(rep.W, "r ran", rDone, rep.R)
	default:
		if rep.W.Thread >= 0 {
			wFirst = true
			add(rep.Alt, "w ran", wDone, rep.W)
		}
		if rep.Alt.Thread != rep.R.Thread {
			rWaits()
		}
	}
	// Hold the word's later writes (the first of each other thread after
	// w', w and w' themselves excepted) until r has run, so nothing lands
	// between w' and r (the paper's same-thread mode, for every case).
	if !rep.Uninit {
		held := map[int32]bool{rep.R.Thread: true}
		for _, pt := range points {
			held[pt.Thread] = held[pt.Thread] || strings.HasPrefix(pt.Until, "r ran")
		}
		r := rec.at(rep.R.Seq)
		for _, j := range rec.writesOf(rep.Addr) {
			if j <= rep.Alt.Seq || j == rep.W.Seq {
				continue
			}
			x := rec.at(j)
			// A write r depends on, or one w (which must run first)
			// depends on, cannot wait for r: a cycle of waits.
			if rec.hb(x, r) || wFirst && rec.hb(x, rec.at(rep.W.Seq)) {
				continue
			}
			if !held[x.thread] {
				held[x.thread] = true
				add(ref(rec, j), "r ran", rDone, rep.R)
			}
		}
	}
	// A thread's rules fire in the order they were added, each counting
	// its arrivals from when the one before it was released: add them in
	// the thread's execution order with Skip relative to the previous.
	order := make([]int, len(points))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool {
		px, py := points[order[x]], points[order[y]]
		if px.Thread != py.Thread {
			return px.Thread < py.Thread
		}
		return anchors[order[x]] < anchors[order[y]]
	})
	var kept []ParkPoint
	var keptPreds []func(core.View) bool
	for k, i := range order {
		pt := points[i]
		if k > 0 && points[order[k-1]].Thread == pt.Thread {
			prev := points[order[k-1]]
			rel, ok := t.relativeSkip(prev, anchors[order[k-1]], pt, anchors[i])
			if !ok {
				continue // not expressible: the hold is dropped
			}
			pt.Skip, pt.Relative = rel, true
		}
		kept = append(kept, pt)
		keptPreds = append(keptPreds, preds[i])
	}
	points = kept
	probe := core.Probe{Seed: t.Seed, Watch: []core.Watch{{Kinds: core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW), Observer: f}}}
	for i := range points {
		p := &points[i]
		probe.Parks = append(probe.Parks, core.ParkRule{Thread: p.Thread, PC: p.PC, Skip: p.Skip,
			Wait: core.Wait{Until: core.UntilPredicate, Pred: keptPreds[i], Timeout: timeout}})
	}
	res, err := t.Runner.Run(probe)
	if err != nil {
		return TestResult{}, fmt.Errorf("conseq: test run: %w", err)
	}
	for i := range points {
		points[i].Result = res.Parks[i]
	}
	o := res.Outcome
	out := TestResult{Forced: f.forced, Outcome: o.Kind, OutcomePC: o.PC, OutcomeMsg: o.Msg,
		Points: points, Cycles: uint64(o.Cycle)}
	out.OutputsDiffer = !slices.Equal(res.Outputs, t.Outputs)
	out.Failed = o.Kind.Failed() || out.OutputsDiffer
	return out, nil
}

// relativeSkip returns the Skip of a thread's park point next (anchored at
// trace access b) added after prev (anchored at a): the arrivals at
// next.PC from prev's arrival on. At one PC that is the difference of the
// absolute instances (prev's own arrival counts again once it is
// released); at another, the instances of next.PC the thread executed
// before prev are found from its first recorded access at next.PC (or
// inside a critical section entered there) after a. ok is false when the
// point cannot be expressed.
func (t *Tester) relativeSkip(prev ParkPoint, a int32, next ParkPoint, b int32) (uint32, bool) {
	if next.PC == prev.PC {
		if next.Skip <= prev.Skip {
			return 0, false
		}
		return next.Skip - prev.Skip, true
	}
	rec := t.rec
	lock := t.Prog.Instrs[next.PC].Op == isa.OpLock
	for j := a + 1; j <= b && j < rec.count(); j++ {
		x := rec.at(j)
		if x.thread != next.Thread {
			continue
		}
		before := uint32(0)
		found := false
		if lock {
			for _, h := range rec.lockset(x) {
				if h.acqPC == next.PC {
					before, found = h.acqInst, true
				}
			}
		} else if x.pc == next.PC {
			before, found = x.inst, true
		}
		if found {
			if next.Skip < before {
				return 0, false
			}
			return next.Skip - before, true
		}
	}
	return 0, false
}

// Describe spells the result in one line.
func (t TestResult) Describe() string {
	var b strings.Builder
	b.WriteString(t.Verdict())
	if t.Instance > 0 {
		fmt.Fprintf(&b, " (execution %d of the triple)", t.Instance+1)
	}
	switch {
	case t.Outcome.Failed():
		fmt.Fprintf(&b, ": %s at pc %d (%s)", t.Outcome, t.OutcomePC, t.OutcomeMsg)
	case t.OutputsDiffer:
		b.WriteString(": the outputs differ from the correct run's")
	}
	return b.String()
}
