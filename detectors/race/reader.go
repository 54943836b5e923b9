package race

import (
	"weft/core"
	"weft/isa"
)

// Access is one data access as ConSeq's comparison detectors count it
// (the package doc says what counts as data).
type Access struct {
	// Thread is the accessing thread, PC its instruction.
	Thread int
	PC     int32
	// Addr is the word, aligned and in the data segment or heap.
	Addr uint64
	// Write is set for a st, an RMW that stored, a freed word, and a
	// faulting access by anything but a ld.
	Write bool
	// Atomic is set for an RMW of an ordinary word (fadd, cas, xchg).
	Atomic bool
	// Fault is set for the access of a Crash event.
	Fault bool
}

// Reader is how ConSeq's comparison detectors (Race and Atom) read the
// event stream: it feeds the synchronisation events to its Clocks and
// Locks and hands each data access on. It is not safe for concurrent use.
type Reader struct {
	// Clocks is the happens-before relation of the events read so far.
	Clocks *Clocks
	// Locks are the locks each thread holds.
	Locks *Locks

	prog   *isa.Program
	access func(Access)
	hi     uint64 // the highest word address accessed, +1 (0: none)
}

// NewReader returns a Reader for runs of prog that calls access for each
// data access.
func NewReader(prog *isa.Program, access func(Access)) *Reader {
	return &Reader{Clocks: NewClocks(), Locks: NewLocks(), prog: prog, access: access}
}

// ReaderKinds are the event kinds a Reader reads: the data accesses
// (Read, Write, RMW, Free, Crash) and those of ClockKinds and LockKinds.
func ReaderKinds() core.KindMask {
	return core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW, core.KindFree, core.KindCrash) |
		ClockKinds() | LockKinds()
}

// Observe reads one event. Events of a thread out of range, and accesses
// to no word (below isa.DataBase or misaligned), are dropped; a Free
// counts at most MaxFreeWords words; a Crash counts only for a word below
// the highest accessed so far.
func (r *Reader) Observe(e *core.Event) {
	t := int(e.Thread)
	if !validThread(t) {
		return
	}
	switch op := e.Op(); op {
	case core.OpRead, core.OpWrite, core.OpAtomic:
		r.data(Access{Thread: t, PC: e.PC, Addr: e.Addr, Write: e.Writes(), Atomic: op == core.OpAtomic})
	case core.OpFree:
		for a := range isa.Words(e.Addr, min(e.FreeWords(), MaxFreeWords)) {
			r.data(Access{Thread: t, PC: e.PC, Addr: a, Write: true})
		}
	case core.OpFault:
		if op, ok := r.prog.FaultOp(e.PC, e.Addr, r.hi); ok {
			r.data(Access{Thread: t, PC: e.PC, Addr: e.Addr, Write: op != isa.OpLd, Fault: true})
		}
	case core.OpAcquire, core.OpRelease:
		r.Locks.Observe(e)
	default:
		r.Clocks.Observe(e)
	}
}

// data hands one access to a word on.
func (r *Reader) data(x Access) {
	if x.Addr < isa.DataBase || x.Addr%isa.WordBytes != 0 {
		return
	}
	r.hi = max(r.hi, x.Addr+1)
	r.access(x)
}
