package core

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// A differential test of the Engine (wheel and heap) against a reference that is a
// plain slice, fired in (At, Seq) order (what the old binary heap did).

type refModel struct {
	pend []Item
	seq  uint64
	now  Cycle
}

func (m *refModel) schedule(at Cycle, target, op int32, arg uint64) uint64 {
	m.seq++
	m.pend = append(m.pend, Item{At: at, Seq: m.seq, Target: target, Op: op, Arg: arg})
	return m.seq
}

func (m *refModel) minIdx() int {
	b := -1
	for i := range m.pend {
		if b < 0 || m.pend[i].before(&m.pend[b]) {
			b = i
		}
	}
	return b
}

func (m *refModel) cancel(seq uint64) bool {
	for i := range m.pend {
		if m.pend[i].Seq == seq {
			m.pend = append(m.pend[:i], m.pend[i+1:]...)
			return true
		}
	}
	return false
}

type harness struct {
	t      *testing.T
	tag    string
	r      *rand.Rand
	e      *Engine
	m      refModel
	ids    []int32
	hs     []*diffHandler
	want   Item
	fired  int
	past   bool // allow scheduling before now
	nested bool // handlers schedule/cancel
	seqs   []uint64
}

type diffHandler struct {
	h  *harness
	id int32
}

func (d *diffHandler) Handle(now Cycle, op int32, arg uint64) {
	h := d.h
	w := h.want
	if now != w.At || d.id != w.Target || op != w.Op || arg != w.Arg {
		h.t.Fatalf("%s: fired #%d (at %d target %d op %d arg %d), want %+v", h.tag, h.fired, now, d.id, op, arg, w)
	}
	if h.e.Now() != now {
		h.t.Fatalf("%s: Now %d in handler, want %d", h.tag, h.e.Now(), now)
	}
	h.fired++
	if !h.nested {
		return
	}
	for k := h.r.IntN(3); k > 0; k-- {
		switch h.r.IntN(5) {
		case 0, 1, 2:
			// Same cycle or just after: the common case in the machine.
			h.schedule(now + Cycle(h.r.IntN(3)))
		case 3:
			h.schedule(h.delay(now))
		case 4:
			h.cancelRandom()
		}
	}
}

func (h *harness) delay(now Cycle) Cycle {
	var d Cycle
	switch h.r.IntN(6) {
	case 0, 1:
		d = Cycle(h.r.IntN(4))
	case 2:
		d = Cycle(wheelSize - 3 + h.r.IntN(6)) // the window's edge
	case 3:
		d = Cycle(h.r.IntN(3 * wheelSize))
	case 4:
		d = Cycle(h.r.IntN(wheelSize))
	case 5:
		if h.past && h.r.IntN(3) == 0 {
			back := Cycle(h.r.IntN(2 * wheelSize))
			if back <= now {
				return now - back
			}
		}
		d = Cycle(h.r.IntN(8))
	}
	if now+d < now { // overflow near the top of the cycle range
		return now
	}
	return now + d
}

func (h *harness) schedule(at Cycle) {
	id := h.ids[h.r.IntN(len(h.ids))]
	op := int32(h.r.Uint32())
	arg := h.r.Uint64()
	s1 := h.m.schedule(at, id, op, arg)
	s2 := h.e.Schedule(at, id, op, arg)
	if s1 != s2 {
		h.t.Fatalf("%s: Schedule seq %d, want %d", h.tag, s2, s1)
	}
	h.seqs = append(h.seqs, s1)
}

func (h *harness) cancelRandom() {
	var seq uint64
	switch {
	case len(h.m.pend) > 0 && h.r.IntN(3) > 0:
		seq = h.m.pend[h.r.IntN(len(h.m.pend))].Seq
	case len(h.seqs) > 0 && h.r.IntN(2) == 0:
		seq = h.seqs[h.r.IntN(len(h.seqs))] // maybe fired / cancelled
	default:
		seq = h.r.Uint64N(h.m.seq + 3)
	}
	w := h.m.cancel(seq)
	g := h.e.Cancel(seq)
	if w != g {
		h.t.Fatalf("%s: Cancel(%d) = %v, want %v", h.tag, seq, g, w)
	}
}

func (h *harness) check(where string) {
	e := h.e
	if e.Len() != len(h.m.pend) {
		h.t.Fatalf("%s %s: Len %d, want %d", h.tag, where, e.Len(), len(h.m.pend))
	}
	if e.Now() != h.m.now {
		h.t.Fatalf("%s %s: Now %d, want %d", h.tag, where, e.Now(), h.m.now)
	}
	i := h.m.minIdx()
	at, ok := e.NextAt()
	it, ok2 := e.Peek()
	if i < 0 {
		if ok || ok2 || !e.CanRunAt(0) || !e.CanRunAt(^Cycle(0)) {
			h.t.Fatalf("%s %s: empty engine reports an event", h.tag, where)
		}
		return
	}
	w := h.m.pend[i]
	if !ok || !ok2 || at != w.At || it != w {
		h.t.Fatalf("%s %s: NextAt %d %v, Peek %+v; want %+v", h.tag, where, at, ok, it, w)
	}
	if e.CanRunAt(w.At) || (w.At > 0 && !e.CanRunAt(w.At-1)) || e.CanRunAt(w.At+1) && w.At+1 != 0 {
		h.t.Fatalf("%s %s: CanRunAt wrong around %d", h.tag, where, w.At)
	}
}

func (h *harness) step() {
	i := h.m.minIdx()
	if i < 0 {
		if h.e.Step() {
			h.t.Fatalf("%s: Step fired on an empty queue", h.tag)
		}
		return
	}
	h.want = h.m.pend[i]
	h.m.pend = append(h.m.pend[:i], h.m.pend[i+1:]...)
	h.m.now = h.want.At
	before := h.fired
	if !h.e.Step() {
		h.t.Fatalf("%s: Step found an empty queue", h.tag)
	}
	if h.fired != before+1 {
		h.t.Fatalf("%s: Step fired %d handlers", h.tag, h.fired-before)
	}
}

func (h *harness) newEngine(reserve int) *Engine {
	e := &Engine{}
	for _, d := range h.hs {
		if id := e.Register(d); id != d.id {
			h.t.Fatal("register ids differ")
		}
	}
	if reserve >= 0 {
		e.Reserve(reserve)
	}
	return e
}

func runDiff(t *testing.T, seed uint64, reserve int, startNow Cycle, past, nested bool, steps int) {
	h := &harness{t: t, r: rand.New(rand.NewPCG(seed, uint64(reserve)+uint64(startNow))), past: past, nested: nested}
	h.tag = fmt.Sprintf("seed %d reserve %d now %d past %v nested %v", seed, reserve, startNow, past, nested)
	for i := range 3 {
		h.hs = append(h.hs, &diffHandler{h: h, id: int32(i)})
		h.ids = append(h.ids, int32(i))
	}
	h.e = h.newEngine(reserve)
	if startNow != 0 {
		st := EngineState{Now: startNow}
		h.e.Load(&st)
		h.m.now = startNow
	}
	var st EngineState
	target := []int{2, 6, 20, 80, 300}[h.r.IntN(5)]
	for s := 0; s < steps; s++ {
		k := h.r.IntN(100)
		if len(h.m.pend) > target && k < 55 {
			k = 60 // step
		}
		switch {
		case k < 40:
			h.schedule(h.delay(h.m.now))
		case k < 47:
			// A burst at one cycle: fills a queue and overflows to the heap.
			at := h.delay(h.m.now)
			for n := h.r.IntN(12); n > 0; n-- {
				h.schedule(at)
			}
		case k < 55:
			h.cancelRandom()
		case k < 85:
			h.step()
		case k < 88:
			h.e.Save(&st)
			h.e.Load(&st)
		case k < 90:
			h.e.Save(&st)
			h.e = h.newEngine(h.r.IntN(10) - 1)
			h.e.Load(&st)
		case k < 91:
			h.e.Save(&st)
			h.e.Reset()
			h.e.Load(&st)
		case k < 93:
			h.e.Reserve(h.r.IntN(10))
		case k < 94:
			// Save, keep running, then go back (a rollback).
			var ck EngineState
			h.e.Save(&ck)
			mk := refModel{pend: append([]Item(nil), h.m.pend...), seq: h.m.seq, now: h.m.now}
			for n := h.r.IntN(20); n > 0; n-- {
				h.step()
				if h.r.IntN(2) == 0 {
					h.schedule(h.delay(h.m.now))
				}
			}
			h.e.Load(&ck)
			h.m = mk
		case k < 95 && h.r.IntN(20) == 0:
			h.e.Reset()
			h.m = refModel{}
			if startNow != 0 {
				st := EngineState{Now: startNow}
				h.e.Load(&st)
				h.m.now = startNow
			}
		default:
			h.step()
		}
		h.check(fmt.Sprintf("step %d", s))
	}
	h.nested = false
	for len(h.m.pend) > 0 {
		h.step()
		h.check("drain")
	}
	h.step()
}

func TestEngineDifferential(t *testing.T) {
	starts := []Cycle{0, 5, 1000, 1 << 40, 1<<63 - 37, ^Cycle(0) - 4*wheelSize}
	for seed := uint64(0); seed < 15; seed++ {
		for reserve := -1; reserve <= 8; reserve++ {
			for _, start := range starts {
				for _, past := range []bool{false, true} {
					runDiff(t, seed, reserve, start, past, seed%2 == 0, 1500)
				}
			}
		}
	}
}

// Every base offset mod wheelSize, every first-bucket offset from it.
func TestEngineFirstBucketEveryOffset(t *testing.T) {
	for base := Cycle(0); base < 3*wheelSize; base++ {
		for off := Cycle(0); off < wheelSize; off++ {
			var e Engine
			var log []firing
			id := newRecorders(&e, 1, &log)[0]
			e.Reserve(4)
			st := EngineState{Now: base}
			e.Load(&st)
			e.Schedule(base+off, id, 1, 0)
			e.Schedule(base+wheelSize-1, id, 2, 0)
			e.Schedule(base+wheelSize, id, 3, 0) // just outside: the heap
			if at, _ := e.NextAt(); at != base+off {
				t.Fatalf("base %d off %d: NextAt %d", base, off, at)
			}
			for e.Step() {
			}
			if len(log) != 3 || log[0].At != base+off || log[2].At != base+wheelSize || log[2].Op != 3 {
				t.Fatalf("base %d off %d: %+v", base, off, log)
			}
		}
	}
}

// Reserve(n) and a queue of at most n events: no allocation while running.
func TestEngineReserveNoAllocs(t *testing.T) {
	for n := 1; n <= 40; n++ {
		var e Engine
		r := rand.New(rand.NewPCG(uint64(n), 7))
		k := &allocTicker{e: &e, r: r}
		k.id = e.Register(k)
		e.Reserve(n)
		for i := range n {
			e.Schedule(Cycle(i%3), k.id, 0, 0)
		}
		var st EngineState
		st.Heap = make([]Item, 0, n)
		allocs := testing.AllocsPerRun(20, func() {
			for range 500 {
				e.Step()
			}
			e.Save(&st)
			e.Load(&st)
		})
		if allocs != 0 {
			t.Errorf("n %d: %v allocs", n, allocs)
		}
	}
}

// allocTicker keeps the queue at its size: each event schedules one
// (same cycle, near, at the window's edge or far), or cancels one it
// scheduled and schedules two.
type allocTicker struct {
	e    *Engine
	r    *rand.Rand
	id   int32
	last uint64
}

func (k *allocTicker) Handle(now Cycle, op int32, arg uint64) {
	var d Cycle
	switch k.r.IntN(4) {
	case 0:
		d = 0
	case 1:
		d = Cycle(k.r.IntN(4))
	case 2:
		d = wheelSize - 2 + Cycle(k.r.IntN(4))
	default:
		d = Cycle(k.r.IntN(3 * wheelSize))
	}
	if k.last != 0 && k.r.IntN(4) == 0 && k.e.Cancel(k.last) {
		k.e.Schedule(now, k.id, 0, 0)
	}
	k.last = k.e.Schedule(now+d, k.id, 0, 0)
}

// A full queue overflows to the heap; after it drains, later events of the
// same cycle go back to the wheel while earlier ones wait in the heap.
func TestEngineOverflowThenWheelSameCycle(t *testing.T) {
	var e Engine
	var log []firing
	id := newRecorders(&e, 1, &log)[0]
	e.Reserve(2) // 2 per cycle
	e.Schedule(10, id, 1, 0)
	e.Schedule(10, id, 2, 0)
	e.Schedule(10, id, 3, 0) // heap (queue full)
	e.Schedule(10, id, 4, 0) // heap
	e.Step()                 // 1; head=1, len=cap: still full
	e.Schedule(10, id, 5, 0) // heap although the front has room
	e.Step()                 // 2; queue empties
	e.Schedule(10, id, 6, 0) // wheel, while 3, 4, 5 are in the heap
	e.Schedule(9, id, 7, 0)  // before base: heap
	if !e.Cancel(4) {        // seq 4 is op 4
		t.Fatal("cancel")
	}
	for e.Step() {
	}
	var ops []int32
	for _, f := range log {
		ops = append(ops, f.Op)
	}
	if fmt.Sprint(ops) != "[1 2 7 3 5 6]" {
		t.Fatalf("ops %v", ops)
	}
}
