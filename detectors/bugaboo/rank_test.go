package bugaboo

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"weft/isa"
)

// handProg is a program of six instructions in five code points and three
// functions: pcs 0 and 1 are code point 0; pc 2 is 1; pc 3 is 2; pc 4 is
// 3; pc 5 is 4. Code points 0 and 1 are in function f0, 2 in f1, 3 and 4
// in f2.
func handProg() *isa.Program {
	p := &isa.Program{
		Funcs: []isa.Func{{Name: "f0", Start: 0, End: 3}, {Name: "f1", Start: 3, End: 4}, {Name: "f2", Start: 4, End: 6}},
		CodePoints: []isa.CodePoint{{Line: 10, Func: 0}, {Line: 11, Func: 0}, {Name: "cp", Line: 20, Func: 1},
			{Line: 30, Func: 2}, {Line: 31, Func: 2}},
	}
	for _, cp := range []int32{0, 0, 1, 2, 3, 4} {
		p.Instrs = append(p.Instrs, isa.Instruction{Op: isa.OpLd, CodePoint: cp, Func: p.CodePoints[cp].Func})
	}
	return p
}

func n(pc int32, ctx uint32) Node { return Node{PC: pc, Ctx: ctx} }

var null = Node{PC: NullPC}

// handGraphs are three runs' graphs over handProg.
func handGraphs() (g1, g2, g3 *Graph) {
	g1, g2, g3 = NewGraph(), NewGraph(), NewGraph()
	g1.Add(Edge{n(0, 1), n(2, 1)}, 3)
	g1.Add(Edge{n(1, 2), n(3, 1)}, 1)
	g2.Add(Edge{n(0, 1), n(2, 2)}, 1)
	g2.Add(Edge{n(4, 1), n(5, 1)}, 2)
	g3.AddEdge(n(0, 1), n(2, 1))
	g3.AddEdge(null, n(3, 3))
	g3.AddEdge(n(1, 1), n(4, 1))
	return
}

func TestGraphCounts(t *testing.T) {
	g1, _, g3 := handGraphs()
	if g1.EdgeCount() != 2 || g1.NodeCount() != 4 || g1.Total() != 4 {
		t.Errorf("g1: %d edges, %d nodes, total %d; want 2, 4, 4", g1.EdgeCount(), g1.NodeCount(), g1.Total())
	}
	// The NULL node is not a node.
	if g3.EdgeCount() != 3 || g3.NodeCount() != 5 || g3.Total() != 3 {
		t.Errorf("g3: %d edges, %d nodes, total %d; want 3, 5, 3", g3.EdgeCount(), g3.NodeCount(), g3.Total())
	}
	want := []Edge{{null, n(3, 3)}, {n(0, 1), n(2, 1)}, {n(1, 1), n(4, 1)}}
	if got := g3.Edges(); !slices.Equal(got, want) {
		t.Errorf("edges %v, want %v", got, want)
	}
	if got := g3.Nodes(); !slices.Equal(got, []Node{n(0, 1), n(1, 1), n(2, 1), n(3, 3), n(4, 1)}) {
		t.Errorf("nodes %v", got)
	}
	var each []uint64
	g1.Each(func(e Edge, c uint64) { each = append(each, c) })
	if !slices.Equal(each, []uint64{3, 1}) {
		t.Errorf("each counts %v, want [3 1]", each)
	}
	if g1.Count(Edge{n(0, 1), n(2, 1)}) != 3 || g1.Has(Edge{n(0, 1), n(2, 2)}) {
		t.Errorf("count/has wrong")
	}
	var zero Graph
	zero.AddEdge(n(1, 0), n(2, 0))
	zero.Add(Edge{n(1, 0), n(2, 0)}, 0)
	if zero.EdgeCount() != 1 || zero.Total() != 1 {
		t.Errorf("zero graph not usable")
	}
	c := g1.Clone()
	c.AddEdge(n(5, 5), n(5, 5))
	if g1.EdgeCount() != 2 || c.EdgeCount() != 3 {
		t.Errorf("clone shares state")
	}
}

func TestUnionDifference(t *testing.T) {
	g1, g2, g3 := handGraphs()
	u := Union(g1, g2, nil, g3)
	if u.EdgeCount() != 6 || u.Total() != 10 || u.Count(Edge{n(0, 1), n(2, 1)}) != 4 {
		t.Errorf("union: %d edges, total %d, count %d; want 6, 10, 4", u.EdgeCount(), u.Total(), u.Count(Edge{n(0, 1), n(2, 1)}))
	}
	// The bug-only graph of g3 against g1 ∪ g2: the NULL edge and (1,1)→(4,1).
	d := Difference(g3, Union(g1, g2))
	if got := d.Edges(); !slices.Equal(got, []Edge{{null, n(3, 3)}, {n(1, 1), n(4, 1)}}) {
		t.Errorf("difference %v", got)
	}
	if Difference(g1, g1).EdgeCount() != 0 || Difference(g1, nil).EdgeCount() != 2 {
		t.Errorf("difference with itself or nil wrong")
	}
	bo := BugOnly([]*Graph{g3, g1}, []*Graph{g1, g2})
	if len(bo) != 2 || bo[0].EdgeCount() != 2 || bo[1].EdgeCount() != 0 {
		t.Errorf("bug-only graphs wrong: %d", len(bo))
	}
}

func TestConvergence(t *testing.T) {
	g1, g2, g3 := handGraphs()
	got := Convergence([]*Graph{g1, g2, g3, g1, NewGraph()})
	// g1: 100 (first); g2: 2 new of 2; g3: 2 new of 4; g1 again: 0 of 6.
	want := []float64{100, 100, 50, 0, 0}
	if !slices.Equal(got, want) {
		t.Errorf("convergence %v, want %v", got, want)
	}
	if got := Convergence([]*Graph{NewGraph(), g1}); !slices.Equal(got, []float64{100, 100}) {
		t.Errorf("after an empty first run %v, want [100 100]", got)
	}
	g4 := NewGraph()
	g4.AddEdge(n(9, 9), n(8, 8))
	if got := Convergence([]*Graph{g1, g2, g3, g4}); got[3] != 100.0/6 {
		t.Errorf("one new edge of six: %v", got[3])
	}
}

// TestConverger checks that adding runs one at a time gives Convergence's
// values, nil runs included.
func TestConverger(t *testing.T) {
	g1, g2, g3 := handGraphs()
	runs := []*Graph{nil, g1, g2, g3, g1, NewGraph(), nil}
	want := Convergence(runs)
	var c Converger
	for i, g := range runs {
		if got := c.Add(g); got != want[i] {
			t.Errorf("run %d: %v, want %v", i, got, want[i])
		}
	}
}

func TestImprecision(t *testing.T) {
	p := handProg()
	g1, g2, g3 := handGraphs()
	ref := Union(g1, g2, g3)
	if got := CodePoints(p, ref); !slices.Equal(got, []int32{0, 1, 2, 3, 4}) {
		t.Errorf("code points %v", got)
	}
	for _, c := range []struct {
		lossy *Graph
		want  float64
	}{
		{g2, 20},   // code point 2 (pc 3) is missing
		{g1, 40},   // 3 and 4 are missing
		{g3, 20},   // 4 (pc 5) is missing; NULL is no code point
		{ref, 0},   //
		{nil, 100}, // everything is missing
	} {
		lossy := c.lossy
		if lossy == nil {
			lossy = NewGraph()
		}
		if got := Imprecision(p, ref, lossy); got != c.want {
			t.Errorf("imprecision %v, want %v", got, c.want)
		}
	}
	if Imprecision(p, NewGraph(), g1) != 0 {
		t.Errorf("empty ref: want 0")
	}
	// Without a program, PCs are the code points: g1 has pcs 0..3 of 0..5.
	if got := Imprecision(nil, ref, g1); got != 100*2.0/6 {
		t.Errorf("pc imprecision %v", got)
	}
}

type wantRank struct {
	cp       int32
	num, den uint64
	rarest   uint32
	pcs      []int32
}

func checkRanking(t *testing.T, name string, got []Ranked, want []wantRank) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d ranked, want %d: %+v", name, len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.CodePoint != w.cp || g.Num != w.num || g.Den != w.den || g.Rarest != w.rarest || !slices.Equal(g.PCs, w.pcs) ||
			g.Score != float64(w.num)/float64(w.den) {
			t.Errorf("%s #%d: cp %d %d/%d=%v rarest %d pcs %v; want cp %d %d/%d rarest %d pcs %v",
				name, i+1, g.CodePoint, g.Num, g.Den, g.Score, g.Rarest, g.PCs, w.cp, w.num, w.den, w.rarest, w.pcs)
		}
	}
}

// TestRankFormulas checks both readings on handGraphs. Per code point
// (runs_with per context; dynamic count of incident edges):
//
//	cp0 (pcs 0,1): ctx1 in 3 graphs, ctx2 in 1; dyn 4+1+2 = 7
//	cp1 (pc 2):    ctx1 in 2, ctx2 in 1;        dyn 3+1+1 = 5
//	cp2 (pc 3):    ctx1 in 1, ctx3 in 1;        dyn 1+1   = 2
//	cp3 (pc 4):    ctx1 in 2;                   dyn 2+1   = 3
//	cp4 (pc 5):    ctx1 in 1;                   dyn 2
func TestRankFormulas(t *testing.T) {
	p := handProg()
	g1, g2, g3 := handGraphs()
	gs := []*Graph{g1, g2, g3}
	// min_relfreq: min_x runs / Σ_y runs = 1/4, 1/3, 1/2, 2/2, 1/1; cp3
	// and cp4 tie at 1 and go by code point.
	checkRanking(t, "min_relfreq", Ranker{Prog: p}.Rank(gs), []wantRank{
		{0, 1, 4, 2, []int32{0, 1}},
		{1, 1, 3, 2, []int32{2}},
		{2, 1, 2, 1, []int32{3}}, // ctx 1 and 3 tie on runs and dyn: the smaller wins
		{3, 2, 2, 1, []int32{4}},
		{4, 1, 1, 1, []int32{5}},
	})
	// literal: Σ_x runs / dyn = 4/7, 3/5, 2/2, 2/3, 1/2.
	checkRanking(t, "literal", Ranker{Prog: p, How: Literal}.Rank(gs), []wantRank{
		{4, 1, 2, 1, []int32{5}},
		{0, 4, 7, 2, []int32{0, 1}},
		{1, 3, 5, 2, []int32{2}},
		{3, 2, 3, 1, []int32{4}},
		{2, 2, 2, 1, []int32{3}},
	})
	r := Ranker{Prog: p}.Rank(gs)
	if r[0].Contexts != 2 || r[0].Runs != 4 || r[0].Dyn != 7 || r[0].RarestRuns != 1 || r[0].Graphs != 3 {
		t.Errorf("cp0 detail %+v", r[0])
	}
	// Without a program, PCs are ranked: pc 0 has ctx1 in 3 graphs only.
	noProg := Ranker{}.Rank(gs)
	if len(noProg) != 6 || noProg[len(noProg)-1].CodePoint != 5 {
		t.Errorf("pc ranking %+v", noProg)
	}
}

// TestRankFold checks that the fold ranks as Rank does, whatever the
// order the graphs are added in, with both readings from one fold, and
// that ranking leaves the fold unchanged.
func TestRankFold(t *testing.T) {
	p := handProg()
	g1, g2, g3 := handGraphs()
	for _, order := range [][]*Graph{{g1, g2, g3}, {g3, nil, g1, g2}, {g2, g3, g1, g1}} {
		f := NewRankFold(p)
		for _, g := range order {
			f.Add(g)
		}
		for _, how := range []How{MinRelFreq, Literal, MinRelFreq} {
			want := Ranker{Prog: p, How: how}.Rank(order)
			got := f.Rank(how)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%d graphs, %v: fold %+v, Rank %+v", len(order), how, got, want)
			}
		}
		if want := len(order) - countNil(order); f.Graphs() != want {
			t.Errorf("fold counted %d graphs, want %d", f.Graphs(), want)
		}
	}
	if got := NewRankFold(nil).Rank(MinRelFreq); len(got) != 0 {
		t.Errorf("empty fold ranks %v", got)
	}
}

// countNil counts the nil graphs of gs.
func countNil(gs []*Graph) int {
	var k int
	for _, g := range gs {
		if g == nil {
			k++
		}
	}
	return k
}

// TestRankTieBreak: equal scores, compared exactly, go by code point
// index, whatever the float rounding or the graphs' order.
func TestRankTieBreak(t *testing.T) {
	p := handProg()
	g := NewGraph()
	// Every code point in three contexts, once each: all score 1/3.
	for _, pc := range []int32{5, 3, 4, 2, 0} {
		for ctx := uint32(0); ctx < 3; ctx++ {
			g.AddEdge(null, n(pc, ctx))
		}
	}
	h := NewGraph()
	// pc 2 (cp 1) also runs in ctx 0 in h: runs 2, 1, 1 → 1/4.
	h.AddEdge(null, n(2, 0))
	r := Ranker{Prog: p}.Rank([]*Graph{g, h})
	var order []int32
	for _, x := range r {
		order = append(order, x.CodePoint)
	}
	if !slices.Equal(order, []int32{1, 0, 2, 3, 4}) {
		t.Errorf("order %v, want [1 0 2 3 4]", order)
	}
	// 1/3 and 2/6 are the same score.
	a, b := Ranked{Num: 1, Den: 3}, Ranked{Num: 2, Den: 6}
	if CompareScores(&a, &b) != 0 {
		t.Errorf("1/3 != 2/6")
	}
	big := Ranked{Num: math.MaxUint64 - 1, Den: math.MaxUint64}
	one := Ranked{Num: 1, Den: 1}
	if CompareScores(&big, &one) >= 0 || CompareScores(&one, &big) <= 0 {
		t.Errorf("128-bit comparison wrong")
	}
}

func TestInspections(t *testing.T) {
	p := handProg()
	g1, g2, g3 := handGraphs()
	gs := []*Graph{g1, g2, g3}
	mr := Ranker{Prog: p}.Rank(gs)                // cp0 1/4, cp1 1/3, cp2 1/2, cp3 1, cp4 1
	lit := Ranker{Prog: p, How: Literal}.Rank(gs) // cp4 1/2, cp0 4/7, cp1 3/5, cp3 2/3, cp2 1
	cases := []struct {
		name         string
		ranked       []Ranked
		bugs         []int32
		n, funcs     int
		found        bool
		nilProgFuncs int
	}{
		{"first", mr, []int32{0}, 1, 1, true, 1},
		{"second", mr, []int32{1}, 2, 1, true, 2},
		// cp3 ties with cp4 at 1: cp4 counts ahead (pessimistic).
		{"tie", mr, []int32{3}, 5, 3, true, 5},
		// With cp4 a bug code point too, it no longer counts against cp3.
		{"tied bugs", mr, []int32{4, 3}, 4, 3, true, 4},
		{"absent", mr, []int32{7}, 0, 0, false, 0},
		{"literal", lit, []int32{3}, 4, 2, true, 4},
		{"literal first", lit, []int32{4, 0}, 1, 1, true, 1},
		{"empty", nil, []int32{0}, 0, 0, false, 0},
	}
	for _, c := range cases {
		n, f, ok := Inspections(c.ranked, c.bugs, p)
		if n != c.n || f != c.funcs || ok != c.found {
			t.Errorf("%s: %d (%d) %v, want %d (%d) %v", c.name, n, f, ok, c.n, c.funcs, c.found)
		}
		if _, f, _ := Inspections(c.ranked, c.bugs, nil); f != c.nilProgFuncs {
			t.Errorf("%s without prog: %d functions, want %d", c.name, f, c.nilProgFuncs)
		}
	}
}

func TestLabeledUnlabeledDeploy(t *testing.T) {
	p := handProg()
	g1, g2, g3 := handGraphs()
	r := Ranker{Prog: p}
	// Labeled: g3's bug-only graph against g1 ∪ g2 holds NULL → (3,3) and
	// (1,1) → (4,1): code points 0, 2 and 3, each in one context of one
	// graph, all 1/1, in code point order.
	lab := r.Labeled([]*Graph{g3}, []*Graph{g1, g2})
	checkRanking(t, "labeled", lab, []wantRank{
		{0, 1, 1, 1, []int32{1}},
		{2, 1, 1, 3, []int32{3}},
		{3, 1, 1, 1, []int32{4}},
	})
	if n, _, _ := Inspections(lab, []int32{2}, p); n != 3 {
		t.Errorf("labeled inspections of cp2: %d, want 3 (all tied)", n)
	}
	// Two buggy runs whose bug-only graphs share cp3's context: cp3 is
	// in ctx 1 in both (runs 2 → 2/2), cp0 in ctx 1 and 2 (1/2).
	b2 := NewGraph()
	b2.AddEdge(n(1, 2), n(4, 1))
	lab2 := r.Labeled([]*Graph{g3, b2}, []*Graph{g1, g2})
	checkRanking(t, "labeled2", lab2, []wantRank{
		{0, 1, 2, 1, []int32{1}},
		{2, 1, 1, 3, []int32{3}},
		{3, 2, 2, 1, []int32{4}},
	})
	// Unlabeled is Rank.
	if got, want := r.Unlabeled([]*Graph{g1, g2, g3}), r.Rank([]*Graph{g1, g2, g3}); len(got) != len(want) || got[0].CodePoint != want[0].CodePoint {
		t.Errorf("unlabeled differs from rank")
	}
	// Deploy: field runs minus the testing graph g1 ∪ g2, ranked, kept
	// when the score is at most the threshold.
	testing := Union(g1, g2)
	field2 := NewGraph()
	field2.AddEdge(n(1, 2), n(3, 1)) // in the testing graph: dropped
	field2.AddEdge(n(1, 5), n(3, 1))
	cases := []struct {
		thr  float64
		want []int32
	}{
		{1, []int32{0, 2, 3}},
		{0.5, []int32{0, 2}}, // cp0: ctx1, ctx5 → 1/2; cp2: ctx3, ctx1 → 1/2; cp3 1/1
		{0.4, nil},
	}
	for _, c := range cases {
		var got []int32
		for _, x := range r.Deploy([]*Graph{g3, field2}, testing, c.thr) {
			got = append(got, x.CodePoint)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("deploy at %v: %v, want %v", c.thr, got, c.want)
		}
	}
}

func TestParseHow(t *testing.T) {
	for _, h := range []How{MinRelFreq, Literal} {
		if got, err := ParseHow(h.String()); err != nil || got != h {
			t.Errorf("%v: %v %v", h, got, err)
		}
	}
	if _, err := ParseHow("sum"); err == nil {
		t.Errorf("ParseHow(sum) succeeded")
	}
}
