package bugaboo

import (
	"fmt"
	"slices"

	"weft/core"
	"weft/detectors/bugaboo"
	"weft/isa"
	"weft/sim"
)

// The default experiment's Bugaboo columns: BB-SW (word granularity,
// context 5, the paper's default) attached to each bug kernel's detector
// runs, and its labeled ranking over the failing against the passing runs.

// WithBBSW adds BB-SW word to a run's options, as an observer (so it adds
// no findings), storing it in *slot.
func WithBBSW(prog *isa.Program, opts func() []sim.Option, slot **bugaboo.SW) func() []sim.Option {
	return func() []sim.Option {
		sw := bugaboo.NewSW(prog, bugaboo.SWOptions{})
		*slot = sw
		var o []sim.Option
		if opts != nil {
			o = opts()
		}
		return append(o, sim.WithObserver(sw.Kinds(), sw))
	}
}

// LabeledScore is BB-SW's labeled ranking on one bug kernel's runs.
type LabeledScore struct {
	// Labeled is false when the runs were all failing or all passing.
	Labeled bool
	// Found says whether a code point of an @bug instruction is ranked.
	Found bool
	// Insp is the inspections down the ranking to the first bug code
	// point, and Funcs the distinct functions among them.
	Insp, Funcs int
}

// Cell prints the result for the matrix: yes, no, or why it was not run.
func (b LabeledScore) Cell() string {
	switch {
	case !b.Labeled:
		return "n/a"
	case b.Found:
		return "yes"
	}
	return "no"
}

// Inspections prints the inspections, "3 (2)", or "" when not found.
func (b LabeledScore) Inspections() string {
	if !b.Found {
		return ""
	}
	return fmt.Sprintf("%d (%d)", b.Insp, b.Funcs)
}

// WithBBHW adds the BB-HW graph collector to a run with the hardware on,
// storing it in *slot.
func WithBBHW(prog *isa.Program, opts func() []sim.Option, slot **bugaboo.HW) func() []sim.Option {
	return func() []sim.Option {
		hw := bugaboo.NewHW(prog)
		*slot = hw
		var o []sim.Option
		if opts != nil {
			o = opts()
		}
		return append(o, sim.WithObserver(hw.Kinds(), hw))
	}
}

// Labeled ranks the code points of prog over the bug-only graphs of
// the failing runs (against the union of the passing ones) and scores the
// first @bug code point; graphs[i] is run i's graph (nil: none).
func Labeled(prog *isa.Program, runs []sim.Result, graphs []*bugaboo.Graph) LabeledScore {
	var l LabeledRuns
	for i, r := range runs {
		if i < len(graphs) {
			l.Add(r.Outcome, graphs[i])
		}
	}
	return l.Score(prog)
}

// LabeledRuns collects the graphs of one bug kernel's runs as they
// complete, for Labeled's ranking: each failing run's graph (bounded by
// the program's code points) and the union of the passing runs' graphs,
// not the runs or their collectors.
type LabeledRuns struct {
	buggy []*bugaboo.Graph
	ok    *bugaboo.Graph // the union of the passing runs' graphs
	nOK   int
}

// Add adds the graph of a run that ended in outcome (nil: the run had
// none, and counts for nothing).
func (l *LabeledRuns) Add(outcome core.OutcomeKind, g *bugaboo.Graph) {
	switch {
	case g == nil:
	case outcome != core.Pass:
		l.buggy = append(l.buggy, g)
	default:
		l.ok = bugaboo.Union(l.ok, g)
		l.nOK++
	}
}

// Score is Labeled's score over the graphs added.
func (l *LabeledRuns) Score(prog *isa.Program) LabeledScore {
	if len(l.buggy) == 0 || l.nOK == 0 {
		return LabeledScore{}
	}
	var cps []int32
	for _, pc := range prog.BugPCs() {
		if cp := prog.Instrs[pc].CodePoint; !slices.Contains(cps, cp) {
			cps = append(cps, cp)
		}
	}
	n, f, found := bugaboo.Inspections(bugaboo.Ranker{Prog: prog}.Labeled(l.buggy, []*bugaboo.Graph{l.ok}), cps, prog)
	return LabeledScore{Labeled: true, Found: found, Insp: n, Funcs: f}
}

// SWGraphs returns the BB-SW collectors' graphs (nil where a run had
// none).
func SWGraphs(cs []*bugaboo.SW) []*bugaboo.Graph {
	out := make([]*bugaboo.Graph, len(cs))
	for i, c := range cs {
		if c != nil {
			out[i] = c.Graph()
		}
	}
	return out
}

// HWGraphs returns the BB-HW collectors' graphs (nil where a run had
// none).
func HWGraphs(cs []*bugaboo.HW) []*bugaboo.Graph {
	out := make([]*bugaboo.Graph, len(cs))
	for i, c := range cs {
		if c != nil {
			out[i] = c.Graph()
		}
	}
	return out
}
