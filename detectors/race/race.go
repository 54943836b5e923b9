// Package race is the Race column of ConSeq's comparison (Zhang et al.,
// ASPLOS 2011, Table 3): a Helgrind-style hybrid data-race detector that
// reports a pair of conflicting accesses only when they are unordered by
// happens-before AND hold no common lock.
//
// Two accesses conflict when they touch the same word from different
// threads and at least one writes. They race when neither happens before
// the other under Clocks' relation (program order, spawn, join, barrier
// generations, csignal/cbcast → wake; never locks) and the locks their
// threads held at the two accesses (Locks) have no lock word in common.
// A pair ordered only by a lock is therefore not a race (the common lock
// protects it), and neither is a pair ordered by a join although no lock
// is held.
//
// With Options.FirstRacePerVar (the registry's default, Helgrind's
// heuristic that ConSeq's Race inherits) only the first race on each word
// is reported: of the pairs its first racing access makes, the one with
// the smallest earlier PC; later races on that word are suppressed, which
// is how Helgrind loses some bugs.
//
// What counts as data: Read, Write and RMW events without core.FlagSync
// (lock, barrier and condition-variable words are not data). An RMW on an
// ordinary word (fadd, cas, xchg) is an atomic access, a write when it
// stored and a read when a cas failed; two atomic accesses never race,
// an atomic and a plain access that conflict can. A Free is a write to
// each freed word (at most MaxFreeWords of them), so a use-after-free
// shows as a race with the free. A Crash with an address is the access
// that faulted: a ld reads, any other instruction writes; it is counted
// only for an aligned word at or below the highest word accessed so far.
//
// Findings: one per static PC pair per run (whichever order the two come
// in), of kind "race", with PCs [earlier, later] of its first occurrence,
// the word of that occurrence as Addr and score 1, sorted with
// core.CompareFindings.
//
// State: per word, for each (thread, PC, access class, lock set) the
// thread's clock at its latest such access. That is exact for static
// pairs: if an earlier instance is unordered with an access, so is the
// latest (it comes after it in program order), and both hold the same
// locks. Memory is bounded by threads × static PCs × lock sets per word.
package race

import (
	"fmt"
	"slices"

	"weft/core"
	"weft/isa"
)

// MaxFreeWords bounds the words one Free event counts as written.
const MaxFreeWords = 1 << 16

// Options configures a Detector.
type Options struct {
	// FirstRacePerVar reports only the first race on each word
	// (Helgrind's heuristic; the registry's "race" sets it).
	FirstRacePerVar bool
}

// class is the kind of one data access, for conflicts.
type class uint8

const (
	clRead       class = iota // plain read
	clWrite                   // plain write
	clAtomic                  // atomic RMW that stored
	clAtomicRead              // atomic RMW that did not store
)

// conflict reports whether accesses of classes a and b conflict: at least
// one writes and not both are atomic.
func conflict(a, b class) bool {
	write := func(c class) bool { return c == clWrite || c == clAtomic }
	atomic := func(c class) bool { return c == clAtomic || c == clAtomicRead }
	return (write(a) || write(b)) && !(atomic(a) && atomic(b))
}

// entry is a thread's latest access to a word with one PC, class and lock
// set.
type entry struct {
	tid  int32
	pc   int32
	cls  class
	held *Held
	clk  uint64 // the thread's own clock entry at the access
}

// cand is one earlier access that races with the current one.
type cand struct {
	pc, tid int32
	cls     class
}

// Detector is the Race detector for one run. It is a core.Observer for the
// kinds Kinds returns; it is not safe for concurrent use.
type Detector struct {
	prog   *isa.Program
	opts   Options
	clocks *Clocks
	locks  *Locks
	words  map[uint64][]entry
	hi     uint64 // the highest word address accessed, +1 (0: none)

	cands    []cand
	found    map[[2]int32]struct{}
	raced    map[uint64]bool
	findings []core.Finding
}

// New returns a Race detector for runs of prog (nil: an empty program,
// for messages only).
func New(prog *isa.Program, opts Options) *Detector {
	if prog == nil {
		prog = &isa.Program{}
	}
	return &Detector{
		prog:   prog,
		opts:   opts,
		clocks: NewClocks(),
		locks:  NewLocks(),
		words:  map[uint64][]entry{},
		found:  map[[2]int32]struct{}{},
		raced:  map[uint64]bool{},
	}
}

// Name returns "race".
func (d *Detector) Name() string { return "race" }

// Kinds returns the event kinds the detector reads: the data accesses
// (Read, Write, RMW, Free, Crash) and those of ClockKinds and LockKinds.
func (d *Detector) Kinds() core.KindMask {
	return core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW, core.KindFree, core.KindCrash) |
		ClockKinds() | LockKinds()
}

// Findings returns the races found so far, sorted with
// core.CompareFindings.
func (d *Detector) Findings() []core.Finding {
	fs := slices.Clone(d.findings)
	for i := range fs {
		fs[i].PCs = slices.Clone(fs[i].PCs)
	}
	slices.SortFunc(fs, core.CompareFindings)
	return fs
}

// Observe reads one event.
func (d *Detector) Observe(e *core.Event) {
	t := int(e.Thread)
	if !validThread(t) {
		return
	}
	switch e.Op() {
	case core.OpRead:
		d.access(t, e.Addr, e.PC, clRead, false)
	case core.OpWrite:
		d.access(t, e.Addr, e.PC, clWrite, false)
	case core.OpAtomic:
		k := clAtomicRead
		if e.Stored() {
			k = clAtomic
		}
		d.access(t, e.Addr, e.PC, k, false)
	case core.OpFree:
		n := min(max(e.FreeWords(), 0), MaxFreeWords)
		for i := int64(0); i < n; i++ {
			d.access(t, e.Addr+uint64(i)*isa.WordBytes, e.PC, clWrite, false)
		}
	case core.OpFault:
		d.crash(t, e)
	case core.OpAcquire, core.OpRelease:
		d.locks.Observe(e)
	default:
		d.clocks.Observe(e)
	}
}

// crash counts the access a faulting instruction attempted.
func (d *Detector) crash(t int, e *core.Event) {
	a, write, ok := CrashAccess(d.prog, e, d.hi)
	if !ok {
		return
	}
	k := clRead
	if write {
		k = clWrite
	}
	d.access(t, a, e.PC, k, true)
}

// CrashAccess decodes the access a Crash event's faulting instruction
// attempted: its word and whether it writes (anything but a load); ok is
// false when the event names no word in [isa.DataBase, hi) or no
// instruction of prog.
func CrashAccess(prog *isa.Program, e *core.Event, hi uint64) (addr uint64, write, ok bool) {
	op, ok := prog.FaultOp(e.PC, e.Addr, hi)
	if !ok {
		return 0, false, false
	}
	return e.Addr, op != isa.OpLd, true
}

// access checks one data access against the word's remembered accesses
// and remembers it.
func (d *Detector) access(t int, a uint64, pc int32, k class, fault bool) {
	if a < isa.DataBase || a%isa.WordBytes != 0 {
		return
	}
	d.hi = max(d.hi, a+1)
	now := d.clocks.Now(t)
	held := d.locks.Now(t)
	es := d.words[a]
	mine := -1
	for i := range es {
		x := &es[i]
		if int(x.tid) == t {
			if x.pc == pc && x.cls == k && x.held.Set == held.Set {
				mine = i
			}
			continue
		}
		if conflict(x.cls, k) && x.clk > now.Get(int(x.tid)) && !x.held.Common(held) {
			d.cands = append(d.cands, cand{pc: x.pc, tid: x.tid, cls: x.cls})
		}
	}
	if mine >= 0 {
		es[mine].clk, es[mine].held = now.Get(t), held
	} else {
		d.words[a] = append(es, entry{tid: int32(t), pc: pc, cls: k, held: held, clk: now.Get(t)})
	}
	if len(d.cands) > 0 {
		d.report(a, t, pc, k, fault)
	}
}

// report records the races of the current access with d.cands.
func (d *Detector) report(a uint64, t int, pc int32, k class, fault bool) {
	cs := d.cands
	d.cands = cs[:0]
	slices.SortFunc(cs, func(x, y cand) int {
		if x.pc != y.pc {
			return int(x.pc) - int(y.pc)
		}
		if x.tid != y.tid {
			return int(x.tid) - int(y.tid)
		}
		return int(x.cls) - int(y.cls)
	})
	if d.opts.FirstRacePerVar {
		if d.raced[a] {
			return
		}
		d.raced[a] = true
		cs = cs[:1]
	}
	for _, c := range cs {
		key := [2]int32{min(c.pc, pc), max(c.pc, pc)}
		if _, ok := d.found[key]; ok {
			continue
		}
		d.found[key] = struct{}{}
		d.findings = append(d.findings, core.Finding{
			Detector: "race",
			Kind:     "race",
			PCs:      []int32{c.pc, pc},
			Addr:     a,
			Score:    1,
			Message: fmt.Sprintf("race on %s: %s by thread %d (pc %d) and %s by thread %d (pc %d): unordered by spawn/join/barrier/signal and no common lock",
				d.prog.DescribeAddr(a), what(c.cls, false), c.tid, c.pc, what(k, fault), t, pc),
		})
	}
}

// what names an access class for messages.
func what(k class, fault bool) string {
	s := [...]string{"read", "write", "atomic write", "atomic read"}[k]
	if fault {
		s += " (faulted)"
	}
	return s
}
