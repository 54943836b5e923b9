package bugaboo

import (
	"testing"

	"weft/configs"
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
