// Package coherence models the memory system: private set-associative L1
// caches that hold the data, the MESI protocol as an explicit transition
// table, an atomic snooping bus with FIFO arbitration, main memory, and the
// per-line metadata mechanism that hardware extensions build on.
package coherence

import "fmt"

// State is a MESI line state.
type State uint8

// The MESI states.
const (
	Invalid State = iota
	Shared
	Exclusive
	Modified
	numStates
)

var stateNames = [numStates]string{"I", "S", "E", "M"}

// String returns the one-letter state name.
func (s State) String() string {
	if s < numStates {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", uint8(s))
}

// ProtoEvent is an input to the MESI table.
type ProtoEvent uint8

// The protocol events.
const (
	LocalRead ProtoEvent = iota
	LocalWrite
	SnoopBusRd
	SnoopBusRdX
	SnoopBusUpgr
	Evict
	numProtoEvents
)

var protoEventNames = [numProtoEvents]string{"LocalRead", "LocalWrite", "SnoopBusRd", "SnoopBusRdX", "SnoopBusUpgr", "Evict"}

// String returns the event's name.
func (e ProtoEvent) String() string {
	if e < numProtoEvents {
		return protoEventNames[e]
	}
	return fmt.Sprintf("ProtoEvent(%d)", uint8(e))
}

// Action is a set of things a transition does.
type Action uint8

// The actions.
const (
	// ActBusRd issues a BusRd (the row's NextAlone says the line becomes E
	// when no other cache holds it).
	ActBusRd Action = 1 << iota
	// ActBusRdX issues a BusRdX.
	ActBusRdX
	// ActBusUpgr issues a BusUpgr.
	ActBusUpgr
	// ActSupply sends the line's data (and metadata) to the requester.
	ActSupply
	// ActWriteback copies the line's data back to memory.
	ActWriteback
	// ActInvalAck acknowledges an invalidation (carrying metadata).
	ActInvalAck
)

// Transition is one row of the MESI table.
type Transition struct {
	// Next is the line's state after the event.
	Next State
	// NextAlone, when not Invalid, replaces Next when the transaction the
	// row issued found no other cache holding the line (a read miss that
	// nobody shares fills in E, not S).
	NextAlone State
	// Actions are the protocol actions the event takes (Act* bits).
	Actions Action
	// Defined reports whether the pair is part of the protocol; reaching an
	// undefined pair is an internal error.
	Defined bool
}

// mesiTable is the protocol: (state, event) → (next state, actions). A pair
// left zero is undefined and reaching it is an internal error.
var mesiTable = [numStates][numProtoEvents]Transition{
	Invalid: {
		LocalRead:    {Next: Shared, NextAlone: Exclusive, Actions: ActBusRd, Defined: true},
		LocalWrite:   {Next: Modified, Actions: ActBusRdX, Defined: true},
		SnoopBusRd:   {Next: Invalid, Defined: true},
		SnoopBusRdX:  {Next: Invalid, Defined: true},
		SnoopBusUpgr: {Next: Invalid, Defined: true},
	},
	Shared: {
		LocalRead:    {Next: Shared, Defined: true},
		LocalWrite:   {Next: Modified, Actions: ActBusUpgr, Defined: true},
		SnoopBusRd:   {Next: Shared, Defined: true},
		SnoopBusRdX:  {Next: Invalid, Actions: ActInvalAck, Defined: true},
		SnoopBusUpgr: {Next: Invalid, Actions: ActInvalAck, Defined: true},
		Evict:        {Next: Invalid, Defined: true},
	},
	Exclusive: {
		LocalRead:   {Next: Exclusive, Defined: true},
		LocalWrite:  {Next: Modified, Defined: true},
		SnoopBusRd:  {Next: Shared, Actions: ActSupply, Defined: true},
		SnoopBusRdX: {Next: Invalid, Actions: ActSupply | ActInvalAck, Defined: true},
		Evict:       {Next: Invalid, Defined: true},
	},
	Modified: {
		LocalRead:   {Next: Modified, Defined: true},
		LocalWrite:  {Next: Modified, Defined: true},
		SnoopBusRd:  {Next: Shared, Actions: ActSupply | ActWriteback, Defined: true},
		SnoopBusRdX: {Next: Invalid, Actions: ActSupply | ActInvalAck, Defined: true},
		Evict:       {Next: Invalid, Actions: ActWriteback, Defined: true},
	},
}

// Lookup returns the table row for (s, e).
func Lookup(s State, e ProtoEvent) Transition {
	if s >= numStates || e >= numProtoEvents {
		return Transition{}
	}
	return mesiTable[s][e]
}
