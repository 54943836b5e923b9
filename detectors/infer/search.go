package infer

import (
	"fmt"
	"time"

	"weft/detectors/infer/model"
)

// SearchOptions bound the model checking.
type SearchOptions struct {
	// Bound is the most race counterexamples per candidate object and
	// window, and deadlock counterexamples per window (0: no bound; the
	// paper: a bound of 1 finds at least one race per object).
	Bound int
	// StateLimit bounds the states one check explores (0: none).
	StateLimit int
}

// DefaultSearchOptions is one counterexample per object and window, and
// at most a million states a check.
func DefaultSearchOptions() SearchOptions { return SearchOptions{Bound: 1, StateLimit: 1_000_000} }

// Counterexample is an order of synchronisation events, from the start of
// the run, that brings the program to a race on an object (two accesses of
// different threads, one a write, that can be adjacent) or to a deadlock.
type Counterexample struct {
	// Deadlock reports a deadlock counterexample (else a race).
	Deadlock bool
	// Window is the window it was found in.
	Window int
	// Object is the raced object (an index into Analysis.Objects).
	Object int
	// A and B are the racing accesses (indices into Trace.Accesses).
	A, B int
	// Addr and Words are the raced object's region (a race is confirmed
	// by a report on it).
	Addr  uint64
	Words int
	// Schedule is the sync order to enforce: the observed prefix up to
	// the window, then the search's path (events of Trace.Syncs).
	Schedule []SyncEvent
	// Prefix is how many of Schedule's events are the observed prefix.
	Prefix int
	// Blocked are, for a deadlock, each stuck thread's next event.
	Blocked []SyncEvent
}

// SearchStats is what a search cost.
type SearchStats struct {
	// Checks is the number of race and deadlock checks, Truncated those
	// the state limit cut short.
	Checks, Truncated int
	// PerWindow is the host time spent on each window.
	PerWindow []time.Duration
}

// Search runs the model checker over every window: a race check per
// candidate object with accesses in the window, and a deadlock check.
func (a *Analysis) Search(o SearchOptions) ([]Counterexample, SearchStats, error) {
	var out []Counterexample
	var st SearchStats
	for wi := range a.Windows {
		t0 := time.Now()
		m, ids := a.model(wi)
		for ci := range a.Candidates {
			obj := a.Candidates[ci].Object
			races, trunc, err := m.Races(uint64(obj)+1, o.Bound, o.StateLimit)
			if err != nil {
				return nil, st, fmt.Errorf("infer: window %d, object %d: %w", wi, obj, err)
			}
			st.Checks++
			if trunc {
				st.Truncated++
			}
			for _, r := range races {
				sched, prefix := a.schedule(wi, r.Schedule, ids)
				o := a.Objects[obj]
				out = append(out, Counterexample{Window: wi, Object: obj, A: int(r.A.PC), B: int(r.B.PC), Addr: o.Addr, Words: o.Words, Schedule: sched, Prefix: prefix})
			}
		}
		dls, trunc, err := m.Deadlocks(o.Bound, o.StateLimit)
		if err != nil {
			return nil, st, fmt.Errorf("infer: window %d: %w", wi, err)
		}
		st.Checks++
		if trunc {
			st.Truncated++
		}
		for _, d := range dls {
			sched, prefix := a.schedule(wi, d.Schedule, ids)
			c := Counterexample{Deadlock: true, Window: wi, Object: -1, A: -1, B: -1, Schedule: sched, Prefix: prefix}
			for _, b := range d.Blocked {
				c.Blocked = append(c.Blocked, a.Trace.Syncs[a.Trace.ThreadSyncs[b.Thread][a.Windows[wi].Start[b.Thread]+ids.index(b)]])
			}
			out = append(out, c)
		}
		st.PerWindow = append(st.PerWindow, time.Since(t0))
	}
	return out, st, nil
}

// modelIDs maps a window's model back to the trace: each model access's
// PC field holds its index into Trace.Accesses, and each model sync
// event's PC the event's position in its thread's window part.
type modelIDs struct{}

// index returns a blocked step's position in its thread's window part.
func (modelIDs) index(s model.Step) int { return int(s.PC) }

// model builds window wi's model: each thread's sync events in the window
// and its segments' accesses to shared objects (by object), the locks held
// at its start and what happened before it.
func (a *Analysis) model(wi int) (*model.Model, modelIDs) {
	t := a.Trace
	w := a.Windows[wi]
	var ids modelIDs
	m := &model.Model{Threads: make([]model.Thread, t.Threads), Held: make([][]uint64, t.Threads),
		Outside: model.Prior{Forked: map[int]bool{}, Ended: map[int]bool{}, Signalled: map[uint64]bool{}, Entered: map[uint64]bool{}}}
	// Condition instances and barrier episodes get ids.
	inst := map[[2]uint64]uint64{}
	id := func(kind, obj uint64, n int) uint64 {
		k := [2]uint64{kind<<56 | obj, uint64(n)}
		if v, ok := inst[k]; ok {
			return v
		}
		v := uint64(len(inst)) + 1
		inst[k] = v
		return v
	}
	// The lock each condition variable's waits release, from the waits
	// that ran (a wait loop whose waits never ran has none: 0).
	cvLock := map[uint64]uint64{}
	for _, e := range t.Syncs {
		if e.Kind == SyncWait {
			cvLock[e.Obj] = e.Lock
		}
	}
	conv := func(e SyncEvent) model.Sync {
		switch e.Kind {
		case SyncStart:
			return model.Sync{Kind: model.Start}
		case SyncExit:
			return model.Sync{Kind: model.End}
		case SyncSpawn:
			return model.Sync{Kind: model.Fork, Obj: uint64(e.Peer)}
		case SyncJoin:
			return model.Sync{Kind: model.Join, Obj: uint64(e.Peer)}
		case SyncAcquire:
			return model.Sync{Kind: model.Lock, Obj: e.Obj}
		case SyncRelease:
			return model.Sync{Kind: model.Unlock, Obj: e.Obj}
		case SyncArrive:
			return model.Sync{Kind: model.BarrierEnter, Obj: id(1, e.Obj, e.Instance)}
		case SyncLeave:
			return model.Sync{Kind: model.BarrierExit, Obj: id(1, e.Obj, e.Instance)}
		case SyncSignal:
			k := model.Signal
			if e.Bcast {
				k = model.Broadcast
			}
			return model.Sync{Kind: k, Obj: id(2, e.Obj, e.Instance)}
		case SyncWake:
			if e.Instance >= 0 {
				return model.Sync{Kind: model.Wait, Obj: id(2, e.Obj, e.Instance)}
			}
		case SyncLoopExit:
			if e.Instance >= 0 {
				return model.Sync{Kind: model.WaitLoop, Obj: id(2, e.Obj, e.Instance), Lock: cvLock[e.Obj]}
			}
		}
		return model.Sync{Kind: model.Other}
	}
	// What happened before the window. A thread nobody spawned (main)
	// may start at once.
	spawned := map[int]bool{}
	for _, e := range t.Syncs {
		if e.Kind == SyncSpawn {
			spawned[e.Peer] = true
		}
	}
	for th := range t.Threads {
		if !spawned[th] {
			m.Outside.Forked[th] = true
		}
	}
	for _, e := range t.Syncs[:w.First] {
		switch e.Kind {
		case SyncSpawn:
			m.Outside.Forked[e.Peer] = true
		case SyncExit:
			m.Outside.Ended[e.Thread] = true
		case SyncSignal:
			m.Outside.Signalled[id(2, e.Obj, e.Instance)] = true
		case SyncArrive:
			m.Outside.Entered[id(1, e.Obj, e.Instance)] = true
		}
	}
	for lock, th := range w.Owners {
		m.Held[th] = append(m.Held[th], lock)
	}
	// Spawns keep their observed order (threads are numbered by it, in
	// the trace and in a replay alike).
	m.ForksInOrder = true
	for _, e := range t.Syncs[w.First:w.End] {
		if e.Kind == SyncSpawn {
			m.Forks = append(m.Forks, [2]int{e.Thread, e.Pos - w.Start[e.Thread]})
		}
	}
	end := make([]int, t.Threads) // each thread's position at the window's end
	for th := range t.Threads {
		end[th] = w.Start[th]
		for _, si := range t.ThreadSyncs[th][w.Start[th]:] {
			if si >= w.End {
				break
			}
			end[th]++
		}
		mt := &m.Threads[th]
		for k, si := range t.ThreadSyncs[th][w.Start[th]:end[th]] {
			s := conv(t.Syncs[si])
			s.PC = int32(k)
			mt.Events = append(mt.Events, s)
		}
		mt.Segs = make([][]model.Access, len(mt.Events)+1)
		mt.More = end[th] < len(t.ThreadSyncs[th])
	}
	for oi := range a.Objects {
		for _, ai := range a.Objects[oi].Accesses {
			acc := t.Accesses[ai]
			k := acc.Seg - w.Start[acc.Thread]
			if k < 0 || acc.Seg > end[acc.Thread] {
				continue
			}
			m.Threads[acc.Thread].Segs[k] = append(m.Threads[acc.Thread].Segs[k], model.Access{Obj: uint64(oi) + 1, Write: acc.Write, Atomic: acc.Atomic, PC: int32(ai)})
		}
	}
	// A barrier episode whose arrivals are only partly before the window
	// has its in-window arrivals in the model; one wholly before it is in
	// Outside.Entered (kept only when no arrival is in the window).
	for th := range m.Threads {
		for _, e := range m.Threads[th].Events {
			if e.Kind == model.BarrierEnter {
				delete(m.Outside.Entered, e.Obj)
			}
		}
	}
	return m, ids
}

// schedule turns a model path in window wi into trace events, after the
// observed prefix.
func (a *Analysis) schedule(wi int, path []model.Step, _ modelIDs) ([]SyncEvent, int) {
	t := a.Trace
	w := a.Windows[wi]
	out := append([]SyncEvent(nil), t.Syncs[:w.First]...)
	for _, s := range path {
		out = append(out, t.Syncs[t.ThreadSyncs[s.Thread][w.Start[s.Thread]+int(s.PC)]])
	}
	return out, w.First
}
