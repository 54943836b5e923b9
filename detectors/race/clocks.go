package race

import "weft/core"

// MaxThreads bounds the thread ids Clocks and Locks track; events of
// threads at or past it (or with a negative id) are ignored.
const MaxThreads = 1 << 16

// Clock is one thread's vector clock at one point of its run, indexed by
// thread id (entries past its length are 0). A Clock handed out by Clocks
// is never modified afterwards, so an access can keep it as its stamp.
type Clock []uint64

// Get returns the clock's entry for thread t.
func (c Clock) Get(t int) uint64 {
	if t >= 0 && t < len(c) {
		return c[t]
	}
	return 0
}

// Before reports whether the point of thread t stamped a happens before (or
// is) the point stamped b: program order and the edges Clocks builds.
func Before(t int, a, b Clock) bool { return a.Get(t) <= b.Get(t) }

// Clocks builds the happens-before relation ConSeq's comparison detectors
// use (the paper's vector clocks): program order, spawn (the parent's
// clock reaches the child), join (the child's final clock reaches the
// joiner), csignal/cbcast → the wake of each waiter it woke, and barrier
// generations (every arrival → every leave). Locks and atomic
// read-modify-writes give no order: they give mutual exclusion, which the
// detectors judge separately (Locks).
//
// Every change to a thread's clock makes a new Clock, so stamps taken
// with Now stay valid. It is not safe for concurrent use.
type Clocks struct {
	threads []Clock
	signals map[uint64]Clock
	bars    core.Barriers[Clock]
}

// NewClocks returns an empty happens-before tracker.
func NewClocks() *Clocks {
	return &Clocks{signals: map[uint64]Clock{}}
}

// ClockKinds are the event kinds Clocks.Observe reads.
func ClockKinds() core.KindMask {
	return core.MaskOf(core.KindSpawn, core.KindJoin, core.KindCondSignal, core.KindCondWake,
		core.KindBarrierArrive, core.KindBarrierLeave)
}

// validThread reports whether t is a thread id the trackers follow.
func validThread(t int) bool { return t >= 0 && t < MaxThreads }

// Now returns thread t's current clock (a thread not seen yet starts at
// 1 in its own entry: the first thread has no Spawn; a thread id out of
// range gets nil, all zeros). The result must not be modified.
func (c *Clocks) Now(t int) Clock {
	if !validThread(t) {
		return nil
	}
	for len(c.threads) <= t {
		c.threads = append(c.threads, nil)
	}
	if c.threads[t] == nil {
		v := make(Clock, t+1)
		v[t] = 1
		c.threads[t] = v
	}
	return c.threads[t]
}

// tick moves thread t past a release, so its later accesses are not
// covered by what it released.
func (c *Clocks) tick(t int) {
	v := append(Clock(nil), c.Now(t)...)
	v[t]++
	c.threads[t] = v
}

// joinInto makes thread t's clock the pointwise maximum of its clock and
// o, as a new Clock when anything changes.
func (c *Clocks) joinInto(t int, o Clock) {
	cur := c.Now(t)
	changed := len(o) > len(cur)
	for i := 0; !changed && i < len(o); i++ {
		changed = o[i] > cur[i]
	}
	if !changed {
		return
	}
	v := make(Clock, max(len(cur), len(o)))
	copy(v, cur)
	for i, x := range o {
		v[i] = max(v[i], x)
	}
	c.threads[t] = v
}

// Observe reads one event; kinds outside ClockKinds, and events with a
// thread id out of range, are ignored.
func (c *Clocks) Observe(e *core.Event) {
	t := int(e.Thread)
	if !validThread(t) {
		return
	}
	switch e.Op() {
	case core.OpSpawn:
		child := int(e.Child())
		if !validThread(child) || child == t {
			return
		}
		parent := c.Now(t)
		for len(c.threads) <= child {
			c.threads = append(c.threads, nil)
		}
		v := make(Clock, max(len(parent), child+1))
		copy(v, parent)
		v[child] = max(v[child], 1)
		c.threads[child] = v
		c.tick(t)
	case core.OpJoin:
		child := int(e.Joined())
		if child >= 0 && child < len(c.threads) && c.threads[child] != nil && child != t {
			c.joinInto(t, c.threads[child])
		}
	case core.OpSignal:
		c.signals[e.Addr] = c.Now(t)
		c.tick(t)
	case core.OpWake:
		if s, ok := c.signals[e.Addr]; ok {
			c.joinInto(t, s)
		}
	case core.OpArrive:
		acc := c.bars.Arrive(e.Addr, e.Generation())
		now := c.Now(t)
		v := make(Clock, max(len(*acc), len(now)))
		copy(v, *acc)
		for i, x := range now {
			v[i] = max(v[i], x)
		}
		*acc = v
		c.tick(t)
	case core.OpLeave:
		if vc, ok := c.bars.Leave(e.Addr, e.Generation()); ok {
			c.joinInto(t, vc)
		}
	}
}
