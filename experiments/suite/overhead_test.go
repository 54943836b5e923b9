package suite

import (
	"math"
	"slices"
	"strings"
	"testing"

	"weft/configs"
	psetrepro "weft/experiments/pset"
	"weft/results"
	"weft/sim"
	"weft/workloads"
)

// overheadsOf adds workloads with the given cycles off and with BB-HW on
// (one run each; the PSet hardware's runs as the runs off).
func overheadsOf(rows []struct {
	name      string
	kind      workloads.Kind
	off, bbhw uint64
}) *overheads {
	var o overheads
	t := results.NewTable("t", "t", "workload", "kind", "cycles off", "cycles BB-HW", "BB-HW overhead %", "CT inserts /10k mem ops", "traps", "drops",
		"cycles PSet", "PSet overhead %", "PSet check cycles %", "PSet stall cycles %", "PSet rollback cycles %", "PSet rollbacks",
		"BB-HW overhead % (split bus + L2)", "PSet overhead % (split bus + L2)")
	for _, r := range rows {
		off := float64(r.off)
		e := &entryRuns{off: []offRun{{cycles: r.off}}, cyc: off, hwRuns: 1, hwCyc: float64(r.bbhw),
			psetRuns: 1, cost: psetCost{off: off, on: off}}
		o.add(t, workloads.Entry{Name: r.name, Kind: r.kind}, e)
	}
	return &o
}

// The console's BB-HW line takes its median and its largest over the same
// workloads and says which: a kernel's larger overhead is the kernels'
// largest, never the profiles' (issue 25: "largest 10.48% (prodcons)"
// beside the profiles' median).
func TestOverheadConsoleOneScope(t *testing.T) {
	o := overheadsOf([]struct {
		name      string
		kind      workloads.Kind
		off, bbhw uint64
	}{
		{"fft", workloads.Profile, 1000, 1005},
		{"lu", workloads.Profile, 1000, 1002},
		{"prodcons", workloads.Kernel, 1000, 1100},
		{"counter-race", workloads.Kernel, 1000, 1010},
	})
	got := o.console()
	bb, _, _ := strings.Cut(got, "\n")
	want := "BB-HW overhead: median 0.35% of simulated cycles on the 2 profiles, largest 0.50% (fft); on the 2 kernels median 5.50%, largest 10.00% (prodcons)"
	if bb != want {
		t.Errorf("console:\n%s\nwant first line:\n%s", got, want)
	}
}

// hw_overhead plots overheads alone; the PSet hardware's check, stall and
// rollback cycles (check and stall summed over the cores, so not parts of
// the overhead) are a plot of their own with their own axis.
func TestOverheadPlotsSeparateAxes(t *testing.T) {
	o := overheadsOf([]struct {
		name      string
		kind      workloads.Kind
		off, bbhw uint64
	}{{"fft", workloads.Profile, 1000, 1005}})
	for _, s := range o.overheadSeries() {
		if !strings.HasSuffix(s.Name, "overhead") {
			t.Errorf("hw_overhead plots %q, not an overhead", s.Name)
		}
	}
	var names []string
	for _, s := range o.componentSeries() {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ", "); got != "PSet check cycles, PSet stall cycles, PSet rollback cycles" {
		t.Errorf("pset_cycles plots %s", got)
	}
	ps := o.plots(results.NewTable("t", "t", "x"))
	if len(ps) != 2 || ps[0].Name != "hw_overhead" || ps[1].Name != "pset_cycles" {
		t.Errorf("plots %v", ps)
	}
}

// The heat maps draw every column the README promises, one value and one
// label per column: the detection map pset-hw's detection, failing-run
// and avoidance columns, the false-positive map the failing runs with
// pset-hw on; avoidance is 1 (Yes), 0 (No) or no value (—).
func TestHeatMapColumns(t *testing.T) {
	bug, fp := heatMapColumns()
	for _, want := range []string{"pset-hw", "failing off", "failing pset-hw", "pset-hw avoids"} {
		if !slices.Contains(bug, want) {
			t.Errorf("detection heat map lacks %q: %v", want, bug)
		}
	}
	if !slices.Contains(fp, "failing pset-hw") {
		t.Errorf("false-positive heat map lacks the failing runs: %v", fp)
	}
	if avoidsValue("Yes") != 1 || avoidsValue("No") != 0 || !math.IsNaN(avoidsValue("—")) {
		t.Error("avoidsValue")
	}
	m := newMatrix(20)
	det := make([]detection, len(matrixDetectors))
	det[0].flagged = 1
	m.addCorrect(workloads.Entry{Name: "prodcons"}, det, psetrepro.HWScore{Flagged: 2, FailingOn: 1}, 20, 20)
	spec := m.fpHeatMap(fp, 20)
	if len(spec.Values[0]) != len(fp) || len(spec.Labels[0]) != len(fp) {
		t.Fatalf("%d values and %d labels for %d columns", len(spec.Values[0]), len(spec.Labels[0]), len(fp))
	}
	if spec.Values[0][0] != 0.05 || spec.Labels[0][0] != "1" || spec.Labels[0][len(fp)-1] != "1" || spec.Values[0][len(fp)-1] != 0.05 {
		t.Errorf("values %v, labels %v", spec.Values[0], spec.Labels[0])
	}
}

// A profile's overheads on the split bus come from the same seeds' runs
// there, and the comment compares them with the atomic bus's.
func TestSplitOverheads(t *testing.T) {
	e := &entryRuns{off: []offRun{{cycles: 1000}}, cyc: 1000, hwRuns: 1, hwCyc: 1010, psetRuns: 1, cost: psetCost{off: 1000, on: 1020}}
	e.addSplit(splitOffRun, 0, sim.Result{Cycles: 100})
	e.addSplit(splitOffRun, 1, sim.Result{Cycles: 100})
	e.addSplit(splitBBHWRun, 0, sim.Result{Cycles: 103})
	e.addSplit(splitBBHWRun, 1, sim.Result{Cycles: 107})
	bb, _, ok := e.splitOverheads()
	if ok {
		t.Errorf("overheads without the PSet hardware's runs: %v", bb)
	}
	e.splitCost = psetCost{off: 200, on: 220}
	bb, ps, ok := e.splitOverheads()
	if !ok || bb != 5 || ps != 10 {
		t.Fatalf("split overheads %v, %v, %v; want 5, 10", bb, ps, ok)
	}
	var o overheads
	tab := results.NewTable("t", "t", "workload", "kind", "cycles off", "cycles BB-HW", "BB-HW overhead %", "CT inserts /10k mem ops", "traps", "drops",
		"cycles PSet", "PSet overhead %", "PSet check cycles %", "PSet stall cycles %", "PSet rollback cycles %", "PSet rollbacks",
		"BB-HW overhead % (split bus + L2)", "PSet overhead % (split bus + L2)")
	o.add(tab, workloads.Entry{Name: "fft", Kind: workloads.Profile}, e)
	c := o.comment(configs.Default().PSet)
	for _, want := range []string{"BB-HW costs a median 5.00% (above the atomic bus's)", "the PSet hardware 10.00% (above the atomic bus's)"} {
		if !strings.Contains(c, want) {
			t.Errorf("comment lacks %q:\n%s", want, c)
		}
	}
}
