package falcon

import (
	"fmt"
	"strings"

	"weft/core"
	"weft/detectors/falcon"
	"weft/experiments"
	"weft/results"
	"weft/sim"
)

// falconIrritatorSettings are the irritators (sim.irritator_prob,
// sim.irritator_max_cycles) of Study 2's extra runs: the paper ran with
// random delays on and gives no setting.
var falconIrritatorSettings = []struct {
	prob float64
	max  uint64
}{{0.1, 100}, {0.2, 500}}

// falconIrritated runs every subject's k seeds again with each irritator
// setting and Falcon (window 5) attached, and tabulates failing runs and
// the bug's rank beside the runs without irritators.
func falconIrritated(env experiments.Env, subs []*falconSubject, k int) (experiments.Section, string, uint64, error) {
	var jobs []sim.Job
	for _, st := range falconIrritatorSettings {
		for _, s := range subs {
			cfg := s.cfg
			cfg.Sim.IrritatorProb, cfg.Sim.IrritatorMaxCycles = st.prob, st.max
			prog := s.prog
			for i := range k {
				jobs = append(jobs, sim.Job{Config: cfg, Program: prog, Seed: cfg.Sim.Seed + uint64(i), Options: func() []sim.Option {
					return []sim.Option{sim.WithDetector(falcon.New(prog, falcon.Options{Window: 5}))}
				}})
			}
		}
	}
	all, err := experiments.RunJobs(env, jobs)
	if err != nil {
		return experiments.Section{}, "", 0, err
	}
	cols := []string{"Program", "failing runs (no irritators)", "rank of bug (no irritators)"}
	for _, st := range falconIrritatorSettings {
		cols = append(cols, fmt.Sprintf("failing runs (p %g, max %d)", st.prob, st.max), fmt.Sprintf("rank of bug (p %g, max %d)", st.prob, st.max))
	}
	t := results.NewTable("table4_irritators", fmt.Sprintf("Falcon Study 2 with irritators: failing runs and the bug's rank (window 5, %d runs per subject), without and with random delays before memory instructions", k), cols...)
	within := make([]int, len(falconIrritatorSettings)) // applicable subjects with the bug ranked 1–2
	applicable := make([]int, len(falconIrritatorSettings))
	for si, s := range subs {
		row := []any{s.paper, s.failed, falconBugOf(falconOfKind(s.learn.Rank(falcon.Jaccard), s.kind), s).rank()}
		for gi := range falconIrritatorSettings {
			l := falcon.NewLearner()
			irr := *s
			irr.failed = 0
			for j, r := range all[(gi*len(subs)+si)*k : (gi*len(subs)+si+1)*k] {
				d, err := falconDetector(r, 0)
				if err != nil {
					return experiments.Section{}, "", 0, err
				}
				pass := r.Outcome == core.Pass
				if !pass {
					irr.failed++
				}
				l.AddRun(j, pass, d)
			}
			rank := falconBugOf(falconOfKind(l.Rank(falcon.Jaccard), s.kind), &irr).rank()
			if irr.failed > 0 && !strings.HasPrefix(s.paper, "Hedc") {
				applicable[gi]++
				if rank >= 1 && rank <= 2 {
					within[gi]++
				}
			}
			row = append(row, irr.failed, rank)
		}
		t.AddRow(row...)
	}
	var parts []string
	for gi, st := range falconIrritatorSettings {
		parts = append(parts, fmt.Sprintf("p %g, max %d cycles: the bug ranks 1–2 in %d of %d failing subjects whose bug is instrumented", st.prob, st.max, within[gi], applicable[gi]))
	}
	sec := experiments.Section{
		Heading: "Study 2 with irritators",
		Text: `The paper ran its subjects with random delays ("irritators") on, without saying how many or how long.
weft's kernels are written to fail at the paper's rates under the machine's own timing jitter; here
every subject's runs are repeated with irritators (sim.irritator_prob: the chance that a memory
instruction is delayed; sim.irritator_max_cycles: the largest delay, drawn uniformly), which change
how often each fails, to see whether the ranking holds when the interleavings are pushed around.`,
		Tables:  []*results.Table{t},
		Comment: strings.Join(parts, "; ") + ". Hedc's bug is in library code, which Falcon does not instrument.",
	}
	return sec, fmt.Sprintf("Falcon Study 2 with irritators: %s\n", strings.Join(parts, "; ")), experiments.TotalInstructions(all), nil
}
