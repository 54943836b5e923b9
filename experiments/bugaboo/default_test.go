package bugaboo

import (
	"slices"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/detectors/bugaboo"
	"weft/experiments"
	"weft/sim"
)

// TestDefaultBBSWColumns checks the default experiment's BB-SW columns on
// two kernels over its 20 seeds: mysql-binlog's one failing run puts the
// bug first; pset-mysql-idinit's bug has no BB-SW edge (Table 2).
func TestDefaultBBSWColumns(t *testing.T) {
	base := configs.Default()
	for _, c := range []struct {
		name, cell, insp string
	}{{"mysql-binlog", "yes", "1 (1)"}, {"pset-mysql-idinit", "no", ""}, {"counter-locked", "n/a", ""}} {
		prog, cfg, err := experiments.ProgramFor(c.name, base)
		if err != nil {
			t.Fatal(err)
		}
		sws := make([]*bugaboo.SW, 20)
		var jobs []sim.Job
		for s := range sws {
			jobs = append(jobs, sim.Job{Config: cfg, Program: prog, Seed: 1 + uint64(s), Options: WithBBSW(prog, experiments.DetectorOptions(prog, "hb"), &sws[s])})
		}
		rs, err := sim.RunJobs(jobs, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		b := Labeled(prog, rs, SWGraphs(sws))
		if b.Cell() != c.cell || b.Inspections() != c.insp {
			t.Errorf("%s: bbsw %s %q, want %s %q", c.name, b.Cell(), b.Inspections(), c.cell, c.insp)
		}
		for _, r := range rs {
			for _, f := range r.Findings {
				if f.Detector != "hb" {
					t.Errorf("%s: a finding of %s", c.name, f.Detector)
				}
			}
		}
	}
}

// LabeledRuns, which keeps the failing runs' graphs and the union of the
// passing runs', ranks as Labeled's ranking over every run's graph did
// before it folded them (the labeled method of the paper over the slices).
func TestLabeledRunsMatchesSlices(t *testing.T) {
	base := configs.Default()
	labeled := 0
	for _, name := range []string{"mysql-binlog", "pset-apache-log", "falcon-account", "cq-mysql3"} {
		prog, cfg, err := experiments.ProgramFor(name, base)
		if err != nil {
			t.Fatal(err)
		}
		sws := make([]*bugaboo.SW, 30)
		var jobs []sim.Job
		for s := range sws {
			jobs = append(jobs, sim.Job{Config: cfg, Program: prog, Seed: 1 + uint64(s), Options: WithBBSW(prog, nil, &sws[s])})
		}
		rs, err := sim.RunJobs(jobs, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		var buggy, ok []*bugaboo.Graph
		for i, r := range rs {
			if r.Outcome != core.Pass {
				buggy = append(buggy, sws[i].Graph())
			} else {
				ok = append(ok, sws[i].Graph())
			}
		}
		got := Labeled(prog, rs, SWGraphs(sws))
		if len(buggy) == 0 || len(ok) == 0 {
			if got.Labeled {
				t.Errorf("%s: labeled with %d failing and %d passing runs", name, len(buggy), len(ok))
			}
			continue
		}
		var cps []int32
		for _, pc := range prog.BugPCs() {
			if cp := prog.Instrs[pc].CodePoint; !slices.Contains(cps, cp) {
				cps = append(cps, cp)
			}
		}
		n, f, found := bugaboo.Inspections(bugaboo.Ranker{Prog: prog}.Labeled(buggy, ok), cps, prog)
		if want := (LabeledScore{Labeled: true, Found: found, Insp: n, Funcs: f}); got != want {
			t.Errorf("%s: folded %+v, over the slices %+v", name, got, want)
		}
		labeled++
	}
	if labeled < 2 {
		t.Errorf("%d kernels had failing and passing runs, want at least 2 to compare", labeled)
	}
}
