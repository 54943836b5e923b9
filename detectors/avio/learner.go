package avio

import (
	"fmt"
	"slices"

	"weft/core"
)

// pair is a static (I_p, I_c) pair of instructions.
type pair struct{ p, c int32 }

// Learner extracts AVIO's access-interleaving invariants from correct runs
// and checks other runs against them. An invariant is a static pair
// (I_p, I_c) of consecutive accesses by one thread to one word that was
// never interleaved unserializably in a correct run. Every pair starts as
// an invariant; each training run removes the pairs of its unserializable
// triples (AVIO's extraction). A later run violates an invariant when one
// of its unserializable triples has a pair that is still an invariant.
//
// Only findings of detector "avio" and kind "atomicity" with three PCs are
// used; others are ignored. A Learner is not safe for concurrent use.
type Learner struct {
	removed map[pair]struct{}
	runs    int
}

// NewLearner returns a learner with no training runs: every pair is an
// invariant.
func NewLearner() *Learner {
	return &Learner{removed: map[pair]struct{}{}}
}

// Train adds one correct (passing) run, given its Detector's findings:
// the (I_p, I_c) pairs of its triples stop being invariants.
func (l *Learner) Train(findings []core.Finding) {
	l.runs++
	for i := range findings {
		if pr, ok := pairOf(&findings[i]); ok {
			l.removed[pr] = struct{}{}
		}
	}
}

// Violations returns the findings of one run whose (I_p, I_c) pair is
// still an invariant (never interleaved unserializably in training), as
// findings of kind "violation" with the same PCs, address and score and
// the message prefixed with the invariant, sorted with core.CompareFindings.
func (l *Learner) Violations(findings []core.Finding) []core.Finding {
	var out []core.Finding
	for i := range findings {
		f := findings[i]
		pr, ok := pairOf(&f)
		if !ok {
			continue
		}
		if _, gone := l.removed[pr]; gone {
			continue
		}
		f.Kind = "violation"
		f.Message = fmt.Sprintf("invariant (%d, %d) violated: %s", pr.p, pr.c, f.Message)
		f.PCs = slices.Clone(f.PCs)
		out = append(out, f)
	}
	slices.SortFunc(out, core.CompareFindings)
	return out
}

// Broken returns the number of (I_p, I_c) pairs training has shown
// interleaved unserializably: the pairs that are no longer invariants.
func (l *Learner) Broken() int { return len(l.removed) }

// Runs returns the number of training runs added.
func (l *Learner) Runs() int { return l.runs }

// pairOf returns an atomicity finding's (I_p, I_c) pair.
func pairOf(f *core.Finding) (pair, bool) {
	if f.Detector != "avio" || f.Kind != "atomicity" || len(f.PCs) != 3 {
		return pair{}, false
	}
	return pair{f.PCs[0], f.PCs[2]}, true
}
