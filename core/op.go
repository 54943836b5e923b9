package core

import "fmt"

// OpKind is what a program event does for a detector: a data access, or a
// synchronisation operation that orders threads (FastTrack's rd, wr, acq,
// rel, fork and join, and weft's barriers and condition variables).
// Event.Op decodes it; its operands are the event's Thread (the acting
// thread), PC and Addr, and the payload accessors each operation names.
type OpKind uint8

// The operations, as Event.Op decodes them (DESIGN.md §3 and the event
// contract, ContractOf).
const (
	// OpNone: nothing for a detector: a kind outside the program group,
	// or a program event that neither accesses data nor orders threads
	// (Output, AssertFail, ErrorMsg, Hang).
	OpNone OpKind = iota
	// OpRead is a load of the ordinary word Addr (a Read without
	// FlagSync).
	OpRead
	// OpWrite is a store to the ordinary word Addr (a Write without
	// FlagSync).
	OpWrite
	// OpAtomic is a read-modify-write of the ordinary word Addr (fadd,
	// cas, xchg: an RMW without FlagSync); Stored is false for a cas that
	// failed. Whether it orders threads (a C11 seq_cst atomic) or is a
	// plain access is each detector's option, as DESIGN.md §3 asks.
	OpAtomic
	// OpSyncAccess is a Read, Write or RMW of the synchronisation word
	// Addr (FlagSync): the memory access of a lock, unlock, barrier or
	// condition-variable instruction. It is not data: the instruction's
	// own event (Acquire, Release, BarrierArrive, …) says what it orders.
	// The event's Kind says which access (and Stored, for an RMW).
	OpSyncAccess
	// OpFree frees FreeWords words from Addr; a later access to them
	// crashes. Detectors may count it as a write to each word (DESIGN.md
	// §3: hb must, to see PSet Table 1 row 1).
	OpFree
	// OpFault is a Crash: an access to Addr that faulted and was not
	// emitted (Addr 0: the crash was no access fault).
	// isa.Program.FaultOp says which instruction's access it was and
	// rejects an Addr that names no word.
	OpFault
	// OpSpawn: the thread started thread Child; every event of Child
	// follows it.
	OpSpawn
	// OpJoin: the thread returned from joining thread Joined, which had
	// exited.
	OpJoin
	// OpExit: the thread exited (its last event).
	OpExit
	// OpAcquire: the thread acquired lock Addr (cwait's reacquire too).
	OpAcquire
	// OpRelease: the thread released lock Addr (cwait's release too).
	OpRelease
	// OpArrive: the thread arrived at barrier Addr in generation
	// Generation, which waits for Parties threads.
	OpArrive
	// OpLeave: the thread left barrier Addr's generation Generation:
	// every arrival of that generation happened before.
	OpLeave
	// OpWait: the thread sleeps on condition variable Addr, having
	// released lock WaitLock (that Release comes just before).
	OpWait
	// OpSignal: the thread signalled condition variable Addr (a cbcast
	// when Broadcast), waking Woken waiters, FirstWoken the first. The
	// OpWake of each waiter it woke follows it.
	OpSignal
	// OpWake: the event's thread, a waiter on condition variable Addr,
	// was woken by thread Signaller's signal, which came just before; the
	// waiter's reacquire (OpAcquire) follows.
	OpWake
	// NumOps is the number of operations.
	NumOps
)

var opNames = [NumOps]string{"none", "read", "write", "atomic", "sync-access", "free", "fault",
	"spawn", "join", "exit", "acquire", "release", "arrive", "leave", "wait", "signal", "wake"}

// String names the operation, e.g. "acquire".
func (k OpKind) String() string {
	if k < NumOps {
		return opNames[k]
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// opOf maps each kind to its operation, before FlagSync is considered
// (indexed by any uint8, so the lookup needs no bounds check).
var opOf = [256]OpKind{
	KindRead: OpRead, KindWrite: OpWrite, KindRMW: OpAtomic, KindFree: OpFree, KindCrash: OpFault,
	KindSpawn: OpSpawn, KindJoin: OpJoin, KindThreadExit: OpExit, KindAcquire: OpAcquire, KindRelease: OpRelease,
	KindBarrierArrive: OpArrive, KindBarrierLeave: OpLeave,
	KindCondWait: OpWait, KindCondSignal: OpSignal, KindCondWake: OpWake,
}

// Op decodes what e does: the one reading of program events that
// detectors share (the operands are the event's Addr and the accessors
// each OpKind names). It inlines and never allocates. Events of other
// groups decode to OpNone.
func (e *Event) Op() OpKind {
	k := opOf[e.Kind]
	if k-OpRead <= OpAtomic-OpRead && e.Flags&FlagSync != 0 {
		k = OpSyncAccess
	}
	return k
}

// Reads reports whether an access (OpRead, OpWrite, OpAtomic or
// OpSyncAccess) read its word: a Read, or an RMW (even one that did not
// store).
func (e *Event) Reads() bool { return e.Kind == KindRead || e.Kind == KindRMW }

// Writes reports whether an access wrote its word: a Write, or an RMW
// that stored.
func (e *Event) Writes() bool { return e.Kind == KindWrite || e.Kind == KindRMW && e.Stored() }
