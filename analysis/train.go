package analysis

import (
	"weft/core"
	"weft/detectors"
	"weft/sim"
)

// Training holds the learners of a suite that can check other runs
// (detectors.Checker: AVIO's invariants, PSet's sets), trained on the
// passing runs of one batch, to check the runs of another: the default
// experiment trains on some seeds and scores others, PSet's reproduction
// trains on 100 seeds and checks the failing ones.
type Training struct {
	names    []string
	checkers []detectors.Checker
}

// NewTraining returns the untrained checkers of the suite's detectors that
// have one; the other detectors' findings are checked against nothing.
func (s Suite) NewTraining() *Training {
	t := &Training{}
	for _, d := range s {
		if d.Learn == nil {
			continue
		}
		if c, ok := d.Learn().(detectors.Checker); ok {
			t.names = append(t.names, d.Name)
			t.checkers = append(t.checkers, c)
		}
	}
	return t
}

// Train learns from run r when it passed (a failing run teaches nothing).
func (t *Training) Train(r sim.Result) {
	if r.Outcome.Failed() {
		return
	}
	for i, c := range t.checkers {
		c.Train(Of(t.names[i], r.Findings), Named(r, t.names[i]))
	}
}

// Check returns detector name's findings in run r: those that violate
// what its checker learned, or for a detector without one its findings
// as they are.
func (t *Training) Check(name string, r sim.Result) []core.Finding {
	for i, n := range t.names {
		if n == name {
			return t.checkers[i].Check(Of(name, r.Findings), Named(r, name))
		}
	}
	return Of(name, r.Findings)
}
