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
func (e *Engine) Schedule(at Cycle, target int32, op int32, arg uint64) uint64 {
	e.seq++
	e.heap = append(e.heap, Item{At: at, Seq: e.seq, Target: target, Op: op, Arg: arg})
	e.up(len(e.heap) - 1)
	return e.seq
}

func (e *Engine) up(i int) {
	h := e.heap
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (e *Engine) down(i int) {
	h := e.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
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
	if len(e.heap) == 0 {
		return false
	}
	it := e.pop()
	e.now = it.At
	e.handlers[it.Target].Handle(it.At, it.Op, it.Arg)
	return true
}

func (e *Engine) pop() Item {
	top := e.heap[0]
	n := len(e.heap) - 1
	e.heap[0] = e.heap[n]
	e.heap = e.heap[:n]
	e.down(0)
	return top
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
