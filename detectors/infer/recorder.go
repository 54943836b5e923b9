// Package infer is interleaving inference (a workshop paper on inferring
// interleavings from one trace with a CSP model): from one recorded trace of a
// passing run, predict synchronisation orders that were not observed but
// that the program's primitives allow, find the shared objects whose
// conflicting accesses such an order could bring together, and confirm each
// order by replaying it.
//
// This package holds the pipeline's stages:
//
//  1. Recorder, the trace recorder: a detector (core.Observer) that
//     records the run's synchronisation events with logical thread ids
//     and per-object instance numbers, and its memory accesses reduced to
//     one per address per thread segment (writes preferred); private
//     addresses are dropped when the trace is taken (Recorder.Trace).
//  2. Postprocess: shared objects (adjacent shared words accessed by the
//     same segments merged into regions), condition-variable instances
//     (each wake matched to its signal, signals with no waiter kept as
//     skipped waits), barrier episodes, and windows of sync events.
//  3. The hybrid prefilter (inside Analyse): happens-before without lock
//     edges over the recorded trace, then lockset, giving the candidate
//     objects and the segment pairs that make them candidates.
//  4. Search (Analysis.Search): per window, the model checker of package
//     model looks for sync orders under which a candidate's conflicting
//     accesses are adjacent (a race) or no thread can move (a deadlock);
//     each counterexample is a sync schedule from the run's start.
//  5. Replay: the same program and seed run again with park rules that
//     enforce a counterexample's schedule (Enforcer) and happens-before
//     attached, which confirms, discards or drops it as infeasible.
//
// The recorder sees only the event stream; it never reads a kernel's
// name, source row or @bug marks.
package infer

import (
	"fmt"
	"slices"

	"weft/core"
	"weft/isa"
)

// SyncKind is the kind of one recorded synchronisation event.
type SyncKind uint8

// The synchronisation event kinds (the paper's alphabet, §1.1 of the
// digest).
const (
	// SyncStart is a thread's first event: main's before its first
	// recorded event, a child's right after the spawn that created it.
	SyncStart SyncKind = iota
	// SyncExit is a thread's last event (core.KindThreadExit).
	SyncExit
	// SyncSpawn is a fork: Peer is the child.
	SyncSpawn
	// SyncJoin is the return from a join: Peer is the joined thread.
	SyncJoin
	// SyncAcquire is a lock acquisition: Obj is the lock word, Instance
	// the acquisition's number among that lock's acquisitions.
	SyncAcquire
	// SyncRelease is a lock release: Obj and Instance are those of the
	// acquisition it ends.
	SyncRelease
	// SyncArrive is a barrier arrival: Obj is the barrier word, Instance
	// the generation (episode), N the participants it waits for.
	SyncArrive
	// SyncLeave is a barrier leave of generation Instance.
	SyncLeave
	// SyncWait is a thread going to sleep in cwait (its lock's release
	// precedes it); Obj is the condition variable, Lock the lock.
	SyncWait
	// SyncWake is a sleeper's release from cwait: Instance is the
	// condition instance (the signal) that woke it, Peer the signaller.
	// It is the paper's wait(t, ci) event; the reacquire follows it.
	SyncWake
	// SyncSignal is a csignal or cbcast: Instance is its condition
	// instance (its number among the signals on Obj), Woken how many
	// sleepers it woke, Bcast whether it was a cbcast.
	SyncSignal
	// SyncLoopExit is a thread leaving a wait loop (a CFG loop holding a
	// cwait on Obj), whether or not its cwait ran: the paper's wait-loop
	// marker. Instance is the latest signal on Obj before it, which made
	// the loop's predicate true (a skipped wait is paired with it).
	SyncLoopExit
)

var syncKindNames = [...]string{"start", "exit", "spawn", "join", "lock", "unlock", "barrier_enter", "barrier_exit", "wait_sleep", "wait", "signal", "wait_loop_exit"}

// String returns the kind's name in the paper's vocabulary (lock, unlock,
// barrier_enter, …).
func (k SyncKind) String() string {
	if int(k) < len(syncKindNames) {
		return syncKindNames[k]
	}
	return fmt.Sprintf("SyncKind(%d)", uint8(k))
}

// SyncEvent is one recorded synchronisation event.
type SyncEvent struct {
	// Kind is what happened.
	Kind SyncKind
	// Thread is the logical thread: main is 0, the others are numbered
	// in spawn order.
	Thread int
	// Pos is the event's position among its thread's sync events (the
	// segment before it is Pos, the one after it Pos+1).
	Pos int
	// Obj is the lock, barrier or condition-variable word (0 for start,
	// exit, spawn and join).
	Obj uint64
	// Instance is the per-object instance: the acquisition number for a
	// lock and its release, the generation for a barrier, the signal's
	// number on its condition variable for a signal and the wakes it
	// caused; -1 when it has none.
	Instance int
	// Peer is the other thread: the child of a spawn, the joined thread of
	// a join, the signaller of a wake; -1 otherwise.
	Peer int
	// Lock is the lock a SyncWait released (0 otherwise).
	Lock uint64
	// N is a barrier's participant count (arrivals only).
	N int
	// Woken is how many sleepers a signal woke (0: nobody was waiting).
	Woken int
	// Bcast marks a cbcast.
	Bcast bool
	// PC is the instruction (core.NoPC for a synthesised start).
	PC int32
	// Cycle is when it happened.
	Cycle core.Cycle
}

// String renders the event as the paper writes it, e.g. "lock.t1.0x1040".
func (s SyncEvent) String() string {
	switch s.Kind {
	case SyncStart, SyncExit:
		return fmt.Sprintf("%s.t%d", s.Kind, s.Thread)
	case SyncSpawn, SyncJoin:
		return fmt.Sprintf("%s.t%d.t%d", s.Kind, s.Thread, s.Peer)
	case SyncArrive, SyncLeave, SyncSignal, SyncWake, SyncLoopExit:
		return fmt.Sprintf("%s.t%d.%#x#%d", s.Kind, s.Thread, s.Obj, s.Instance)
	}
	return fmt.Sprintf("%s.t%d.%#x", s.Kind, s.Thread, s.Obj)
}

// Access is one memory access kept after the per-segment reduction: the
// only access of its thread segment to its word.
type Access struct {
	// Thread is the logical thread.
	Thread int
	// Seg is the segment: the number of the thread's sync events before
	// the access.
	Seg int
	// Addr is the word's address.
	Addr uint64
	// Write is set when the segment writes the word (a store, a free, or
	// an RMW that stored).
	Write bool
	// Atomic is set when every access of the segment to the word was an
	// atomic RMW (two atomic accesses never race, as in detectors/hb).
	Atomic bool
	// PC is the first write's PC when the segment writes the word, else
	// the first read's.
	PC int32
}

// Stats are the trace's sizes (the paper's Table 2 trace columns).
type Stats struct {
	// MemCaptured counts the memory events recorded before reduction
	// (Read, Write and RMW without core.FlagSync, one per word freed).
	MemCaptured int
	// MemSegment counts the memory accesses left after the per-segment
	// reduction (one per word per thread segment).
	MemSegment int
	// MemShared counts those left after the private words were dropped.
	MemShared int
	// PrivateWords counts the words dropped as private (one thread only).
	PrivateWords int
	// Sync counts the synchronisation events (synthesised starts
	// included).
	Sync int
}

// Captured returns the events captured before reduction: memory events
// plus sync events (the paper's "captured" column).
func (s Stats) Captured() int { return s.MemCaptured + s.Sync }

// Reduced returns the events of the reduced trace: shared accesses plus
// sync events (the paper's "reduced" column).
func (s Stats) Reduced() int { return s.MemShared + s.Sync }

// SyncFraction returns Sync / Reduced (0 for an empty trace).
func (s Stats) SyncFraction() float64 {
	if s.Reduced() == 0 {
		return 0
	}
	return float64(s.Sync) / float64(s.Reduced())
}

// Trace is the recorded trace of one passing run.
type Trace struct {
	// Threads is the number of logical threads.
	Threads int
	// Syncs are the sync events in observed (stream) order.
	Syncs []SyncEvent
	// ThreadSyncs[t] are the indices into Syncs of thread t's sync events
	// in program order (ThreadSyncs[t][p] has Pos p).
	ThreadSyncs [][]int
	// Accesses are the shared accesses kept (private words dropped), in
	// the order their segments first touched them.
	Accesses []Access
	// Stats are the trace's sizes.
	Stats Stats
}

// thread is the recorder's state for one logical thread.
type thread struct {
	started bool
	nsync   int
	// cur maps a word to its access (index into Recorder.accs) in the
	// current segment.
	cur map[uint64]int
	// held maps each lock the thread holds to its acquisition number.
	held map[uint64]int
	// loop is the wait loop the thread is in (-1: none); woke maps the
	// condition variables a wait of this visit to it slept on and was
	// woken from (the wake carries that edge).
	loop int
	woke map[uint64]bool
	// consumed maps a condition variable to the last signal instance the
	// thread's wakes or wait-loop exits were paired with.
	consumed map[uint64]int
}

// waitLoop is a CFG loop holding cwait instructions.
type waitLoop struct {
	pcs map[int32]bool
	cvs []uint64
}

// Recorder is the trace recorder: a detector that records one run's
// synchronisation events and reduced memory accesses. Attach it with
// sim.WithDetector; after the run, Trace returns the trace (or an error
// when the run failed) and Analyse runs the postprocessor and prefilter.
// Its findings are the candidate objects of Analyse with DefaultOptions.
// It is not safe for concurrent use.
type Recorder struct {
	prog    *isa.Program
	logical map[int32]int
	threads []*thread
	syncs   []SyncEvent
	accs    []Access
	stats   Stats

	lockCount map[uint64]int
	cvCount   map[uint64]int
	// lastSignal maps (cv, signaller) to the index in syncs of its latest
	// signal on cv, for matching wakes.
	lastSignal map[sigKey]int

	// loops are the program's wait loops; loopAt maps a PC to the
	// innermost wait loop holding it.
	loops  []waitLoop
	loopAt map[int32]int
	// cvSignal maps a condition variable to its latest signal instance,
	// cvSignals to all its signals in order.
	cvSignal  map[uint64]int
	cvSignals map[uint64][]signalRec

	ended    bool
	outcome  core.OutcomeKind
	findings []core.Finding
}

// signalRec is one signal: its instance, its logical thread, how many
// sleepers it woke, whether it was a broadcast, and whether a skipped wait
// was paired with it (a plain signal that woke nobody serves one).
type signalRec struct {
	inst, by, woken int
	bcast, taken    bool
}

type sigKey struct {
	cv uint64
	by int
}

// NewRecorder returns a recorder for runs of prog. Only prog's code is
// read, to find the wait loops (CFG loops holding a cwait whose
// condition variable is a constant address), like the paper's extra
// instrumentation pass; prog may be nil (no wait loops).
func NewRecorder(prog *isa.Program) *Recorder {
	r := &Recorder{
		prog:       prog,
		logical:    map[int32]int{},
		lockCount:  map[uint64]int{},
		cvCount:    map[uint64]int{},
		lastSignal: map[sigKey]int{},
		loopAt:     map[int32]int{},
		cvSignal:   map[uint64]int{},
		cvSignals:  map[uint64][]signalRec{},
	}
	if prog == nil || len(prog.Instrs) == 0 {
		return r
	}
	g := isa.BuildCFG(prog)
	byLoop := map[int]int{}
	for pc, in := range prog.Instrs {
		if in.Op != isa.OpCwait || in.Base != 0 || pc >= len(g.BlockOf) {
			continue
		}
		l := g.LoopOf(g.BlockOf[pc])
		if l < 0 {
			continue
		}
		i, ok := byLoop[l]
		if !ok {
			i = len(r.loops)
			byLoop[l] = i
			w := waitLoop{pcs: map[int32]bool{}}
			for _, b := range g.Loops[l].Body {
				for p := g.Blocks[b].Start; p < g.Blocks[b].End; p++ {
					w.pcs[p] = true
				}
			}
			r.loops = append(r.loops, w)
		}
		if !slices.Contains(r.loops[i].cvs, uint64(in.Off)) {
			r.loops[i].cvs = append(r.loops[i].cvs, uint64(in.Off))
		}
	}
	// Innermost first: a smaller loop overrides a larger one.
	order := make([]int, len(r.loops))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return len(r.loops[b].pcs) - len(r.loops[a].pcs) })
	for _, i := range order {
		for pc := range r.loops[i].pcs {
			r.loopAt[pc] = i
		}
	}
	return r
}

// track follows thread raw's position relative to the wait loops at an
// event of PC pc, recording a loop exit when it leaves one.
func (r *Recorder) track(raw int32, e *core.Event) {
	if len(r.loops) == 0 || e.PC < 0 {
		return
	}
	id, th := r.thread(raw, e)
	if th.loop >= 0 && !r.loops[th.loop].pcs[e.PC] {
		for _, cv := range r.loops[th.loop].cvs {
			if th.woke[cv] {
				// The loop ended after a real wake, which already orders
				// the signal before it: no exit event.
				continue
			}
			// A skipped wait: the earliest signal by another thread the
			// thread has not already been paired with (a later one would
			// order more than the wait needed, and hide races); a signal
			// that woke nobody pairs with one skipped wait only.
			last, ok := th.consumed[cv]
			if !ok {
				last = -1
			}
			sigs := r.cvSignals[cv]
			for si := range sigs {
				sg := &sigs[si]
				if sg.inst > last && sg.by != id && !sg.taken {
					sg.taken = !sg.bcast && sg.woken == 0
					if th.consumed == nil {
						th.consumed = map[uint64]int{}
					}
					th.consumed[cv] = sg.inst
					r.sync(id, SyncEvent{Kind: SyncLoopExit, Obj: cv, Instance: sg.inst, Peer: sg.by, PC: e.PC, Cycle: e.Cycle})
					break
				}
			}
		}
		th.loop = -1
		clear(th.woke)
	}
	if l, ok := r.loopAt[e.PC]; ok && th.loop < 0 {
		th.loop = l
	}
}

// Name returns "infer".
func (r *Recorder) Name() string { return "infer" }

// Kinds returns the kinds the recorder observes: the memory accesses
// (Read, Write, RMW, Free), every synchronisation kind, and RunEnd.
func (r *Recorder) Kinds() core.KindMask {
	return core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW, core.KindFree,
		core.KindSpawn, core.KindJoin, core.KindThreadExit,
		core.KindAcquire, core.KindRelease,
		core.KindBarrierArrive, core.KindBarrierLeave,
		core.KindCondWait, core.KindCondWake, core.KindCondSignal,
		core.KindRunEnd)
}

// Findings returns the candidate objects found at the end of a passing
// run (none before the run ends or when it failed), sorted with
// core.CompareFindings.
func (r *Recorder) Findings() []core.Finding { return slices.Clone(r.findings) }

// Outcome returns the run's outcome from its RunEnd event, and false when
// no RunEnd has been seen.
func (r *Recorder) Outcome() (core.OutcomeKind, bool) {
	if !r.ended {
		return core.Pass, false
	}
	return r.outcome, true
}

// tid returns the logical id of raw thread t, making it main (or the
// next id) when it was never spawned.
func (r *Recorder) tid(raw int32) int {
	if id, ok := r.logical[raw]; ok {
		return id
	}
	id := len(r.threads)
	r.logical[raw] = id
	r.threads = append(r.threads, &thread{cur: map[uint64]int{}, held: map[uint64]int{}, loop: -1})
	return id
}

// thread returns logical thread raw's state, recording its start first
// when this is its first event.
func (r *Recorder) thread(raw int32, e *core.Event) (int, *thread) {
	id := r.tid(raw)
	th := r.threads[id]
	if !th.started {
		r.sync(id, SyncEvent{Kind: SyncStart, Instance: -1, Peer: -1, PC: core.NoPC, Cycle: e.Cycle})
	}
	return id, th
}

// sync appends a sync event of thread id and ends its segment.
func (r *Recorder) sync(id int, s SyncEvent) {
	th := r.threads[id]
	th.started = true
	s.Thread = id
	s.Pos = th.nsync
	th.nsync++
	clear(th.cur)
	r.syncs = append(r.syncs, s)
}

// access records one memory access of thread raw to word a.
func (r *Recorder) access(raw int32, e *core.Event, a uint64, write, atomic bool) {
	id, th := r.thread(raw, e)
	r.stats.MemCaptured++
	if i, ok := th.cur[a]; ok {
		x := &r.accs[i]
		if write && !x.Write {
			x.Write, x.PC = true, e.PC
		}
		x.Atomic = x.Atomic && atomic
		return
	}
	th.cur[a] = len(r.accs)
	r.accs = append(r.accs, Access{Thread: id, Seg: th.nsync, Addr: a, Write: write, Atomic: atomic, PC: e.PC})
}

// Observe records one event.
func (r *Recorder) Observe(e *core.Event) {
	if e.Kind == core.KindRunEnd {
		r.ended = true
		r.outcome = e.Outcome()
		r.findings = nil
		if a, err := r.Analyse(DefaultOptions()); err == nil {
			r.findings = a.Findings()
		}
		return
	}
	if e.Thread < 0 || r.ended {
		return
	}
	r.track(e.Thread, e)
	base := SyncEvent{Instance: -1, Peer: -1, PC: e.PC, Cycle: e.Cycle, Obj: e.Addr}
	switch op := e.Op(); op {
	case core.OpRead, core.OpWrite, core.OpAtomic:
		r.access(e.Thread, e, e.Addr, e.Writes(), op == core.OpAtomic)
	case core.OpFree:
		for a := range isa.Words(e.Addr, e.FreeWords()) {
			r.access(e.Thread, e, a, true, false)
		}
	case core.OpSpawn:
		id, _ := r.thread(e.Thread, e)
		child := r.tid(e.Child())
		s := base
		s.Kind, s.Obj, s.Peer = SyncSpawn, 0, child
		r.sync(id, s)
		r.sync(child, SyncEvent{Kind: SyncStart, Instance: -1, Peer: -1, PC: core.NoPC, Cycle: e.Cycle})
	case core.OpJoin:
		id, _ := r.thread(e.Thread, e)
		s := base
		s.Kind, s.Obj, s.Peer = SyncJoin, 0, r.tid(e.Joined())
		r.sync(id, s)
	case core.OpExit:
		id, _ := r.thread(e.Thread, e)
		s := base
		s.Kind, s.Obj = SyncExit, 0
		r.sync(id, s)
	case core.OpAcquire:
		id, th := r.thread(e.Thread, e)
		s := base
		s.Kind, s.Instance = SyncAcquire, r.lockCount[e.Addr]
		r.lockCount[e.Addr]++
		th.held[e.Addr] = s.Instance
		r.sync(id, s)
	case core.OpRelease:
		id, th := r.thread(e.Thread, e)
		s := base
		s.Kind = SyncRelease
		if inst, ok := th.held[e.Addr]; ok {
			s.Instance = inst
			delete(th.held, e.Addr)
		}
		r.sync(id, s)
	case core.OpArrive:
		id, _ := r.thread(e.Thread, e)
		s := base
		s.Kind, s.Instance, s.N = SyncArrive, int(e.Generation()), int(e.Parties())
		r.sync(id, s)
	case core.OpLeave:
		id, _ := r.thread(e.Thread, e)
		s := base
		s.Kind, s.Instance = SyncLeave, int(e.Generation())
		r.sync(id, s)
	case core.OpWait:
		id, _ := r.thread(e.Thread, e)
		s := base
		s.Kind, s.Lock = SyncWait, e.WaitLock()
		r.sync(id, s)
	case core.OpSignal:
		id, _ := r.thread(e.Thread, e)
		s := base
		s.Kind, s.Instance, s.Woken, s.Bcast = SyncSignal, r.cvCount[e.Addr], int(e.Woken()), e.Broadcast()
		r.cvCount[e.Addr]++
		r.cvSignal[e.Addr] = s.Instance
		r.cvSignals[e.Addr] = append(r.cvSignals[e.Addr], signalRec{inst: s.Instance, by: id, woken: s.Woken, bcast: s.Bcast})
		r.lastSignal[sigKey{e.Addr, id}] = len(r.syncs)
		r.sync(id, s)
	case core.OpWake:
		id, _ := r.thread(e.Thread, e)
		by := r.tid(e.Signaller())
		s := base
		s.Kind, s.Peer = SyncWake, by
		if i, ok := r.lastSignal[sigKey{e.Addr, by}]; ok {
			s.Instance = r.syncs[i].Instance
			_, th := r.thread(e.Thread, e)
			if th.consumed == nil {
				th.consumed = map[uint64]int{}
			}
			th.consumed[e.Addr] = s.Instance
			if th.loop >= 0 {
				if th.woke == nil {
					th.woke = map[uint64]bool{}
				}
				th.woke[e.Addr] = true
			}
		}
		r.sync(id, s)
	}
}

// Trace returns the recorded trace with the private words dropped. It is
// an error when the run has not ended (no RunEnd event) or did not pass:
// inference works from the trace of a passing run.
func (r *Recorder) Trace() (*Trace, error) {
	if !r.ended {
		return nil, fmt.Errorf("infer: the trace is incomplete: the run has not ended (no RunEnd event)")
	}
	if r.outcome.Failed() {
		return nil, fmt.Errorf("infer: the trace is from a failing run (outcome %s); inference needs the trace of a passing run", r.outcome)
	}
	t := &Trace{Threads: len(r.threads), Syncs: slices.Clone(r.syncs)}
	t.ThreadSyncs = make([][]int, t.Threads)
	for i, s := range t.Syncs {
		t.ThreadSyncs[s.Thread] = append(t.ThreadSyncs[s.Thread], i)
	}
	// A word is shared when two threads access it; the others are private.
	first := map[uint64]int{}
	shared := map[uint64]bool{}
	for _, a := range r.accs {
		if th, ok := first[a.Addr]; !ok {
			first[a.Addr] = a.Thread
		} else if th != a.Thread {
			shared[a.Addr] = true
		}
	}
	for _, a := range r.accs {
		if shared[a.Addr] {
			t.Accesses = append(t.Accesses, a)
		}
	}
	t.Stats = r.stats
	t.Stats.MemSegment = len(r.accs)
	t.Stats.MemShared = len(t.Accesses)
	t.Stats.PrivateWords = len(first) - len(shared)
	t.Stats.Sync = len(t.Syncs)
	return t, nil
}

// Analyse takes the trace (Trace) and runs the postprocessor and the
// prefilter on it (Analyse).
func (r *Recorder) Analyse(o Options) (*Analysis, error) {
	t, err := r.Trace()
	if err != nil {
		return nil, err
	}
	return Analyse(t, o)
}
