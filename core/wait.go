package core

import "fmt"

// WaitKind says what ends a Wait.
type WaitKind uint8

// The wait conditions.
const (
	// UntilAccess ends the wait when another thread performs an access to
	// the word at Addr. Only accesses performed while the wait is on count.
	UntilAccess WaitKind = iota
	// UntilWrite ends it when another thread writes the word at Addr.
	UntilWrite
	// UntilInvalidate ends it when the line holding Addr leaves some cache
	// (invalidated or evicted).
	UntilInvalidate
	// UntilCycle ends it at cycle Cycle.
	UntilCycle
	// UntilPredicate ends it once Pred holds. Pred is evaluated when the
	// wait starts, after every memory access, and after every other
	// globally visible instruction (sync, spawn, join, exit, out, …).
	UntilPredicate
	// UntilLineAccess ends it when another thread performs an access to
	// any word of the line holding Addr: a check-phase stall's default.
	UntilLineAccess
	numWaitKinds
)

var waitKindNames = [numWaitKinds]string{"access", "write", "invalidate", "cycle", "predicate", "line-access"}

// String returns the condition's name.
func (k WaitKind) String() string {
	if k < numWaitKinds {
		return waitKindNames[k]
	}
	return fmt.Sprintf("WaitKind(%d)", uint8(k))
}

// View is the small read-only view of a running machine that wait
// predicates may consult. It is declared here so that schedule-forcing
// detectors need not import the processor model.
type View interface {
	// Now returns the current global cycle.
	Now() Cycle
	// Word returns the current (coherent) value of the data or heap word at
	// addr; ok is false for an address outside data and heap.
	Word(addr uint64) (v int64, ok bool)
	// ThreadPC returns the PC of a live thread (the next instruction it will
	// execute); ok is false for a thread that has not started or has exited.
	ThreadPC(tid int32) (pc int32, ok bool)
	// Exited reports whether thread tid has started and exited.
	Exited(tid int32) bool
}

// Wait is one schedule-control condition with a timeout: the single wait
// type behind park rules and check-phase stalls alike.
type Wait struct {
	// Until is the condition that ends the wait.
	Until WaitKind
	// Addr is the byte address UntilAccess, UntilWrite, UntilInvalidate and
	// UntilLineAccess watch.
	Addr uint64
	// Cycle is the cycle UntilCycle waits for.
	Cycle Cycle
	// Pred is the condition of UntilPredicate. It must only read the view.
	Pred func(v View) bool
	// Timeout ends the wait this many cycles after it began; 0 waits for
	// the condition alone.
	Timeout Cycle
}

// Check reports what is wrong with w, or nil.
func (w *Wait) Check() error {
	switch {
	case w.Until >= numWaitKinds:
		return fmt.Errorf("unknown wait condition %d", w.Until)
	case w.Until == UntilPredicate && w.Pred == nil:
		return fmt.Errorf("wait until predicate needs a predicate")
	case w.Until == UntilCycle && w.Cycle == 0 && w.Timeout == 0:
		return fmt.Errorf("wait until cycle 0 ends at once")
	}
	return nil
}

// ParkRule parks a thread just before it executes PC until its wait ends.
// Rules of one thread fire in the order they were added, each once; a rule
// armed when the one before it releases the thread counts the arrival that
// one parked at (so two rules at one PC can hold one arrival in turn).
type ParkRule struct {
	// Thread is the thread to park.
	Thread int32
	// PC is the instruction the thread parks before.
	PC int32
	// Skip is how many arrivals at PC the thread passes before the one it
	// parks at (0: the first). Passing costs nothing and changes no cycle:
	// a rule parks the thread at the Skip+1st dynamic instance of PC.
	Skip uint32
	// Wait is the condition that releases it, with its timeout.
	Wait
}

// ParkResult reports what became of a park rule.
type ParkResult struct {
	// Parked reports whether the thread reached PC and parked.
	Parked bool
	// Released reports whether it has been released.
	Released bool
	// TimedOut reports whether the timeout released it, not its condition.
	TimedOut bool
	// ParkedAt is the cycle it parked.
	ParkedAt Cycle
	// ReleasedAt is the cycle it was released.
	ReleasedAt Cycle
}
