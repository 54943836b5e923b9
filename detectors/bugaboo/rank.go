package bugaboo

import (
	"cmp"
	"fmt"
	"maps"
	"math/bits"
	"slices"

	"weft/isa"
)

// How selects the reading of the paper's ranking formula (digest §1.7).
type How uint8

// The readings of the ranking formula. Both score a code point CP from
// F_{CP,x}, the number of graphs holding a node (CP, x), over the contexts
// x CP ran in; lower scores are more suspicious.
const (
	// MinRelFreq scores CP by the relative frequency of its rarest
	// context: min_x F_{CP,x} / Σ_y F_{CP,y} (the digest's recommended
	// reading, and the default).
	MinRelFreq How = iota
	// Literal is the formula as printed: Σ_x F_{CP,x} / F_{CP,*}, with
	// F_{CP,*} the dynamic count of CP's communication events: the counts
	// of the edges incident to CP, over all graphs (an edge with both ends
	// in CP counts twice, as a loop does in a degree).
	Literal
)

// String returns "min_relfreq" or "literal", the names of the config's
// analysis.ranking.
func (h How) String() string {
	switch h {
	case MinRelFreq:
		return "min_relfreq"
	case Literal:
		return "literal"
	}
	return fmt.Sprintf("How(%d)", uint8(h))
}

// ParseHow returns the reading named "min_relfreq" or "literal".
func ParseHow(name string) (How, error) {
	for _, h := range []How{MinRelFreq, Literal} {
		if h.String() == name {
			return h, nil
		}
	}
	return 0, fmt.Errorf("bugaboo: unknown ranking %q (want min_relfreq or literal)", name)
}

// Ranked is one code point of a ranking, with its score and what the score
// was computed from.
type Ranked struct {
	// CodePoint is the code point (an index into Program.CodePoints, or a
	// PC when the ranking had no program).
	CodePoint int32
	// Score is Num/Den; lower is more suspicious.
	Score float64
	// Num and Den are the score as an exact fraction: ties are decided on
	// them, never on Score's rounding.
	Num, Den uint64
	// PCs are the code point's instructions that appear in the graphs,
	// ascending.
	PCs []int32
	// Contexts is the number of contexts the code point ran in, |X_CP|.
	Contexts int
	// Rarest is the code point's rarest context: the fewest graphs hold
	// it, then the fewest dynamic events, then the smallest value.
	Rarest uint32
	// RarestRuns is F_{CP,Rarest}, the graphs holding the rarest context.
	RarestRuns int
	// Runs is Σ_x F_{CP,x}.
	Runs int
	// Dyn is F_{CP,*}, the dynamic count of the code point's communication
	// events (see Literal).
	Dyn uint64
	// Graphs is the number of graphs ranked.
	Graphs int
}

// CompareScores compares two ranked code points' scores exactly (as the
// fractions Num/Den).
func CompareScores(a, b *Ranked) int {
	// a.Num/a.Den vs b.Num/b.Den: compare a.Num*b.Den with b.Num*a.Den in
	// 128 bits.
	h1, l1 := bits.Mul64(a.Num, b.Den)
	h2, l2 := bits.Mul64(b.Num, a.Den)
	if c := cmp.Compare(h1, h2); c != 0 {
		return c
	}
	return cmp.Compare(l1, l2)
}

// Ranker ranks code points over per-run graphs (digest §1.7, §1.9). A nil
// Prog ranks PCs instead of code points and names no functions.
type Ranker struct {
	// Prog maps PCs to code points (Instrs[pc].CodePoint).
	Prog *isa.Program
	// How is the reading of the formula.
	How How
}

// cpStat accumulates one code point's counts.
type cpStat struct {
	runs map[uint32]int    // F_{CP,x}
	dyn  map[uint32]uint64 // dynamic events per context
	pcs  map[int32]struct{}
	all  uint64 // F_{CP,*}
}

// Rank ranks the code points of graphs, ascending by score (most
// suspicious first). Tie-break: equal scores, compared exactly, are
// ordered by code point index, which is source order; Inspections counts
// ties pessimistically whatever their order. Nil graphs are skipped; the
// NULL node has no code point, but its edges count toward their other
// end's dynamic count.
func (r Ranker) Rank(graphs []*Graph) []Ranked {
	f := NewRankFold(r.Prog)
	for _, g := range graphs {
		f.Add(g)
	}
	return f.Rank(r.How)
}

// RankFold is Rank over graphs added one at a time: it keeps each code
// point's counts, not the graphs, so a caller can rank runs as they
// complete. The order of the graphs does not matter. The zero RankFold
// is not ready; use NewRankFold.
type RankFold struct {
	prog  *isa.Program
	stats map[int32]*cpStat
	n     int // graphs added
}

// NewRankFold returns an empty fold ranking the code points of prog (nil:
// PCs, as Ranker with a nil Prog).
func NewRankFold(prog *isa.Program) *RankFold {
	return &RankFold{prog: prog, stats: map[int32]*cpStat{}}
}

// Graphs returns the number of graphs added (nil ones not counted).
func (f *RankFold) Graphs() int { return f.n }

// Add adds g's counts (a nil g counts for nothing).
func (f *RankFold) Add(g *Graph) {
	if g == nil {
		return
	}
	type key struct {
		cp  int32
		ctx uint32
	}
	f.n++
	seen := map[key]struct{}{}
	for e, c := range g.edges {
		for _, nd := range [2]Node{e.Src, e.Dst} {
			cp, ok := CodePointOf(f.prog, nd.PC)
			if !ok {
				continue
			}
			st := f.stats[cp]
			if st == nil {
				st = &cpStat{runs: map[uint32]int{}, dyn: map[uint32]uint64{}, pcs: map[int32]struct{}{}}
				f.stats[cp] = st
			}
			st.all += c
			st.dyn[nd.Ctx] += c
			st.pcs[nd.PC] = struct{}{}
			if _, ok := seen[key{cp, nd.Ctx}]; !ok {
				seen[key{cp, nd.Ctx}] = struct{}{}
				st.runs[nd.Ctx]++
			}
		}
	}
}

// Rank ranks the code points of the graphs added with the given reading
// of the formula, as Ranker.Rank does; the fold is unchanged, so it can
// be ranked again with the other reading or after more graphs.
func (f *RankFold) Rank(how How) []Ranked {
	out := make([]Ranked, 0, len(f.stats))
	for cp, st := range f.stats {
		rk := Ranked{CodePoint: cp, PCs: slices.Sorted(maps.Keys(st.pcs)), Contexts: len(st.runs), Dyn: st.all, Graphs: f.n}
		first := true
		for ctx, runs := range st.runs {
			rk.Runs += runs
			if first || runs < rk.RarestRuns || runs == rk.RarestRuns &&
				(st.dyn[ctx] < st.dyn[rk.Rarest] || st.dyn[ctx] == st.dyn[rk.Rarest] && ctx < rk.Rarest) {
				rk.Rarest, rk.RarestRuns, first = ctx, runs, false
			}
		}
		switch how {
		case Literal:
			rk.Num, rk.Den = uint64(rk.Runs), rk.Dyn
		default:
			rk.Num, rk.Den = uint64(rk.RarestRuns), uint64(rk.Runs)
		}
		rk.Score = float64(rk.Num) / float64(rk.Den)
		out = append(out, rk)
	}
	slices.SortFunc(out, func(a, b Ranked) int {
		if c := CompareScores(&a, &b); c != 0 {
			return c
		}
		return cmp.Compare(a.CodePoint, b.CodePoint)
	})
	return out
}

// Unlabeled is the unlabeled method: the ranking over every run's graph.
func (r Ranker) Unlabeled(graphs []*Graph) []Ranked { return r.Rank(graphs) }

// BugOnly returns the bug-only graph of each buggy run: its edges absent
// from every non-buggy run (Difference against their Union).
func BugOnly(buggy, nonbuggy []*Graph) []*Graph {
	ok := Union(nonbuggy...)
	out := make([]*Graph, 0, len(buggy))
	for _, g := range buggy {
		if g != nil {
			out = append(out, Difference(g, ok))
		}
	}
	return out
}

// Labeled is the labeled method: the same ranking over the bug-only graphs
// of the buggy runs. A code point that communicates in no bug-only edge is
// not ranked at all.
func (r Ranker) Labeled(buggy, nonbuggy []*Graph) []Ranked {
	return r.Rank(BugOnly(buggy, nonbuggy))
}

// Deploy is the post-deployment mode: each field graph minus the testing
// graph (the union of the test runs, shipped with the program), ranked
// unlabeled; it returns the code points whose score is at most threshold,
// in ranking order.
func (r Ranker) Deploy(field []*Graph, testing *Graph, threshold float64) []Ranked {
	diff := make([]*Graph, 0, len(field))
	for _, g := range field {
		if g != nil {
			diff = append(diff, Difference(g, testing))
		}
	}
	var out []Ranked
	for _, rk := range r.Rank(diff) {
		if rk.Score <= threshold {
			out = append(out, rk)
		}
	}
	return out
}

// Inspections is the paper's quality metric (digest §1.8): the number of
// code points a programmer inspects, going down the ranking, up to and
// including the first bug code point, and the number of distinct functions
// among them. Ties are resolved pessimistically: every code point that is
// not a bug code point and whose score equals the first bug code point's
// counts as ahead of it, wherever the ranking put it. found is false (and
// n, funcs 0) when no bug code point is ranked. Functions are
// prog.CodePoints[cp].Func (code points outside every function count as
// one function); with a nil prog, each code point is a PC and its function
// is prog-less (funcs counts code points).
func Inspections(ranked []Ranked, bugCodePoints []int32, prog *isa.Program) (n int, funcs int, found bool) {
	isBug := func(cp int32) bool { return slices.Contains(bugCodePoints, cp) }
	first := -1
	for i := range ranked {
		if isBug(ranked[i].CodePoint) {
			first = i
			break
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	bug := &ranked[first]
	fs := map[int32]struct{}{}
	fn := func(cp int32) int32 {
		if prog == nil {
			return cp
		}
		if cp >= 0 && int(cp) < len(prog.CodePoints) {
			return prog.CodePoints[cp].Func
		}
		return -1
	}
	for i := range ranked {
		rk := &ranked[i]
		if i == first || !isBug(rk.CodePoint) && (i < first || CompareScores(rk, bug) <= 0) {
			n++
			fs[fn(rk.CodePoint)] = struct{}{}
		}
	}
	return n, len(fs), true
}
