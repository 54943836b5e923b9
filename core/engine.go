package core

import "math/bits"

// Handler is a component that receives its scheduled events. Op and Arg are
// the values given to Schedule; what they mean is up to the handler.
type Handler interface {
	Handle(now Cycle, op int32, arg uint64)
}

// Item is one scheduled event: a plain value, so the queue can be copied
// into a snapshot and restored.
type Item struct {
	// At is the cycle the event fires.
	At Cycle
	// Seq is the event's sequence number: it orders events of one cycle,
	// and Cancel takes it.
	Seq uint64
	// Target is the handler's id, as Register returned it.
	Target int32
	// Op is the handler-defined operation passed to Handle.
	Op int32
	// Arg is the handler-defined argument passed to Handle.
	Arg uint64
}

func (a *Item) before(b *Item) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.Seq < b.Seq
}

// Engine is a deterministic discrete-event engine: events fire in order of
// (cycle, sequence number), so same-cycle events fire in the order they
// were scheduled.
//
// Most events of a run fire within about a hundred cycles of now (a core
// giving way, a bus transaction), so they are kept on a timing wheel: a
// queue per cycle of the window [base, base+wheelSize), where base is the
// cycle of the last event fired. Scheduling appends to its cycle's queue
// (in sequence order, since sequence numbers rise with every Schedule) and
// firing takes the head of the first non-empty queue, found in a bitmap:
// no event is compared with another, so the host has no branch to guess
// wrong when many cores' events are close in time. Events outside the
// window go to a binary min-heap (far); Step fires whichever of the
// wheel's first event and the heap's root comes first, so the order is
// exactly (cycle, sequence number) wherever an event is kept.
type Engine struct {
	// wheel holds the window's queues; occ has a bit per non-empty one.
	wheel  [wheelSize]bucket
	occ    [wheelSize / 64]uint64
	nWheel int
	base   Cycle
	// far is a binary min-heap of the events outside the window.
	far []Item
	// next is the earliest queued event's cycle (valid when Len() > 0).
	next     Cycle
	seq      uint64
	now      Cycle
	handlers []Handler
}

// wheelSize is the number of cycles the wheel covers (a power of two).
const (
	wheelSize = 128
	wheelMask = wheelSize - 1
)

// bucket is one cycle's queue: items[head:] are its events, in sequence
// order; the storage is kept when it empties.
type bucket struct {
	items []Item
	head  int
}

// Register adds a handler and returns the target id to schedule events for it.
func (e *Engine) Register(h Handler) int32 {
	e.handlers = append(e.handlers, h)
	return int32(len(e.handlers) - 1)
}

// Reserve makes room for n queued events, so a run whose queue never
// exceeds n allocates nothing while it runs: n in the heap, and n/2+1 in
// every cycle's queue (one array; a cycle's further events go to the heap).
func (e *Engine) Reserve(n int) {
	if cap(e.far) < n {
		h := make([]Item, len(e.far), n)
		copy(h, e.far)
		e.far = h
	}
	per := n/2 + 1
	var store []Item
	for b := range e.wheel {
		k := &e.wheel[b]
		if cap(k.items) >= per {
			continue
		}
		if store == nil {
			store = make([]Item, wheelSize*per)
		}
		items := store[b*per : b*per : b*per+per]
		k.items = append(items, k.items...)
	}
}

// Now returns the cycle of the event being handled (or last handled).
func (e *Engine) Now() Cycle { return e.now }

// Len returns the number of queued events.
func (e *Engine) Len() int { return e.nWheel + len(e.far) }

// Schedule queues an event for target at cycle at and returns its
// sequence number (which Cancel takes).
func (e *Engine) Schedule(at Cycle, target int32, op int32, arg uint64) uint64 {
	e.seq++
	s := e.seq
	if e.Len() == 0 || at < e.next {
		e.next = at
	}
	if at-e.base < wheelSize && at >= e.base {
		e.wheelPush(at, s, target, op, arg)
	} else {
		e.farPush(at, s, target, op, arg)
	}
	return s
}

// wheelPush appends an event to its cycle's queue, which is in the window,
// or gives it to the heap when that queue is full.
func (e *Engine) wheelPush(at Cycle, s uint64, target, op int32, arg uint64) {
	b := int(at) & wheelMask
	k := &e.wheel[b]
	n := len(k.items)
	if n == cap(k.items) {
		// The queue is full: the heap keeps the order as well.
		e.farPush(at, s, target, op, arg)
		return
	}
	if n == 0 {
		e.occ[b>>6] |= 1 << (b & 63)
	}
	k.items = k.items[:n+1]
	d := &k.items[n]
	d.At, d.Seq, d.Target, d.Op, d.Arg = at, s, target, op, arg
	e.nWheel++
}

// wheelPop removes the first event of queue b.
func (e *Engine) wheelPop(b int) {
	k := &e.wheel[b]
	k.head++
	if k.head == len(k.items) {
		k.items, k.head = k.items[:0], 0
		e.occ[b>>6] &^= 1 << (b & 63)
	}
	e.nWheel--
}

// farPush adds an event to the heap: the new item has the largest
// sequence number, so it goes before a parent only when its cycle is
// earlier. Items move with 8-byte field copies and the new item is built
// in place at its final slot (a hole sifts up), so no item just written
// with narrow stores is read back with wide loads (a store-forwarding
// stall).
func (e *Engine) farPush(at Cycle, s uint64, target, op int32, arg uint64) {
	h := e.far
	i := len(h)
	if i < cap(h) {
		h = h[:i+1]
	} else {
		h = append(h, Item{})
	}
	e.far = h
	for i > 0 {
		p := (i - 1) / 2
		q := &h[p]
		if at >= q.At {
			break
		}
		move(&h[i], q)
		i = p
	}
	d := &h[i]
	d.At, d.Seq, d.Target, d.Op, d.Arg = at, s, target, op, arg
}

// move copies *s to *d field by field (8-byte and 4-byte moves, never a
// 16-byte one).
func move(d, s *Item) {
	d.At = s.At
	d.Seq = s.Seq
	d.Target = s.Target
	d.Op = s.Op
	d.Arg = s.Arg
}

// up sifts the heap item at i towards the root.
func (e *Engine) up(i int) {
	h := e.far
	x := h[i]
	for i > 0 {
		p := (i - 1) / 2
		if !x.before(&h[p]) {
			break
		}
		move(&h[i], &h[p])
		i = p
	}
	move(&h[i], &x)
}

// down sifts the heap item at i towards the leaves.
func (e *Engine) down(i int) {
	h := e.far
	x := h[i]
	e.sink(i, &x)
}

// sink places x in the heap's hole at i, sifting the hole towards the
// leaves.
func (e *Engine) sink(i int, x *Item) {
	h := e.far
	n := len(h)
	at, seq := x.At, x.Seq
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		c := &h[l]
		if r := l + 1; r < n {
			if cr := &h[r]; cr.At < c.At || (cr.At == c.At && cr.Seq < c.Seq) {
				m, c = r, cr
			}
		}
		if c.At > at || (c.At == at && c.Seq > seq) {
			break
		}
		move(&h[i], c)
		i = m
	}
	move(&h[i], x)
}

// firstBucket returns the first non-empty queue of the wheel at or after
// base's (the wheel must hold an event).
func (e *Engine) firstBucket() int {
	b := int(e.base) & wheelMask
	w := b >> 6
	if m := e.occ[w] &^ (1<<(b&63) - 1); m != 0 {
		return w<<6 | bits.TrailingZeros64(m)
	}
	for k := 1; k <= len(e.occ); k++ {
		i := (w + k) % len(e.occ)
		if m := e.occ[i]; m != 0 {
			return i<<6 | bits.TrailingZeros64(m)
		}
	}
	panic("core: wheel count and occupancy disagree")
}

// earliest returns the earliest queued event (the queue must not be
// empty).
func (e *Engine) earliest() *Item {
	if e.nWheel > 0 {
		k := &e.wheel[e.firstBucket()]
		w := &k.items[k.head]
		if len(e.far) == 0 || w.before(&e.far[0]) {
			return w
		}
	}
	return &e.far[0]
}

// refreshNext recomputes the earliest queued cycle. A wheel event's cycle
// is its queue's offset from base: no event is read.
func (e *Engine) refreshNext() {
	next := ^Cycle(0)
	if e.nWheel > 0 {
		next = e.base + Cycle((e.firstBucket()-int(e.base))&wheelMask)
	}
	if len(e.far) > 0 && e.far[0].At < next {
		next = e.far[0].At
	}
	e.next = next
}

// Cancel removes the queued event with sequence number seq (a timer whose
// wait ended early), so it neither fires nor keeps the queue non-empty. It
// reports whether the event was still queued. The scan is linear.
func (e *Engine) Cancel(seq uint64) bool {
	for i := range e.far {
		if e.far[i].Seq != seq {
			continue
		}
		n := len(e.far) - 1
		e.far[i] = e.far[n]
		e.far = e.far[:n]
		if i < n {
			e.down(i)
			e.up(i)
		}
		e.refreshNext()
		return true
	}
	if e.nWheel == 0 {
		return false
	}
	for b := range e.wheel {
		k := &e.wheel[b]
		for i := k.head; i < len(k.items); i++ {
			if k.items[i].Seq != seq {
				continue
			}
			// The earlier events move down one, keeping their order.
			copy(k.items[k.head+1:i+1], k.items[k.head:i])
			e.wheelPop(b)
			e.refreshNext()
			return true
		}
	}
	return false
}

// Peek returns the earliest queued event.
func (e *Engine) Peek() (Item, bool) {
	if e.Len() == 0 {
		return Item{}, false
	}
	return *e.earliest(), true
}

// CanRunAt reports whether an action at cycle t may be performed at once
// instead of being scheduled: true when t is strictly before every queued
// event (the lookahead rule of DESIGN.md §2). The result is identical to
// scheduling it, because it would have been the next event to fire.
func (e *Engine) CanRunAt(t Cycle) bool {
	return e.Len() == 0 || t < e.next
}

// NextAt returns the cycle of the earliest queued event.
func (e *Engine) NextAt() (Cycle, bool) {
	if e.Len() == 0 {
		return 0, false
	}
	return e.next, true
}

// Step fires the earliest event. It returns false when the queue is empty.
func (e *Engine) Step() bool {
	if e.Len() == 0 {
		return false
	}
	// The earliest event is at cycle next: on the wheel, it heads that
	// cycle's queue.
	at := e.next
	var target, op int32
	var arg uint64
	b := int(at) & wheelMask
	k := &e.wheel[b]
	if h := k.head; h < len(k.items) && k.items[h].At == at && (len(e.far) == 0 || k.items[h].before(&e.far[0])) {
		it := &k.items[h]
		target, op, arg = it.Target, it.Op, it.Arg
		e.wheelPop(b)
	} else {
		it := &e.far[0]
		target, op, arg = it.Target, it.Op, it.Arg
		e.popTop()
	}
	e.now = at
	if at > e.base {
		e.base = at
	}
	e.refreshNext()
	e.handlers[target].Handle(at, op, arg)
	return true
}

// popTop removes the heap's root: the last item fills the hole, sifting
// down.
func (e *Engine) popTop() {
	h := e.far
	n := len(h) - 1
	var x Item
	move(&x, &h[n])
	e.far = h[:n]
	if n > 0 {
		e.sink(0, &x)
	}
}

// EngineState is a copy of the engine's mutable state.
type EngineState struct {
	// Heap is the queued events (in no particular order: Load orders
	// them by cycle and sequence number).
	Heap []Item
	// Seq is the last sequence number given out.
	Seq uint64
	// Now is the cycle of the event being (or last) handled.
	Now Cycle
}

// Save copies the engine's queue and counters into st, reusing its
// storage.
func (e *Engine) Save(st *EngineState) {
	st.Heap = append(st.Heap[:0], e.far...)
	for b := range e.wheel {
		k := &e.wheel[b]
		st.Heap = append(st.Heap, k.items[k.head:]...)
	}
	st.Seq = e.seq
	st.Now = e.now
}

// Load restores the engine from st. Handlers are not part of the state.
// Every saved event goes to the heap, which orders by cycle and sequence
// number whatever the order of st.Heap; events scheduled from then on use
// the wheel again.
func (e *Engine) Load(st *EngineState) {
	e.Reset()
	e.now, e.base = st.Now, st.Now
	for i := range st.Heap {
		e.far = append(e.far, st.Heap[i])
		e.up(len(e.far) - 1)
	}
	e.refreshNext()
	e.seq = st.Seq
}

// Reset empties the queue and sets time to zero.
func (e *Engine) Reset() {
	for b := range e.wheel {
		k := &e.wheel[b]
		k.items, k.head = k.items[:0], 0
	}
	e.occ = [wheelSize / 64]uint64{}
	e.nWheel = 0
	e.far = e.far[:0]
	e.base, e.next = 0, 0
	e.seq = 0
	e.now = 0
}
