package pset_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"weft/core"
	"weft/detectors/pset"
	"weft/isa"
)

// unitProg gives the unit tests' events real instructions.
const unitProg = `
.data
x:   .word 0
y:   .word 0
l:   .word 0
.text
main: ld    r1, x   @bug    # 0
      ld    r2, x           # 1
      st    r1, x           # 2
      st    r2, x           # 3
      fadd  r3, x, 1        # 4
      cas   r3, x, r1, r2   # 5
      free  x, 1            # 6
      lock  l               # 7
      unlock l              # 8
      exit                  # 9
`

const (
	xAddr = isa.DataBase
	yAddr = isa.DataBase + 8
	lAddr = isa.DataBase + 16
)

func unit(t testing.TB) *isa.Program {
	t.Helper()
	p, err := isa.Assemble("unit.s", []byte(unitProg))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// ev builds an access event.
func ev(kind core.Kind, tid, pc int32, addr uint64) core.Event {
	return core.Event{Kind: kind, Core: tid, Thread: tid, PC: pc, Addr: addr}
}

func rd(tid, pc int32) core.Event { return ev(core.KindRead, tid, pc, xAddr) }
func wr(tid, pc int32) core.Event { return ev(core.KindWrite, tid, pc, xAddr) }

// rmw builds an RMW on x that stored or not.
func rmw(tid, pc int32, stored bool) core.Event {
	e := ev(core.KindRMW, tid, pc, xAddr)
	if stored {
		e.Words[1] = 1
	}
	return e
}

func sync(e core.Event) core.Event { e.Flags |= core.FlagSync; e.Addr = lAddr; return e }

// pairsOf returns the static pairs of a stream, "pred>pc", sorted: the
// violations of a monitor whose every PSet is null.
func pairsOf(t *testing.T, p *isa.Program, opts pset.Options, evs []core.Event) []string {
	t.Helper()
	null := make(isa.PSets, len(p.Instrs))
	for pc := range null {
		null[pc].Tested = true
	}
	m := pset.NewMonitor(p, null, opts)
	r := pset.NewRecorder(p, opts)
	for i := range evs {
		m.Observe(&evs[i])
		r.Observe(&evs[i])
	}
	var out []string
	for _, f := range m.Findings() {
		out = append(out, fmt.Sprintf("%d>%d", f.PCs[0], f.PCs[1]))
	}
	slices.Sort(out)
	// The recorder sees the same pairs, and trained on the stream, the
	// monitor accepts it.
	if got := r.Violations(null); !slices.EqualFunc(got, m.Findings(), func(a, b core.Finding) bool { return a.Key() == b.Key() && a.Message == b.Message && a.Addr == b.Addr }) {
		t.Errorf("recorder violations %v, monitor %v", got, m.Findings())
	}
	if r.Pairs() != len(out) {
		t.Errorf("recorder counts %d pairs, monitor reports %d", r.Pairs(), len(out))
	}
	tr := pset.NewTrainer(p, opts)
	tr.Add(r)
	m2 := pset.NewMonitor(p, tr.PSets(), opts)
	for i := range evs {
		m2.Observe(&evs[i])
	}
	if fs := m2.Findings(); len(fs) != 0 {
		t.Errorf("trained on its own stream, the monitor reports %v", fs)
	}
	return out
}

// TestSemantics checks the immediate remote predecessors of digest §1.3
// on hand-built streams.
func TestSemantics(t *testing.T) {
	p := unit(t)
	free := ev(core.KindFree, 2, 6, xAddr)
	free.Value = 1
	crash := ev(core.KindCrash, 1, 0, xAddr)
	for _, tc := range []struct {
		name string
		opts pset.Options
		evs  []core.Event
		want string
	}{
		{"first access", pset.Options{}, []core.Event{rd(1, 0), wr(2, 2)}, "0>2"},
		{"RAW", pset.Options{}, []core.Event{wr(1, 2), rd(2, 0)}, "2>0"},
		{"local", pset.Options{}, []core.Event{wr(1, 2), rd(1, 0), wr(1, 3), rd(1, 1)}, ""},
		{"(c) writer re-read", pset.Options{}, []core.Event{wr(1, 2), rd(1, 1), rd(2, 0)}, ""},
		{"(c) reader re-read", pset.Options{}, []core.Event{wr(1, 2), rd(2, 0), rd(2, 1)}, "2>0"},
		{"(c) own read then write", pset.Options{}, []core.Event{wr(1, 2), rd(2, 0), wr(2, 3)}, "2>0"},
		{"WAW", pset.Options{}, []core.Event{wr(1, 2), wr(2, 3), wr(2, 3)}, "2>3"},
		{"WAR from each reader", pset.Options{}, []core.Event{wr(1, 2), rd(2, 0), rd(3, 1), wr(4, 3)}, "0>3 1>3 2>0 2>1"},
		{"WAR latest read per thread", pset.Options{}, []core.Event{wr(1, 2), rd(2, 0), rd(3, 0), rd(2, 1), wr(4, 3)}, "0>3 1>3 2>0"},
		{"WAR only after the writer's own read", pset.Options{}, []core.Event{wr(1, 2), rd(2, 0), rd(4, 1), rd(3, 0), wr(4, 3)}, "0>3 2>0 2>1"},
		{"WAR, not WAW", pset.Options{}, []core.Event{wr(1, 3), rd(2, 0), wr(3, 2)}, "0>2 3>0"},
		{"RMW reads then writes", pset.Options{}, []core.Event{wr(1, 2), rd(3, 0), rmw(2, 4, true), rd(1, 1)}, "2>0 2>4 4>1"},
		{"RMW after RMW", pset.Options{}, []core.Event{rmw(1, 4, true), rmw(2, 4, true)}, "4>4"},
		{"failed cas only reads", pset.Options{}, []core.Event{wr(1, 2), rmw(2, 5, false), rd(1, 1), wr(3, 3)}, "1>3 2>5 5>3"},
		{"stored cas writes", pset.Options{}, []core.Event{wr(1, 2), rmw(2, 5, true), rd(1, 1)}, "2>5 5>1"},
		{"free writes, a faulting access reads", pset.Options{}, []core.Event{wr(1, 2), free, crash}, "2>6 6>0"},
		{"crash outside the shadow", pset.Options{}, []core.Event{wr(1, 2), ev(core.KindCrash, 2, 0, yAddr+800)}, ""},
		{"lock words", pset.Options{}, []core.Event{sync(rd(1, 7)), sync(rmw(1, 7, true)), sync(wr(1, 8)), sync(rd(2, 7)), sync(rmw(2, 7, true))}, "8>7"},
		{"lock words ignored", pset.Options{IgnoreSync: true}, []core.Event{sync(rd(1, 7)), sync(rmw(1, 7, true)), sync(wr(1, 8)), sync(rd(2, 7)), sync(rmw(2, 7, true))}, ""},
		{"words apart", pset.Options{}, []core.Event{wr(1, 2), ev(core.KindRead, 2, 0, yAddr)}, ""},
	} {
		got := strings.Join(pairsOf(t, p, tc.opts, tc.evs), " ")
		if got != tc.want {
			t.Errorf("%s: pairs %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMonitor checks the monitor's findings, counts and policies.
func TestMonitor(t *testing.T) {
	p := unit(t)
	ps := make(isa.PSets, len(p.Instrs))
	ps[0] = isa.PSet{Tested: true, Preds: []int32{2}}
	ps[3] = isa.PSet{Tested: true, Preds: []int32{0}}
	evs := []core.Event{
		wr(1, 2), rd(2, 0), rd(3, 1), wr(4, 3), // 2>0 ok, 2>1 untested, 0>3 ok, 1>3 violates
		rd(2, 0), rd(3, 1), wr(4, 3), // 3>0 local-free remote: violates; 3>1 untested; 1>3 again
	}
	m := pset.NewMonitor(p, ps, pset.Options{})
	for i := range evs {
		m.Observe(&evs[i])
	}
	fs := m.Findings()
	var keys []string
	for _, f := range fs {
		keys = append(keys, f.Key())
	}
	if strings.Join(keys, ",") != "pset/violation 1 3,pset/violation 2 1,pset/violation 3 0,pset/violation 3 1" {
		t.Errorf("findings %v", keys)
	}
	if st := m.Stats(); st != (pset.Stats{Accesses: 7, Checks: 6, Violations: 5}) {
		t.Errorf("stats %+v", st)
	}
	want := "WAR on x: thread 4's st r2, x (pc 3) follows thread 3's ld r2, x (pc 1), not in its PSet {0}"
	if fs[0].Message != want || fs[0].Addr != xAddr || fs[0].Score != 1 || fs[0].Detector != "pset" {
		t.Errorf("finding %+v\nwant message %s", fs[0], want)
	}
	for _, f := range fs {
		if strings.Contains(f.Message, "@bug") {
			t.Errorf("message shows the ground truth: %s", f.Message)
		}
	}
	if !strings.Contains(fs[1].Message, "not in its PSet (untested)") || !strings.Contains(fs[2].Message, "RAW on x: thread 2's ld r1, x (pc 0) follows thread 4's st r2, x (pc 3), not in its PSet {2}") {
		t.Errorf("messages %q, %q", fs[1].Message, fs[2].Message)
	}
	fs[0].PCs[0] = 99
	if m.Findings()[0].PCs[0] == 99 {
		t.Error("Findings shares its PCs")
	}

	ig := pset.NewMonitor(p, ps, pset.Options{IgnoreUntested: true})
	for i := range evs {
		ig.Observe(&evs[i])
	}
	if len(ig.Findings()) != 2 || ig.Stats() != (pset.Stats{Accesses: 7, Checks: 4, Violations: 3, Skipped: 2}) {
		t.Errorf("ignoring untested: %v %+v", ig.Findings(), ig.Stats())
	}
	if m.Name() != "pset" || m.Kinds() != pset.Kinds() || !m.Kinds().Has(core.KindCrash) || m.Kinds().Has(core.KindAcquire) {
		t.Error("name or kinds")
	}
}

// TestTrainer checks the union over runs, the learning curve and the
// PSets' types.
func TestTrainer(t *testing.T) {
	p := unit(t)
	tr := pset.NewTrainer(p, pset.Options{})
	runs := [][]core.Event{
		{wr(1, 2), rd(2, 0)},           // 2>0
		{wr(1, 2), rd(2, 0), wr(3, 3)}, // 2>0, 0>3
		{wr(1, 2), rd(1, 0)},           // nothing new
		{wr(1, 2), rd(2, 1), wr(3, 3)}, // 2>1, 1>3
	}
	for _, evs := range runs {
		r := tr.NewRun()
		for i := range evs {
			r.Observe(&evs[i])
		}
		tr.Add(r)
	}
	if !slices.Equal(tr.NewPairs(), []int{1, 1, 0, 2}) || tr.Runs() != 4 || tr.Pairs() != 4 {
		t.Errorf("learning curve %v, runs %d, pairs %d", tr.NewPairs(), tr.Runs(), tr.Pairs())
	}
	ps := tr.PSets()
	want := isa.PSets{{Tested: true}, {Tested: true}, {Tested: true, Preds: []int32{0, 1}}, {Tested: true, Preds: []int32{0, 1}}}
	want[0].Preds, want[1].Preds, want[2].Preds = []int32{2}, []int32{2}, nil
	if !ps.Equal(want) || len(ps) != len(p.Instrs) {
		t.Errorf("PSets %v, want %v", ps, want)
	}
	if ps.At(4).Type() != isa.PSetUntested || ps.At(2).Type() != isa.PSetNull || ps.At(3).Type() != isa.PSetMany || ps.At(0).Type() != isa.PSetOne {
		t.Error("types")
	}
	b, err := isa.EncodePSets(p, ps)
	if err != nil {
		t.Fatal(err)
	}
	back, err := isa.DecodePSets(p, "unit.pset", b)
	if err != nil || !back.Equal(ps) {
		t.Errorf("round trip: %v", err)
	}
	r := tr.NewRun()
	if r.Name() != "pset-train" || r.Findings() != nil || r.Kinds() != pset.Kinds() {
		t.Error("recorder name, findings or kinds")
	}
}
