package bugaboo_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/detectors/bugaboo"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// twoThreads is ordered by `work` gaps far longer than any miss, so every
// seed performs its data accesses in the order of the comments (A is
// thread 1, B thread 2; main touches no data):
//
//	A a1 st x | B b1 ld x | B b2 st y | A a2 ld y | A a3 ld y |
//	A a4 st x | A a5 st x | B b3 ld x | B b4 st x
const twoThreads = `
.data
x:     .word 0
       .align 64
y:     .word 0
       .align 64
.text
.func main
main:  spawn  r10, ta, r0
       spawn  r11, tb, r0
       join   r10
       join   r11
       exit
.func ta
ta:    li     r2, 1
a1:    st     r2, x
       work   1000
a2:    ld     r3, y
a3:    ld     r3, y
       work   1000
a4:    st     r2, x
a5:    st     r2, x
       exit
.func tb
tb:    work   500
b1:    ld     r4, x
b2:    st     r4, y
       work   2000
b3:    ld     r4, x
b4:    st     r4, x
       exit
`

func assemble(t testing.TB, src string) *isa.Program {
	t.Helper()
	p, err := isa.Assemble("test.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func label(t testing.TB, p *isa.Program, name string) int32 {
	t.Helper()
	pc, ok := p.LabelPC(name)
	if !ok {
		t.Fatalf("no label %s", name)
	}
	return pc
}

// runSW runs p with SW attached and returns it.
func runSW(t testing.TB, p *isa.Program, seed uint64, opts bugaboo.SWOptions) *bugaboo.SW {
	t.Helper()
	sw := bugaboo.NewSW(p, opts)
	cfg, _ := sim.FitCores(configs.Default(), p)
	if _, err := sim.Run(cfg, p, seed, sim.WithDetector(sw)); err != nil {
		t.Fatal(err)
	}
	return sw
}

// ev is an expected edge: labels and the events of each context, oldest
// first.
type ev struct {
	src    string
	srcCtx []bugaboo.Event
	dst    string
	dstCtx []bugaboo.Event
}

const (
	LcRd = bugaboo.LcRd
	LcWr = bugaboo.LcWr
	RmRd = bugaboo.RmRd
	RmWr = bugaboo.RmWr
)

func evs(e ...bugaboo.Event) []bugaboo.Event { return e }

func TestSWTwoThreads(t *testing.T) {
	p := assemble(t, twoThreads)
	const A, B = 1, 2
	cases := []struct {
		name  string
		opts  bugaboo.SWOptions
		edges []ev
		// The threads' contexts at the end of the run.
		endA, endB []bugaboo.Event
		pushes     uint64
	}{
		{name: "paper", opts: bugaboo.SWOptions{}, edges: []ev{
			{"a1", nil, "b1", nil},                                           // RAW
			{"b2", evs(LcRd), "a2", evs(RmRd)},                               // RAW
			{"b2", evs(LcRd), "a3", evs(RmRd, LcRd)},                         // RAW again: SW counts every read
			{"a5", evs(RmRd, LcRd, LcRd), "b3", evs(LcRd, RmRd, RmRd)},       // RAW from the last write
			{"a5", evs(RmRd, LcRd, LcRd), "b4", evs(LcRd, RmRd, RmRd, LcRd)}, // WAW
		}, endA: evs(RmRd, LcRd, LcRd, RmRd, RmWr), endB: evs(LcRd, RmRd, RmRd, LcRd, LcWr), pushes: 10},
		{name: "first read only", opts: bugaboo.SWOptions{FirstReadOnly: true}, edges: []ev{
			{"a1", nil, "b1", nil},
			{"b2", evs(LcRd), "a2", evs(RmRd)}, // a3 repeats a2's read: dropped
			{"a5", evs(RmRd, LcRd), "b3", evs(LcRd, RmRd)},
			{"a5", evs(RmRd, LcRd), "b4", evs(LcRd, RmRd, LcRd)},
		}, endA: evs(RmRd, LcRd, RmRd, RmWr), endB: evs(LcRd, RmRd, LcRd, LcWr), pushes: 8},
		{name: "first write only", opts: bugaboo.SWOptions{FirstWriteOnly: true}, edges: []ev{
			{"a1", nil, "b1", nil},
			{"b2", evs(LcRd), "a2", evs(RmRd)},
			{"b2", evs(LcRd), "a3", evs(RmRd, LcRd)},
			// A has been x's last writer since a1: a4 and a5 leave its entry.
			{"a1", nil, "b3", evs(LcRd, RmRd, RmRd)},
			{"a1", nil, "b4", evs(LcRd, RmRd, RmRd, LcRd)},
		}, endA: evs(RmRd, LcRd, LcRd, RmRd, RmWr), endB: evs(LcRd, RmRd, RmRd, LcRd, LcWr), pushes: 10},
		// Readers: a4 writes x that B read since a1: B gets RmWr and A
		// LcWr; b4 overwrites A's x but A is no reader of it: A gets
		// nothing.
		{name: "readers", opts: bugaboo.SWOptions{RmWrTargets: bugaboo.Readers}, edges: []ev{
			{"a1", nil, "b1", nil},
			{"b2", evs(LcRd), "a2", evs(RmRd)},
			{"b2", evs(LcRd), "a3", evs(RmRd, LcRd)},
			{"a5", evs(RmRd, LcRd, LcRd, LcWr), "b3", evs(LcRd, RmRd, RmRd, RmWr)},
			{"a5", evs(RmRd, LcRd, LcRd, LcWr), "b4", evs(LcRd, RmRd, RmRd, RmWr, LcRd)},
		}, endA: evs(RmRd, LcRd, LcRd, LcWr, RmRd), endB: evs(RmRd, RmRd, RmWr, LcRd, LcWr), pushes: 11},
		// Both: as readers, and b4 also sends RmWr to x's last writer A.
		{name: "both", opts: bugaboo.SWOptions{RmWrTargets: bugaboo.Both}, edges: []ev{
			{"a1", nil, "b1", nil},
			{"b2", evs(LcRd), "a2", evs(RmRd)},
			{"b2", evs(LcRd), "a3", evs(RmRd, LcRd)},
			{"a5", evs(RmRd, LcRd, LcRd, LcWr), "b3", evs(LcRd, RmRd, RmRd, RmWr)},
			{"a5", evs(RmRd, LcRd, LcRd, LcWr), "b4", evs(LcRd, RmRd, RmRd, RmWr, LcRd)},
		}, endA: evs(LcRd, LcRd, LcWr, RmRd, RmWr), endB: evs(RmRd, RmRd, RmWr, LcRd, LcWr), pushes: 12},
		// Context size 2: only the newest two events.
		{name: "size 2", opts: bugaboo.SWOptions{ContextSize: 2}, edges: []ev{
			{"a1", nil, "b1", nil},
			{"b2", evs(LcRd), "a2", evs(RmRd)},
			{"b2", evs(LcRd), "a3", evs(RmRd, LcRd)},
			{"a5", evs(LcRd, LcRd), "b3", evs(RmRd, RmRd)},
			{"a5", evs(LcRd, LcRd), "b4", evs(RmRd, LcRd)},
		}, endA: evs(RmRd, RmWr), endB: evs(LcRd, LcWr), pushes: 10},
		// No context: the basic graph; a2 and a3 become one edge, twice.
		{name: "no context", opts: bugaboo.SWOptions{NoContext: true}, edges: []ev{
			{"a1", nil, "b1", nil},
			{"b2", nil, "a2", nil},
			{"b2", nil, "a3", nil},
			{"a5", nil, "b3", nil},
			{"a5", nil, "b4", nil},
		}, pushes: 10},
		{name: "distinct empty", opts: bugaboo.SWOptions{DistinctEmpty: true}, edges: []ev{
			{"a1", nil, "b1", nil},
			{"b2", evs(LcRd), "a2", evs(RmRd)},
			{"b2", evs(LcRd), "a3", evs(RmRd, LcRd)},
			{"a5", evs(RmRd, LcRd, LcRd), "b3", evs(LcRd, RmRd, RmRd)},
			{"a5", evs(RmRd, LcRd, LcRd), "b4", evs(LcRd, RmRd, RmRd, LcRd)},
		}, endA: evs(RmRd, LcRd, LcRd, RmRd, RmWr), endB: evs(LcRd, RmRd, RmRd, LcRd, LcWr), pushes: 10},
		// Line granularity: x and y are on separate lines, so nothing
		// changes.
		{name: "line", opts: bugaboo.SWOptions{Granularity: bugaboo.Line}, edges: []ev{
			{"a1", nil, "b1", nil},
			{"b2", evs(LcRd), "a2", evs(RmRd)},
			{"b2", evs(LcRd), "a3", evs(RmRd, LcRd)},
			{"a5", evs(RmRd, LcRd, LcRd), "b3", evs(LcRd, RmRd, RmRd)},
			{"a5", evs(RmRd, LcRd, LcRd), "b4", evs(LcRd, RmRd, RmRd, LcRd)},
		}, endA: evs(RmRd, LcRd, LcRd, RmRd, RmWr), endB: evs(LcRd, RmRd, RmRd, LcRd, LcWr), pushes: 10},
	}
	for _, c := range cases {
		for _, seed := range []uint64{1, 2, 3} {
			sw := runSW(t, p, seed, c.opts)
			enc := sw.Encoding()
			want := bugaboo.NewGraph()
			for _, e := range c.edges {
				want.AddEdge(bugaboo.Node{PC: label(t, p, e.src), Ctx: uint32(enc.Of(e.srcCtx...))},
					bugaboo.Node{PC: label(t, p, e.dst), Ctx: uint32(enc.Of(e.dstCtx...))})
			}
			got := sw.Graph()
			if !slices.Equal(got.Edges(), want.Edges()) || got.Total() != want.Total() {
				t.Errorf("%s seed %d: edges\n%s\nwant\n%s", c.name, seed, dump(p, enc, got), dump(p, enc, want))
			}
			if a, b := sw.Context(A), sw.Context(B); a != enc.Of(c.endA...) || b != enc.Of(c.endB...) {
				t.Errorf("%s seed %d: A ends %s, B %s; want %s, %s", c.name, seed, enc.Format(a), enc.Format(b),
					enc.Format(enc.Of(c.endA...)), enc.Format(enc.Of(c.endB...)))
			}
			if sw.Pushes() != c.pushes || sw.Accesses() != 9 {
				t.Errorf("%s seed %d: %d pushes, %d accesses; want %d, 9", c.name, seed, sw.Pushes(), sw.Accesses(), c.pushes)
			}
		}
	}
}

func dump(p *isa.Program, enc bugaboo.Encoding, g *bugaboo.Graph) string {
	var b strings.Builder
	g.Each(func(e bugaboo.Edge, c uint64) {
		b.WriteString("  " + p.InstrText(e.Src.PC) + " " + enc.Format(bugaboo.Context(e.Src.Ctx)) + " -> " +
			p.InstrText(e.Dst.PC) + " " + enc.Format(bugaboo.Context(e.Dst.Ctx)) + "\n")
	})
	return b.String()
}

// lineShare puts p and q in one line: A writes p, B reads q and writes p.
const lineShare = `
.data
p:     .word 0
q:     .word 0
       .align 64
.text
.func main
main:  spawn  r10, ta, r0
       spawn  r11, tb, r0
       join   r10
       join   r11
       exit
.func ta
ta:    li     r2, 1
a1:    st     r2, p
       exit
.func tb
tb:    work   500
b1:    ld     r4, q
b2:    st     r4, p
       exit
`

func TestSWGranularity(t *testing.T) {
	p := assemble(t, lineShare)
	e := func(src, dst string, dstCtx ...bugaboo.Event) bugaboo.Edge {
		return bugaboo.Edge{Src: bugaboo.Node{PC: label(t, p, src)},
			Dst: bugaboo.Node{PC: label(t, p, dst), Ctx: uint32(bugaboo.DefaultEncoding.Of(dstCtx...))}}
	}
	cases := []struct {
		opts bugaboo.SWOptions
		want []bugaboo.Edge
	}{
		// Word: b1 reads q, which nobody wrote; b2 overwrites A's p.
		{bugaboo.SWOptions{}, []bugaboo.Edge{e("a1", "b2")}},
		// Line: b1's q aliases p: a false-sharing RAW edge, and b2 then
		// runs in (LcRd).
		{bugaboo.SWOptions{Granularity: bugaboo.Line}, []bugaboo.Edge{e("a1", "b1"), e("a1", "b2", LcRd)}},
		{bugaboo.SWOptions{Granularity: bugaboo.Line, LineBytes: 8}, []bugaboo.Edge{e("a1", "b2")}},
		{bugaboo.SWOptions{Granularity: bugaboo.Line, LineBytes: 16}, []bugaboo.Edge{e("a1", "b1"), e("a1", "b2", LcRd)}},
		// NullReads: b1's read of a word nobody wrote comes from NULL.
		{bugaboo.SWOptions{NullReads: true}, []bugaboo.Edge{
			{Src: bugaboo.Node{PC: bugaboo.NullPC}, Dst: bugaboo.Node{PC: label(t, p, "b1")}}, e("a1", "b2")}},
	}
	for _, c := range cases {
		got := runSW(t, p, 1, c.opts).Graph().Edges()
		if !slices.Equal(got, c.want) {
			t.Errorf("%+v: %v, want %v", c.opts, got, c.want)
		}
	}
	for _, lb := range []int{4, 24} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("line size %d accepted", lb)
				}
			}()
			bugaboo.NewSW(p, bugaboo.SWOptions{Granularity: bugaboo.Line, LineBytes: lb})
		}()
	}
}

// rmwSync: A writes x under a lock; B's fadd of x (an RMW that stores) is
// one write; B's failing cas of y (nobody wrote y) is a read; C's cas of x
// fails (a read of B's write); A frees nothing, B frees x: a write. The
// lock word's accesses are sync and make no edge.
const rmwSync = `
.data
x:     .word 0
       .align 64
y:     .word 5
       .align 64
l:     .word 0
       .align 64
h:     .word 0
.text
.func main
main:  alloc  r9, 2
       st     r9, h
       spawn  r10, ta, r0
       spawn  r11, tb, r0
       spawn  r12, tc, r0
       join   r10
       join   r11
       join   r12
       exit
.func ta
ta:    li     r2, 1
       lock   l
a1:    st     r2, x
       unlock l
       ld     r5, h
a2:    st     r2, [r5]
       exit
.func tb
tb:    work   500
       lock   l
b1:    fadd   r3, x, 1
       unlock l
       li     r6, 0
       li     r7, 9
b2:    cas    r3, y, r6, r7
       ld     r5, h
       work   1000
b3:    free   [r5], 2
       exit
.func tc
tc:    work   1000
       li     r6, 7
       li     r7, 9
c1:    cas    r3, x, r6, r7
       exit
`

func TestSWRMWSyncFree(t *testing.T) {
	p := assemble(t, rmwSync)
	sw := runSW(t, p, 1, bugaboo.SWOptions{DistinctEmpty: true})
	enc := sw.Encoding()
	node := func(l string, e ...bugaboo.Event) bugaboo.Node {
		return bugaboo.Node{PC: label(t, p, l), Ctx: uint32(enc.Of(e...))}
	}
	mainPC := func(i int32) bugaboo.Node { return bugaboo.Node{PC: i} }
	// Threads: main 0, A 1, B 2, C 3. main's st h (pc 1) is read by A
	// (ld h) and B (ld h): RAW edges main → A, B. The lock makes none.
	ldA := label(t, p, "a2") - 1
	ldB := label(t, p, "b3") - 2
	want := []bugaboo.Edge{
		{Src: mainPC(1), Dst: bugaboo.Node{PC: ldA}},
		{Src: mainPC(1), Dst: bugaboo.Node{PC: ldB, Ctx: uint32(enc.Of(LcWr))}},
		{Src: node("a1"), Dst: node("b1")},                         // the fadd: one edge, then LcWr
		{Src: node("b1"), Dst: node("c1")},                         // C's failed cas reads B's x
		{Src: node("a2", LcRd), Dst: node("b3", LcWr, LcRd, RmRd)}, // B's free overwrites A's heap word
	}
	slices.SortFunc(want, bugaboo.CompareEdges)
	if got := sw.Graph().Edges(); !slices.Equal(got, want) {
		t.Errorf("edges\n%s\nwant %v", dump(p, enc, sw.Graph()), want)
	}
	// A: LcRd (ld h), RmWr (the fadd), and RmWr (the free). B: LcWr
	// (fadd), LcRd (ld h), RmRd (C's cas), LcWr (free). C: LcRd.
	if a, b, c := sw.Context(1), sw.Context(2), sw.Context(3); a != enc.Of(LcRd, RmWr, RmWr) || b != enc.Of(LcWr, LcRd, RmRd, LcWr) || c != enc.Of(LcRd) {
		t.Errorf("contexts %s %s %s", enc.Format(a), enc.Format(b), enc.Format(c))
	}
}

// TestSWObserveDirect drives SW with hand-made events: sync accesses, a
// crash of a ld on a freed word, out-of-segment addresses.
func TestSWObserveDirect(t *testing.T) {
	p := assemble(t, twoThreads)
	sw := bugaboo.NewSW(p, bugaboo.SWOptions{})
	a1, b1 := label(t, p, "a1"), label(t, p, "b1")
	x := uint64(isa.DataBase)
	emit := func(k core.Kind, flags uint8, th, pc int32, addr uint64) {
		sw.Observe(&core.Event{Kind: k, Flags: flags, Thread: th, PC: pc, Addr: addr, Core: th})
	}
	emit(core.KindWrite, 0, 1, a1, x)
	emit(core.KindRead, core.FlagSync, 2, b1, x) // sync: not data
	emit(core.KindRead, 0, 2, b1, 8)             // below the data segment
	emit(core.KindCrash, 0, 2, b1, x)            // b1 is a ld: a read
	emit(core.KindCrash, 0, 2, b1, x+1)          // misaligned: ignored
	emit(core.KindCrash, 0, 2, b1, x+64*1000)    // past the table: ignored
	emit(core.KindRead, 0, 2, b1, x+64*1000)     // grows the table
	if got := sw.Graph().Edges(); len(got) != 1 || got[0].Src.PC != a1 || got[0].Dst.PC != b1 {
		t.Errorf("edges %v", got)
	}
	if sw.Accesses() != 3 {
		t.Errorf("%d accesses, want 3", sw.Accesses())
	}
	if sw.Name() != "bbsw" || !sw.Kinds().Has(core.KindRMW) || sw.Kinds().Has(core.KindCTDrain) {
		t.Errorf("name or kinds wrong")
	}
}

func TestSWFindings(t *testing.T) {
	p := assemble(t, twoThreads)
	sw := runSW(t, p, 1, bugaboo.SWOptions{})
	fs := sw.Findings()
	// Code points (one per line): a1, a2, a3, a5, b1, b2, b3, b4, every
	// instruction of the graph, each in one context: min_relfreq over one
	// run is 1/contexts = 1, so every Score is 1 - 1 = 0.
	if len(fs) != 8 {
		t.Fatalf("%d findings, want 8: %v", len(fs), fs)
	}
	if !slices.IsSortedFunc(fs, core.CompareFindings) {
		t.Errorf("findings not sorted")
	}
	for _, f := range fs {
		if f.Detector != "bbsw" || f.Kind != "rare-context" || len(f.PCs) != 1 || f.Score != 0 {
			t.Errorf("finding %+v", f)
		}
	}
	// b2 ran in (LcRd) and is the source of two edges.
	b2 := label(t, p, "b2")
	i := slices.IndexFunc(fs, func(f core.Finding) bool { return f.PCs[0] == b2 })
	if i < 0 || !strings.Contains(fs[i].Message, "in tb") || !strings.Contains(fs[i].Message, "rarest context (LcRd,LcRd,LcRd,LcRd,LcRd)") ||
		!strings.Contains(fs[i].Message, "2 communication event(s)") {
		t.Errorf("b2's finding %+v", fs)
	}
	top := bugaboo.NewSW(p, bugaboo.SWOptions{Top: 3})
	cfg, _ := sim.FitCores(configs.Default(), p)
	if _, err := sim.Run(cfg, p, 1, sim.WithDetector(top)); err != nil {
		t.Fatal(err)
	}
	if len(top.Findings()) != 3 {
		t.Errorf("top 3: %d findings", len(top.Findings()))
	}
}

// TestSWLeavesRunUnchanged: attaching SW leaves the run's result
// byte-identical, findings aside.
func TestSWLeavesRunUnchanged(t *testing.T) {
	for _, name := range []string{"mysql-binlog", "pbzip2-uaf", "bb-moz-jsstr"} {
		p, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), p)
		for _, seed := range []uint64{1, 2} {
			bare, err := sim.Run(cfg, p, seed)
			if err != nil {
				t.Fatal(err)
			}
			sw := bugaboo.NewSW(p, bugaboo.SWOptions{RmWrTargets: bugaboo.Both, FirstReadOnly: true})
			with, err := sim.Run(cfg, p, seed, sim.WithDetector(sw), sim.WithDetector(bugaboo.NewSW(p, bugaboo.SWOptions{Granularity: bugaboo.Line})))
			if err != nil {
				t.Fatal(err)
			}
			if with.Findings == nil || sw.Graph().EdgeCount() == 0 {
				t.Errorf("%s: no findings or no graph", name)
			}
			with.Findings = nil
			a, _ := json.Marshal(bare)
			b, _ := json.Marshal(with)
			if string(a) != string(b) {
				t.Errorf("%s seed %d: result changed with SW attached", name, seed)
			}
		}
	}
}
