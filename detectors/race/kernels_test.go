package race_test

import (
	"slices"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/detectors/race"
	"weft/sim"
	"weft/workloads"
)

// cqRace is the Race column of ConSeq's Table 3 for the cq-* kernels
// (workloads/README.md, ConSeq kernels): whether a finding of one passing
// run involves an @bug instruction. Click and Cherokee are the paper's new
// bugs, which neither comparison detector finds.
var cqRace = map[string]bool{
	"cq-aget1": false, "cq-fft": false, "cq-mysql1": false, "cq-moz1": false,
	"cq-mysql2": false, "cq-trans": false, "cq-moz2": true, "cq-moz3": true,
	"cq-mysql3": true, "cq-mysql4": false, "cq-oo": false,
	"cq-click": false, "cq-cherokee": false,
}

// TestConSeqKernels runs Race (the registry's options) on the first
// passing seed of every cq-* kernel, as ConSeq traces one correct run, and
// checks Table 3's Race column. It logs each kernel's finding count and
// the findings that involve no @bug instruction (Table 4's false
// positives), and the race count without the first-race heuristic.
func TestConSeqKernels(t *testing.T) {
	n, caught := 0, 0
	for _, e := range workloads.List() {
		if !strings.HasPrefix(e.Name, "cq-") {
			continue
		}
		n++
		want, ok := cqRace[e.Name]
		if !ok {
			t.Errorf("%s: not in cqRace", e.Name)
			continue
		}
		p, err := workloads.Program(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), p)
		bug := p.BugPCs()
		for seed := uint64(1); ; seed++ {
			if seed > 50 {
				t.Fatalf("%s: no passing seed in 1..50", e.Name)
			}
			d := race.New(p, race.Options{FirstRacePerVar: true})
			all := race.New(p, race.Options{})
			r, err := sim.Run(cfg, p, seed, sim.WithObserver(d.Kinds(), d), sim.WithObserver(all.Kinds(), all))
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome != core.Pass {
				continue
			}
			fs := d.Findings()
			hit := slices.ContainsFunc(fs, func(f core.Finding) bool { return f.Involves(bug) })
			fp := 0
			for _, f := range fs {
				if !f.Involves(bug) {
					fp++
				}
			}
			t.Logf("%-12s seed %d: %d findings, %d without @bug (%d races without the first-race heuristic); catches the bug: %v",
				e.Name, seed, len(fs), fp, len(all.Findings()), hit)
			if hit {
				caught++
			}
			if hit != want {
				t.Errorf("%s seed %d: catches %v, Table 3 says %v; findings %v", e.Name, seed, hit, want, fs)
			}
			break
		}
	}
	if n != len(cqRace) {
		t.Errorf("%d cq-* kernels, want %d", n, len(cqRace))
	}
	if caught != 3 {
		t.Errorf("Race catches %d kernels, Table 3 says 3", caught)
	}
}
