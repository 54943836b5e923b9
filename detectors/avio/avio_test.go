package avio_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/detectors/avio"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// assemble assembles a hand-built test program.
func assemble(t *testing.T, src string) *isa.Program {
	t.Helper()
	p, err := isa.Assemble("test.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// handRun runs a hand-built program on the default machine without jitter,
// so `work` orders its accesses deterministically.
func handRun(t *testing.T, p *isa.Program, opts avio.Options) []core.Finding {
	t.Helper()
	fs, _ := handRunOrder(t, p, opts)
	return fs
}

// handRunOrder is handRun that also returns the PCs of the data accesses
// to symbol x, in stream order.
func handRunOrder(t *testing.T, p *isa.Program, opts avio.Options) ([]core.Finding, []int32) {
	t.Helper()
	cfg, _ := sim.FitCores(configs.Default(), p)
	cfg.Sim.JitterCycles = 0
	d := avio.New(p, opts)
	x, _ := p.SymbolAddr("x")
	var order []int32
	rec := core.ObserverFunc(func(e *core.Event) {
		if e.Addr == x && e.Kind <= core.KindRMW {
			order = append(order, e.PC)
		}
	})
	r, err := sim.Run(cfg, p, 1, sim.WithObserver(d.Kinds(), d), sim.WithObserver(d.Kinds(), rec))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("outcome %s %s", r.Outcome, r.OutcomeMsg)
	return d.Findings(), order
}

func pcs(t *testing.T, p *isa.Program, labels ...string) []int32 {
	t.Helper()
	var out []int32
	for _, l := range labels {
		pc, ok := p.LabelPC(l)
		if !ok {
			t.Fatalf("no label %s", l)
		}
		out = append(out, pc)
	}
	return out
}

const header = `
.cores 3
.data
x:   .word 0
     .align 64
.text
main:  spawn r10, t1, r0
       spawn r11, t2, r0
       join r10
       join r11
       exit
`

func op(write bool) string {
	if write {
		return "st r0, x"
	}
	return "ld r2, x"
}

// TestEightCases forces each of AVIO's eight (local, remote, local) cases
// on one word: t1 accesses x twice, 3000 cycles apart, and t2 accesses it
// once in between. The four unserializable cases are reported with exactly
// [I_p, I_r, I_c]; the four serializable ones are not reported.
func TestEightCases(t *testing.T) {
	for k := 0; k < 8; k++ {
		pw, rw, cw := k&4 != 0, k&2 != 0, k&1 != 0
		name := avio.Case(pw, rw, cw)
		t.Run(name, func(t *testing.T) {
			p := assemble(t, header+fmt.Sprintf(`
t1:    li r3, 7
ip:    %s
       work 3000
ic:    %s
       exit
t2:    work 1500
ir:    %s
       exit`, op(pw), op(cw), op(rw)))
			fs, order := handRunOrder(t, p, avio.Options{})
			want := pcs(t, p, "ip", "ir", "ic")
			if !slices.Equal(order, want) {
				t.Fatalf("accesses to x at pcs %v, want %v", order, want)
			}
			if !avio.Unserializable(pw, rw, cw) {
				if len(fs) != 0 {
					t.Errorf("serializable %s reported: %v", name, fs)
				}
				return
			}
			if len(fs) != 1 || !slices.Equal(fs[0].PCs, want) {
				t.Fatalf("findings %v, want one with PCs %v", fs, want)
			}
			f := fs[0]
			x, _ := p.SymbolAddr("x")
			if f.Detector != "avio" || f.Kind != "atomicity" || f.Addr != x || f.Score != 1 ||
				!strings.HasPrefix(f.Message, name+" on x: ") {
				t.Errorf("finding %+v", f)
			}
		})
	}
}

// TestUnserializableTable checks the case table itself.
func TestUnserializableTable(t *testing.T) {
	var bad []string
	for k := 0; k < 8; k++ {
		pw, rw, cw := k&4 != 0, k&2 != 0, k&1 != 0
		if avio.Unserializable(pw, rw, cw) {
			bad = append(bad, avio.Case(pw, rw, cw))
		}
	}
	slices.Sort(bad)
	if want := []string{"R-W-R", "R-W-W", "W-R-W", "W-W-R"}; !slices.Equal(bad, want) {
		t.Errorf("unserializable cases %v, want %v", bad, want)
	}
}

// TestLaterRemoteRead: a remote read after the remote write does not hide
// R-W-R (the pset-aget shape that a last-access-only AVIO misses), and a
// second remote write is reported as its own I_r only when it is the last.
func TestLaterRemoteRead(t *testing.T) {
	p := assemble(t, header+`
t1:    li r3, 7
ip:    ld r2, x
       work 3000
ic:    ld r2, x
       exit
t2:    work 1000
ir:    st r0, x
       work 500
       ld r2, x
       exit`)
	fs := handRun(t, p, avio.Options{})
	if want := pcs(t, p, "ip", "ir", "ic"); len(fs) != 1 || !slices.Equal(fs[0].PCs, want) {
		t.Errorf("findings %v, want one with PCs %v", fs, want)
	}
}

// TestRMW: a remote fadd between two reads is a remote write (R-W-R) both
// as an atomic and with RMWPlain; three fadds, one remote between two local
// ones, are W-W-W (serializable) as atomics but W-W-R with RMWPlain, where
// the second local fadd's read is I_c.
func TestRMW(t *testing.T) {
	p := assemble(t, header+`
t1:    li r3, 7
ip:    ld r2, x
       work 3000
ic:    ld r2, x
       exit
t2:    work 1500
ir:    fadd r2, x, 1
       exit`)
	for _, o := range []avio.Options{{}, {RMWPlain: true}} {
		fs := handRun(t, p, o)
		if want := pcs(t, p, "ip", "ir", "ic"); len(fs) != 1 || !slices.Equal(fs[0].PCs, want) || !strings.HasPrefix(fs[0].Message, "R-W-R") {
			t.Errorf("%+v: findings %v, want R-W-R with PCs %v", o, fs, want)
		}
	}
	q := assemble(t, header+`
t1:    li r3, 7
ip:    fadd r2, x, 1
       work 3000
ic:    fadd r2, x, 1
       exit
t2:    work 1500
ir:    fadd r2, x, 1
       exit`)
	if fs := handRun(t, q, avio.Options{}); len(fs) != 0 {
		t.Errorf("atomic fadds: findings %v, want none (W-W-W)", fs)
	}
	fs := handRun(t, q, avio.Options{RMWPlain: true})
	if want := pcs(t, q, "ip", "ir", "ic"); len(fs) != 1 || !slices.Equal(fs[0].PCs, want) || !strings.HasPrefix(fs[0].Message, "W-W-R") {
		t.Errorf("RMWPlain fadds: findings %v, want W-W-R with PCs %v", fs, want)
	}
}

// TestFreeAndCrash: main's free between t1's two loads is a remote write,
// and the second load, which faults on the freed word, is I_c.
func TestFreeAndCrash(t *testing.T) {
	p := assemble(t, `
.cores 3
.text
main:  alloc r5, 1
       spawn r10, t1, r5
       work 1500
fr:    free [r5], 1
       join r10
       exit
t1:    li r3, 7
ip:    ld r2, [r1]
       work 3000
ic:    ld r2, [r1]
       exit`)
	fs := handRun(t, p, avio.Options{})
	if want := pcs(t, p, "ip", "fr", "ic"); len(fs) != 1 || !slices.Equal(fs[0].PCs, want) || !strings.HasPrefix(fs[0].Message, "R-W-R on heap") {
		t.Errorf("findings %v, want R-W-R with PCs %v", fs, want)
	}
}

// TestLearner: a pair seen unserializably interleaved in training is no
// longer an invariant; an unseen pair still is.
func TestLearner(t *testing.T) {
	f := func(p, r, c int32) core.Finding {
		return core.Finding{Detector: "avio", Kind: "atomicity", PCs: []int32{p, r, c}, Addr: 0x10000, Score: 1, Message: "R-W-R"}
	}
	l := avio.NewLearner()
	if l.Runs() != 0 {
		t.Fatal("fresh learner has runs")
	}
	// Before training every pair is an invariant.
	if v := l.Violations([]core.Finding{f(1, 2, 3)}); len(v) != 1 || v[0].Kind != "violation" {
		t.Errorf("untrained: %v", v)
	}
	l.Train([]core.Finding{f(1, 2, 3), {Detector: "hb", Kind: "race", PCs: []int32{5, 9, 7}}})
	l.Train(nil)
	if l.Runs() != 2 {
		t.Errorf("runs %d, want 2", l.Runs())
	}
	v := l.Violations([]core.Finding{f(1, 8, 3), f(5, 9, 7), f(4, 2, 3)})
	// (1, 3) was interleaved in training, whatever the remote; (5, 7) only
	// in another detector's finding; (4, 3) never.
	if len(v) != 2 || !slices.Equal(v[0].PCs, []int32{4, 2, 3}) || !slices.Equal(v[1].PCs, []int32{5, 9, 7}) {
		t.Fatalf("violations %v", v)
	}
	for _, x := range v {
		if x.Detector != "avio" || x.Kind != "violation" || !strings.Contains(x.Message, "R-W-R") {
			t.Errorf("violation %+v", x)
		}
	}
}

type runOut struct {
	seed     uint64
	res      sim.Result
	findings []core.Finding
}

// runSeeds runs seeds from..to of p with an AVIO detector each, in
// parallel, in seed order.
func runSeeds(t *testing.T, p *isa.Program, from, to uint64) []runOut {
	t.Helper()
	cfg, _ := sim.FitCores(configs.Default(), p)
	out := make([]runOut, to-from+1)
	errs := make([]error, len(out))
	next := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				d := avio.New(p, avio.Options{})
				r, err := sim.Run(cfg, p, from+uint64(i), sim.WithObserver(d.Kinds(), d))
				out[i], errs[i] = runOut{from + uint64(i), r, d.Findings()}, err
			}
		}()
	}
	for i := range out {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// train returns a learner trained on the passing runs among rs.
func train(rs []runOut) *avio.Learner {
	l := avio.NewLearner()
	for _, r := range rs {
		if r.res.Outcome == core.Pass {
			l.Train(r.findings)
		}
	}
	return l
}

// TestPSetTable1 reproduces the AVIO column of PSet Table 1: trained on the
// passing runs among seeds 1–30, AVIO reports a violation at an @bug
// instruction in every failing run among seeds 31–200 of rows 2, 4, 5, 7, 8
// and 9, and in none of the other rows; no passing run among seeds 31–200
// of any row has a violation.
func TestPSetTable1(t *testing.T) {
	catches := map[int]bool{2: true, 4: true, 5: true, 7: true, 8: true, 9: true}
	rows := workloads.RowKernels()
	for row := 1; row <= 17; row++ {
		for _, name := range rows[fmt.Sprintf("pset:%d", row)] {
			t.Run(fmt.Sprintf("%d-%s", row, name), func(t *testing.T) {
				p, err := workloads.Program(name)
				if err != nil {
					t.Fatal(err)
				}
				rs := runSeeds(t, p, 1, 200)
				l := train(rs[:30])
				bug := p.BugPCs()
				failing, caught := 0, 0
				for _, r := range rs[30:] {
					v := l.Violations(r.findings)
					if r.res.Outcome == core.Pass {
						if len(v) != 0 {
							t.Errorf("seed %d passes but has violations %v", r.seed, v)
						}
						continue
					}
					failing++
					hit := slices.ContainsFunc(v, func(f core.Finding) bool { return f.Involves(bug) })
					if hit {
						caught++
					}
					if hit != catches[row] {
						t.Errorf("seed %d (%s): violations %v", r.seed, r.res.Outcome, v)
					}
				}
				t.Logf("trained on %d passing runs; caught %d of %d failing runs", l.Runs(), caught, failing)
				if failing == 0 {
					t.Errorf("no failing run among seeds 31-200")
				}
			})
		}
	}
}

// TestCorrectKernels: trained on seeds 1–30, no correct kernel shows a
// violation in seeds 31–80.
func TestCorrectKernels(t *testing.T) {
	for _, e := range workloads.List() {
		if e.Kind != workloads.Kernel || e.Bug {
			continue
		}
		p, err := workloads.Program(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		rs := runSeeds(t, p, 1, 80)
		l := train(rs[:30])
		for _, r := range rs[30:] {
			if r.res.Outcome != core.Pass {
				t.Errorf("%s seed %d: %s", e.Name, r.seed, r.res.Outcome)
			}
			if v := l.Violations(r.findings); len(v) != 0 {
				t.Errorf("%s seed %d: violations %v", e.Name, r.seed, v)
			}
		}
	}
}

// TestResultUnchanged: attaching the detector leaves the run's result
// byte-identical, and the findings are deterministic and sorted.
func TestResultUnchanged(t *testing.T) {
	for _, name := range []string{"pset-aget", "pset-apache-log", "prodcons", "pbzip2-uaf", "histogram"} {
		p, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), p)
		for seed := uint64(1); seed <= 3; seed++ {
			plain, err := sim.Run(cfg, p, seed)
			if err != nil {
				t.Fatal(err)
			}
			var fss [2][]byte
			var with sim.Result
			for i := range fss {
				d := avio.New(p, avio.Options{RMWPlain: i == 1})
				if with, err = sim.Run(cfg, p, seed, sim.WithObserver(d.Kinds(), d)); err != nil {
					t.Fatal(err)
				}
				fs := d.Findings()
				if !slices.IsSortedFunc(fs, core.CompareFindings) {
					t.Errorf("%s seed %d: findings not sorted", name, seed)
				}
				fss[i], _ = json.Marshal(fs)
				a, _ := json.Marshal(plain)
				b, _ := json.Marshal(with)
				if !bytes.Equal(a, b) {
					t.Errorf("%s seed %d: result differs with the detector attached", name, seed)
				}
			}
			d := avio.New(p, avio.Options{})
			if _, err := sim.Run(cfg, p, seed, sim.WithObserver(d.Kinds(), d)); err != nil {
				t.Fatal(err)
			}
			if again, _ := json.Marshal(d.Findings()); !bytes.Equal(again, fss[0]) {
				t.Errorf("%s seed %d: findings differ between runs", name, seed)
			}
		}
	}
}

func ExampleLearner() {
	p, _ := workloads.Program("mysql-binlog")
	cfg, _ := sim.FitCores(configs.Default(), p)
	run := func(seed uint64) (string, []core.Finding) {
		d := avio.New(p, avio.Options{})
		r, err := sim.Run(cfg, p, seed, sim.WithObserver(d.Kinds(), d))
		if err != nil {
			panic(err)
		}
		return r.Outcome.String(), d.Findings()
	}
	l := avio.NewLearner()
	for seed := uint64(1); seed <= 30; seed++ {
		if outcome, fs := run(seed); outcome == "pass" {
			l.Train(fs)
		}
	}
	outcome, fs := run(14) // the kernel's .force seed
	fmt.Println(outcome)
	for _, v := range l.Violations(fs) {
		fmt.Println(v.PCs, v.Message)
	}
	// Output:
	// error
	// [38 17 42] invariant (38, 42) violated: W-R-W on log_type: thread 1's pcs 38 and 42 interleaved by a remote read at pc 17
}
