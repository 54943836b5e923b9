// Package hb is a happens-before data-race detector: vector clocks for the
// synchronisation order and FastTrack epochs for the accesses (DESIGN.md
// §6; Flanagan and Freund, "FastTrack", PLDI 2009). It is the DRD column
// of PSet Table 1 and Helgrind's happens-before half in ConSeq's Table 3.
//
// # Happens-before
//
// The detector reads the program events of one run (the stream is the SC
// total order of performs) and orders them by these edges only:
//
//   - program order within a thread;
//   - spawn: the parent's clock at the spawn reaches the child;
//   - join: the child's final clock reaches the joiner;
//   - lock release → the next acquire of the same lock word (also the
//     release and reacquire inside cwait);
//   - csignal/cbcast → the wake of each waiter it woke;
//   - barrier: every arrival of a generation → every leave of it;
//   - atomic read-modify-writes (fadd, cas, xchg on ordinary words, the C11
//     seq_cst reading, the default): each is an acquire and, when it
//     stores, a release on its word, so cas/xchg spinlocks order.
//
// Options.NoLockEdges drops the lock and the atomic release → acquire
// edges and keeps the other four (interleaving inference's weakened HB).
// Accesses that lock, unlock, barrier and condition-variable instructions
// make to their synchronisation words (core.FlagSync) are not data.
//
// # Accesses and conflicts
//
// ld is a read and st a write. free is a write to every freed word, so a
// use-after-free shows as a race with the free (PSet Table 1 row 1). A
// Crash event with an address is an access that faulted before it was
// emitted (for example to freed memory): ld reads, any other instruction
// writes. Read-modify-writes on ordinary words are atomic by default: two
// atomic accesses never race, an atomic and a plain access that conflict
// can; a cas that does not store is an atomic read. With Options.RMWPlain
// they are plain accesses instead: a write when they store (the read half
// conflicts with nothing the write does not), a read when a cas does not.
//
// # What is reported
//
// At each access a to a word, let P be the earlier accesses to that word
// that conflict with a (at least one of the two writes, and not both
// atomic) and do not happen before a. The detector reports the pair (p, a)
// for every p in P that is maximal in P: no other member of P happens
// after p. (An earlier conflicting access that happens before another
// unordered one adds nothing: the later one is the closer race.) Pairs are
// reported once per run per (earlier PC, later PC), as core.Finding of
// kind "race" with the earlier access's PC first.
//
// The FastTrack detector (New) keeps, per word and per conflict class, the
// maximal accesses as a single epoch while they are totally ordered (the
// common case: O(1) per access, no allocation) and as a small antichain
// when they are not. NewFullVC is the slow oracle: it keeps every thread's
// last access of each class with a vector-clock snapshot and finds the
// maximal members of P by comparing them pairwise. The two report the
// same findings; the tests check it on every kernel.
//
// Rollbacks (PSet hardware) are not handled: the detector is meant for
// runs without them.
package hb

import (
	"cmp"
	"fmt"
	"slices"

	"weft/core"
	"weft/isa"
)

// Options select the variant of happens-before the detector checks.
type Options struct {
	// FirstRacePerVar reports only the first race on each word (Helgrind's
	// heuristic, which ConSeq's comparison needs). Of the pairs the first
	// racing access makes, the one with the smallest earlier PC is kept.
	FirstRacePerVar bool
	// NoLockEdges drops the release → acquire edges of locks and of atomic
	// read-modify-writes; spawn, join, signal → wake and barrier edges stay
	// (interleaving inference's prefilter needs it).
	NoLockEdges bool
	// RMWPlain treats fadd, cas and xchg on ordinary words as plain
	// accesses instead of C11 seq_cst atomics.
	RMWPlain bool
}

// class is the kind of one data access, for conflicts.
type class uint8

const (
	clRead       class = iota // plain read
	clWrite                   // plain write (st, free, a plain RMW, a faulting non-ld)
	clAtomic                  // atomic RMW that stored
	clAtomicRead              // atomic RMW that did not store (failed cas)
	numClasses
)

// conflicts[k] lists the classes of earlier accesses that conflict with an
// access of class k.
var conflicts = [numClasses][]class{
	clRead:       {clWrite, clAtomic},
	clWrite:      {clRead, clWrite, clAtomic, clAtomicRead},
	clAtomic:     {clRead, clWrite},
	clAtomicRead: {clWrite},
}

// cand is one earlier access that races with the current one.
type cand struct {
	pc  int32
	tid int32
}

// maxThreads bounds the thread ids an epoch can hold; events of later
// threads are ignored.
const maxThreads = 1 << tidBits

// Detector is a happens-before race detector for one run. It is a
// core.Observer; attach it with Kinds() and read Findings() after the run.
type Detector struct {
	prog *isa.Program
	opts Options
	full bool

	// threads[t] is thread t's vector clock (nil: not seen yet).
	threads []vclock
	locks   map[uint64]vclock
	signals map[uint64]vclock
	bars    core.Barriers[vclock]
	// hi is one past the highest word index any access or free touched:
	// a faulting access beyond it is not to a word that ever existed.
	hi uint64

	// FastTrack state: shadow[i] describes word DataBase+8i.
	shadow []word
	// Full-VC oracle state.
	oracle  map[uint64]*fullWord
	atomics map[uint64]*vclock
	seq     uint64

	cands []cand
	races core.RaceReport
}

// New returns a FastTrack detector for runs of prog.
func New(prog *isa.Program, opts Options) *Detector {
	d := &Detector{
		prog:    prog,
		opts:    opts,
		locks:   map[uint64]vclock{},
		signals: map[uint64]vclock{},
		races:   core.RaceReport{Detector: "hb", FirstPerWord: opts.FirstRacePerVar},
	}

	return d
}

// NewFullVC returns the slow full-vector-clock detector, the oracle the
// FastTrack detector is tested against. It reports the same findings.
func NewFullVC(prog *isa.Program, opts Options) *Detector {
	d := New(prog, opts)
	d.full = true
	d.oracle = map[uint64]*fullWord{}
	d.atomics = map[uint64]*vclock{}
	return d
}

// Trim drops the run's shadow memory and clocks once the run has ended,
// keeping its findings: a caller that holds many finished runs then holds
// only their races.
func (d *Detector) Trim() {
	d.threads, d.locks, d.signals, d.bars = nil, nil, nil, core.Barriers[vclock]{}
	d.shadow, d.oracle, d.atomics, d.cands = nil, nil, nil, nil
}

// Name returns "hb".
func (d *Detector) Name() string { return "hb" }

// Kinds returns the event kinds the detector reads. Without lock edges it
// does not need Acquire and Release. ThreadExit is not needed: a thread's
// clock does not change after its last event, so Join reads it directly.
func (d *Detector) Kinds() core.KindMask {
	m := core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW,
		core.KindSpawn, core.KindJoin,
		core.KindCondSignal, core.KindCondWake,
		core.KindBarrierArrive, core.KindBarrierLeave,
		core.KindFree, core.KindCrash)
	if !d.opts.NoLockEdges {
		m |= core.MaskOf(core.KindAcquire, core.KindRelease)
	}
	return m
}

// Findings returns the races found so far, sorted with
// core.CompareFindings.
func (d *Detector) Findings() []core.Finding { return core.SortedFindings(d.races.Findings) }

// thread returns thread t's clock, creating it (clock 1) when t has not
// been seen: the first thread starts without a Spawn event.
func (d *Detector) thread(t int) *vclock {
	for len(d.threads) <= t {
		d.threads = append(d.threads, nil)
	}
	if d.threads[t] == nil {
		c := make(vclock, t+1)
		c[t] = 1
		d.threads[t] = c
	}
	return &d.threads[t]
}

// tick advances thread t's own clock after a release, so its later
// accesses are not covered by what it released.
func (d *Detector) tick(t int) { d.threads[t][t]++ }

// Observe reads one event.
func (d *Detector) Observe(e *core.Event) {
	t := int(e.Thread)
	if t < 0 || t >= maxThreads {
		return
	}
	switch e.Op() {
	case core.OpRead:
		d.access(t, e.Addr, e.PC, clRead, false)
	case core.OpWrite:
		d.access(t, e.Addr, e.PC, clWrite, false)
	case core.OpAtomic:
		stored := e.Stored()
		switch {
		case d.opts.RMWPlain && stored:
			d.access(t, e.Addr, e.PC, clWrite, false)
		case d.opts.RMWPlain:
			d.access(t, e.Addr, e.PC, clRead, false)
		default:
			d.atomic(t, e.Addr, e.PC, stored)
		}
	case core.OpFree:
		for a := range isa.Words(e.Addr, e.FreeWords()) {
			d.access(t, a, e.PC, clWrite, false)
		}
	case core.OpFault:
		d.crash(t, e)
	case core.OpAcquire:
		if !d.opts.NoLockEdges {
			if l, ok := d.locks[e.Addr]; ok {
				d.thread(t).join(l)
			}
		}
	case core.OpRelease:
		if !d.opts.NoLockEdges {
			l := d.locks[e.Addr]
			l.set(*d.thread(t))
			d.locks[e.Addr] = l
			d.tick(t)
		}
	case core.OpSignal:
		s := d.signals[e.Addr]
		s.set(*d.thread(t))
		d.signals[e.Addr] = s
		d.tick(t)
	case core.OpWake:
		if s, ok := d.signals[e.Addr]; ok {
			d.thread(t).join(s)
		}
	case core.OpArrive:
		d.bars.Arrive(e.Addr, e.Generation()).join(*d.thread(t))
		d.tick(t)
	case core.OpLeave:
		if vc, ok := d.bars.Leave(e.Addr, e.Generation()); ok {
			d.thread(t).join(vc)
		}
	case core.OpSpawn:
		child := int(e.Child())
		if child < 0 || child >= maxThreads {
			return
		}
		parent := *d.thread(t)
		for len(d.threads) <= child {
			d.threads = append(d.threads, nil)
		}
		c := make(vclock, max(len(parent), child+1))
		copy(c, parent)
		c[child] = 1
		d.threads[child] = c
		d.tick(t)
	case core.OpJoin:
		child := int(e.Joined())
		if child >= 0 && child < len(d.threads) && d.threads[child] != nil {
			d.thread(t).join(d.threads[child])
		}
	}
}

// crash treats a faulting access (a Crash event with an address) as the
// access the crashing instruction would have made.
func (d *Detector) crash(t int, e *core.Event) {
	a := e.Addr
	op, ok := d.prog.FaultOp(e.PC, a, isa.DataBase+d.hi*isa.WordBytes)
	if !ok {
		return
	}
	k := clWrite
	if op == isa.OpLd {
		k = clRead
	}
	d.access(t, a, e.PC, k, true)
}

// atomic handles an atomic read-modify-write: acquire the word's clock,
// check and record the access, and release when it stored.
func (d *Detector) atomic(t int, a uint64, pc int32, stored bool) {
	k := clAtomicRead
	if stored {
		k = clAtomic
	}
	if d.opts.NoLockEdges {
		d.access(t, a, pc, k, false)
		return
	}
	sync := d.atomicClock(a)
	if sync == nil {
		return
	}
	c := d.thread(t)
	c.join(*sync)
	d.access(t, a, pc, k, false)
	if stored {
		sync.set(*c)
		d.tick(t)
	}
}

// atomicClock returns the release clock of an ordinary word used by
// atomic read-modify-writes, or nil for an address that is not a word.
func (d *Detector) atomicClock(a uint64) *vclock {
	if d.full {
		s := d.atomics[a]
		if s == nil {
			s = new(vclock)
			d.atomics[a] = s
		}
		return s
	}
	i, ok := d.index(a)
	if !ok {
		return nil
	}
	return &d.shadow[i].ext().sync
}

// index returns the shadow index of word a, growing the shadow to hold it.
func (d *Detector) index(a uint64) (int, bool) {
	if a < isa.DataBase || a%isa.WordBytes != 0 {
		return 0, false
	}
	i := (a - isa.DataBase) / isa.WordBytes
	if i >= uint64(len(d.shadow)) {
		n := max(2*uint64(len(d.shadow)), i+1, 1024)
		d.shadow = append(d.shadow, make([]word, n-uint64(len(d.shadow)))...)
	}
	return int(i), true
}

// access checks and records one data access of class k by thread t.
func (d *Detector) access(t int, a uint64, pc int32, k class, fault bool) {
	if a < isa.DataBase || a%isa.WordBytes != 0 {
		return
	}
	if w := (a-isa.DataBase)/isa.WordBytes + 1; w > d.hi {
		d.hi = w
	}
	c := *d.thread(t)
	if d.full {
		d.fullAccess(t, c, a, pc, k)
	} else {
		i, _ := d.index(a)
		d.shadow[i].access(t, c, pc, k, &d.cands)
	}
	if len(d.cands) > 0 {
		d.report(a, t, pc, fault)
	}
}

// report records the races of the current access with d.cands, the
// earliest PC (then thread) first.
func (d *Detector) report(a uint64, t int, pc int32, fault bool) {
	cs := d.cands
	d.cands = cs[:0]
	slices.SortFunc(cs, func(x, y cand) int { return cmp.Or(cmp.Compare(x.pc, y.pc), cmp.Compare(x.tid, y.tid)) })
	d.races.Add(a, pc, len(cs), func(i int) int32 { return cs[i].pc }, func(i int) string {
		c := cs[i]
		return fmt.Sprintf("race on %s: %s by thread %d (pc %d) and %s by thread %d (pc %d) are not ordered by happens-before",
			d.where(a), d.what(c.pc, false), c.tid, c.pc, d.what(pc, fault), t, pc)
	})
}

// what names the access an instruction makes, for messages.
func (d *Detector) what(pc int32, fault bool) string {
	if pc < 0 || int(pc) >= len(d.prog.Instrs) {
		return "access"
	}
	op := d.prog.Instrs[pc].Op
	s := op.String()
	switch {
	case fault:
		s += " (faulted)"
	case !d.opts.RMWPlain && op.IsRMW():
		s = "atomic " + s
	}
	return s
}

// where names a word for messages: symbol+offset, or heap and address.
func (d *Detector) where(a uint64) string { return d.prog.DescribeAddr(a) }
