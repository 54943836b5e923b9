package atom_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"weft/core"
	"weft/detectors/atom"
	"weft/detectors/avio"
	"weft/isa"
)

// Words of the hand-built streams: a data word m, locks, a condition
// variable.
const (
	m  = isa.DataBase
	l1 = isa.DataBase + 64
	l2 = isa.DataBase + 72
	cv = isa.DataBase + 128
)

func acc(t, pc int32, write bool) core.Event {
	k := core.KindRead
	if write {
		k = core.KindWrite
	}
	return core.Event{Kind: k, Thread: t, PC: pc, Addr: m}
}
func rd(t, pc int32) core.Event { return acc(t, pc, false) }
func wr(t, pc int32) core.Event { return acc(t, pc, true) }
func lock(t int32, l uint64) core.Event {
	return core.Event{Kind: core.KindAcquire, Thread: t, PC: 90, Addr: l}
}
func unlock(t int32, l uint64) core.Event {
	return core.Event{Kind: core.KindRelease, Thread: t, PC: 91, Addr: l}
}
func spawn(parent, child int32) core.Event {
	return core.Event{Kind: core.KindSpawn, Thread: parent, PC: 92, Value: int64(child), Words: [4]uint64{uint64(child)}}
}
func join(joiner, child int32) core.Event {
	return core.Event{Kind: core.KindJoin, Thread: joiner, PC: 93, Value: int64(child), Words: [4]uint64{uint64(child)}}
}
func signal(t int32) core.Event {
	return core.Event{Kind: core.KindCondSignal, Thread: t, PC: 94, Addr: cv, Value: 1}
}
func wake(t, by int32) core.Event {
	return core.Event{Kind: core.KindCondWake, Thread: t, PC: 95, Addr: cv, Words: [4]uint64{uint64(by)}}
}

// run feeds a stream to an Atom detector (threads 1 and 2 spawned by 0
// first) and returns its findings.
func run(t *testing.T, opts atom.Options, evs ...core.Event) []core.Finding {
	t.Helper()
	d, err := atom.New(nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range append([]core.Event{spawn(0, 1), spawn(0, 2)}, evs...) {
		if d.Kinds().Has(e.Kind) {
			d.Observe(&e)
		}
	}
	return d.Findings()
}

func triples(fs []core.Finding) [][]int32 {
	var out [][]int32
	for _, f := range fs {
		out = append(out, f.PCs)
	}
	return out
}

func check(t *testing.T, fs []core.Finding, want ...[]int32) {
	t.Helper()
	if got := triples(fs); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("triples %v, want %v", got, want)
	}
}

// TestPatterns: thread 1 accesses m twice (p at pc 10, c at pc 11), thread
// 2 once (x at pc 20), with no order between the threads; x before p,
// between p and c, or after c. Exactly the four unserializable cases are
// predicted, as [p, x, c] with their kind, wherever x falls in the run;
// by default those where x fell between p and c (observed) are not
// reported, and with ReportObserved they are.
func TestPatterns(t *testing.T) {
	for k := 0; k < 8; k++ {
		pw, xw, cw := k&4 != 0, k&2 != 0, k&1 != 0
		kind := strings.ReplaceAll(avio.Case(pw, xw, cw), "-", "")
		p, x, c := acc(1, 10, pw), acc(2, 20, xw), acc(1, 11, cw)
		for _, order := range []struct {
			name string
			evs  []core.Event
		}{
			{"x first", []core.Event{x, p, c}},
			{"x between", []core.Event{p, x, c}},
			{"x last", []core.Event{p, c, x}},
		} {
			t.Run(kind+" "+order.name, func(t *testing.T) {
				if !avio.Unserializable(pw, xw, cw) {
					check(t, run(t, atom.Options{}, order.evs...))
					check(t, run(t, atom.Options{ReportObserved: true}, order.evs...))
					return
				}
				if order.name == "x between" {
					check(t, run(t, atom.Options{}, order.evs...))
				} else {
					check(t, run(t, atom.Options{}, order.evs...), []int32{10, 20, 11})
				}
				fs := run(t, atom.Options{ReportObserved: true}, order.evs...)
				check(t, fs, []int32{10, 20, 11})
				if len(fs) == 1 {
					f := fs[0]
					if f.Detector != "atom" || f.Kind != kind || f.Addr != m || f.Score != 1 || !strings.HasPrefix(f.Message, kind+" on ") {
						t.Errorf("finding %+v", f)
					}
				}
			})
		}
	}
	kinds := map[string]bool{}
	for k := 0; k < 8; k++ {
		if avio.Unserializable(k&4 != 0, k&2 != 0, k&1 != 0) {
			kinds[strings.ReplaceAll(avio.Case(k&4 != 0, k&2 != 0, k&1 != 0), "-", "")] = true
		}
	}
	if fmt.Sprint(kinds) != "map[RWR:true RWW:true WRW:true WWR:true]" {
		t.Errorf("unserializable kinds %v", kinds)
	}
}

// TestRules: the rules of prediction (happens-before, mutual exclusion,
// consecutive pairs, what is data), with ReportObserved so that triples
// the stream exercised count too (TestObserved checks the default).
func TestRules(t *testing.T) {
	rwr := []int32{10, 20, 11}
	cases := []struct {
		name string
		evs  []core.Event
		want [][]int32
	}{
		// Happens-before.
		{"x signals before p", []core.Event{wr(2, 20), signal(2), wake(1, 2), rd(1, 10), rd(1, 11)}, nil},
		{"c signals before x", []core.Event{rd(1, 10), rd(1, 11), signal(1), wake(2, 1), wr(2, 20)}, nil},
		{"a signal between p and c orders neither", []core.Event{rd(1, 10), signal(1), wake(2, 1), wr(2, 20), rd(1, 11)}, [][]int32{rwr}},
		{"x before the spawn of p's thread", []core.Event{wr(0, 20), spawn(0, 3), rd(3, 10), rd(3, 11)}, nil},
		{"x after the join of c's thread", []core.Event{rd(1, 10), rd(1, 11), join(0, 1), wr(0, 20)}, nil},
		{"locks give no order", []core.Event{lock(1, l1), rd(1, 10), unlock(1, l1), lock(1, l1), rd(1, 11), unlock(1, l1), lock(2, l1), wr(2, 20), unlock(2, l1)}, [][]int32{rwr}},
		// Mutual exclusion.
		{"p and c in one section, x in one of the same lock (after)", []core.Event{lock(1, l1), rd(1, 10), rd(1, 11), unlock(1, l1), lock(2, l1), wr(2, 20), unlock(2, l1)}, nil},
		{"p and c in one section, x in one of the same lock (before)", []core.Event{lock(2, l1), wr(2, 20), unlock(2, l1), lock(1, l1), rd(1, 10), rd(1, 11), unlock(1, l1)}, nil},
		{"the same accesses in two sections (x between)", []core.Event{lock(1, l1), rd(1, 10), unlock(1, l1), lock(2, l1), wr(2, 20), unlock(2, l1), lock(1, l1), rd(1, 11), unlock(1, l1)}, [][]int32{rwr}},
		{"p and c in one section, x unlocked", []core.Event{lock(1, l1), rd(1, 10), wr(2, 20), rd(1, 11), unlock(1, l1)}, [][]int32{rwr}},
		{"p and c in one section, x under another lock", []core.Event{lock(1, l1), rd(1, 10), rd(1, 11), unlock(1, l1), lock(2, l2), wr(2, 20), unlock(2, l2)}, [][]int32{rwr}},
		{"p and c in one section of the inner lock", []core.Event{lock(1, l1), lock(1, l2), rd(1, 10), unlock(1, l1), rd(1, 11), unlock(1, l2), lock(2, l2), wr(2, 20), unlock(2, l2)}, nil},
		{"only p holds the lock", []core.Event{lock(1, l1), rd(1, 10), unlock(1, l1), rd(1, 11), lock(2, l1), wr(2, 20), unlock(2, l1)}, [][]int32{rwr}},
		// Pairs.
		{"only consecutive accesses pair", []core.Event{rd(1, 10), rd(1, 11), wr(2, 20), rd(1, 12)}, [][]int32{rwr, {11, 20, 12}}},
		{"one thread alone", []core.Event{rd(1, 10), wr(1, 11), rd(1, 12)}, nil},
		{"once per static triple", []core.Event{rd(1, 10), rd(1, 11), wr(2, 20), rd(1, 10), rd(1, 11), wr(2, 20)}, [][]int32{rwr, {11, 20, 10}, {20, 10, 20}, {20, 11, 20}}},
		{"the remote thread's pairs too", []core.Event{rd(1, 10), wr(2, 20), wr(2, 21)}, [][]int32{{20, 10, 21}}},
		// What is data.
		{"sync accesses are not data", []core.Event{rd(1, 10), {Kind: core.KindWrite, Thread: 2, PC: 20, Addr: m, Flags: core.FlagSync}, rd(1, 11)}, nil},
		{"an RMW that stored writes", []core.Event{rd(1, 10), {Kind: core.KindRMW, Thread: 2, PC: 20, Addr: m, Words: [4]uint64{0, 1}}, rd(1, 11)}, [][]int32{rwr}},
		{"a failed cas reads", []core.Event{rd(1, 10), {Kind: core.KindRMW, Thread: 2, PC: 20, Addr: m}, rd(1, 11)}, nil},
		{"a free writes", []core.Event{rd(1, 10), {Kind: core.KindFree, Thread: 2, PC: 20, Addr: m, Value: 1}, rd(1, 11)}, [][]int32{rwr}},
		{"other words", []core.Event{rd(1, 10), {Kind: core.KindWrite, Thread: 2, PC: 20, Addr: m + 8}, rd(1, 11)}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, run(t, atom.Options{ReportObserved: true}, c.evs...), c.want...)
		})
	}
}

// TestObserved: a static triple that ran in the order p, x, c (x between
// two consecutive accesses p and c of another thread to the word) is not
// reported by default, whichever of its instances ran so and whenever; it
// is with ReportObserved. want lists the default's triples, all those
// with ReportObserved.
func TestObserved(t *testing.T) {
	rwr := []int32{10, 20, 11}
	cases := []struct {
		name      string
		opts      atom.Options
		evs       []core.Event
		want, all [][]int32
	}{
		{"observed", atom.Options{}, []core.Event{rd(1, 10), wr(2, 20), rd(1, 11)}, nil, [][]int32{rwr}},
		{"the same accesses could only interleave", atom.Options{}, []core.Event{rd(1, 10), rd(1, 11), wr(2, 20)}, [][]int32{rwr}, [][]int32{rwr}},
		{"x before p", atom.Options{}, []core.Event{wr(2, 20), rd(1, 10), rd(1, 11)}, [][]int32{rwr}, [][]int32{rwr}},
		{"observed in two sections of a lock", atom.Options{}, []core.Event{lock(1, l1), rd(1, 10), unlock(1, l1), lock(2, l1), wr(2, 20), unlock(2, l1), lock(1, l1), rd(1, 11), unlock(1, l1)}, nil, [][]int32{rwr}},
		// Per static triple: the second instance of (10, 20, 11) ran in
		// order, the first was only predicted; so did (11, 20, 10) and (20,
		// 10, 20), not (20, 11, 20).
		{"one observed instance hides the triple", atom.Options{},
			[]core.Event{rd(1, 10), rd(1, 11), wr(2, 20), rd(1, 10), wr(2, 20), rd(1, 11)},
			[][]int32{{20, 11, 20}}, [][]int32{rwr, {11, 20, 10}, {20, 10, 20}, {20, 11, 20}}},
		// Only consecutive accesses: 20 falls between 10 and 11 with 12 in
		// between, which observes (10, 20, 12) and not (10, 20, 11),
		// predicted from the later pair.
		{"p and c must be consecutive", atom.Options{},
			[]core.Event{rd(1, 10), wr(2, 20), rd(1, 12), rd(1, 11), rd(1, 10), rd(1, 11)},
			[][]int32{rwr, {11, 20, 10}, {12, 20, 11}}, [][]int32{rwr, {10, 20, 12}, {11, 20, 10}, {12, 20, 11}}},
		{"another word is not between", atom.Options{},
			[]core.Event{rd(1, 10), {Kind: core.KindWrite, Thread: 2, PC: 20, Addr: m + 8}, rd(1, 11), wr(2, 20)},
			[][]int32{rwr}, [][]int32{rwr}},
		{"sync accesses are not between", atom.Options{},
			[]core.Event{rd(1, 10), {Kind: core.KindWrite, Thread: 2, PC: 20, Addr: m, Flags: core.FlagSync}, rd(1, 11), wr(2, 20)},
			[][]int32{rwr}, [][]int32{rwr}},
		// A failed cas reads: R-R-R is not the R-W-R the later store
		// predicts.
		{"kinds are part of the triple", atom.Options{},
			[]core.Event{rd(1, 10), {Kind: core.KindRMW, Thread: 2, PC: 20, Addr: m}, rd(1, 11), {Kind: core.KindRMW, Thread: 2, PC: 20, Addr: m, Words: [4]uint64{0, 1}}},
			[][]int32{rwr}, [][]int32{rwr}},
		// Observation does not depend on the history: thread 2's write is
		// out of its 2-access history when thread 1's pair closes, so the
		// first instance predicts nothing, but it is observed, and the
		// instance predicted at the end is not reported.
		{"observation beyond the history", atom.Options{History: 2},
			[]core.Event{rd(1, 10), wr(2, 20), rd(2, 21), rd(2, 21), rd(2, 21), rd(1, 11), rd(1, 10), rd(1, 11), wr(2, 20)},
			nil, [][]int32{rwr}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			check(t, run(t, c.opts, c.evs...), c.want...)
			all := c.opts
			all.ReportObserved = true
			check(t, run(t, all, c.evs...), c.all...)
		})
	}
}

// TestObservedLater: a triple predicted before it is observed is in the
// findings until it is, and not after.
func TestObservedLater(t *testing.T) {
	d, err := atom.New(nil, atom.Options{})
	if err != nil {
		t.Fatal(err)
	}
	feed := func(evs ...core.Event) {
		for _, e := range evs {
			if d.Kinds().Has(e.Kind) {
				d.Observe(&e)
			}
		}
	}
	feed(spawn(0, 1), spawn(0, 2), rd(1, 10), rd(1, 11), wr(2, 20))
	check(t, d.Findings(), []int32{10, 20, 11})
	// (11, 20, 10) and (20, 10, 20) are observed too; (20, 11, 20) is
	// only predicted.
	feed(rd(1, 10), wr(2, 20), rd(1, 11))
	check(t, d.Findings(), []int32{20, 11, 20})
}

// TestHistory: thread 2 writes m, then reads it three times; thread 1's
// pair of reads then sees the write only if thread 2's history still holds
// it.
func TestHistory(t *testing.T) {
	evs := []core.Event{wr(2, 20), rd(2, 21), rd(2, 21), rd(2, 21), rd(1, 10), rd(1, 11)}
	check(t, run(t, atom.Options{History: 2}, evs...))
	check(t, run(t, atom.Options{History: 4}, evs...), []int32{10, 20, 11})
	check(t, run(t, atom.Options{}, evs...), []int32{10, 20, 11})
	// The pairs side: thread 1's old pair (10, 11) and later accesses.
	evs = []core.Event{rd(1, 10), rd(1, 11), rd(1, 12), rd(1, 12), wr(2, 20)}
	check(t, run(t, atom.Options{History: 2}, evs...), []int32{12, 20, 12})
	check(t, run(t, atom.Options{}, evs...), []int32{10, 20, 11}, []int32{11, 20, 12}, []int32{12, 20, 12})
	for _, h := range []int{-1, 1} {
		if _, err := atom.New(nil, atom.Options{History: h}); err == nil || !strings.Contains(err.Error(), "history") {
			t.Errorf("history %d: error %v", h, err)
		}
	}
}

// TestBadInput: out-of-range threads, unaligned or low addresses, unknown
// joins, enormous or negative frees and crashes at unknown PCs are ignored
// or bounded, never a panic (with ReportObserved: the free falls between
// the reads).
func TestBadInput(t *testing.T) {
	fs := run(t, atom.Options{ReportObserved: true},
		core.Event{Kind: core.KindRead, Thread: -1, PC: 1, Addr: m},
		core.Event{Kind: core.KindRead, Thread: 1 << 20, PC: 2, Addr: m},
		core.Event{Kind: core.KindRead, Thread: 1, PC: 3, Addr: m + 3},
		core.Event{Kind: core.KindRead, Thread: 1, PC: 4, Addr: 8},
		core.Event{Kind: core.KindJoin, Thread: 1, Value: 1 << 40},
		join(1, -5), join(1, 1), spawn(1, 1), spawn(1, 1<<30),
		unlock(1, l1), lock(1, l1), lock(1, l1),
		rd(1, 10),
		core.Event{Kind: core.KindFree, Thread: 2, PC: 20, Addr: m, Value: 1 << 62},
		core.Event{Kind: core.KindFree, Thread: 2, PC: 21, Addr: m, Value: -3},
		core.Event{Kind: core.KindCrash, Thread: 2, PC: 1 << 20, Addr: m},
		core.Event{Kind: core.KindCrash, Thread: 2, PC: -1, Addr: m},
		rd(1, 11),
	)
	check(t, fs, []int32{10, 20, 11})
}
