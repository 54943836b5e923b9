package pset

import (
	"slices"
	psethw "weft/cpu/pset"

	"weft/configs"
	"weft/core"
	"weft/detectors/pset"
	"weft/experiments"
	"weft/isa"
	"weft/sim"
)

// The default experiment's PSet hardware columns: every workload's seeds
// again with the PSet hardware (cpu/pset) on in stall_then_rollback mode,
// checking against the PSets learned from the passing runs of its
// training seeds (for a kernel the very sets the software monitor's pset
// column checks; a synthetic profile trains on a few seeds of its own).

// DefaultMode is the recovery mode of the default experiment's PSet
// hardware runs: a violation stalls, and a stall that times out rolls
// back.
const DefaultMode = "stall_then_rollback"

// TrainPSets learns prog's PSets from the passing runs among train, from
// the PSet recorders attached to them (runs without one are skipped).
func TrainPSets(prog *isa.Program, train []sim.Result) isa.PSets {
	tr := NewRunTrainer(prog)
	for _, r := range train {
		tr.Add(r)
	}
	return tr.PSets()
}

// RunTrainer learns a workload's PSets from its runs as they complete
// (TrainPSets over a slice): it keeps the union of their pairs, not the
// runs.
type RunTrainer struct {
	tr *pset.Trainer
}

// NewRunTrainer returns a trainer of prog's PSets that has seen no run.
func NewRunTrainer(prog *isa.Program) *RunTrainer {
	return &RunTrainer{tr: pset.NewTrainer(prog, pset.Options{})}
}

// Add learns from r when it passed and has a PSet recorder attached.
func (t *RunTrainer) Add(r sim.Result) {
	if r.Outcome != core.Pass {
		return
	}
	if rec := recorderOf(r); rec != nil {
		t.tr.Add(rec)
	}
}

// PSets returns the PSets learned so far.
func (t *RunTrainer) PSets() isa.PSets { return t.tr.PSets() }

// psetPair is a static violating pair: the predecessor's instruction and
// the checked one.
type psetPair struct{ pred, pc int32 }

// Violations collects the PSetViolation events of one run with the
// hardware on: their number and their distinct pairs. Events of a span a
// rollback discarded count too: the hardware did report them.
type Violations struct {
	events int
	pairs  map[psetPair]bool
}

// Observe counts one PSetViolation event.
func (v *Violations) Observe(e *core.Event) {
	if v.pairs == nil {
		v.pairs = map[psetPair]bool{}
	}
	v.events++
	v.pairs[psetPair{e.Pred(), e.PC}] = true
}

// involves reports whether one of the pairs has an instruction of bugs.
func (v *Violations) involves(bugs []int32) bool {
	if v == nil {
		return false
	}
	for p := range v.pairs {
		if slices.Contains(bugs, p.pred) || slices.Contains(bugs, p.pc) {
			return true
		}
	}
	return false
}

// HangFactor sets the hang limit of a run with the PSet hardware on:
// this many times the longest run of the workload with it off, and at
// least Table2MaxCycles. A stalled access is re-checked, and stalls
// again with a fresh timeout, whenever another thread touches its line,
// so a stall that waits on a thread spinning on that line lasts until the
// hang limit (weft reproduce pset's Table 2 bounds it the same way).
const HangFactor = 10

// HWConfig returns cfg with the PSet hardware on in the default
// experiment's recovery mode, and the hang limit HangFactor sets from
// off, the workload's runs with the hardware off.
func HWConfig(cfg configs.Config, off []sim.Result) configs.Config {
	var longest uint64
	for _, r := range off {
		longest = max(longest, r.Cycles)
	}
	return HWConfigLongest(cfg, longest)
}

// HWConfigLongest is HWConfig given the cycles of the workload's longest
// run with the hardware off, for a caller that folds its runs.
func HWConfigLongest(cfg configs.Config, longest uint64) configs.Config {
	cfg.PSet.Enabled = true
	cfg.PSet.Recovery.Mode = DefaultMode
	cfg.Sim.MaxCycles = min(cfg.Sim.MaxCycles, max(uint64(Table2MaxCycles), HangFactor*longest))
	return cfg
}

// HWJob is a run of prog on seed with the PSet hardware on (cfg as
// HWConfig returns it) checking ps, with its statistics groups; its
// violations go to *slot.
func HWJob(cfg configs.Config, prog *isa.Program, ps isa.PSets, seed uint64, slot **Violations) sim.Job {
	return sim.Job{Config: cfg, Program: prog, Seed: seed, Options: func() []sim.Option {
		v := &Violations{}
		*slot = v
		return []sim.Option{sim.WithPSets(ps), sim.WithStatGroups(), sim.WithObserver(core.MaskOf(core.KindPSetViolation), v)}
	}}
}

// HWScore is what the PSet hardware did on one workload's seeds.
type HWScore struct {
	// Hits is the runs with a violation whose pair has an @bug instruction.
	Hits int
	// Flagged is the runs with any violation.
	Flagged int
	// Distinct is the distinct violating pairs over the runs.
	Distinct int
	// Acted is the runs in which the hardware stalled or rolled back.
	Acted int
	// FailingOff and FailingOn are the failing runs with the hardware off
	// and on (the same seeds).
	FailingOff, FailingOn int
	// HangsOff and HangsOn are those of them that hung.
	HangsOff, HangsOn int
	// HungStalled is the runs that hung with the hardware on after
	// stalls none of which timed out, with no rollback.
	HungStalled int
}

// Avoids says whether the hardware avoided the failures: "Yes" when some
// run failed with it off and none with it on, "No" when some failed with
// it on, "—" when none failed either way.
func (p HWScore) Avoids() string {
	switch {
	case p.FailingOff == 0 && p.FailingOn == 0:
		return "—"
	case p.FailingOn == 0:
		return "Yes"
	}
	return "No"
}

// ScoreHW scores the hardware on one workload: off and on are the same
// seeds with the hardware off and on, viols[i] the violations of on[i].
// Only this scoring reads the program's @bug marks.
func ScoreHW(prog *isa.Program, off, on []sim.Result, viols []*Violations) HWScore {
	s := NewHWScorer(prog)
	for i, r := range on {
		var v *Violations
		if i < len(viols) {
			v = viols[i]
		}
		if i < len(off) {
			s.Add(r, v, off[i].Outcome)
		} else {
			s.AddUnpaired(r, v)
		}
	}
	return s.Score()
}

// HWScorer scores the hardware on one workload's runs as they complete
// (ScoreHW over slices): it keeps the distinct violating pairs and the
// counts, not the runs.
type HWScorer struct {
	bugs  []int32
	pairs map[psetPair]bool
	out   HWScore
}

// NewHWScorer returns a scorer of runs of prog that has seen none.
func NewHWScorer(prog *isa.Program) *HWScorer {
	return &HWScorer{bugs: prog.BugPCs(), pairs: map[psetPair]bool{}}
}

// Add scores on, a run with the hardware on, whose violations are v (nil:
// none), beside off, the outcome of the same seed with the hardware off.
func (s *HWScorer) Add(on sim.Result, v *Violations, off core.OutcomeKind) {
	if off != core.Pass {
		s.out.FailingOff++
	}
	if off == core.Hang {
		s.out.HangsOff++
	}
	s.AddUnpaired(on, v)
}

// AddUnpaired scores on, whose violations are v, without a run of its
// seed with the hardware off.
func (s *HWScorer) AddUnpaired(r sim.Result, v *Violations) {
	out := &s.out
	if r.Outcome != core.Pass {
		out.FailingOn++
	}
	if r.Outcome == core.Hang {
		out.HangsOn++
		if experiments.GroupStat(r, psethw.StatGroup, psethw.CounterStalls) > 0 && experiments.GroupStat(r, psethw.StatGroup, psethw.CounterStallTimeouts)+experiments.GroupStat(r, psethw.StatGroup, psethw.CounterRollbacks) == 0 {
			out.HungStalled++
		}
	}
	if experiments.GroupStat(r, psethw.StatGroup, psethw.CounterStalls)+experiments.GroupStat(r, psethw.StatGroup, psethw.CounterRollbacks) > 0 {
		out.Acted++
	}
	if v == nil || v.events == 0 {
		return
	}
	out.Flagged++
	if v.involves(s.bugs) {
		out.Hits++
	}
	for p := range v.pairs {
		s.pairs[p] = true
	}
}

// Score returns the score of the runs added so far.
func (s *HWScorer) Score() HWScore {
	out := s.out
	out.Distinct = len(s.pairs)
	return out
}
