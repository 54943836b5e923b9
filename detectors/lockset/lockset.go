// Package lockset is Eraser's lockset race detector (Savage et al., TOCS
// 1997) over weft's event stream, with fork/join ownership transfer.
//
// Every data word (8 bytes, shadowed by its offset from isa.DataBase) goes
// through Eraser's states:
//
//   - virgin: never accessed;
//   - exclusive: accessed by one thread only (its owner); no lockset is kept;
//   - shared: read by a second thread; from this first shared access on, the
//     word's candidate lockset C is intersected with the locks the accessing
//     thread holds, and an empty C is not reported (read-only sharing);
//   - shared-modified: written by a second thread, or written while shared;
//     C is refined as in shared, and the word is reported once, the first
//     time it is shared-modified with an empty C.
//
// Locks held per thread come from Acquire and Release events (a cwait
// releases its lock and acquires it again when woken, as its events say).
//
// Ownership transfer. A plain Eraser reports every value main reads after
// join (a counter updated under a lock and printed after join would be a
// false positive). Like Visual Threads' thread segments, the detector keeps a
// happens-before relation made of spawn and join edges only (vector clocks,
// not locks, not barriers, not condition variables) and remembers, per word,
// each thread's last access. When an access is ordered after every previous
// access to the word by that relation, the word returns to exclusive, owned
// by the accessing thread, and its lockset refinement starts over. Barriers
// stay invisible: words handed from thread to thread across a barrier (the
// slice edges of the stencil kernel) are reported, Eraser's known false
// positive, and so is plain-load flag synchronisation (msgpass).
//
// What counts as data: Read, Write and RMW events without core.FlagSync
// (lock, barrier and condition-variable words are not data). An RMW on an
// ordinary word (fadd, cas, xchg) is an atomic write by default: it holds
// the word's own pseudo-lock besides the thread's locks, so atomics on a
// word never empty its set but a plain access meeting them does (a plain
// load racing with a fadd is reported); Options.RMWPlain makes it a plain
// write. A Free is a write to every freed
// word by the freeing thread. A Crash with an address is the access that
// faulted (it is not emitted as an access): a ld reads, a cas/xchg/fadd is an
// RMW as above, any other instruction (st, lock, unlock, free, ...) writes;
// it is counted only for an aligned word at or below the highest word
// accessed so far (a freed word always is), since other faulting addresses
// hold no data.
//
// The detector does not reset on a Rollback event: after a rollback (PSet's
// hardware, or an extension's), the re-executed span's events are taken as
// new ones, so a finding may come from a discarded span.
package lockset

import (
	"fmt"
	"weft/detectors/shadow"

	"weft/core"
	"weft/isa"
)

// Options configures a Detector.
type Options struct {
	// RMWPlain treats an RMW on an ordinary (non-sync) word as a plain
	// write instead of an atomic one.
	RMWPlain bool
}

// atomicLock is the pseudo-lock every atomic RMW holds: an address below
// the data segment, so no lock word can be it.
const atomicLock = 1

// state is a word's Eraser state.
type state uint8

const (
	virgin state = iota
	exclusive
	shared
	sharedModified
)

var stateNames = [...]string{"virgin", "exclusive", "shared", "shared-modified"}

func (s state) String() string { return stateNames[s] }

// acc is one access remembered for reporting.
type acc struct {
	tid1  int32 // thread id + 1; 0: none
	pc    int32
	write bool
}

// word is the shadow state of one data word.
type word struct {
	state    state
	reported bool
	ls       int32  // candidate lockset id (shared states)
	owner    int32  // exclusive: the owner
	ownClk   uint32 // exclusive: the owner's fork/join clock at its last access
	last     acc    // the last access
	other    acc    // the last access by a thread other than last's
	// clocks holds, in the shared states, each thread's fork/join clock at
	// its last access to the word (0: no access since the word was last
	// exclusive). Kept for reuse when the word returns to exclusive.
	clocks []uint32
}

// thread is the per-thread state.
type thread struct {
	init bool
	held int32    // lockset id of the locks it holds
	vc   []uint32 // fork/join vector clock, indexed by thread id
}

// Detector is an Eraser lockset detector. It is a core.Observer for the
// kinds Kinds returns; it is not safe for concurrent use.
type Detector struct {
	prog     *isa.Program
	opts     Options
	words    shadow.Memory[word]
	threads  []thread
	locks    lockTable
	findings []core.Finding
}

// New returns a detector for runs of prog.
func New(prog *isa.Program, opts Options) *Detector {
	d := &Detector{prog: prog, opts: opts, locks: newLockTable()}
	return d
}

// Trim drops the run's shadow memory and locksets once the run has ended,
// keeping its findings: a caller that holds many finished runs then holds
// only their findings.
func (d *Detector) Trim() { d.words, d.threads, d.locks = shadow.Memory[word]{}, nil, lockTable{} }

// Name returns "lockset".
func (d *Detector) Name() string { return "lockset" }

// Kinds returns the event kinds the detector observes: Read, Write, RMW,
// Acquire, Release, Spawn, Join, Free and Crash.
func (d *Detector) Kinds() core.KindMask {
	return core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW, core.KindAcquire, core.KindRelease,
		core.KindSpawn, core.KindJoin, core.KindFree, core.KindCrash)
}

// Findings returns the words reported so far, one finding each, sorted with
// core.CompareFindings.
func (d *Detector) Findings() []core.Finding { return core.SortedFindings(d.findings) }

// Observe processes one event.
func (d *Detector) Observe(e *core.Event) {
	switch op := e.Op(); op {
	case core.OpRead, core.OpWrite:
		d.access(e.Thread, e.PC, e.Addr, op == core.OpWrite, false)
	case core.OpAtomic:
		d.access(e.Thread, e.PC, e.Addr, true, !d.opts.RMWPlain)
	case core.OpAcquire:
		th := d.thread(e.Thread)
		th.held = d.locks.with(th.held, e.Addr)
	case core.OpRelease:
		th := d.thread(e.Thread)
		th.held = d.locks.without(th.held, e.Addr)
	case core.OpSpawn:
		d.spawn(e.Thread, e.Child())
	case core.OpJoin:
		d.join(e.Thread, e.Joined())
	case core.OpFree:
		for a := range isa.Words(e.Addr, e.FreeWords()) {
			d.access(e.Thread, e.PC, a, true, false)
		}
	case core.OpFault:
		d.crash(e)
	}
}

// crash counts the access a faulting instruction attempted: a ld reads, a
// cas, xchg or fadd is an RMW, anything else writes.
func (d *Detector) crash(e *core.Event) {
	if op, ok := d.prog.FaultOp(e.PC, e.Addr, d.words.End()); ok {
		d.access(e.Thread, e.PC, e.Addr, op != isa.OpLd, op.IsRMW() && !d.opts.RMWPlain)
	}
}

// thread returns tid's state, creating it (clock 1, no locks) on first use.
func (d *Detector) thread(tid int32) *thread {
	if tid < 0 {
		tid = 0
	}
	for int(tid) >= len(d.threads) {
		d.threads = append(d.threads, thread{})
	}
	th := &d.threads[tid]
	if !th.init {
		th.init = true
		th.vc = grow(th.vc, int(tid)+1)
		th.vc[tid] = 1
	}
	return th
}

// spawn starts child's clock from parent's and moves the parent past the
// spawn.
func (d *Detector) spawn(parent, child int32) {
	if child < 0 || child == parent {
		return
	}
	d.thread(parent)
	for int(child) >= len(d.threads) {
		d.threads = append(d.threads, thread{})
	}
	p, c := &d.threads[parent], &d.threads[child]
	c.vc = grow(c.vc[:0], max(len(p.vc), int(child)+1))
	copy(c.vc, p.vc)
	c.vc[child] = max(c.vc[child], 1)
	c.init = true
	c.held = 0
	p.vc[parent]++
}

// join orders everything joined did before the joiner's next step.
func (d *Detector) join(joiner, joined int32) {
	if joined < 0 || joined == joiner {
		return
	}
	d.thread(joined)
	j := d.thread(joiner)
	u := &d.threads[joined]
	j.vc = grow(j.vc, len(u.vc))
	for i, c := range u.vc {
		j.vc[i] = max(j.vc[i], c)
	}
}

// grow returns s extended with zeros to at least n elements.
func grow(s []uint32, n int) []uint32 {
	for len(s) < n {
		s = append(s, 0)
	}
	return s
}

// access runs Eraser's state machine for one access by tid.
func (d *Detector) access(tid, pc int32, a uint64, write, atomic bool) {
	if a < isa.DataBase {
		return
	}
	if tid < 0 {
		tid = 0
	}
	th := d.thread(tid)
	held := th.held
	if atomic {
		// An atomic RMW holds the word's own pseudo-lock: atomics never
		// empty each other's set, a plain access meeting them does.
		held = d.locks.with(held, atomicLock)
	}
	clk := th.vc[tid]
	w := d.words.Word(a)
	cur := acc{tid1: tid + 1, pc: pc, write: write}
	// The other thread's last access, as it was before this one.
	prev := w.last
	if prev.tid1 == cur.tid1 {
		prev = w.other
	}
	if w.last.tid1 != cur.tid1 {
		w.other = w.last
	}
	w.last = cur

	switch w.state {
	case virgin:
		w.state, w.owner, w.ownClk = exclusive, tid, clk
		return
	case exclusive:
		if w.owner == tid || w.ownClk <= clockOf(th.vc, w.owner) {
			// The owner again, or ordered after the owner's last access by
			// spawn/join: (still) exclusive.
			w.owner, w.ownClk = tid, clk
			return
		}
		w.clocks = grow(w.clocks, max(int(w.owner), int(tid))+1)
		w.clocks[w.owner] = w.ownClk
		w.clocks[tid] = clk
		w.ls = held
		before := w.state
		w.state = shared
		if write {
			w.state = sharedModified
		}
		d.check(w, a, before, prev, cur)
	default:
		if d.orderedAfterAll(w, th, tid) {
			clear(w.clocks)
			w.state, w.owner, w.ownClk = exclusive, tid, clk
			return
		}
		w.clocks = grow(w.clocks, int(tid)+1)
		w.clocks[tid] = clk
		w.ls = d.locks.intersect(w.ls, held)
		before := w.state
		if write {
			w.state = sharedModified
		}
		d.check(w, a, before, prev, cur)
	}
}

// clockOf returns vc[tid], or 0 past its end.
func clockOf(vc []uint32, tid int32) uint32 {
	if int(tid) < len(vc) {
		return vc[tid]
	}
	return 0
}

// orderedAfterAll reports whether every other thread's last access to the
// word happens before tid's current point by spawn/join.
func (d *Detector) orderedAfterAll(w *word, th *thread, tid int32) bool {
	for u, c := range w.clocks {
		if c != 0 && int32(u) != tid && c > clockOf(th.vc, int32(u)) {
			return false
		}
	}
	return true
}

// check reports w once when it is shared-modified with an empty lockset.
func (d *Detector) check(w *word, a uint64, before state, prev, cur acc) {
	if w.reported || w.state != sharedModified || w.ls != 0 {
		return
	}
	w.reported = true
	pcs := []int32{cur.pc}
	what := fmt.Sprintf("thread %d %s at pc %d", cur.tid1-1, verb(cur.write), cur.pc)
	if prev.tid1 != 0 {
		pcs = []int32{prev.pc, cur.pc}
		what = fmt.Sprintf("thread %d %s at pc %d, then %s", prev.tid1-1, verb(prev.write), prev.pc, what)
	}
	d.findings = append(d.findings, core.Finding{
		Detector: "lockset",
		Kind:     "lockset",
		PCs:      pcs,
		Addr:     a,
		Score:    1,
		Message: fmt.Sprintf("%s: empty candidate lockset in state %s (was %s): %s",
			d.prog.DescribeAddr(a), w.state, before, what),
	})
}

func verb(write bool) string {
	if write {
		return "wrote"
	}
	return "read"
}
