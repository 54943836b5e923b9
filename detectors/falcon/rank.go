package falcon

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"weft/isa"
)

// Score is a suspiciousness formula.
type Score uint8

// The suspiciousness formulas.
const (
	// Jaccard is Falcon's: failed(s) / (totalfailed + passed(s)).
	Jaccard Score = iota
	// Tarantula is %failed(s) / (%failed(s) + %passed(s)).
	Tarantula
)

// String returns "jaccard" or "tarantula".
func (s Score) String() string {
	if s == Tarantula {
		return "tarantula"
	}
	return "jaccard"
}

// ParseScore reads "jaccard" or "tarantula".
func ParseScore(s string) (Score, error) {
	switch s {
	case "jaccard":
		return Jaccard, nil
	case "tarantula":
		return Tarantula, nil
	}
	return 0, fmt.Errorf("falcon: unknown score %q (want jaccard or tarantula)", s)
}

// Suspiciousness scores a pattern seen in failed of totalFailed failing
// runs and passed of totalPassed passing runs; 0 when no run failed.
func Suspiciousness(s Score, failed, passed, totalFailed, totalPassed int) float64 {
	if totalFailed == 0 || failed == 0 {
		return 0
	}
	if s == Tarantula {
		// f/(f+p) with f = failed/totalFailed and p = passed/totalPassed,
		// in integers so that equal scores are equal floats (ties).
		if totalPassed == 0 {
			return 1
		}
		num := uint64(failed) * uint64(totalPassed)
		return float64(num) / float64(num+uint64(passed)*uint64(totalFailed))
	}
	return float64(failed) / float64(totalFailed+passed)
}

// Stat is a pattern's record over a batch: in how many failing and
// passing runs it was present, the first run that showed it, and the
// location of that first detection.
type Stat struct {
	Pattern
	Failed, Passed int
	FirstRun       int
	Addr           uint64
}

// Ranked is a pattern with its scores and ranks. Rank is its position in
// the ranking (1 first): by score, then in more failing runs, then in
// fewer passing runs, then Pattern.Compare. Optimistic is 1 + the number
// of patterns scored strictly higher, Pessimistic the number scored at
// least as high (itself included): the ranks a tie could give it.
type Ranked struct {
	Stat
	Score, Jaccard, Tarantula float64
	OnlyFailing               bool
	Rank                      int
	Optimistic, Pessimistic   int
}

// site is CCI-Prev's record of one access instruction over a batch:
// failing and passing runs in which it accessed a location at all
// (observed), with the previous access by another thread (remote), and
// with it by its own thread (local).
type site struct {
	fObs, sObs, fRemote, sRemote, fLocal, sLocal int
}

// Learner ranks the patterns of a batch of runs of one program. It is not
// safe for concurrent use.
type Learner struct {
	prog           *isa.Program
	stats          map[Pattern]*Stat
	passed, failed int
	sites          []site
	spans          []int
	accesses       uint64
	locations      int
	slots          int
}

// NewLearner returns an empty learner.
func NewLearner() *Learner { return &Learner{stats: map[Pattern]*Stat{}} }

// AddRun adds run number run (its index in the batch), whether it passed,
// and its detector.
func (l *Learner) AddRun(run int, pass bool, d *Detector) {
	l.prog = d.prog
	if pass {
		l.passed++
	} else {
		l.failed++
	}
	for _, p := range d.Patterns() {
		st := l.stats[p]
		if st == nil {
			st = &Stat{Pattern: p, FirstRun: run, Addr: d.found[p].addr}
			l.stats[p] = st
		}
		if pass {
			st.Passed++
		} else {
			st.Failed++
		}
	}
	if len(l.sites) < len(d.sites) {
		l.sites = append(l.sites, make([]site, len(d.sites)-len(l.sites))...)
	}
	for pc, b := range d.sites {
		s := &l.sites[pc]
		if b&1 == 0 {
			continue
		}
		if pass {
			s.sObs++
			s.sRemote += int(b >> 1 & 1)
			s.sLocal += int(b >> 2 & 1)
		} else {
			s.fObs++
			s.fRemote += int(b >> 1 & 1)
			s.fLocal += int(b >> 2 & 1)
		}
	}
	l.spans = append(l.spans, d.spans...)
	l.accesses += d.accesses
	l.locations = max(l.locations, d.Locations())
	l.slots = max(l.slots, d.WindowSlots())
}

// Describe spells a ranked pattern for people: its operations, location
// and source lines, e.g. "R1-W2-R1 on balance (lines 53, 73, 56)".
func (l *Learner) Describe(st Stat) string {
	var b strings.Builder
	b.WriteString(st.Ops())
	if l.prog != nil {
		fmt.Fprintf(&b, " on %s (lines", l.prog.DescribeAddr(st.Addr))
		for i, pc := range st.PCs() {
			if i > 0 {
				b.WriteByte(',')
			}
			line := int32(0)
			if pc >= 0 && int(pc) < len(l.prog.Instrs) {
				line = l.prog.Instrs[pc].Line
			}
			fmt.Fprintf(&b, " %d", line)
		}
		b.WriteByte(')')
	}
	return b.String()
}

// Runs returns the number of passing and failing runs added.
func (l *Learner) Runs() (passed, failed int) { return l.passed, l.failed }

// Spans returns the span of every unserializable detection of every run.
func (l *Learner) Spans() []int { return slices.Clone(l.spans) }

// Accesses returns the monitored accesses over the runs, and Locations
// and Slots the most locations and window slots one run needed.
func (l *Learner) Accesses() uint64 { return l.accesses }

// Locations returns the most locations one run's windows covered.
func (l *Learner) Locations() int { return l.locations }

// Slots returns the most window slots one run kept.
func (l *Learner) Slots() int { return l.slots }

// Rank returns every pattern of the batch ranked by the score s.
func (l *Learner) Rank(s Score) []Ranked {
	out := make([]Ranked, 0, len(l.stats))
	for _, st := range l.stats {
		r := Ranked{Stat: *st, Jaccard: Suspiciousness(Jaccard, st.Failed, st.Passed, l.failed, l.passed),
			Tarantula: Suspiciousness(Tarantula, st.Failed, st.Passed, l.failed, l.passed), OnlyFailing: st.Failed > 0 && st.Passed == 0}
		r.Score = r.Jaccard
		if s == Tarantula {
			r.Score = r.Tarantula
		}
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b Ranked) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Failed, a.Failed); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Passed, b.Passed); c != 0 {
			return c
		}
		return a.Pattern.Compare(b.Pattern)
	})
	Renumber(out)
	return out
}

// Renumber sets the ranks of a ranked list (or of a sublist of one, e.g.
// one kind's patterns, in the ranking's order): Rank is the position,
// and runs of equal scores share their optimistic and pessimistic ranks.
func Renumber(out []Ranked) {
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && out[j].Score == out[i].Score {
			j++
		}
		for k := i; k < j; k++ {
			out[k].Rank, out[k].Optimistic, out[k].Pessimistic = k+1, i+1, j
		}
		i = j
	}
}

// Predicate is a CCI-Prev predicate: at access instruction PC, the
// previous access to the same location was by another thread (Remote) or
// by its own.
type Predicate struct {
	PC     int32
	Remote bool
}

// RankedPredicate is a predicate with CBI's counts and scores: F and S the
// failing and passing runs in which it was true, FObs and SObs those in
// which its instruction was observed; Increase = F/(S+F) −
// FObs/(SObs+FObs); Importance the harmonic mean of Increase and log F /
// log NumF (0 when Increase ≤ 0; log F / log NumF is 1 when one run
// failed and it is true in it). Rank is its position, by Importance, then
// F, then PC, remote first; 0 (unranked) when Importance is 0, as CBI
// prunes such predicates.
type RankedPredicate struct {
	Predicate
	F, S, FObs, SObs     int
	Increase, Importance float64
	Rank                 int
}

// CCI returns CCI-Prev's predicates ranked by CBI's Importance.
func (l *Learner) CCI() []RankedPredicate {
	var out []RankedPredicate
	for pc, s := range l.sites {
		if s.fObs+s.sObs == 0 {
			continue
		}
		for _, remote := range []bool{true, false} {
			p := RankedPredicate{Predicate: Predicate{PC: int32(pc), Remote: remote}, FObs: s.fObs, SObs: s.sObs, F: s.fLocal, S: s.sLocal}
			if remote {
				p.F, p.S = s.fRemote, s.sRemote
			}
			p.Increase, p.Importance = importance(p.F, p.S, p.FObs, p.SObs, l.failed)
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b RankedPredicate) int {
		if c := cmp.Compare(b.Importance, a.Importance); c != 0 {
			return c
		}
		if c := cmp.Compare(b.F, a.F); c != 0 {
			return c
		}
		if c := cmp.Compare(a.PC, b.PC); c != 0 {
			return c
		}
		return b2i(b.Remote) - b2i(a.Remote)
	})
	// CBI prunes the predicates that do not raise the chance of failure:
	// those of Importance 0 are left unranked (Rank 0).
	for i := range out {
		if out[i].Importance > 0 {
			out[i].Rank = i + 1
		}
	}
	return out
}

// importance is CBI's Increase and Importance of a predicate.
func importance(f, s, fObs, sObs, numF int) (increase, imp float64) {
	if f == 0 || fObs == 0 {
		return 0, 0
	}
	increase = float64(f)/float64(f+s) - float64(fObs)/float64(fObs+sObs)
	if increase <= 0 {
		return increase, 0
	}
	sens := 1.0
	if numF > 1 {
		sens = math.Log(float64(f)) / math.Log(float64(numF))
	}
	if sens <= 0 {
		return increase, 0
	}
	return increase, 2 / (1/increase + 1/sens)
}

// CCIRank returns the best CCI-Prev rank of access instruction pc's
// predicates (0: none ranked: never observed, or pruned).
func CCIRank(ranked []RankedPredicate, pc int32) int {
	best := 0
	for _, p := range ranked {
		if p.PC == pc && p.Rank > 0 && (best == 0 || p.Rank < best) {
			best = p.Rank
		}
	}
	return best
}
