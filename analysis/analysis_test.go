package analysis_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"weft/analysis"
	"weft/configs"
	"weft/core"
	"weft/detectors/avio"
	"weft/detectors/pset"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// batch runs seeds 1..n of a workload with the suite attached.
func batch(t *testing.T, name string, s analysis.Suite, n int) (*isa.Program, []sim.Result) {
	t.Helper()
	prog, err := workloads.Program(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), prog)
	rs, err := sim.RunBatch(sim.Batch{Config: cfg, Program: prog, BaseSeed: 1, Runs: n, Options: s.Options(prog)})
	if err != nil {
		t.Fatal(err)
	}
	return prog, rs
}

// The summary merges each detector's findings over the runs (a finding's
// run count is the runs that reported its key) and its text and JSON
// forms say the same.
func TestSummaryReport(t *testing.T) {
	s := analysis.MustLookup("hb", "avio")
	_, rs := batch(t, "counter-race", s, 6)
	sum := s.NewSummary()
	want := map[string]int{} // key → runs, counted here independently
	for i, r := range rs {
		sum.Add(i, r)
		seen := map[string]bool{}
		for _, f := range r.Findings {
			if f.Detector == "hb" && !seen[f.Key()] {
				seen[f.Key()] = true
				want[f.Key()]++
			}
		}
	}
	rep := sum.Report()
	if rep.Runs != 6 || len(rep.Detectors) != 2 || rep.Detectors[0].Name != "hb" || rep.Detectors[1].Name != "avio" {
		t.Fatalf("report %d runs, detectors %+v", rep.Runs, rep.Detectors)
	}
	hb := rep.Detectors[0]
	if len(hb.Findings) == 0 || len(hb.Findings) != len(want) {
		t.Fatalf("hb: %d merged findings, want %d (> 0: counter-race races)", len(hb.Findings), len(want))
	}
	for _, m := range hb.Findings {
		if m.Runs != want[m.Key()] {
			t.Errorf("%s: %d runs, want %d", m.Key(), m.Runs, want[m.Key()])
		}
		if m.FirstSeed != uint64(m.FirstRun)+1 {
			t.Errorf("%s: first run %d has seed %d", m.Key(), m.FirstRun, m.FirstSeed)
		}
	}
	if hb.Learned != nil || rep.Detectors[1].Learned == nil {
		t.Errorf("learned: hb %v, avio %v; want only avio's", hb.Learned, rep.Detectors[1].Learned)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	head := fmt.Sprintf("\nhb: %d findings\n", len(hb.Findings))
	if !strings.HasPrefix(text.String(), head) || !strings.Contains(text.String(), "\navio across the batch (invariants trained on ") {
		t.Errorf("text report:\n%s", text.String())
	}
	if !strings.Contains(text.String(), fmt.Sprintf("[%d of 6 runs, first seed %d]", hb.Findings[0].Runs, hb.Findings[0].FirstSeed)) {
		t.Errorf("text report lacks the first finding's runs:\n%s", text.String())
	}
	var js bytes.Buffer
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back analysis.Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("JSON report does not parse: %v\n%s", err, js.String())
	}
	if back.Runs != 6 || len(back.Detectors[0].Findings) != len(hb.Findings) || back.Detectors[1].Learned == nil ||
		back.Detectors[0].Findings[0].Runs != hb.Findings[0].Runs {
		t.Errorf("JSON report %s does not say what the report holds", js.String())
	}
}

// A training learns from one batch's passing runs and checks another's
// runs exactly as the detectors' own learners do.
func TestTrainingChecksAnotherBatch(t *testing.T) {
	s := analysis.MustLookup("hb", "avio", "pset")
	prog, train := batch(t, "counter-race", s, 8)
	_, test := batch(t, "counter-race", s, 8)
	tr := s.NewTraining()
	al := avio.NewLearner()
	pt := pset.NewTrainer(prog, pset.Options{})
	passing := 0
	for _, r := range train {
		tr.Train(r)
		if r.Outcome == core.Pass {
			passing++
			al.Train(analysis.Of("avio", r.Findings))
			rec, ok := analysis.DetectorOf[*pset.Recorder](r)
			if !ok {
				t.Fatal("no PSet recorder attached")
			}
			pt.Add(rec)
		}
	}
	if passing == 0 {
		t.Fatal("no training run passed")
	}
	ps := pt.PSets()
	checked := 0
	for _, r := range test {
		av := tr.Check("avio", r)
		if want := al.Violations(analysis.Of("avio", r.Findings)); fmt.Sprint(av) != fmt.Sprint(want) {
			t.Errorf("seed %d: avio %v, want %v", r.Seed, av, want)
		}
		rec, _ := analysis.DetectorOf[*pset.Recorder](r)
		p := tr.Check("pset", r)
		if want := rec.Violations(ps); fmt.Sprint(p) != fmt.Sprint(want) {
			t.Errorf("seed %d: pset %v, want %v", r.Seed, p, want)
		}
		if h := tr.Check("hb", r); fmt.Sprint(h) != fmt.Sprint(analysis.Of("hb", r.Findings)) {
			t.Errorf("seed %d: hb (no checker) %v, want its findings", r.Seed, h)
		}
		checked += len(av) + len(p)
	}
	t.Logf("%d violations checked", checked)
}

// Runner re-runs the program with the probe's seed, observers and parks:
// a park on main's first instruction holds it, and the outcome is the
// run's.
func TestRunnerRunsProbes(t *testing.T) {
	prog, err := workloads.Program("counter-race")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), prog)
	plain, err := sim.Run(cfg, prog, 3)
	if err != nil {
		t.Fatal(err)
	}
	var reads int
	obs := core.ObserverFunc(func(*core.Event) { reads++ })
	r := sim.Runner{Config: cfg, Program: prog}
	res, err := r.Run(core.Probe{Seed: 3, Watch: []core.Watch{{Kinds: core.MaskOf(core.KindRead), Observer: obs}},
		Parks: []core.ParkRule{{Thread: 0, PC: 0, Wait: core.Wait{Until: core.UntilCycle, Cycle: 500}}}})
	if err != nil {
		t.Fatal(err)
	}
	if reads == 0 || !res.Parks[0].Parked || !res.Parks[0].Released || res.Parks[0].ReleasedAt < 500 {
		t.Errorf("reads %d, park %+v", reads, res.Parks[0])
	}
	if res.Outcome.Cycle <= core.Cycle(plain.Cycles) || res.Instructions != plain.Instructions {
		t.Errorf("parked run: %d cycles, %d instructions; plain run %d cycles, %d instructions",
			res.Outcome.Cycle, res.Instructions, plain.Cycles, plain.Instructions)
	}
}
