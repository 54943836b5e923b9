package bugaboo

import (
	"cmp"
	"fmt"
	"slices"

	"weft/core"
	"weft/isa"
)

// learnedRun is one run of a Learner's batch.
type learnedRun struct {
	run   int
	buggy bool
	g     *Graph
}

// Learner ranks code points over the runs of a batch: add each run's graph
// (from SW.Graph or HW.Graph) with its label, then analyse. With both
// buggy and non-buggy runs it uses the labeled method (the bug-only graphs
// of the buggy runs), otherwise the unlabeled one (every run's graph).
// Runs are analysed in run order, whatever order they were added in. A
// Learner is not safe for concurrent use.
type Learner struct {
	// Detector names the findings' detector (default "bbsw").
	Detector string
	// Encoding spells contexts in messages (default DefaultEncoding).
	Encoding Encoding

	prog *isa.Program
	runs []learnedRun
	how  How
}

// NewLearner returns a learner with no runs for prog.
func NewLearner(prog *isa.Program) *Learner {
	return &Learner{Detector: "bbsw", Encoding: DefaultEncoding, prog: prog}
}

// AddRun adds run number run (its index or seed), whether the bug under
// study showed in it, and its graph. A later run with the same number
// replaces the earlier one.
func (l *Learner) AddRun(run int, buggy bool, g *Graph) {
	r := learnedRun{run: run, buggy: buggy, g: g}
	i, found := slices.BinarySearchFunc(l.runs, run, func(x learnedRun, run int) int { return cmp.Compare(x.run, run) })
	if found {
		l.runs[i] = r
		return
	}
	l.runs = slices.Insert(l.runs, i, r)
}

// Counts returns the number of buggy and non-buggy runs added.
func (l *Learner) Counts() (buggy, nonbuggy int) {
	for _, r := range l.runs {
		if r.buggy {
			buggy++
		} else {
			nonbuggy++
		}
	}
	return buggy, nonbuggy
}

// Labeled reports whether Analyse uses the labeled method: both buggy and
// non-buggy runs were added.
func (l *Learner) Labeled() bool {
	b, n := l.Counts()
	return b > 0 && n > 0
}

// Analyse ranks the code points with the given reading of the formula:
// labeled when both kinds of run exist, unlabeled otherwise. Later calls
// to Findings use the same reading.
func (l *Learner) Analyse(how How) []Ranked {
	l.how = how
	r := Ranker{Prog: l.prog, How: how}
	var buggy, ok, all []*Graph
	for _, run := range l.runs {
		all = append(all, run.g)
		if run.buggy {
			buggy = append(buggy, run.g)
		} else {
			ok = append(ok, run.g)
		}
	}
	if len(buggy) > 0 && len(ok) > 0 {
		return r.Labeled(buggy, ok)
	}
	return r.Unlabeled(all)
}

// Findings returns the top code points of Analyse (with the reading of the
// last Analyse call, MinRelFreq before any) as findings, like
// SW.Findings.
func (l *Learner) Findings(top int) []core.Finding {
	return RankFindings(l.Detector, l.prog, l.Encoding, l.Analyse(l.how), top)
}

// Summary says in one line what the analysis used.
func (l *Learner) Summary() string {
	b, n := l.Counts()
	method := "unlabeled"
	if b > 0 && n > 0 {
		method = "labeled"
	}
	return fmt.Sprintf("%s ranking (%s) over %d buggy and %d non-buggy runs", method, l.how, b, n)
}
