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
// A Reader reads the stream this way for Race and for Atom.
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
	"cmp"
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

// classOf returns the class of an access, atomic or plain, that wrote or
// only read.
func classOf(atomic, write bool) class {
	switch {
	case atomic && write:
		return clAtomic
	case atomic:
		return clAtomicRead
	case write:
		return clWrite
	}
	return clRead
}

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
	prog  *isa.Program
	opts  Options
	rd    *Reader
	words map[uint64][]entry

	cands []cand
	races core.RaceReport
}

// New returns a Race detector for runs of prog (nil: an empty program,
// for messages only).
func New(prog *isa.Program, opts Options) *Detector {
	if prog == nil {
		prog = &isa.Program{}
	}
	d := &Detector{
		prog:  prog,
		opts:  opts,
		words: map[uint64][]entry{},
		races: core.RaceReport{Detector: "race", FirstPerWord: opts.FirstRacePerVar, Unordered: true},
	}
	d.rd = NewReader(prog, d.access)
	return d
}

// Name returns "race".
func (d *Detector) Name() string { return "race" }

// Kinds returns the event kinds the detector reads: ReaderKinds.
func (d *Detector) Kinds() core.KindMask { return ReaderKinds() }

// Findings returns the races found so far, sorted with
// core.CompareFindings.
func (d *Detector) Findings() []core.Finding { return core.SortedFindings(d.races.Findings) }

// Observe reads one event.
func (d *Detector) Observe(e *core.Event) { d.rd.Observe(e) }

// access checks one data access against the word's remembered accesses
// and remembers it.
func (d *Detector) access(in Access) {
	t, a, pc, k := in.Thread, in.Addr, in.PC, classOf(in.Atomic, in.Write)
	now := d.rd.Clocks.Now(t)
	held := d.rd.Locks.Now(t)
	es := d.words[a]
	mine := -1
	for i := range es {
		o := &es[i]
		if int(o.tid) == t {
			if o.pc == pc && o.cls == k && o.held.Set == held.Set {
				mine = i
			}
			continue
		}
		if conflict(o.cls, k) && o.clk > now.Get(int(o.tid)) && !o.held.Common(held) {
			d.cands = append(d.cands, cand{pc: o.pc, tid: o.tid, cls: o.cls})
		}
	}
	if mine >= 0 {
		es[mine].clk, es[mine].held = now.Get(t), held
	} else {
		d.words[a] = append(es, entry{tid: int32(t), pc: pc, cls: k, held: held, clk: now.Get(t)})
	}
	if len(d.cands) > 0 {
		d.report(a, t, pc, k, in.Fault)
	}
}

// report records the races of the current access with d.cands, the
// earliest PC (then thread, then class) first.
func (d *Detector) report(a uint64, t int, pc int32, k class, fault bool) {
	cs := d.cands
	d.cands = cs[:0]
	slices.SortFunc(cs, func(x, y cand) int {
		return cmp.Or(cmp.Compare(x.pc, y.pc), cmp.Compare(x.tid, y.tid), cmp.Compare(x.cls, y.cls))
	})
	d.races.Add(a, pc, len(cs), func(i int) int32 { return cs[i].pc }, func(i int) string {
		c := cs[i]
		return fmt.Sprintf("race on %s: %s by thread %d (pc %d) and %s by thread %d (pc %d): unordered by spawn/join/barrier/signal and no common lock",
			d.prog.DescribeAddr(a), what(c.cls, false), c.tid, c.pc, what(k, fault), t, pc)
	})
}

// what names an access class for messages.
func what(k class, fault bool) string {
	s := [...]string{"read", "write", "atomic write", "atomic read"}[k]
	if fault {
		s += " (faulted)"
	}
	return s
}
