package core

import (
	"slices"
	"sort"
	"testing"
)

// firing is one handled event as a test records it.
type firing struct {
	At     Cycle
	Target int32
	Op     int32
	Arg    uint64
}

// recorder logs every event it handles.
type recorder struct {
	id  int32
	log *[]firing
}

func (r *recorder) Handle(now Cycle, op int32, arg uint64) {
	*r.log = append(*r.log, firing{now, r.id, op, arg})
}

func newRecorders(e *Engine, n int, log *[]firing) []int32 {
	ids := make([]int32, n)
	for i := range ids {
		r := &recorder{log: log}
		r.id = e.Register(r)
		ids[i] = r.id
	}
	return ids
}

func TestEngineSameCycleInScheduleOrder(t *testing.T) {
	var e Engine
	var log []firing
	ids := newRecorders(&e, 3, &log)
	e.Schedule(9, ids[0], 0, 1000) // a later cycle scheduled first
	for i := range 100 {
		e.Schedule(5, ids[(i*7)%3], int32(i), uint64(i))
	}
	e.Schedule(1, ids[2], 0, 2000) // an earlier cycle scheduled last
	for e.Step() {
	}
	if len(log) != 102 {
		t.Fatalf("fired %d events, want 102", len(log))
	}
	if log[0].Arg != 2000 || log[101].Arg != 1000 {
		t.Errorf("first/last = %+v / %+v", log[0], log[101])
	}
	for i, f := range log[1:101] {
		if f.At != 5 || f.Arg != uint64(i) || f.Target != ids[(i*7)%3] {
			t.Fatalf("event %d at cycle 5 = %+v, want arg %d", i, f, i)
		}
	}
	if e.Now() != 9 {
		t.Errorf("Now = %d, want 9", e.Now())
	}
}

// TestEngineRandomOrder checks against a reference: a stable sort by cycle
// of everything pending is the firing order. The engine has no Reserve, so
// every event is in the heap.
func TestEngineRandomOrder(t *testing.T) {
	for seed := range uint64(20) {
		r := NewRNG(seed, "engine")
		var e Engine
		var log []firing
		id := newRecorders(&e, 1, &log)[0]
		var pending []firing // in scheduling order
		var want []firing
		for step := range 3000 {
			if len(pending) == 0 || r.Below(3) != 0 {
				// Few distinct cycles, so ties are common.
				f := firing{At: e.Now() + Cycle(r.Below(8)), Target: id, Op: int32(step), Arg: r.Uint64()}
				e.Schedule(f.At, f.Target, f.Op, f.Arg)
				pending = append(pending, f)
				continue
			}
			sort.SliceStable(pending, func(i, j int) bool { return pending[i].At < pending[j].At })
			want = append(want, pending[0])
			pending = pending[1:]
			if !e.Step() {
				t.Fatal("Step found an empty queue")
			}
			if e.Len() != len(pending) {
				t.Fatalf("Len = %d, want %d", e.Len(), len(pending))
			}
		}
		sort.SliceStable(pending, func(i, j int) bool { return pending[i].At < pending[j].At })
		want = append(want, pending...)
		for e.Step() {
		}
		checkFired(t, seed, log, want)
	}
}

// TestEngineWheelAndFar is TestEngineRandomOrder with cycles on both sides
// of the wheel's window (same-cycle ties, the window's edge, far events
// that come into it as time passes), full queues, cancels, saves loaded
// back at once, and NextAt and Peek checked against the reference at
// every step.
func TestEngineWheelAndFar(t *testing.T) {
	type ev struct {
		firing
		seq uint64
	}
	for seed := range uint64(20) {
		r := NewRNG(seed, "wheel")
		var e Engine
		e.Reserve(8) // room for 5 events a cycle: more go to the heap
		var log []firing
		id := newRecorders(&e, 1, &log)[0]
		var pending []ev // in scheduling order
		var want []firing
		for step := range 6000 {
			switch k := r.Below(10); {
			case len(pending) == 0 || k < 5:
				var d Cycle
				switch r.Below(4) {
				case 0, 1:
					d = Cycle(r.Below(4))
				case 2:
					d = Cycle(wheelSize - 8 + r.Below(16))
				default:
					d = Cycle(r.Below(6 * wheelSize))
				}
				f := firing{At: e.Now() + d, Target: id, Op: int32(step), Arg: r.Uint64()}
				pending = append(pending, ev{f, e.Schedule(f.At, f.Target, f.Op, f.Arg)})
				continue
			case k == 6:
				// A round trip through a saved state changes nothing.
				var st EngineState
				e.Save(&st)
				e.Load(&st)
			case k == 5:
				i := int(r.Below(uint64(len(pending))))
				if !e.Cancel(pending[i].seq) {
					t.Fatalf("seed %d: Cancel of a queued event failed", seed)
				}
				pending = slices.Delete(pending, i, i+1)
			default:
				sort.SliceStable(pending, func(i, j int) bool { return pending[i].At < pending[j].At })
				want = append(want, pending[0].firing)
				pending = pending[1:]
				if !e.Step() {
					t.Fatal("Step found an empty queue")
				}
			}
			if e.Len() != len(pending) {
				t.Fatalf("seed %d step %d: Len = %d, want %d", seed, step, e.Len(), len(pending))
			}
			if len(pending) == 0 {
				continue
			}
			sort.SliceStable(pending, func(i, j int) bool { return pending[i].At < pending[j].At })
			at, ok := e.NextAt()
			it, _ := e.Peek()
			if !ok || at != pending[0].At || it.Seq != pending[0].seq || e.CanRunAt(at) || !e.CanRunAt(at-1) && at > 0 {
				t.Fatalf("seed %d step %d: NextAt %d, Peek seq %d; want %d, %d", seed, step, at, it.Seq, pending[0].At, pending[0].seq)
			}
		}
		sort.SliceStable(pending, func(i, j int) bool { return pending[i].At < pending[j].At })
		for _, p := range pending {
			want = append(want, p.firing)
		}
		for e.Step() {
		}
		checkFired(t, seed, log, want)
	}
}

// checkFired compares the events an engine fired with the reference's.
func checkFired(t *testing.T, seed uint64, log, want []firing) {
	t.Helper()
	if slices.Equal(log, want) {
		return
	}
	for i := range min(len(log), len(want)) {
		if log[i] != want[i] {
			t.Fatalf("seed %d: event %d = %+v, want %+v", seed, i, log[i], want[i])
		}
	}
	t.Fatalf("seed %d: fired %d events, want %d", seed, len(log), len(want))
}

func TestEngineCanRunAt(t *testing.T) {
	var e Engine
	var log []firing
	id := newRecorders(&e, 1, &log)[0]
	for _, c := range []Cycle{0, 10, ^Cycle(0)} {
		if !e.CanRunAt(c) {
			t.Errorf("empty engine: CanRunAt(%d) = false", c)
		}
	}
	if _, ok := e.NextAt(); ok {
		t.Error("empty engine: NextAt ok")
	}
	e.Schedule(20, id, 0, 0)
	e.Schedule(10, id, 0, 0)
	tests := []struct {
		t    Cycle
		want bool
	}{{0, true}, {9, true}, {10, false}, {11, false}, {20, false}}
	for _, tt := range tests {
		if got := e.CanRunAt(tt.t); got != tt.want {
			t.Errorf("earliest 10: CanRunAt(%d) = %v, want %v", tt.t, got, tt.want)
		}
	}
	if at, ok := e.NextAt(); !ok || at != 10 {
		t.Errorf("NextAt = %d, %v, want 10, true", at, ok)
	}
	e.Step()
	if !e.CanRunAt(19) || e.CanRunAt(20) {
		t.Error("after the first Step the earliest event is at 20")
	}
}

// chain is a handler whose events each schedule a follow-up for the same
// chain, with a delay and argument that depend only on the event, so a
// restored engine replays exactly.
type chain struct {
	e   *Engine
	id  int32
	log *[]firing
	// span bounds the follow-up's delay (below it).
	span Cycle
}

func (c *chain) Handle(now Cycle, op int32, arg uint64) {
	*c.log = append(*c.log, firing{now, c.id, op, arg})
	if op > 0 {
		next := mix64(arg)
		c.e.Schedule(now+Cycle(next%uint64(c.span)), c.id, op-1, next)
	}
}

// TestEngineSaveLoad saves an engine mid-run and loads it back, with
// delays inside the wheel's window and across it (far events).
func TestEngineSaveLoad(t *testing.T) {
	for _, span := range []Cycle{5, 3 * wheelSize} {
		testSaveLoad(t, span)
	}
}

func testSaveLoad(t *testing.T, span Cycle) {
	var e Engine
	e.Reserve(4)
	var log []firing
	for i := range 4 {
		c := &chain{e: &e, log: &log, span: span}
		c.id = e.Register(c)
		e.Schedule(Cycle(i%2), c.id, 50, uint64(i))
	}
	for range 37 {
		e.Step()
	}
	var st EngineState
	e.Save(&st)
	now, n := e.Now(), len(log)
	for e.Step() {
	}
	first := slices.Clone(log[n:])

	e.Load(&st)
	if e.Now() != now || e.Len() != len(st.Heap) {
		t.Fatalf("Load: Now = %d, Len = %d; want %d, %d", e.Now(), e.Len(), now, len(st.Heap))
	}
	log = log[:n]
	for e.Step() {
	}
	if !slices.Equal(log[n:], first) {
		t.Fatalf("replay after Load differs: %d vs %d events", len(log)-n, len(first))
	}
	if len(first) != 4*51-37 {
		t.Errorf("fired %d events after the save, want %d", len(first), 4*51-37)
	}

	// The state is a copy: running on does not disturb it, and loading it
	// into a reset engine replays too.
	e.Reset()
	if e.Len() != 0 || e.Now() != 0 {
		t.Fatal("Reset left state behind")
	}
	e.Load(&st)
	log = log[:n]
	for e.Step() {
	}
	if !slices.Equal(log[n:], first) {
		t.Fatal("replay after Reset and Load differs")
	}

	// Saving again reuses the state's storage.
	e.Load(&st)
	if a := testing.AllocsPerRun(100, func() { e.Save(&st) }); a != 0 {
		t.Errorf("Save allocates %v times", a)
	}
}

func TestEngineResetRestartsSequence(t *testing.T) {
	run := func(e *Engine, log *[]firing, id int32) {
		for i := range 10 {
			e.Schedule(Cycle(i%3), id, int32(i), 0)
		}
		for e.Step() {
		}
	}
	var e Engine
	var log []firing
	id := newRecorders(&e, 1, &log)[0]
	run(&e, &log, id)
	first := slices.Clone(log)
	e.Reset()
	log = log[:0]
	run(&e, &log, id)
	if !slices.Equal(log, first) {
		t.Error("a reset engine did not repeat the run")
	}
}

// ticker reschedules itself forever with pseudo-random delays.
type ticker struct {
	e   *Engine
	id  int32
	rng RNG
	n   uint64
}

func (k *ticker) Handle(now Cycle, op int32, arg uint64) {
	k.n++
	k.e.Schedule(now+1+Cycle(k.rng.Below(16)), k.id, op, arg+1)
}

func newTickerEngine(events int) *Engine {
	e := &Engine{}
	e.Reserve(events)
	k := &ticker{e: e, rng: NewRNG(1, "bench")}
	k.id = e.Register(k)
	for i := range events {
		e.Schedule(Cycle(i%16), k.id, int32(i), 0)
	}
	// Warm up: the queue has reached its steady size.
	for range 4 * events {
		e.Step()
	}
	return e
}

func TestEngineNoAllocs(t *testing.T) {
	e := newTickerEngine(1024)
	if a := testing.AllocsPerRun(10000, func() { e.Step() }); a != 0 {
		t.Errorf("Step with a reschedule allocates %v times", a)
	}
}

func BenchmarkEngine(b *testing.B) {
	e := newTickerEngine(1024)
	b.ReportAllocs()
	for b.Loop() {
		e.Step()
	}
}
