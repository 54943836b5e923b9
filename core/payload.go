package core

import "math"

// Named accessors for event payloads.
//
// Each accessor reads one payload field (a word of Words, Value or List)
// of the kinds its comment names, under the field's label in the event
// contract (ContractOf, and `weft trace --text`); on any other kind it
// reads whatever that field holds, which means nothing. A test ties every
// accessor to the contract table, both ways: the field it reads carries
// its label for each kind it names, and every kind whose contract has
// that label at that field is named. Producers (cpu, coherence) write the
// fields directly; readers use these.
//
// The coherence kinds and most of BB-HW's have no accessors: nothing but
// the trace printer (which walks the contract) reads their words.

// threadID reads a payload word that holds a thread id: -1 when the word
// is no thread (the "none" of a CondSignal's first woken thread, or a
// value too large to be one).
func threadID(w uint64) int32 {
	if w > math.MaxInt32 {
		return -1
	}
	return int32(w)
}

// Old returns the value before an RMW (Words[0] "old").
func (e *Event) Old() int64 { return int64(e.Words[0]) }

// Stored reports whether an RMW stored (Words[1] "stored"): false for a
// cas or a lock swap that failed.
func (e *Event) Stored() bool { return e.Words[1] != 0 }

// Child returns the thread a Spawn started (Words[0] "child"; Value holds
// it too).
func (e *Event) Child() int32 { return threadID(e.Words[0]) }

// ChildCore returns the core a Spawn's child runs on (Words[1] "on").
func (e *Event) ChildCore() int32 { return threadID(e.Words[1]) }

// Joined returns the thread a Join waited for (Value "joined"; Words[0]
// holds it too), -1 when Value is no thread id.
func (e *Event) Joined() int32 { return threadID(uint64(e.Value)) }

// Generation returns the barrier generation of a BarrierArrive or
// BarrierLeave (Words[0] "gen").
func (e *Event) Generation() uint64 { return e.Words[0] }

// Parties returns the number of threads a BarrierArrive's barrier waits
// for (Words[1] "n").
func (e *Event) Parties() int64 { return int64(e.Words[1]) }

// Arrivals returns a BarrierArrive's arrivals in its generation, itself
// included (Value "count").
func (e *Event) Arrivals() int64 { return e.Value }

// WaitLock returns the lock word a CondWait released (Words[0] "lock");
// an Acquire's or Release's lock is its Addr.
func (e *Event) WaitLock() uint64 { return e.Words[0] }

// Signaller returns the thread whose CondSignal woke a CondWake's waiter
// (Words[0] "by"); the waiter is the event's Thread.
func (e *Event) Signaller() int32 { return threadID(e.Words[0]) }

// FirstWoken returns the first waiter a CondSignal woke (Words[0]
// "first"), -1 when it woke none.
func (e *Event) FirstWoken() int32 { return threadID(e.Words[0]) }

// Broadcast reports whether a CondSignal was a cbcast (Words[1] "bcast").
func (e *Event) Broadcast() bool { return e.Words[1] != 0 }

// Woken returns how many waiters a CondSignal woke (Value "woken"; 0: the
// signal was lost).
func (e *Event) Woken() int64 { return e.Value }

// FreeWords returns the number of words a Free freed from Addr (Value
// "words").
func (e *Event) FreeWords() int64 { return e.Value }

// Pred returns a PSetViolation's remote predecessor instruction (Words[0]
// "pred").
func (e *Event) Pred() int32 { return int32(e.Words[0]) }

// PredThread returns a PSetViolation's predecessor thread (Words[1]
// "predtid").
func (e *Event) PredThread() int32 { return threadID(e.Words[1]) }

// Dep returns a PSetViolation's dependence (Words[2] "dep"): 0 RAW, 1
// WAR, 2 WAW.
func (e *Event) Dep() uint64 { return e.Words[2] }

// Stalled reports whether a PSetViolation's access stalls or rolls back
// and will be checked again (Words[3] "stalled").
func (e *Event) Stalled() bool { return e.Words[3] != 0 }

// Window returns a rollback window in instructions (Value "window"): the
// window a rollback would need for a PSetViolation (0 outside the
// rollback modes), the window discarded for a Rollback.
func (e *Event) Window() int64 { return e.Value }

// Until returns a StallBegin's wait condition (Words[0] "until").
func (e *Event) Until() WaitKind { return WaitKind(min(e.Words[0], math.MaxUint8)) }

// WaitAddr returns the address a StallBegin's wait watches (Words[1]
// "waddr").
func (e *Event) WaitAddr() uint64 { return e.Words[1] }

// Timeout returns a StallBegin's timeout (Words[2] "timeout"; 0: none).
func (e *Event) Timeout() Cycle { return Cycle(e.Words[2]) }

// TimedOut reports whether a StallEnd's timeout, not its condition, ended
// the stall (Words[0] "timedout").
func (e *Event) TimedOut() bool { return e.Words[0] != 0 }

// TrapCost returns a CTTrapBegin's cycles (Words[1] "cost").
func (e *Event) TrapCost() uint64 { return e.Words[1] }

// Final reports whether a CTDrain is the drain at the run's end (Words[1]
// "final").
func (e *Event) Final() bool { return e.Words[1] != 0 }

// CtxSize returns the events of the context register a CTDrain's contexts
// encode (Words[2] "ctx_size").
func (e *Event) CtxSize() uint64 { return e.Words[2] }

// DistinctEmpty reports whether a CTDrain's contexts use 3-bit codes with
// a distinct EMPTY (Words[3] "distinct_empty").
func (e *Event) DistinctEmpty() bool { return e.Words[3] != 0 }

// EdgeCount returns the number of edges a CTDrain drained (Value
// "edges"); DrainedEdges should hold four words for each.
func (e *Event) EdgeCount() int64 { return e.Value }

// DrainedEdges returns a CTDrain's edges, four words each (List "edges"):
// source PC (all ones: NULL), source context, destination PC, destination
// context. The slice is borrowed.
func (e *Event) DrainedEdges() []uint64 { return e.List }

// Seed returns a RunStart's seed (Words[0] "seed").
func (e *Event) Seed() uint64 { return e.Words[0] }

// Outcome returns how a RunEnd's run ended (Words[0] "outcome"); a word
// that is no outcome (a decoded trace may hold anything) gives a kind
// that is not Valid and is Failed.
func (e *Event) Outcome() OutcomeKind { return OutcomeKind(min(e.Words[0], math.MaxUint8)) }
