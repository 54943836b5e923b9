// Package avio detects unserializable access interleavings, after AVIO
// (Lu, Tucek, Qin and Zhou, ASPLOS 2006, the software AVIO-S), over weft's
// event stream, and learns AVIO's access-interleaving invariants over many
// runs (Learner).
//
// For every data word and every thread, each pair of consecutive accesses
// (I_p, I_c) by that thread to that word is checked against the remote
// accesses that other threads performed between them. A (local I_p,
// remote I_r, local I_c) triple is unserializable in four of AVIO's eight
// cases:
//
//	unserializable: R-W-R, W-W-R, W-R-W, R-W-W
//	serializable:   R-R-R, W-R-R, R-R-W, W-W-W
//
// A Detector reports every unserializable triple of one run once per
// (I_p, I_r, I_c, case), as a finding of kind "atomicity" with PCs
// [I_p, I_r, I_c], the word of its first occurrence and score 1.
//
// What is kept. The stream is the total order of performs, so every access
// to a word after thread t's last access to it is by another thread: the
// accesses between I_p and I_c are exactly the word's accesses later than
// I_p. Each case needs only one kind of remote access (a write, except for
// W-?-W which needs a read), so, per word, the detector keeps each thread's
// last access (PC, kind, stamp) and the word's last write and last read
// (PC, stamp), whoever made them. A remote write between I_p and I_c exists
// exactly when the word's last write is later than I_p, and likewise for
// reads; state is bounded by one entry per (word, thread) that touched it.
// Every unserializable interleaving is therefore detected, even when other
// remote accesses follow the offending one (an AVIO that looked only at the
// single last remote access would miss a remote read after the write in
// R-W-R; see workloads/README.md, PSet note 7). When several remote
// accesses of the needed kind interleave one pair, the reported I_r is the
// last of them.
//
// What counts as data: Read, Write and RMW events without core.FlagSync
// (lock, barrier and condition-variable words are not data). An RMW on an
// ordinary word (fadd, cas, xchg) is one atomic write by default: an atomic
// landing between a thread's load and store is a remote write (the lost
// update, R-W-W), and an atomic of the thread itself is a W in its pairs;
// with Options.RMWPlain it is a read followed at once by a write by the
// same instruction (so it can be I_p, I_c and I_r, but never interleaves
// itself). A Free is a write to every freed word by the freeing thread. A
// Crash with an address is the access that faulted: a ld reads, a
// cas/xchg/fadd is an RMW as above, any other instruction writes; it is
// counted only for an aligned word at or below the highest word accessed
// so far (a freed word always is).
//
// The detector does not reset on a Rollback event: after a rollback (PSet's
// hardware, or an extension's), the re-executed span's accesses are taken
// as new ones, so a triple may span a discarded stretch.
package avio

import (
	"fmt"
	"weft/detectors/shadow"

	"weft/core"
	"weft/isa"
)

// Options configures a Detector.
type Options struct {
	// RMWPlain treats an RMW on an ordinary (non-sync) word as a plain read
	// followed by a write instead of one atomic write.
	RMWPlain bool
}

// Unserializable reports whether the interleaving (local p, remote r,
// local c), each true for a write, is one of AVIO's four unserializable
// cases: R-W-R, W-W-R, W-R-W or R-W-W.
func Unserializable(p, r, c bool) bool {
	if p && c {
		return !r // W-R-W
	}
	return r // R-W-R, W-W-R, R-W-W
}

// Case names an interleaving, e.g. "R-W-R".
func Case(p, r, c bool) string {
	return kindLetter(p) + "-" + kindLetter(r) + "-" + kindLetter(c)
}

func kindLetter(write bool) string {
	if write {
		return "W"
	}
	return "R"
}

// stamp is one remembered access: its PC and position in the run's data
// accesses (seq 0: none).
type stamp struct {
	seq uint64
	pc  int32
}

// local is a thread's last access to a word.
type local struct {
	stamp
	tid   int32
	write bool
}

// word is the shadow state of one data word.
type word struct {
	lastW, lastR stamp
	first        local   // the first thread's last access (seq 0: none)
	more         []local // the other threads' last accesses
}

// tripleKey identifies a reported triple.
type tripleKey struct {
	p, r, c int32
	kinds   uint8 // bit 2: I_p writes, bit 1: I_r writes, bit 0: I_c writes
}

// Detector is an AVIO detector for one run. It is a core.Observer for the
// kinds Kinds returns; it is not safe for concurrent use.
type Detector struct {
	prog     *isa.Program
	opts     Options
	words    shadow.Memory[word]
	seq      uint64
	seen     map[tripleKey]struct{}
	findings []core.Finding
}

// New returns a detector for runs of prog.
func New(prog *isa.Program, opts Options) *Detector {
	d := &Detector{prog: prog, opts: opts, seen: map[tripleKey]struct{}{}}
	return d
}

// Trim drops the run's shadow memory once the run has ended, keeping its
// findings: a caller that holds many finished runs then holds only their
// triples.
func (d *Detector) Trim() { d.words, d.seen = shadow.Memory[word]{}, nil }

// Name returns "avio".
func (d *Detector) Name() string { return "avio" }

// Kinds returns the event kinds the detector observes: Read, Write, RMW,
// Free and Crash.
func (d *Detector) Kinds() core.KindMask {
	return core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW, core.KindFree, core.KindCrash)
}

// Findings returns the unserializable triples seen so far, one finding per
// (I_p, I_r, I_c, case), sorted with core.CompareFindings.
func (d *Detector) Findings() []core.Finding { return core.SortedFindings(d.findings) }

// Observe processes one event.
func (d *Detector) Observe(e *core.Event) {
	switch op := e.Op(); op {
	case core.OpRead, core.OpWrite:
		d.access(e.Thread, e.PC, e.Addr, op == core.OpWrite)
	case core.OpAtomic:
		d.rmw(e.Thread, e.PC, e.Addr)
	case core.OpFree:
		for a := range isa.Words(e.Addr, e.FreeWords()) {
			d.access(e.Thread, e.PC, a, true)
		}
	case core.OpFault:
		d.crash(e)
	}
}

// crash counts the access a faulting instruction attempted: a ld reads, a
// cas, xchg or fadd is an RMW, anything else writes.
func (d *Detector) crash(e *core.Event) {
	op, ok := d.prog.FaultOp(e.PC, e.Addr, d.words.End())
	switch {
	case ok && op.IsRMW():
		d.rmw(e.Thread, e.PC, e.Addr)
	case ok:
		d.access(e.Thread, e.PC, e.Addr, op != isa.OpLd)
	}
}

// rmw counts an RMW on an ordinary word: by default one atomic write (an
// atomic between a thread's two accesses is a remote write like any other;
// two atomics of one thread are a W-?-W pair), with Options.RMWPlain a read
// then a write.
func (d *Detector) rmw(tid, pc int32, a uint64) {
	if d.opts.RMWPlain {
		d.access(tid, pc, a, false)
	}
	d.access(tid, pc, a, true)
}

// localOf returns tid's last access to w, adding an empty one if it has
// none.
func (w *word) localOf(tid int32) *local {
	if w.first.seq == 0 || w.first.tid == tid {
		w.first.tid = tid
		return &w.first
	}
	for i := range w.more {
		if w.more[i].tid == tid {
			return &w.more[i]
		}
	}
	w.more = append(w.more, local{tid: tid})
	return &w.more[len(w.more)-1]
}

// access checks one access by tid against its previous access to the word
// and the remote accesses since.
func (d *Detector) access(tid, pc int32, a uint64, write bool) {
	if a < isa.DataBase {
		return
	}
	d.seq++
	w := d.words.Word(a)
	l := w.localOf(tid)
	if l.seq != 0 {
		// Everything on this word later than l was done by other threads.
		if l.write && write {
			if w.lastR.seq > l.seq {
				d.report(a, tid, l, w.lastR.pc, false, pc, write)
			}
		} else if w.lastW.seq > l.seq {
			d.report(a, tid, l, w.lastW.pc, true, pc, write)
		}
	}
	l.seq, l.pc, l.write = d.seq, pc, write
	if write {
		w.lastW = stamp{d.seq, pc}
	} else {
		w.lastR = stamp{d.seq, pc}
	}
}

// report records an unserializable triple once.
func (d *Detector) report(a uint64, tid int32, p *local, rpc int32, rw bool, cpc int32, cw bool) {
	k := tripleKey{p: p.pc, r: rpc, c: cpc, kinds: b2k(p.write)<<2 | b2k(rw)<<1 | b2k(cw)}
	if _, ok := d.seen[k]; ok {
		return
	}
	d.seen[k] = struct{}{}
	c := Case(p.write, rw, cw)
	d.findings = append(d.findings, core.Finding{
		Detector: "avio",
		Kind:     "atomicity",
		PCs:      []int32{p.pc, rpc, cpc},
		Addr:     a,
		Score:    1,
		Message: fmt.Sprintf("%s on %s: thread %d's pcs %d and %d interleaved by a remote %s at pc %d",
			c, d.prog.DescribeAddr(a), tid, p.pc, cpc, verb(rw), rpc),
	})
}

func b2k(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func verb(write bool) string {
	if write {
		return "write"
	}
	return "read"
}
