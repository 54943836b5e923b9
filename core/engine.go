package core

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

// Engine is a deterministic discrete-event engine: a typed binary min-heap
// ordered by (cycle, sequence number), so same-cycle events fire in the
// order they were scheduled.
type Engine struct {
	heap     []Item
	seq      uint64
	now      Cycle
	handlers []Handler
}

// Register adds a handler and returns the target id to schedule events for it.
func (e *Engine) Register(h Handler) int32 {
	e.handlers = append(e.handlers, h)
	return int32(len(e.handlers) - 1)
}

// Reserve makes room for n queued events, so a run whose queue never
// exceeds n allocates nothing while it runs.
func (e *Engine) Reserve(n int) {
	if cap(e.heap) < n {
		h := make([]Item, len(e.heap), n)
		copy(h, e.heap)
		e.heap = h
	}
}

// Now returns the cycle of the event being handled (or last handled).
func (e *Engine) Now() Cycle { return e.now }

// Len returns the number of queued events.
func (e *Engine) Len() int { return len(e.heap) }

// Schedule queues an event for target at cycle at and returns its
// sequence number (which Cancel takes).
//
// Items move with 8-byte field copies and the new item is built in place
// at its final slot (a hole sifts up), so no item just written with narrow
// stores is read back with wide loads (a store-forwarding stall).
func (e *Engine) Schedule(at Cycle, target int32, op int32, arg uint64) uint64 {
	e.seq++
	s := e.seq
	h := e.heap
	i := len(h)
	if i < cap(h) {
		h = h[:i+1]
	} else {
		h = append(h, Item{})
	}
	e.heap = h
	// The new item has the largest sequence number, so it goes before a
	// parent only when its cycle is earlier.
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
	return s
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

// up sifts the item at i towards the root.
func (e *Engine) up(i int) {
	h := e.heap
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

// down sifts the item at i towards the leaves.
func (e *Engine) down(i int) {
	h := e.heap
	x := h[i]
	e.sink(i, &x)
}

// sink places x in the hole at i, sifting the hole towards the leaves.
func (e *Engine) sink(i int, x *Item) {
	h := e.heap
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

// Cancel removes the queued event with sequence number seq (a timer whose
// wait ended early), so it neither fires nor keeps the queue non-empty. It
// reports whether the event was still queued. The queue is small; the scan
// is linear.
func (e *Engine) Cancel(seq uint64) bool {
	for i := range e.heap {
		if e.heap[i].Seq != seq {
			continue
		}
		n := len(e.heap) - 1
		e.heap[i] = e.heap[n]
		e.heap = e.heap[:n]
		if i < n {
			e.down(i)
			e.up(i)
		}
		return true
	}
	return false
}

// Peek returns the earliest queued event.
func (e *Engine) Peek() (Item, bool) {
	if len(e.heap) == 0 {
		return Item{}, false
	}
	return e.heap[0], true
}

// CanRunAt reports whether an action at cycle t may be performed at once
// instead of being scheduled: true when t is strictly before every queued
// event (the lookahead rule of DESIGN.md §2). The result is identical to
// scheduling it, because it would have been the next event to fire.
func (e *Engine) CanRunAt(t Cycle) bool {
	return len(e.heap) == 0 || t < e.heap[0].At
}

// NextAt returns the cycle of the earliest queued event.
func (e *Engine) NextAt() (Cycle, bool) {
	if len(e.heap) == 0 {
		return 0, false
	}
	return e.heap[0].At, true
}

// Step fires the earliest event. It returns false when the queue is empty.
func (e *Engine) Step() bool {
	h := e.heap
	if len(h) == 0 {
		return false
	}
	t := &h[0]
	at, target, op, arg := t.At, t.Target, t.Op, t.Arg
	e.popTop()
	e.now = at
	e.handlers[target].Handle(at, op, arg)
	return true
}

// popTop removes the root: the last item fills the hole, sifting down.
func (e *Engine) popTop() {
	h := e.heap
	n := len(h) - 1
	var x Item
	move(&x, &h[n])
	e.heap = h[:n]
	if n > 0 {
		e.sink(0, &x)
	}
}

// EngineState is a copy of the engine's mutable state.
type EngineState struct {
	// Heap is the event queue, in heap order.
	Heap []Item
	// Seq is the last sequence number given out.
	Seq uint64
	// Now is the cycle of the event being (or last) handled.
	Now Cycle
}

// Save copies the engine's queue and counters into st, reusing its storage.
func (e *Engine) Save(st *EngineState) {
	st.Heap = append(st.Heap[:0], e.heap...)
	st.Seq = e.seq
	st.Now = e.now
}

// Load restores the engine from st. Handlers are not part of the state.
func (e *Engine) Load(st *EngineState) {
	e.heap = append(e.heap[:0], st.Heap...)
	e.seq = st.Seq
	e.now = st.Now
}

// Reset empties the queue and sets time to zero.
func (e *Engine) Reset() {
	e.heap = e.heap[:0]
	e.seq = 0
	e.now = 0
}
