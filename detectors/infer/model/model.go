// Package model is interleaving inference's model checker: the
// explicit-state search that stands in for the paper's CSP model and FDR checks
// (inference digest §1.6). A Model is one analysis window of a recorded
// trace: each thread's synchronisation events in program order and, between
// them, its segments' accesses to shared objects. A state is the vector of
// the threads' positions in their sync events; from a state a thread may
// execute its next sync event when the primitives allow it (a lock that is
// free, a start after its fork, a join after its child's end, a wait after
// its signal, a barrier exit after every enter of that episode).
//
// Races. Memory events are never blocked, so two conflicting accesses to an
// object can be made adjacent exactly when some reachable state has two
// threads whose current segments both access it, one of them writing: the
// race predicate. Deadlocks: a reachable state where no thread can move and
// some thread has not executed all its events. The search is breadth
// first, so counterexamples are shortest; a counterexample is the sync
// schedule from the window's start to the state.
//
// The package knows nothing of events, programs or kernels: it is the pure
// search, fed by the trace recorder.
package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is a synchronisation event's kind.
type Kind uint8

// The synchronisation kinds.
const (
	// Start is a thread's first event (after its Fork).
	Start Kind = iota
	// End is a thread's last event (before its Join).
	End
	// Fork creates thread Obj.
	Fork
	// Join waits for thread Obj's End.
	Join
	// Lock acquires mutex Obj (when it is free).
	Lock
	// Unlock releases mutex Obj.
	Unlock
	// Signal wakes the waiter of condition instance Obj.
	Signal
	// Broadcast wakes every waiter of condition instance Obj.
	Broadcast
	// Wait returns once condition instance Obj is signalled.
	Wait
	// BarrierEnter arrives at barrier episode Obj.
	BarrierEnter
	// BarrierExit leaves barrier episode Obj, once every participant
	// entered it.
	BarrierExit
	// Other is an event the model does not constrain (always enabled, no
	// effect), kept so positions match the trace's.
	Other
	// WaitLoop is a wait loop's exit (the paper's wait-loop marker): it
	// returns once condition instance Obj is signalled, like Wait, but
	// the wait may not have run (its predicate held), so the thread still
	// holds the wait's lock in the trace. Were it to wait, its cwait
	// would release that lock (Sync.Lock; 0: unknown, the lock it took
	// last, as a wait's lock is the innermost): while its WaitLoop is not
	// enabled, other threads may take it, and it leaves only when the
	// lock is free.
	WaitLoop
)

var kindNames = [...]string{"start", "end", "fork", "join", "lock", "unlock", "signal", "broadcast", "wait", "barrier_enter", "barrier_exit", "other", "wait_loop"}

// String returns the kind's name in the paper's spelling ("lock").
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Sync is one synchronisation event of a thread.
type Sync struct {
	Kind Kind
	// Lock is a WaitLoop's lock (0: unknown).
	Lock uint64
	// Obj is the mutex, condition instance or barrier episode, or the
	// child thread of a Fork or Join.
	Obj uint64
	// PC is the instruction (for reports; -1 when none).
	PC int32
}

// Access is one access of a segment to a shared object (one per object
// and segment, a write when the segment writes it).
type Access struct {
	Obj   uint64
	Write bool
	// Atomic marks an atomic RMW: two atomic accesses never race.
	Atomic bool
	PC     int32
}

// Thread is one thread's part of a window: its sync events in order and
// its segments: Segs[k] holds the accesses after its k-th sync event (Segs
// has len(Events)+1 entries; Segs[0] is before the first).
type Thread struct {
	Events []Sync
	Segs   [][]Access
	// More says the thread has events after the window: at the end of its
	// window part it is not stuck.
	More bool
}

// Model is one window of a trace.
type Model struct {
	// Threads are indexed by logical thread id.
	Threads []Thread
	// Held are the mutexes each thread holds at the window's start.
	Held [][]uint64
	// ForksInOrder keeps the window's Fork events in the order they are
	// listed in Forks (the observed order): a replay identifies threads by
	// global spawn order, so an order that swaps two spawns could not be
	// replayed.
	ForksInOrder bool
	// Forks are the window's Fork events as (thread, position) pairs in
	// the observed order (with ForksInOrder).
	Forks [][2]int
	// Outside says which sync prerequisites happened before the window:
	// threads already started or ended, condition instances already
	// signalled, barrier episodes whose enters all happened. A
	// prerequisite that is neither in the window nor here never happens.
	Outside Prior
}

// Prior holds what happened before a window.
type Prior struct {
	Forked, Ended map[int]bool
	Signalled     map[uint64]bool
	// Entered holds barrier episodes whose every enter is before the
	// window.
	Entered map[uint64]bool
}

// Step is one event of a counterexample: thread Thread's Sync.
type Step struct {
	Thread int
	Sync
}

// String spells a step as the paper does: "lock.t2.m0x40".
func (s Step) String() string {
	return fmt.Sprintf("%s.t%d.%#x", s.Kind, s.Thread, s.Obj)
}

// Race is a race counterexample: the schedule to a state where A (by
// thread TA) and B (by TB) can be adjacent.
type Race struct {
	Schedule []Step
	TA, TB   int
	A, B     Access
}

// Deadlock is a deadlock counterexample: the schedule to a state where
// the threads in Blocked cannot move, with the next event of each.
type Deadlock struct {
	Schedule []Step
	Blocked  []Step
}

// index is a model's precomputed lookups.
type index struct {
	m *Model
	// held[t][k] are the mutexes thread t holds after k of its events.
	held [][][]uint64
	// at locates events: forkOf[c], endOf[c], signalOf[ci] as (thread,
	// position) pairs; enters[bi] every BarrierEnter of episode bi.
	forkOf, endOf map[int][2]int
	signalOf      map[uint64][2]int
	enters        map[uint64][][2]int
}

func newIndex(m *Model) (*index, error) {
	x := &index{m: m, forkOf: map[int][2]int{}, endOf: map[int][2]int{}, signalOf: map[uint64][2]int{}, enters: map[uint64][][2]int{}}
	x.held = make([][][]uint64, len(m.Threads))
	for t, th := range m.Threads {
		if len(th.Segs) != len(th.Events)+1 {
			return nil, fmt.Errorf("model: thread %d has %d sync events and %d segments (want one more)", t, len(th.Events), len(th.Segs))
		}
		var h []uint64
		if t < len(m.Held) {
			h = slices.Clone(m.Held[t])
		}
		x.held[t] = append(x.held[t], h)
		for k, e := range th.Events {
			switch e.Kind {
			case Lock:
				h = append(slices.Clone(h), e.Obj)
			case Unlock:
				if i := slices.Index(h, e.Obj); i >= 0 {
					h = slices.Delete(slices.Clone(h), i, i+1)
				}
			case Fork:
				x.forkOf[int(e.Obj)] = [2]int{t, k}
			case End:
				x.endOf[t] = [2]int{t, k}
			case Signal, Broadcast:
				x.signalOf[e.Obj] = [2]int{t, k}
			case BarrierEnter:
				x.enters[e.Obj] = append(x.enters[e.Obj], [2]int{t, k})
			}
			x.held[t] = append(x.held[t], h)
		}
	}
	return x, nil
}

// done reports whether the event at (thread, position) has executed in
// state pos.
func done(pos []int, at [2]int) bool { return pos[at[0]] > at[1] }

// enabled reports whether thread t's next event can execute in state pos.
func (x *index) enabled(pos []int, t int) bool {
	th := &x.m.Threads[t]
	if pos[t] >= len(th.Events) {
		return false
	}
	e := th.Events[pos[t]]
	o := &x.m.Outside
	switch e.Kind {
	case Lock:
		for u := range x.m.Threads {
			if u != t && slices.Contains(x.held[u][pos[u]], e.Obj) && !x.waitingOn(pos, u, e.Obj) {
				return false
			}
		}
	case Fork:
		if x.m.ForksInOrder {
			for i, at := range x.m.Forks {
				if at == [2]int{t, pos[t]} {
					return i == 0 || done(pos, x.m.Forks[i-1])
				}
			}
		}
	case Start:
		if at, ok := x.forkOf[t]; ok {
			return done(pos, at)
		}
		return o.Forked[t]
	case Join:
		if at, ok := x.endOf[int(e.Obj)]; ok {
			return done(pos, at)
		}
		return o.Ended[int(e.Obj)]
	case Wait:
		return x.signalled(pos, e.Obj)
	case WaitLoop:
		if !x.signalled(pos, e.Obj) {
			return false
		}
		if l := x.loopLock(pos, t); l != 0 {
			for u := range x.m.Threads {
				if u != t && slices.Contains(x.held[u][pos[u]], l) && !x.waitingOn(pos, u, l) {
					return false
				}
			}
		}
	case BarrierExit:
		ins, ok := x.enters[e.Obj]
		if !ok {
			return o.Entered[e.Obj]
		}
		for _, at := range ins {
			if !done(pos, at) {
				return false
			}
		}
	}
	return true
}

// signalled reports whether condition instance ci's signal has executed
// (or did before the window).
func (x *index) signalled(pos []int, ci uint64) bool {
	if at, ok := x.signalOf[ci]; ok {
		return done(pos, at)
	}
	return x.m.Outside.Signalled[ci]
}

// waitingOn reports whether thread u waits at a wait loop whose signal
// has not come and whose wait would release lock l.
func (x *index) waitingOn(pos []int, u int, l uint64) bool {
	th := &x.m.Threads[u]
	if pos[u] >= len(th.Events) {
		return false
	}
	e := th.Events[pos[u]]
	return e.Kind == WaitLoop && x.loopLock(pos, u) == l && !x.signalled(pos, e.Obj)
}

// loopLock returns the lock thread u's wait loop (its next event) would
// release: its own, or the lock u took last (0: it holds none).
func (x *index) loopLock(pos []int, u int) uint64 {
	e := x.m.Threads[u].Events[pos[u]]
	if e.Lock != 0 {
		return e.Lock
	}
	h := x.held[u][pos[u]]
	if len(h) == 0 {
		return 0
	}
	return h[len(h)-1]
}

// key encodes a state.
func key(pos []int) string {
	var b strings.Builder
	for _, p := range pos {
		b.WriteString(strconv.Itoa(p))
		b.WriteByte(',')
	}
	return b.String()
}

// node is a BFS node: a state and how it was reached.
type node struct {
	pos    []int
	parent int
	step   Step
}

// search runs a BFS from the window's start and calls visit on every
// state, with a function that rebuilds its schedule; it stops when visit
// returns false or limit states have been seen (0: no limit). It reports
// whether the limit cut it short.
func (x *index) search(limit int, visit func(pos []int, schedule func() []Step) bool) bool {
	start := make([]int, len(x.m.Threads))
	nodes := []node{{pos: start, parent: -1}}
	seen := map[string]bool{key(start): true}
	for i := 0; i < len(nodes); i++ {
		n := nodes[i]
		sched := func() []Step {
			var out []Step
			for j := i; nodes[j].parent >= 0; j = nodes[j].parent {
				out = append(out, nodes[j].step)
			}
			slices.Reverse(out)
			return out
		}
		if !visit(n.pos, sched) {
			return false
		}
		for t := range x.m.Threads {
			if !x.enabled(n.pos, t) {
				continue
			}
			next := slices.Clone(n.pos)
			next[t]++
			if k := key(next); !seen[k] {
				if limit > 0 && len(seen) >= limit {
					return true
				}
				seen[k] = true
				nodes = append(nodes, node{pos: next, parent: i, step: Step{Thread: t, Sync: x.m.Threads[t].Events[n.pos[t]]}})
			}
		}
	}
	return false
}

// Races returns up to bound race counterexamples on object obj (0: no
// bound), each for a different pair of accesses (by PCs), shortest first.
// limit bounds the states explored (0: none); truncated reports that it
// cut the search short.
func (m *Model) Races(obj uint64, bound, limit int) (races []Race, truncated bool, err error) {
	x, err := newIndex(m)
	if err != nil {
		return nil, false, err
	}
	seen := map[[2]int32]bool{}
	truncated = x.search(limit, func(pos []int, sched func() []Step) bool {
		for ta := range m.Threads {
			for tb := ta + 1; tb < len(m.Threads); tb++ {
				for _, a := range m.Threads[ta].Segs[pos[ta]] {
					if a.Obj != obj {
						continue
					}
					for _, b := range m.Threads[tb].Segs[pos[tb]] {
						if b.Obj != obj || !(a.Write || b.Write) || a.Atomic && b.Atomic {
							continue
						}
						k := [2]int32{min(a.PC, b.PC), max(a.PC, b.PC)}
						if seen[k] {
							continue
						}
						seen[k] = true
						races = append(races, Race{Schedule: sched(), TA: ta, TB: tb, A: a, B: b})
						if bound > 0 && len(races) >= bound {
							return false
						}
					}
				}
			}
		}
		return true
	})
	return races, truncated, nil
}

// Deadlocks returns up to bound deadlock counterexamples (0: no bound),
// each a different set of blocked next events, shortest first.
func (m *Model) Deadlocks(bound, limit int) (dls []Deadlock, truncated bool, err error) {
	x, err := newIndex(m)
	if err != nil {
		return nil, false, err
	}
	seen := map[string]bool{}
	truncated = x.search(limit, func(pos []int, sched func() []Step) bool {
		var blocked []Step
		for t := range m.Threads {
			if x.enabled(pos, t) || pos[t] == len(m.Threads[t].Events) && m.Threads[t].More {
				return true
			}
			if pos[t] < len(m.Threads[t].Events) {
				blocked = append(blocked, Step{Thread: t, Sync: m.Threads[t].Events[pos[t]]})
			}
		}
		if len(blocked) == 0 {
			return true // every thread finished
		}
		k := fmt.Sprint(blocked)
		if !seen[k] {
			seen[k] = true
			dls = append(dls, Deadlock{Schedule: sched(), Blocked: blocked})
		}
		return bound == 0 || len(dls) < bound
	})
	return dls, truncated, nil
}
