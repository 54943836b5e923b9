package conseq

// The dynamic side on traced runs of small programs: what the recorder
// stamps and follows, the condition evaluator, and the tester's park rules.

import (
	"testing"

	"weft/configs"
	"weft/core"
	"weft/sim"
)

// traceRun runs p on seed with a's recorder and returns it.
func traceRun(t *testing.T, a *Analysis, cfg Config, seed uint64) (*Recorder, configs.Config) {
	t.Helper()
	scfg, _ := sim.FitCores(configs.Default(), a.Prog)
	rec := a.NewTraceRecorder(cfg)
	res, err := sim.Run(scfg, a.Prog, seed, sim.WithObserver(rec.Kinds(), rec))
	if err != nil {
		t.Fatal(err)
	}
	if res.Outcome != core.Pass {
		t.Fatalf("traced run %s: %s", res.Outcome, res.OutcomeMsg)
	}
	return rec, scfg
}

// An RMW's read cannot read the RMW's own write, yet the recorder stamps
// both halves with one clock, so neither happens before the other and
// Algorithm 1 calls the self pair feasible.
const rmwSelfSrc = `
.data
x:  .word 0
.text
main:   spawn  r10, worker, r0
        join   r10
        fadd   r1, x, 1
        out    r1
        exit
worker: li     r2, 5
        st     r2, x
        exit
`

func TestRMWReadNotFromItsOwnWrite(t *testing.T) {
	p := asm(t, rmwSelfSrc)
	a := analyze(t, p, Options{})
	rec, _ := traceRun(t, a, Config{}, 1)
	for _, r := range a.Analyse(rec, Config{}).Reports {
		if r.Alt.Seq >= 0 && r.Alt.Thread == r.R.Thread && r.Alt.PC == r.R.PC && r.Alt.Inst == r.R.Inst {
			t.Errorf("the fadd's read is reported as able to read its own write: %s", a.Describe(r))
		}
	}
}

// An INV site's other words (y of x == y) are not in the recorder's word
// filter, so the invariant is evaluated with y's initial value, not its
// value before r: w' (x = 0) breaks x == y (y is 5) but is dropped because
// y's initial value is 0.
const invWatchSrc = `
.data
x:  .word 0
    .align 64
y:  .word 0
    .align 64
.text
main:   spawn  r10, t1, r0
        spawn  r11, t2, r0
        join   r10
        join   r11
        ld     r1, x
        exit
t1:     delay  400, 400
        li     r2, 5
        st     r2, y
        st     r2, x
        exit
t2:     li     r3, 9
        st     r3, x
        st     r0, x
        exit
`

func TestInvariantOtherWordRecorded(t *testing.T) {
	p := asm(t, invWatchSrc)
	a := analyze(t, p, Options{})
	ld := pcOf(t, p, "ld r1")
	x, y := p.Symbols[0].Addr, p.Symbols[1].Addr
	for _, s := range p.Symbols {
		switch s.Name {
		case "x":
			x = s.Addr
		case "y":
			y = s.Addr
		}
	}
	cfg := Config{Invariants: []Invariant{{PC: ld, Kind: InvEqual, Addr: x, Other: y}}}
	rec, _ := traceRun(t, a, cfg, 1)
	if got := rec.valueBefore(y, rec.count()); got != 5 {
		t.Logf("y's value at the end as the trace knows it: %d (the run wrote 5)", got)
	}
	zero := false
	for _, r := range a.Analyse(rec, cfg).Reports {
		t.Logf("%s", a.Describe(r))
		if r.Alt.Value == 0 && !r.Uninit {
			zero = true
		}
	}
	if !zero {
		t.Errorf("w' = 0 (x = 0 while y = 5) breaks x == y but is not reported")
	}
}

// The condition evaluator loads words between r and the site from the
// trace; a word no critical read touches is not recorded, so it reads the
// data image's initial value. At MaxDistance 2 x is critical (distance 2)
// but y is not (4 steps from the assert) and the evaluator sees y = 1 (initial) instead of
// 0 (written before r): the assert "cannot fail" and the real bug is
// dropped. At MaxDistance 4 the same trace reports it.
const evalWatchSrc = `
.data
x:   .word 0
     .align 64
y:   .word 1
     .align 64
tmp: .word 0
     .align 64
tmp2: .word 0
     .align 64
.text
main:   spawn  r10, t1, r0
        delay  300, 300
        ld     r1, x
        beqz   r1, done
        ld     r2, y
        st     r2, tmp
        ld     r3, tmp
        st     r3, tmp2
        ld     r5, tmp2
        assert r5, "y is set"
done:   join   r10
        exit
t1:     st     r0, y
        delay  600, 600
        li     r4, 1
        st     r4, x
        exit
`

func TestEvaluatorUnrecordedWordsUnknown(t *testing.T) {
	p := asm(t, evalWatchSrc)
	for _, md := range []int{4, 2} {
		a := analyze(t, p, Options{MaxDistance: md})
		rec, _ := traceRun(t, a, Config{}, 1)
		found := false
		for _, r := range a.Analyse(rec, Config{}).Reports {
			t.Logf("md %d: %s", md, a.Describe(r))
			if r.R.PC == pcOf(t, p, "ld r1") && r.Alt.Value == 1 {
				found = true
			}
		}
		if !found {
			t.Errorf("max distance %d: x = 1 reaching the read (then y = 0 fails the assert) is not reported", md)
		}
	}
}

// The tester holds the alternative writer's next write to the word until r
// has run, with a second park rule on that thread whose Skip is the
// write's absolute instance. But rules of one thread are armed one at a
// time, in the order added, and a rule counts arrivals only while armed:
// the hold rule counts from w”s release, so it parks at a later execution
// (or never), the writer's next write lands between w' and r, and a real
// bug is "not forced".
const skipSrc = `
.data
x:  .word 0
    .align 64
.text
main:   spawn  r10, writer, r0
        delay  250, 250
        ld     r1, x
        sne    r2, r1, 2
        assert r2, "x is not 2"
        join   r10
        exit
writer: li     r3, 1
wloop:  st     r3, x
        bne    r3, 1, nodly
        delay  400, 400
nodly:  add    r3, r3, 1
        blt    r3, 4, wloop
        exit
`

func TestTesterSecondRuleSkip(t *testing.T) {
	p := asm(t, skipSrc)
	a := analyze(t, p, Options{})
	rec, scfg := traceRun(t, a, Config{}, 1)
	reps := a.Analyse(rec, Config{}).Reports
	tr, err := NewTester(sim.Runner{Config: scfg, Program: p}, p, 1, rec)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range reps {
		t.Logf("%s", a.Describe(r))
		if r.Alt.Value != 2 {
			continue
		}
		found = true
		res, err := tr.Test(a, r)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tester: %s", res.Describe())
		for _, pt := range res.Points {
			t.Logf("  park %s", pt)
		}
		if res.Verdict() != "bug" {
			t.Errorf("x = 2 reaching the read fails the assert, but the tester says %q", res.Verdict())
		}
	}
	if !found {
		t.Fatal("no report of w' = 2")
	}
}

// The tester's hold rules park every other thread's first write after w'
// until r has ran, w excepted; but a writer's earlier write to the word,
// before w in its own program order, is held too. At a LOOP site w' then
// waits for w, w's thread waits (before w) for r, and r's thread waits at
// w': a cycle only the timeouts break. w' times out first and runs before
// w, so the loop ends: the real hang is "pruned".
const loopHoldSrc = `
.data
pending: .word 0
         .align 64
.text
main:    spawn  r10, handler, r0
         li     r2, 1
         st     r2, pending         # S1: request (w')
         li     r3, 0
wait:    add    r3, r3, 1
         blt    r3, 300, poll
         fail   "infinite loop"
         exit
poll:    delay  20, 20
         ld     r4, pending         # r
         bnez   r4, wait
         join   r10
         exit
handler: delay  100, 100
         li     r5, 2
         st     r5, pending         # refreshing
         delay  100, 100
         st     r0, pending         # S2: done (w)
         exit
`

func TestTesterReleasesWritesBeforeW(t *testing.T) {
	p := asm(t, loopHoldSrc)
	a := analyze(t, p, Options{})
	rec, scfg := traceRun(t, a, Config{}, 1)
	tr, err := NewTester(sim.Runner{Config: scfg, Program: p}, p, 1, rec)
	if err != nil {
		t.Fatal(err)
	}
	s1 := pcOf(t, p, "st r2, pending")
	found := false
	for _, r := range a.Analyse(rec, Config{}).Reports {
		t.Logf("%s", a.Describe(r))
		if r.Site.Kind != LOOP || r.Alt.PC != s1 {
			continue
		}
		found = true
		res, err := tr.Test(a, r)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("tester: %s", res.Describe())
		for _, pt := range res.Points {
			t.Logf("  park %s", pt)
		}
		if res.Verdict() != "bug" {
			t.Errorf("S1 after S2 hangs the wait loop, but the tester says %q", res.Verdict())
		}
	}
	if !found {
		t.Fatal("no LOOP report of w' = S1")
	}
}

// The evaluator calls a path safe the first time it passes the site with
// the condition holding, but the thread may come back to the site (a
// loop bounded by r's value): w' = 10 fails the assert at i = 5, yet the
// first iteration (i = 0) passes and the report is dropped.
const evalLoopSrc = `
.data
n:  .word 3
    .align 64
.text
main:   spawn  r10, t1, r0
        ld     r1, n
        li     r2, 0
loop:   slt    r3, r2, 5
        assert r3, "i < 5"
        add    r2, r2, 1
        blt    r2, r1, loop
        join   r10
        exit
t1:     delay  300, 300
        li     r4, 10
        st     r4, n
        exit
`

func TestEvaluatorSiteRevisited(t *testing.T) {
	p := asm(t, evalLoopSrc)
	a := analyze(t, p, Options{})
	rec, _ := traceRun(t, a, Config{}, 1)
	found := false
	for _, r := range a.Analyse(rec, Config{}).Reports {
		t.Logf("%s", a.Describe(r))
		if r.Site.Kind == ASS && r.Alt.Value == 10 {
			found = true
		}
	}
	if !found {
		t.Errorf("n = 10 fails the assert at i = 5, but no ASS report")
	}
}
