package bugaboo_test

import (
	"slices"
	"strings"
	"testing"

	"weft/core"
	"weft/detectors/bugaboo"
	"weft/isa"
)

// drain builds a CTDrain event from (src pc, src ctx, dst pc, dst ctx)
// quadruples; src pc -1 is written as all ones.
func drain(value int64, quads ...[4]int64) *core.Event {
	e := &core.Event{Kind: core.KindCTDrain, Core: 0, Thread: -1, PC: -1, Value: value}
	e.Words[2] = 5 // the paper's 5-event, 2-bit contexts
	for _, q := range quads {
		for _, w := range q {
			e.List = append(e.List, uint64(w))
		}
	}
	return e
}

func TestHW(t *testing.T) {
	p := assemble(t, twoThreads)
	a1, b1, a2, b2 := label(t, p, "a1"), label(t, p, "b1"), label(t, p, "a2"), label(t, p, "b2")
	hw := bugaboo.NewHW(p)
	if hw.Name() != "bbhw" || hw.Kinds() != core.MaskOf(core.KindCTDrain) {
		t.Fatalf("name %q kinds %v", hw.Name(), hw.Kinds())
	}
	ctx := int64(bugaboo.DefaultEncoding.Of(bugaboo.RmRd, bugaboo.LcWr))
	hw.Observe(drain(3,
		[4]int64{int64(a1), 0, int64(b1), 0},
		[4]int64{-1, 0x3FF, int64(a2), ctx}, // NULL source: its context word is dropped
		[4]int64{int64(a1), 0, int64(b1), 0},
	))
	hw.Observe(drain(1, [4]int64{int64(b2), 5, int64(a2), ctx}))
	// Malformed: Value says 2 but one entry (plus a stray word) is there.
	e := drain(2, [4]int64{int64(a1), 1, int64(b2), 1})
	e.List = append(e.List, 7)
	hw.Observe(e)
	hw.Observe(drain(0)) // an empty drain
	hw.Observe(&core.Event{Kind: core.KindRead, Thread: 1, PC: a1, Addr: isa.DataBase})
	g := hw.Graph()
	want := []bugaboo.Edge{
		{Src: bugaboo.Node{PC: bugaboo.NullPC}, Dst: bugaboo.Node{PC: a2, Ctx: uint32(ctx)}},
		{Src: bugaboo.Node{PC: a1}, Dst: bugaboo.Node{PC: b1}},
		{Src: bugaboo.Node{PC: a1, Ctx: 1}, Dst: bugaboo.Node{PC: b2, Ctx: 1}},
		{Src: bugaboo.Node{PC: b2, Ctx: 5}, Dst: bugaboo.Node{PC: a2, Ctx: uint32(ctx)}},
	}
	if got := g.Edges(); !slices.Equal(got, want) {
		t.Errorf("edges %v, want %v", got, want)
	}
	if g.Total() != 5 || g.Count(want[1]) != 2 || g.NodeCount() != 6 {
		t.Errorf("total %d, count %d, nodes %d; want 5, 2, 6", g.Total(), g.Count(want[1]), g.NodeCount())
	}
	if hw.Drains() != 4 || hw.Malformed() != 1 {
		t.Errorf("drains %d malformed %d", hw.Drains(), hw.Malformed())
	}
	if hw.Encoding() != bugaboo.DefaultEncoding {
		t.Errorf("encoding %+v", hw.Encoding())
	}
	// The first drain names the encoding: 3 events of 3 bits here.
	hw3 := bugaboo.NewHW(p)
	e3 := drain(0)
	e3.Words[2], e3.Words[3] = 3, 1
	hw3.Observe(e3)
	if hw3.Encoding() != (bugaboo.Encoding{Size: 3, DistinctEmpty: true}) || hw3.Malformed() != 0 {
		t.Errorf("encoding %+v, malformed %d", hw3.Encoding(), hw3.Malformed())
	}
	// A drain listing a context wider than its encoding is malformed; an
	// encoding set from outside (weft detect: the trace's config) wins
	// over the drains' words (zeros in traces that predate them).
	wide := bugaboo.NewHW(p)
	e0 := drain(1, [4]int64{int64(a1), 0x2A5, int64(b1), 0x3FF})
	e0.Words[2] = 0
	wide.Observe(e0)
	if wide.Malformed() != 1 {
		t.Errorf("10-bit contexts in a 0-event encoding: malformed %d", wide.Malformed())
	}
	set := bugaboo.NewHW(p)
	set.SetEncoding(bugaboo.DefaultEncoding)
	set.Observe(e0)
	if set.Encoding() != bugaboo.DefaultEncoding || set.Malformed() != 0 {
		t.Errorf("SetEncoding: %+v, malformed %d", set.Encoding(), set.Malformed())
	}
	bad := bugaboo.NewHW(p)
	e3.Words[2] = 99
	bad.Observe(e3)
	if bad.Encoding() != bugaboo.DefaultEncoding || bad.Malformed() != 1 {
		t.Errorf("bad encoding: %+v, malformed %d", bad.Encoding(), bad.Malformed())
	}
	// Findings: code points a1 (ctx 0, 1), b1, b2 (ctx 1, 5), a2 (ctx
	// (RmRd,LcWr)): a1 and b2 in two contexts score 1 - 1/2.
	fs := hw.Findings()
	if len(fs) != 4 || !slices.IsSortedFunc(fs, core.CompareFindings) {
		t.Fatalf("findings %v", fs)
	}
	for _, f := range fs {
		want := 0.0
		if f.PCs[0] == a1 || f.PCs[0] == b2 {
			want = 0.5
		}
		if f.Detector != "bbhw" || f.Score != want {
			t.Errorf("finding %+v, want score %v", f, want)
		}
		if f.PCs[0] == a2 && !strings.Contains(f.Message, "(LcRd,LcRd,LcRd,RmRd,LcWr)") {
			t.Errorf("a2's message %q", f.Message)
		}
	}
}

func TestLearner(t *testing.T) {
	p := handProgExt()
	g := func(edges ...[4]uint32) *bugaboo.Graph {
		x := bugaboo.NewGraph()
		for _, e := range edges {
			x.AddEdge(bugaboo.Node{PC: int32(e[0]), Ctx: e[1]}, bugaboo.Node{PC: int32(e[2]), Ctx: e[3]})
		}
		return x
	}
	ok1 := g([4]uint32{0, 0, 1, 0}, [4]uint32{2, 0, 3, 0})
	ok2 := g([4]uint32{0, 0, 1, 1}, [4]uint32{2, 0, 3, 0})
	ok2.Add(bugaboo.Edge{Src: bugaboo.Node{PC: 0}, Dst: bugaboo.Node{PC: 1, Ctx: 1}}, 2) // three times in all
	bad := g([4]uint32{0, 0, 1, 0}, [4]uint32{2, 0, 3, 2})                               // pc 3 in a new context
	l := bugaboo.NewLearner(p)
	l.AddRun(5, true, bad)
	l.AddRun(1, false, ok1)
	if !l.Labeled() {
		t.Errorf("not labeled with a buggy and a non-buggy run")
	}
	l.AddRun(3, false, ok2)
	l.AddRun(1, false, ok1) // replaces run 1
	if b, n := l.Counts(); b != 1 || n != 2 || !l.Labeled() {
		t.Errorf("counts %d %d", b, n)
	}
	// Labeled: bad's bug-only graph is (2,0) → (3,2): pcs 2 and 3.
	rk := l.Analyse(bugaboo.MinRelFreq)
	if len(rk) != 2 || rk[0].CodePoint != 2 || rk[1].CodePoint != 3 {
		t.Errorf("labeled ranking %+v", rk)
	}
	fs := l.Findings(1)
	if len(fs) != 1 || fs[0].Detector != "bbsw" || !slices.Equal(fs[0].PCs, []int32{2}) {
		t.Errorf("findings %+v", fs)
	}
	if s := l.Summary(); s != "labeled ranking (min_relfreq) over 1 buggy and 2 non-buggy runs" {
		t.Errorf("summary %q", s)
	}
	// Unlabeled with only non-buggy runs: pc 1 runs in ctx 0 and 1 (1/2),
	// pc 0 in ctx 0 (2/2), pcs 2 and 3 likewise.
	u := bugaboo.NewLearner(p)
	u.AddRun(1, false, ok1)
	u.AddRun(2, false, ok2)
	rk = u.Analyse(bugaboo.MinRelFreq)
	if u.Labeled() || len(rk) != 4 || rk[0].CodePoint != 1 || rk[0].Num != 1 || rk[0].Den != 2 {
		t.Errorf("unlabeled ranking %+v", rk)
	}
	// Literal: pc 0: runs 2 / events 1+3 = 1/2; pc 1 the same (ctx 0
	// once, ctx 1 three times): the tie goes by code point; pcs 2, 3: 2/2.
	rk = u.Analyse(bugaboo.Literal)
	if rk[0].CodePoint != 0 || rk[0].Num != 2 || rk[0].Den != 4 || rk[1].CodePoint != 1 || rk[1].Num != 2 || rk[1].Den != 4 || !strings.Contains(u.Summary(), "unlabeled ranking (literal)") {
		t.Errorf("literal ranking %+v, %s", rk, u.Summary())
	}
}

// handProgExt is four instructions, one code point each, in one function.
func handProgExt() *isa.Program {
	p := &isa.Program{Funcs: []isa.Func{{Name: "f", Start: 0, End: 4}}}
	for i := int32(0); i < 4; i++ {
		p.Instrs = append(p.Instrs, isa.Instruction{Op: isa.OpLd, CodePoint: i})
		p.CodePoints = append(p.CodePoints, isa.CodePoint{Line: 10 + i})
	}
	return p
}

// TestFigure5SW replays Fig. 5's three executions through SW itself. Each
// execution starts from writes that push no event (no location had a
// writer): the figure abstracts from what came before, and each execution
// needs its own starting point. With RmWrTargets Both all three give the
// figure's contexts; the paper's LastWriter gives the buggy one and B.
func TestFigure5SW(t *testing.T) {
	const W, R = 1, 2
	const (
		initStr, initLen, wStr, wLen, rStr, rLen = 10, 11, 1, 2, 3, 4
	)
	str, ln := uint64(isa.DataBase), uint64(isa.DataBase+64)
	type acc struct {
		th    int32
		pc    int32
		write bool
		want  string // the context it runs in; "" for the initial writes
	}
	A := []acc{{W, initStr, true, ""}, {W, initLen, true, ""},
		{R, rStr, false, "()"}, {R, rLen, false, "(LcRd)"}, {W, wStr, true, "(RmRd,RmRd)"}, {W, wLen, true, "(RmRd,RmRd,LcWr)"}}
	buggy := []acc{{R, initStr, true, ""}, {W, initLen, true, ""},
		{W, wStr, true, "()"}, {R, rStr, false, "(RmWr)"}, {R, rLen, false, "(RmWr,LcRd)"}, {W, wLen, true, "(LcWr,RmRd,RmRd)"}}
	B := []acc{{R, initStr, true, ""}, {R, initLen, true, ""},
		{W, wStr, true, "()"}, {W, wLen, true, "(LcWr)"}, {R, rStr, false, "(RmWr,RmWr)"}, {R, rLen, false, "(RmWr,RmWr,LcRd)"}}
	cases := []struct {
		name    string
		accs    []acc
		targets bugaboo.RmWrTargets
		// The contexts the figure gives after the listed access index.
		after      int
		endW, endR string
	}{
		{"A both", A, bugaboo.Both, 4, "(RmRd,RmRd,LcWr)", "(LcRd,LcRd,RmWr)"},
		{"A readers", A, bugaboo.Readers, 4, "(RmRd,RmRd,LcWr)", "(LcRd,LcRd,RmWr)"},
		{"buggy both", buggy, bugaboo.Both, 4, "(LcWr,RmRd,RmRd)", "(RmWr,LcRd,LcRd)"},
		{"buggy last writer", buggy, bugaboo.LastWriter, 4, "(LcWr,RmRd,RmRd)", "(RmWr,LcRd,LcRd)"},
		{"B both", B, bugaboo.Both, 4, "(LcWr,LcWr,RmRd)", "(RmWr,RmWr,LcRd)"},
		{"B last writer", B, bugaboo.LastWriter, 4, "(LcWr,LcWr,RmRd)", "(RmWr,RmWr,LcRd)"},
	}
	for _, c := range cases {
		sw := bugaboo.NewSW(nil, bugaboo.SWOptions{DistinctEmpty: true, RmWrTargets: c.targets})
		enc := sw.Encoding()
		for i, a := range c.accs {
			addr := str
			if a.pc == initLen || a.pc == wLen || a.pc == rLen {
				addr = ln
			}
			if a.want != "" {
				if got := enc.Format(sw.Context(a.th)); got != a.want {
					t.Errorf("%s: access %d (pc %d) ran in %s, the figure says %s", c.name, i, a.pc, got, a.want)
				}
			}
			k := core.KindRead
			if a.write {
				k = core.KindWrite
			}
			sw.Observe(&core.Event{Kind: k, Thread: a.th, Core: a.th, PC: a.pc, Addr: addr})
			if i == c.after {
				if w, r := enc.Format(sw.Context(W)), enc.Format(sw.Context(R)); w != c.endW || r != c.endR {
					t.Errorf("%s: after access %d the writer is in %s, the reader in %s; the figure says %s, %s", c.name, i, w, r, c.endW, c.endR)
				}
			}
		}
		if strings.HasPrefix(c.name, "buggy") {
			// The buggy run's edge into (read str, (RmWr)).
			e := bugaboo.Edge{Src: bugaboo.Node{PC: wStr}, Dst: bugaboo.Node{PC: rStr, Ctx: uint32(enc.Of(bugaboo.RmWr))}}
			if !sw.Graph().Has(e) {
				t.Errorf("%s: no edge %v in %v", c.name, e, sw.Graph().Edges())
			}
		}
	}
}
