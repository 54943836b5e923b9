package pset_test

import (
	"fmt"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/detectors/pset"
	"weft/isa"
	"weft/sim"
)

// figure6 is the digest's reconstruction of the paper's Figure 6 (§1.4):
// one location L, four threads, the global order W1 (T1), R1 and R2 (T2),
// R4 (T3), W2 then R3 (T4), forced by `work` delays. Main plays T1.
const figure6 = `
.kernel  figure6
.cores   4
.data
L:   .word 0
.text
.func main
main:  li     r1, 1
W1:    st     r1, L
       spawn  r10, t2, r0
       spawn  r11, t3, r0
       spawn  r12, t4, r0
       join   r10
       join   r11
       join   r12
       exit
.func t2
t2:    work   1000
R1:    ld     r2, L
       work   1000
R2:    ld     r3, L
       exit
.func t3
t3:    work   5000
R4:    ld     r2, L
       exit
.func t4
t4:    work   9000
       li     r5, 2
W2:    st     r5, L
R3:    ld     r6, L
       exit
`

// TestFigure6 learns the PSets of Figure 6 from one run and checks them
// exactly: PSet(W1) = {}, PSet(R1) = {W1}, PSet(R2) = {} (condition (c):
// T2's R1 came between), PSet(R4) = {W1}, PSet(W2) = {R2, R4} (the latest
// read of each reader; R1 is superseded), PSet(R3) = {} (local).
func TestFigure6(t *testing.T) {
	p, err := isa.Assemble("figure6.s", []byte(figure6))
	if err != nil {
		t.Fatal(err)
	}
	pc := func(label string) int32 {
		v, ok := p.LabelPC(label)
		if !ok {
			t.Fatalf("no label %s", label)
		}
		return v
	}
	w1, r1, r2, r4, w2, r3 := pc("W1"), pc("R1"), pc("R2"), pc("R4"), pc("W2"), pc("R3")
	cfg := configs.Default()
	cfg.Sim.JitterCycles = 0
	cfg, _ = sim.FitCores(cfg, p)

	tr := pset.NewTrainer(p, pset.Options{})
	rec := tr.NewRun()
	var order []string
	names := map[int32]string{w1: "W1", r1: "R1", r2: "R2", r4: "R4", w2: "W2", r3: "R3"}
	obs := core.ObserverFunc(func(e *core.Event) {
		order = append(order, fmt.Sprintf("%s/T%d", names[e.PC], e.Thread+1))
	})
	res, err := sim.Run(cfg, p, 1, sim.WithDetector(rec), sim.WithObserver(core.MaskOf(core.KindRead, core.KindWrite), obs))
	if err != nil || res.Outcome != core.Pass {
		t.Fatalf("run: %v, outcome %s", err, res.Outcome)
	}
	if got := strings.Join(order, " "); got != "W1/T1 R1/T2 R2/T2 R4/T3 W2/T4 R3/T4" {
		t.Fatalf("global order %s, want Figure 6's", got)
	}
	if n := tr.Add(rec); n != 4 {
		t.Errorf("%d new pairs, want 4", n)
	}
	ps := tr.PSets()
	for _, c := range []struct {
		name string
		pc   int32
		want []int32
	}{
		{"W1", w1, nil}, {"R1", r1, []int32{w1}}, {"R2", r2, nil},
		{"R4", r4, []int32{w1}}, {"W2", w2, []int32{r2, r4}}, {"R3", r3, nil},
	} {
		got := ps.At(c.pc)
		if !got.Tested || fmt.Sprint(got.Preds) != fmt.Sprint(c.want) {
			t.Errorf("PSet(%s) = %v (tested %v), want %v", c.name, got.Preds, got.Tested, c.want)
		}
	}
	if ps.Pairs() != 4 {
		t.Errorf("%d pairs in all, want 4", ps.Pairs())
	}

	// The same run checked against its own PSets is clean (R1, R4 and W2
	// are checked); against PSets without W2's WAR edge from R4 it violates
	// once, at W2.
	m := pset.NewMonitor(p, ps, pset.Options{})
	if _, err := sim.Run(cfg, p, 1, sim.WithDetector(m)); err != nil {
		t.Fatal(err)
	}
	if len(m.Findings()) != 0 || m.Stats() != (pset.Stats{Accesses: 6, Checks: 3}) {
		t.Errorf("own PSets: %v, %+v", m.Findings(), m.Stats())
	}
	cut := tr.PSets()
	cut[w2].Preds = []int32{r2}
	m = pset.NewMonitor(p, cut, pset.Options{})
	if _, err := sim.Run(cfg, p, 1, sim.WithDetector(m)); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("WAR on L: thread 3's st r5, L (pc %d) follows thread 2's ld r2, L (pc %d), not in its PSet {%d}", w2, r4, r2)
	if fs := m.Findings(); len(fs) != 1 || fs[0].Message != want || m.Stats().Violations != 1 {
		t.Errorf("cut PSets: %v, want one finding %q", fs, want)
	}
}
