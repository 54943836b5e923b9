// Package pset learns and checks PSet constraints (Yu and Narayanasamy,
// "A Case for an Interleaving Constrained Shared-Memory Multi-Processor",
// ISCA 2009) over weft's event stream: the Trainer learns each static
// memory instruction's predecessor set from correct runs, and the Monitor
// is the paper's software (Pin) monitor, reporting every access whose
// immediate remote predecessor was never seen in training.
//
// Immediate predecessors (digest §1.3). Per word, the stream (the total
// order of performs) gives each access M by thread T2 its candidates:
//
//   - a read: the word's last write (RAW);
//   - a write: every read since the last write, the latest per thread
//     (WAR, one edge per reader), or when there is none the last write
//     itself (WAW).
//
// A candidate P by thread T1 counts only when it is remote (T1 ≠ T2) and,
// condition (c), neither T1 nor T2 accessed the word between P and M. A
// dynamic access violates when some counted candidate is not in its PSet
// (each of several readers must be). Training and checking share exactly
// this code, so a run's violations are its pairs that training lacks.
//
// Since after the last write a word sees only reads, the state kept per
// word is the last write (PC, thread) and the reads since it (PC, thread,
// one per thread, in order): condition (c) then needs no per-thread
// stamps. A read's candidate counts when neither its writer nor its reader
// has read the word since the write; a write's reader candidate counts
// when the writing thread has not read the word after it; a WAW candidate
// always passes (c).
//
// What is an access:
//
//   - Read and Write events, and sync ones (FlagSync: lock words,
//     including the test read of lock and the release store of unlock and
//     cwait) unless Options.IgnoreSync. The paper's Pin tool instruments
//     every memory access, so lock words count, as in the digest's
//     include_sync_ops = true; the PSet kernels need them (workloads
//     README, PSet notes 4 and 6: pbzip2's free and pfscan's acquire fail
//     first on lock words).
//   - An RMW (cas, xchg, fadd, lock's swap, barrier and condition-variable
//     updates) is a read immediately followed by a write by the same
//     instruction (digest §1.5), the write only when it stored (Stored:
//     a failed cas or lock swap is a read). By condition (c) the write
//     half then never has a remote candidate (the thread's own read came
//     after every other reader), so an RMW is checked as a read of the
//     last write and then becomes the word's last write.
//   - A Free is a write to each freed word by the freeing instruction.
//   - A Crash with an address is the access that faulted (a use after
//     free, a second free), checked before the run ends: a ld or lock
//     reads, a cas, xchg, fadd, barrier, csignal or cbcast is an RMW, any
//     other instruction writes. It counts only for an aligned word no
//     higher than the highest word accessed so far (a freed word always
//     is).
//
// Granularity is the 8-byte word. Neither the trainer nor the monitor
// resets on a Rollback event: a re-executed span's accesses are new ones.
package pset

import (
	"weft/core"
	"weft/detectors/shadow"
	"weft/isa"
)

// Options configures a Trainer and a Monitor. Learn and check with the
// same options.
type Options struct {
	// IgnoreSync leaves accesses to synchronisation words (events with
	// core.FlagSync, and faults of sync instructions) out of both the
	// dependencies and the checks. The default counts them.
	IgnoreSync bool
	// IgnoreUntested skips the check of instructions that never ran in
	// training (type 00, the digest's untested_policy = "ignore"). The
	// default treats them as null PSets, so that any remote predecessor
	// violates (untested_policy = "null", the digest's default).
	IgnoreUntested bool
}

// Kinds returns the event kinds the trainer's recorders and the monitor
// observe: Read, Write, RMW, Free and Crash.
func Kinds() core.KindMask {
	return core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW, core.KindFree, core.KindCrash)
}

// dep is the kind of a dependency edge.
type dep uint8

// The dependency kinds.
const (
	// depRAW: a read (or an RMW's read) after a remote write.
	depRAW dep = iota
	// depWAR: a write after a remote read.
	depWAR
	// depWAW: a write after a remote write with no read between.
	depWAW
)

// String names the dependency: "RAW", "WAR" or "WAW".
func (d dep) String() string {
	return [...]string{"RAW", "WAR", "WAW"}[d]
}

// acc is one remembered access.
type acc struct {
	pc, tid int32
}

// word is the shadow state of one data word.
type word struct {
	w       acc  // the last write
	written bool // w is valid
	readers []acc
}

// cand is one counted immediate remote predecessor of an access.
type cand struct {
	pc, tid int32
	dep     dep
}

// tracker computes the immediate remote predecessors of each access.
type tracker struct {
	prog       *isa.Program
	ignoreSync bool
	words      shadow.Memory[word]
	cands      []cand
}

// visit is called for every access with its counted candidates (borrowed).
type visit func(tid, pc int32, addr uint64, cands []cand)

// observe feeds one event to the tracker, calling v for each access.
func (t *tracker) observe(e *core.Event, v visit) {
	switch op := e.Op(); op {
	case core.OpRead, core.OpWrite, core.OpAtomic, core.OpSyncAccess:
		if op == core.OpSyncAccess && t.ignoreSync {
			return
		}
		t.access(e.Thread, e.PC, e.Addr, e.Reads(), e.Writes(), v)
	case core.OpFree:
		for a := range isa.Words(e.Addr, e.FreeWords()) {
			t.access(e.Thread, e.PC, a, false, true, v)
		}
	case core.OpFault:
		t.crash(e, v)
	}
}

// crash counts the access a faulting instruction attempted.
func (t *tracker) crash(e *core.Event, v visit) {
	a := e.Addr
	op, ok := t.prog.FaultOp(e.PC, a, t.words.End())
	if !ok || t.ignoreSync && op.IsSync() {
		return
	}
	switch op {
	case isa.OpLd, isa.OpLock:
		t.access(e.Thread, e.PC, a, true, false, v)
	case isa.OpCas, isa.OpXchg, isa.OpFadd, isa.OpBarrier, isa.OpCsignal, isa.OpCbcast:
		t.access(e.Thread, e.PC, a, true, true, v)
	default:
		t.access(e.Thread, e.PC, a, false, true, v)
	}
}

// access processes one access: a read, a write, or (both) an RMW's read
// then write.
func (t *tracker) access(tid, pc int32, a uint64, read, write bool, v visit) {
	if a < isa.DataBase || a%isa.WordBytes != 0 {
		return
	}
	w := t.words.Word(a)
	if read {
		t.cands = t.cands[:0]
		if w.written && w.w.tid != tid && !w.hasReader(w.w.tid) && !w.hasReader(tid) {
			t.cands = append(t.cands, cand{w.w.pc, w.w.tid, depRAW})
		}
		v(tid, pc, a, t.cands)
		w.addReader(acc{pc, tid})
	}
	if write {
		t.cands = t.cands[:0]
		if len(w.readers) > 0 {
			// Readers after tid's own latest read; none when tid read last
			// (always so for an RMW's write half).
			from := 0
			for i := len(w.readers) - 1; i >= 0; i-- {
				if w.readers[i].tid == tid {
					from = i + 1
					break
				}
			}
			for _, r := range w.readers[from:] {
				t.cands = append(t.cands, cand{r.pc, r.tid, depWAR})
			}
		} else if w.written && w.w.tid != tid {
			t.cands = append(t.cands, cand{w.w.pc, w.w.tid, depWAW})
		}
		if !read || len(t.cands) > 0 {
			v(tid, pc, a, t.cands)
		}
		w.w, w.written = acc{pc, tid}, true
		w.readers = w.readers[:0]
	}
}

// hasReader reports whether tid read the word since its last write.
func (w *word) hasReader(tid int32) bool {
	for i := range w.readers {
		if w.readers[i].tid == tid {
			return true
		}
	}
	return false
}

// addReader makes r tid's latest read, the last in order.
func (w *word) addReader(r acc) {
	for i := range w.readers {
		if w.readers[i].tid == r.tid {
			copy(w.readers[i:], w.readers[i+1:])
			w.readers[len(w.readers)-1] = r
			return
		}
	}
	w.readers = append(w.readers, r)
}
