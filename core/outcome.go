package core

import (
	"fmt"
	"strings"
)

// OutcomeKind classifies how a run ended, in increasing precedence: a run
// that both failed an assert and printed wrong outputs is an Assert.
type OutcomeKind uint8

// The outcomes, lowest precedence first (DESIGN.md §4).
const (
	// Pass: every thread exited and the outputs are as expected.
	Pass OutcomeKind = iota
	// WrongOutput: the outputs differ from the program's .expect.
	WrongOutput
	// Hang: a deadlock, or a run past sim.max_cycles.
	Hang
	// Error: a fail instruction ran (an error-message site).
	Error
	// Assert: an assert failed.
	Assert
	// Crash: a faulting access, a bad free, a bad unlock, a spawn with no
	// free core, ….
	Crash
	// NumOutcomes is the number of outcome kinds.
	NumOutcomes
)

// outcomeNames are the outcomes' names in run JSON, trace text and
// reports: the one place they are spelled.
var outcomeNames = [NumOutcomes]string{"pass", "wrong_output", "hang", "error", "assert", "crash"}

// String returns the outcome's name as it appears in run JSON.
func (k OutcomeKind) String() string {
	if k >= NumOutcomes {
		return fmt.Sprintf("outcome(%d)", uint8(k))
	}
	return outcomeNames[k]
}

// Valid reports whether k is one of the outcomes (a decoded trace's RunEnd
// may hold anything).
func (k OutcomeKind) Valid() bool { return k < NumOutcomes }

// Failed reports whether the run failed: any outcome but Pass.
func (k OutcomeKind) Failed() bool { return k != Pass }

// MarshalText spells the outcome by name (run JSON's "outcome").
func (k OutcomeKind) MarshalText() ([]byte, error) {
	if !k.Valid() {
		return nil, fmt.Errorf("unknown outcome %d", uint8(k))
	}
	return []byte(outcomeNames[k]), nil
}

// UnmarshalText reads an outcome's name.
func (k *OutcomeKind) UnmarshalText(b []byte) error {
	x, err := ParseOutcome(string(b))
	if err != nil {
		return err
	}
	*k = x
	return nil
}

// ParseOutcome parses an outcome name.
func ParseOutcome(s string) (OutcomeKind, error) {
	for i, n := range outcomeNames {
		if n == s {
			return OutcomeKind(i), nil
		}
	}
	return Pass, fmt.Errorf("unknown outcome %q (the outcomes are %s)", s, strings.Join(outcomeNames[:], ", "))
}

// OutcomeNames returns the outcomes' names in order of precedence, pass
// first.
func OutcomeNames() []string { return outcomeNames[:] }

// Outcome is how a run ended and what caused it.
type Outcome struct {
	// Kind is how the run ended.
	Kind OutcomeKind
	// PC is the PC of the instruction that caused the outcome, or NoPC.
	PC int32
	// Thread is the thread that caused it, or -1.
	Thread int32
	// Msg explains the outcome ("" for a pass).
	Msg string
	// Cycle is the cycle the run ended.
	Cycle Cycle
	// Deadlock marks a Hang in which every live thread was blocked on the
	// program's synchronisation (not one that ran past sim.max_cycles).
	Deadlock bool
}
