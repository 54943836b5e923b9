package falcon

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"weft/core"
	"weft/isa"
)

// acc is one access of a hand-built stream: "R1,1" is a read by thread 1
// at statement (PC) 1.
type acc struct {
	write   bool
	tid, pc int32
}

func stream(t *testing.T, s string) []acc {
	t.Helper()
	var out []acc
	for _, f := range strings.Fields(s) {
		var op byte
		var a acc
		if _, err := fmt.Sscanf(f, "%c%d,%d", &op, &a.tid, &a.pc); err != nil {
			t.Fatalf("bad access %q: %v", f, err)
		}
		a.write = op == 'W'
		out = append(out, a)
	}
	return out
}

// prog10 is a program with 10 instructions and no functions, for
// detectors fed by hand.
func prog10() *isa.Program {
	p := &isa.Program{Instrs: make([]isa.Instruction, 10)}
	for i := range p.Instrs {
		p.Instrs[i].Func = -1
	}
	return p
}

// run feeds per-variable streams (variable i at word i) to a detector of
// window w and returns its patterns as "kind ops pcs" strings.
func run(t *testing.T, w int, vars ...string) (*Detector, []string) {
	t.Helper()
	d := New(prog10(), Options{Window: w})
	for i, s := range vars {
		for _, a := range stream(t, s) {
			d.Access(a.tid, a.pc, isa.DataBase+uint64(i)*isa.WordBytes, a.write)
		}
	}
	var out []string
	for _, p := range d.Patterns() {
		out = append(out, fmt.Sprintf("%s %s %v", p.Kind, p.Ops(), p.PCs()))
	}
	return d, out
}

// Figure 1(b)'s four executions: the x and y streams of each.
var fig1 = []struct{ x, y string }{
	{"R1,1 W1,1 R3,6 W3,6 R2,4 R1,3", "R1,2 W1,2 R3,7 W3,7 R2,5 R1,3"},
	{"R1,1 W1,1 R3,6 W3,6 R2,4 R1,3", "R1,2 W1,2 R2,5 W2,5 R3,7 R1,3"},
	{"R1,1 W1,1 R2,4 W2,4 R3,6 R1,3", "R1,2 W1,2 R3,7 W3,7 R2,5 R1,3"},
	{"R1,1 W1,1 R2,4 W2,4 R3,6 R1,3", "R1,2 W1,2 R2,5 W2,5 R3,7 R1,3"},
}

// TestFigure2 is the digest's worked example on run 2: window 3 finds the
// conflicting W1-W3 on x (and, at the end-of-run flush, W3-R2) and only
// pairs on y; window 4 finds W1-W2-R1 on y.
func TestFigure2(t *testing.T) {
	_, got := run(t, 3, fig1[1].x)
	want := []string{"conflicting W1-W2 [1 6]", "conflicting W1-R2 [6 4]"}
	if !slices.Equal(got, want) {
		t.Errorf("W=3, x: %q, want %q", got, want)
	}
	_, got = run(t, 3, fig1[1].y)
	want = []string{"conflicting W1-W2 [2 5]", "conflicting W1-R2 [5 7]"}
	if !slices.Equal(got, want) {
		t.Errorf("W=3, y: %q, want %q (no triplet)", got, want)
	}
	_, got = run(t, 4, fig1[1].y)
	if !slices.Contains(got, "unserializable W1-W2-R1 [2 5 3]") {
		t.Errorf("W=4, y: %q, want W1-W2-R1 [2 5 3]", got)
	}
}

// TestFigure1 scores the four runs (P, P, P, F) with window 4: the
// triplets and Jaccard scores of Figure 1(c), exactly.
func TestFigure1(t *testing.T) {
	l := NewLearner()
	for i, r := range fig1 {
		d, _ := run(t, 4, r.x, r.y)
		l.AddRun(i, i != 3, d)
	}
	got := map[string]float64{}
	for _, r := range l.Rank(Jaccard) {
		if r.Kind == Unserializable {
			got[fmt.Sprintf("%s %v", r.Ops(), r.PCs())] = r.Score
		}
	}
	want := map[string]float64{
		"W1-W2-R1 [1 6 3]": 0, // x: W1-W3-R1 (statement 6 is thread 3's)
		"W1-W2-R1 [1 4 3]": 0.5,
		"W1-W2-R1 [2 7 3]": 0, // y: W1-W3-R1
		"W1-W2-R1 [2 5 3]": 0.5,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Figure 1(c): %v, want %v", got, want)
	}
	// The two real causes rank first (tied with the conflicting pairs
	// the flush finds in run 4 and one passing run: unserializable
	// patterns come first among equals), and Tarantula gives them 0.75.
	ranked := l.Rank(Jaccard)
	for _, r := range ranked[:2] {
		if r.Score != 0.5 || r.Ops() != "W1-W2-R1" || r.Failed != 1 || r.Optimistic != 1 {
			t.Errorf("top two: %+v", r)
		}
	}
	for _, r := range l.Rank(Tarantula) {
		if r.Kind == Unserializable && r.Failed > 0 && r.Tarantula != 0.75 {
			t.Errorf("Tarantula %s %v = %v, want 0.75", r.Ops(), r.PCs(), r.Tarantula)
		}
	}
}

// TestEveryPattern builds each of Table 2's five unserializable patterns
// and Table 1's three conflicting ones, and the three serializable
// triples, which give only their pairs.
func TestEveryPattern(t *testing.T) {
	for _, c := range []struct {
		stream string
		want   string
	}{
		{"R1,1 W2,2 R1,3", "unserializable R1-W2-R1 [1 2 3]"},
		{"W1,1 W2,2 R1,3", "unserializable W1-W2-R1 [1 2 3]"},
		{"W1,1 R2,2 W1,3", "unserializable W1-R2-W1 [1 2 3]"},
		{"R1,1 W2,2 W1,3", "unserializable R1-W2-W1 [1 2 3]"},
		{"W1,1 W2,2 W1,3", "unserializable W1-W2-W1 [1 2 3]"},
		{"R1,1 W2,2", "conflicting R1-W2 [1 2]"},
		{"W1,1 R2,2", "conflicting W1-R2 [1 2]"},
		{"W1,1 W2,2", "conflicting W1-W2 [1 2]"},
		{"R1,1 R2,2", ""},
		{"R1,1 R2,2 R1,3", ""},                        // R-R-R: serializable, no pair
		{"R1,1 R2,2 W1,3", "conflicting R1-W2 [2 3]"}, // R-R-W: only the later pair
		{"W1,1 R2,2 R1,3", "conflicting W1-R2 [1 2]"}, // W-R-R
	} {
		_, got := run(t, 5, c.stream)
		if !slices.Contains(got, c.want) && c.want != "" || c.want == "" && len(got) > 0 && !strings.HasPrefix(c.stream, "R1,1 R2,2 W") {
			t.Errorf("%s: %q, want %q", c.stream, got, c.want)
		}
		if strings.HasPrefix(c.want, "unserializable") && slices.ContainsFunc(got, func(s string) bool {
			return strings.HasPrefix(s, "conflicting") && strings.HasSuffix(s, "[1 2]")
		}) {
			t.Errorf("%s: the anchored pair is reported beside its triplet: %q", c.stream, got)
		}
	}
}

// TestLocalMerge checks the update policy: a local read does not replace
// a write; a local write replaces a read; adjacent slots alternate
// threads.
func TestLocalMerge(t *testing.T) {
	// R1 then W1 merge into W1: W1-W2-R1, not R1-W2-R1.
	if _, got := run(t, 5, "R1,1 W1,2 W2,3 R1,4"); !slices.Equal(got[:1], []string{"unserializable W1-W2-R1 [2 3 4]"}) {
		t.Errorf("R then W merged: %q", got)
	}
	// W1 then R1: the write is kept.
	if _, got := run(t, 5, "W1,1 R1,2 R2,3 W1,4"); !slices.Contains(got, "unserializable W1-R2-W1 [1 3 4]") {
		t.Errorf("W then R kept the write: %q", got)
	}
}

// TestPresenceNotCounts: a pattern seen many times in a run counts once.
func TestPresenceNotCounts(t *testing.T) {
	s := strings.Repeat("R1,1 W2,2 R1,3 ", 10)
	d, got := run(t, 3, s)
	n := 0
	for _, g := range got {
		if g == "unserializable R1-W2-R1 [1 2 3]" {
			n++
		}
	}
	l := NewLearner()
	l.AddRun(0, false, d)
	for _, r := range l.Rank(Jaccard) {
		if r.Ops() == "R1-W2-R1" && r.Failed != 1 {
			t.Errorf("pattern counted %d times in one run", r.Failed)
		}
	}
	if n != 1 {
		t.Errorf("%d copies of R1-W2-R1 in %q", n, got)
	}
	if len(d.Spans()) < 2 {
		t.Errorf("spans %v: every detection has its span", d.Spans())
	}
}

// TestFlush: a window that never fills is scanned at the end of the run,
// every slot anchoring once; the flush is idempotent.
func TestFlush(t *testing.T) {
	d, got := run(t, 50, "W1,1 W2,2 R1,3")
	if !slices.Equal(got, []string{"unserializable W1-W2-R1 [1 2 3]", "conflicting W1-R2 [2 3]"}) {
		t.Errorf("flush: %q", got)
	}
	d.Flush()
	d.Access(1, 1, isa.DataBase, true)
	if len(d.Patterns()) != 2 {
		t.Errorf("accesses after the flush changed the run: %v", d.Patterns())
	}
}

// TestStudy1Stream: R1 R3 W2 R3 R1 with a window of 5 gives R1-W2-R1 with
// span 5 (the paper's example) and R3-W2-R3 with span 3.
func TestStudy1Stream(t *testing.T) {
	d, got := run(t, 5, "R1,1 R3,2 W2,3 R3,4 R1,5")
	if !slices.Contains(got, "unserializable R1-W2-R1 [1 3 5]") || !slices.Contains(got, "unserializable R1-W2-R1 [2 3 4]") {
		t.Errorf("patterns %q", got)
	}
	if sp := d.Spans(); !slices.Equal(sp, []int{5, 3}) {
		t.Errorf("spans %v, want [5 3]", sp)
	}
}

// TestScores checks Jaccard and Tarantula and CBI's Importance on counts.
func TestScores(t *testing.T) {
	if got := Suspiciousness(Jaccard, 8, 2, 10, 90); got != 8.0/12 {
		t.Errorf("Jaccard %v", got)
	}
	if got := Suspiciousness(Tarantula, 1, 0, 10, 90); got != 1 {
		t.Errorf("Tarantula of a pattern in one failing run and no passing run: %v (the paper's objection: 1)", got)
	}
	if got := Suspiciousness(Jaccard, 1, 0, 10, 90); got != 0.1 {
		t.Errorf("Jaccard of the same: %v, want 0.1", got)
	}
	if got := Suspiciousness(Jaccard, 0, 5, 0, 100); got != 0 {
		t.Errorf("no failing run: %v", got)
	}
	inc, imp := importance(10, 0, 10, 90, 10)
	if inc != 1-0.1 || imp <= 0 || imp > 1 {
		t.Errorf("importance %v %v", inc, imp)
	}
	if _, imp := importance(5, 45, 10, 90, 10); imp != 0 {
		t.Errorf("no increase, importance %v", imp)
	}
}

// TestLibraryScope: accesses by functions named lib_* are not
// instrumented unless AllCode is set.
func TestLibraryScope(t *testing.T) {
	p := prog10()
	p.Funcs = []isa.Func{{Name: "lib_get"}}
	p.Instrs[2].Func = 0
	for _, all := range []bool{false, true} {
		d := New(p, Options{AllCode: all})
		for _, a := range []acc{{false, 1, 1}, {true, 2, 2}, {false, 1, 3}} {
			k := core.KindRead
			if a.write {
				k = core.KindWrite
			}
			d.Observe(&core.Event{Kind: k, Thread: a.tid, PC: a.pc, Addr: isa.DataBase})
		}
		d.Observe(&core.Event{Kind: core.KindRunEnd})
		unser := slices.ContainsFunc(d.Patterns(), func(p Pattern) bool { return p.Kind == Unserializable })
		if unser != all {
			t.Errorf("AllCode %v: patterns %v (the write is in lib_get)", all, d.Patterns())
		}
	}
	// Sync-word accesses are not data.
	d := New(p, Options{})
	d.Observe(&core.Event{Kind: core.KindRead, Thread: 1, PC: 1, Addr: isa.DataBase})
	d.Observe(&core.Event{Kind: core.KindRMW, Thread: 2, PC: 4, Addr: isa.DataBase, Flags: core.FlagSync})
	d.Observe(&core.Event{Kind: core.KindRead, Thread: 1, PC: 3, Addr: isa.DataBase})
	if len(d.Patterns()) != 0 {
		t.Errorf("a sync access made patterns: %v", d.Patterns())
	}
}

// TestOptions rejects windows and line sizes out of range.
func TestOptions(t *testing.T) {
	for _, o := range []Options{{Window: 1}, {Window: MaxWindow + 1}, {Line: true, LineBytes: 48}, {Line: true, LineBytes: 4}} {
		if err := o.Check(); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
	if err := (Options{Window: 3, Line: true, LineBytes: 128}).Check(); err != nil {
		t.Error(err)
	}
}

// TestFindingsDoNotEndTheRun: reading the findings in the middle of a run
// (the statistics groups do, at roi begin) must not flush the windows.
func TestFindingsDoNotEndTheRun(t *testing.T) {
	d := New(prog10(), Options{})
	for _, a := range stream(t, "R1,1 W2,2 R1,3") {
		d.Access(a.tid, a.pc, isa.DataBase, a.write)
	}
	_ = d.Findings()
	for _, a := range stream(t, "W1,4 R2,5 W1,6") {
		d.Access(a.tid, a.pc, isa.DataBase+8, a.write)
	}
	d.Observe(&core.Event{Kind: core.KindRunEnd})
	if got := len(d.Findings()); got < 2 || !slices.ContainsFunc(d.Patterns(), func(p Pattern) bool { return p.Ops() == "W1-R2-W1" }) {
		t.Errorf("the accesses after a mid-run Findings were lost: %v", d.Patterns())
	}
}

// TestFailedCASReads: an RMW that stored nothing (a failed cas) is a read,
// so R-cas-R is serializable.
func TestFailedCASReads(t *testing.T) {
	d := New(prog10(), Options{})
	d.Observe(&core.Event{Kind: core.KindRead, Thread: 1, PC: 1, Addr: isa.DataBase})
	d.Observe(&core.Event{Kind: core.KindRMW, Thread: 2, PC: 2, Addr: isa.DataBase, Words: [4]uint64{0, 0}})
	d.Observe(&core.Event{Kind: core.KindRead, Thread: 1, PC: 3, Addr: isa.DataBase})
	d.Observe(&core.Event{Kind: core.KindRunEnd})
	if ps := d.Patterns(); len(ps) != 0 {
		t.Errorf("a failed cas made %v", ps)
	}
	d = New(prog10(), Options{})
	d.Observe(&core.Event{Kind: core.KindRead, Thread: 1, PC: 1, Addr: isa.DataBase})
	d.Observe(&core.Event{Kind: core.KindRMW, Thread: 2, PC: 2, Addr: isa.DataBase, Words: [4]uint64{0, 1}})
	d.Observe(&core.Event{Kind: core.KindRead, Thread: 1, PC: 3, Addr: isa.DataBase})
	d.Observe(&core.Event{Kind: core.KindRunEnd})
	if ps := d.Patterns(); len(ps) == 0 || ps[0].Ops() != "R1-W2-R1" {
		t.Errorf("a cas that stored: %v", ps)
	}
}

// TestTarantulaTies: equal Tarantula scores are equal floats, so ties are
// ties (1 of 3 failing and 3 of 97 passing runs is 3 of 3 and 9 of 97).
func TestTarantulaTies(t *testing.T) {
	if a, b := Suspiciousness(Tarantula, 1, 3, 3, 97), Suspiciousness(Tarantula, 3, 9, 3, 97); a != b {
		t.Errorf("%v != %v", a, b)
	}
}
