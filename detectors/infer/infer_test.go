package infer

import (
	"strings"
	"testing"

	"weft/core"
)

// builder builds a hand-made event stream.
type builder struct{ evs []core.Event }

func (b *builder) add(k core.Kind, tid int32, pc int32, addr uint64) *core.Event {
	b.evs = append(b.evs, core.Event{Kind: k, Core: tid, Thread: tid, PC: pc, Addr: addr})
	return &b.evs[len(b.evs)-1]
}
func (b *builder) rd(t int32, pc int32, a uint64) { b.add(core.KindRead, t, pc, a) }
func (b *builder) wr(t int32, pc int32, a uint64) { b.add(core.KindWrite, t, pc, a) }
func (b *builder) lock(t int32, a uint64)         { b.add(core.KindAcquire, t, 90, a) }
func (b *builder) unlock(t int32, a uint64)       { b.add(core.KindRelease, t, 91, a) }
func (b *builder) exit(t int32)                   { b.add(core.KindThreadExit, t, 99, 0) }
func (b *builder) spawn(t, child int32) {
	e := b.add(core.KindSpawn, t, 92, 0)
	e.Value, e.Words[0] = int64(child), uint64(child)
}
func (b *builder) join(t, child int32) {
	e := b.add(core.KindJoin, t, 93, 0)
	e.Value, e.Words[0] = int64(child), uint64(child)
}
func (b *builder) end(outcome uint64) {
	b.evs = append(b.evs, core.Event{Kind: core.KindRunEnd, Core: -1, Thread: -1, PC: core.NoPC, Words: [4]uint64{outcome}})
}

// record feeds the events to a new recorder.
func (b *builder) record() *Recorder {
	r := NewRecorder(nil)
	for i := range b.evs {
		if r.Kinds().Has(b.evs[i].Kind) {
			r.Observe(&b.evs[i])
		}
	}
	return r
}

const (
	x  = 0x1000
	y  = 0x1040
	m  = 0x1080
	m2 = 0x10c0
)

// listing1 is the paper's Listing 1 with main locking first: the y++
// pair (PCs 6 and 17) is hidden by the lock order.
func listing1() *builder {
	b := &builder{}
	b.rd(0, 4, y)
	b.wr(0, 4, y)
	b.spawn(0, 1)
	b.rd(0, 6, y)
	b.wr(0, 7, y)
	b.lock(0, m)
	b.rd(0, 8, x)
	b.wr(0, 8, x)
	b.unlock(0, m)
	b.lock(1, m)
	b.rd(1, 15, x)
	b.wr(1, 15, x)
	b.unlock(1, m)
	b.rd(1, 17, y)
	b.wr(1, 18, y)
	b.exit(1)
	b.join(0, 1)
	b.rd(0, 20, x)
	b.exit(0)
	b.end(0)
	return b
}

func TestListing1(t *testing.T) {
	r := listing1().record()
	a, err := r.Analyse(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	tr := a.Trace
	// Memory: 4 y accesses of main, 3 x accesses of main, 2 x and 2 y of task.
	if tr.Stats.MemCaptured != 11 {
		t.Errorf("captured %d memory events, want 11", tr.Stats.MemCaptured)
	}
	// Per segment: main y (seg 1), y (seg 2), x (seg 3), x (seg 7); task x, y.
	if tr.Stats.MemSegment != 6 || tr.Stats.MemShared != 6 {
		t.Errorf("reduced %d, shared %d; want 6, 6", tr.Stats.MemSegment, tr.Stats.MemShared)
	}
	// start.t0 spawn start.t1 lock unlock lock unlock exit join exit.
	if tr.Stats.Sync != 10 {
		t.Errorf("%d sync events, want 10: %v", tr.Stats.Sync, tr.Syncs)
	}
	for _, acc := range tr.Accesses {
		if acc.Addr == y && acc.Seg == 2 && acc.Thread == 0 && (!acc.Write || acc.PC != 7) {
			t.Errorf("main's y++ after the fork kept as %+v, want the write at PC 7", acc)
		}
	}
	if len(a.Objects) != 2 {
		t.Fatalf("objects %+v, want x and y", a.Objects)
	}
	if len(a.Candidates) != 1 {
		t.Fatalf("candidates %+v, want y only", a.Candidates)
	}
	c := a.Candidates[0]
	if o := a.Objects[c.Object]; o.Addr != y {
		t.Fatalf("candidate at %#x, want y", o.Addr)
	}
	if len(c.Pairs) != 1 || c.Observed() {
		t.Fatalf("pairs %+v, want one hidden pair", c.Pairs)
	}
	p := c.Pairs[0]
	if tr.Accesses[p.A].PC != 7 || tr.Accesses[p.B].PC != 18 {
		t.Errorf("pair PCs %d, %d; want 7, 18", tr.Accesses[p.A].PC, tr.Accesses[p.B].PC)
	}
	fs := r.Findings()
	if len(fs) != 1 || fs[0].Addr != y || !strings.Contains(fs[0].Message, "hidden") {
		t.Errorf("findings %+v", fs)
	}
	if out, ok := r.Outcome(); !ok || out != core.Pass {
		t.Errorf("outcome %q %v", out, ok)
	}
}

func TestDifferentLocksIsObservedRace(t *testing.T) {
	b := &builder{}
	b.spawn(0, 1)
	b.lock(0, m)
	b.wr(0, 10, x)
	b.unlock(0, m)
	b.lock(1, m2)
	b.wr(1, 20, x)
	b.unlock(1, m2)
	b.exit(1)
	b.join(0, 1)
	b.exit(0)
	b.end(0)
	a, err := b.record().Analyse(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Candidates) != 1 || !a.Candidates[0].Observed() {
		t.Fatalf("candidates %+v, want x as an observed race", a.Candidates)
	}
}

func TestCommonLockDiscarded(t *testing.T) {
	b := &builder{}
	b.spawn(0, 1)
	b.lock(0, m)
	b.lock(0, m2)
	b.wr(0, 10, x)
	b.unlock(0, m2)
	b.unlock(0, m)
	b.lock(1, m2)
	b.wr(1, 20, x)
	b.unlock(1, m2)
	b.exit(1)
	b.exit(0)
	b.end(0)
	a, err := b.record().Analyse(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Objects) != 1 || len(a.Candidates) != 0 {
		t.Fatalf("objects %+v candidates %+v, want x shared but protected", a.Objects, a.Candidates)
	}
}

func TestPrivateAndReadOnlyDropped(t *testing.T) {
	b := &builder{}
	b.wr(0, 1, x) // before the fork: x is still shared (task reads it)
	b.spawn(0, 1)
	b.wr(0, 2, m2) // private to main
	b.rd(0, 3, m2)
	b.rd(0, 4, y) // y is read-only
	b.rd(1, 5, y)
	b.rd(1, 6, x)
	b.exit(1)
	b.exit(0)
	b.end(0)
	r := b.record()
	tr, err := r.Trace()
	if err != nil {
		t.Fatal(err)
	}
	if tr.Stats.PrivateWords != 1 || tr.Stats.MemCaptured != 6 || tr.Stats.MemSegment != 5 || tr.Stats.MemShared != 4 {
		t.Errorf("stats %+v", tr.Stats)
	}
	a, err := Analyse(tr, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// x is shared (a write, two threads) but ordered by the fork.
	if len(a.Objects) != 1 || a.Objects[0].Addr != x || len(a.Candidates) != 0 {
		t.Errorf("objects %+v candidates %+v", a.Objects, a.Candidates)
	}
	if tr.Stats.Captured() != 6+tr.Stats.Sync || tr.Stats.Reduced() != 4+tr.Stats.Sync {
		t.Errorf("captured %d reduced %d", tr.Stats.Captured(), tr.Stats.Reduced())
	}
}

func TestRegionsMerge(t *testing.T) {
	b := &builder{}
	b.spawn(0, 1)
	for i := range uint64(3) {
		b.wr(0, 10, x+8*i)
	}
	b.wr(0, 11, y)
	for i := range uint64(3) {
		b.rd(1, 20, x+8*i)
	}
	b.lock(1, m)
	b.rd(1, 21, y) // another segment: y stays its own region
	b.unlock(1, m)
	b.exit(1)
	b.exit(0)
	b.end(0)
	a, err := b.record().Analyse(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Objects) != 2 || a.Objects[0].Addr != x || a.Objects[0].Words != 3 || a.Objects[1].Addr != y {
		t.Fatalf("objects %+v, want x[0..2] and y", a.Objects)
	}
	if len(a.Candidates) != 2 || len(a.Candidates[0].Pairs) != 3 {
		t.Fatalf("candidates %+v", a.Candidates)
	}
}

func TestCondAndBarrier(t *testing.T) {
	const cv, bar = 0x2000, 0x2040
	b := &builder{}
	b.spawn(0, 1)
	b.spawn(0, 2)
	// A signal nobody waits for: a skipped wait.
	b.lock(0, m)
	e := b.add(core.KindCondSignal, 0, 30, cv)
	e.Words[0] = ^uint64(0)
	b.unlock(0, m)
	// Thread 1 sleeps, thread 0 broadcasts and wakes it.
	b.wr(0, 31, x)
	b.lock(1, m)
	b.unlock(1, m)
	e = b.add(core.KindCondWait, 1, 40, cv)
	e.Words[0] = m
	b.lock(0, m)
	e = b.add(core.KindCondSignal, 0, 32, cv)
	e.Value, e.Words[0], e.Words[1] = 1, 1, 1
	e = b.add(core.KindCondWake, 1, 40, cv)
	e.Words[0] = 0
	b.unlock(0, m)
	b.lock(1, m)
	b.unlock(1, m)
	b.rd(1, 41, x) // ordered by the signal → wake edge
	// Barrier: threads 1 and 2 write, meet, then read each other's word.
	b.wr(1, 50, y)
	b.wr(2, 60, m2)
	for _, th := range []int32{1, 2} {
		e = b.add(core.KindBarrierArrive, th, 70, bar)
		e.Value, e.Words[0], e.Words[1] = int64(th), 0, 2
	}
	for _, th := range []int32{2, 1} {
		e = b.add(core.KindBarrierLeave, th, 70, bar)
	}
	b.rd(1, 51, m2)
	b.rd(2, 61, y)
	b.exit(1)
	b.exit(2)
	b.exit(0)
	b.end(0)
	a, err := b.record().Analyse(DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Conds) != 2 || !a.Conds[0].Skipped || a.Conds[1].Skipped || len(a.Conds[1].Wakes) != 1 || !a.Conds[1].Bcast {
		t.Fatalf("conds %+v", a.Conds)
	}
	if w := a.Trace.Syncs[a.Conds[1].Wakes[0]]; w.Thread != 1 || w.Instance != 1 || w.Peer != 0 {
		t.Errorf("wake %+v", w)
	}
	if len(a.Episodes) != 1 || len(a.Episodes[0].Arrivals) != 2 || len(a.Episodes[0].Leaves) != 2 || a.Episodes[0].N != 2 {
		t.Fatalf("episodes %+v", a.Episodes)
	}
	if len(a.Objects) != 3 || len(a.Candidates) != 0 {
		t.Errorf("objects %+v candidates %+v, want x, y, m2 all ordered", a.Objects, a.Candidates)
	}
}

func TestWindows(t *testing.T) {
	r := listing1().record()
	if _, err := r.Analyse(Options{WindowEvents: 0}); err == nil || !strings.Contains(err.Error(), "window_events is 0") {
		t.Errorf("window 0: %v", err)
	}
	a, err := r.Analyse(Options{WindowEvents: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Windows) != 3 {
		t.Fatalf("windows %+v, want 3 of 10 sync events", a.Windows)
	}
	w := a.Windows[1]
	// The first window holds start.t0 spawn start.t1 lock.t0.m: main owns m.
	if w.First != 4 || w.End != 8 || w.Start[0] != 3 || w.Start[1] != 1 || w.Owners[m] != 0 {
		t.Errorf("window 1 %+v", w)
	}
}

func TestFailingRunRejected(t *testing.T) {
	b := listing1()
	b.evs[len(b.evs)-1].Words[0] = 2 // hang
	r := b.record()
	if out, _ := r.Outcome(); out != core.Hang {
		t.Errorf("outcome %q", out)
	}
	_, err := r.Analyse(DefaultOptions())
	if err == nil || !strings.Contains(err.Error(), "failing run (outcome hang)") {
		t.Errorf("err %v", err)
	}
	if len(r.Findings()) != 0 {
		t.Errorf("findings from a failing run: %v", r.Findings())
	}
	b.evs = b.evs[:len(b.evs)-1]
	if _, err := b.record().Trace(); err == nil || !strings.Contains(err.Error(), "not ended") {
		t.Errorf("unended: %v", err)
	}
}
