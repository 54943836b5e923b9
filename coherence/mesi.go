// Package coherence models the memory system: private set-associative L1
// caches that hold the data, the MESI protocol as an explicit transition
// table, a snooping bus with FIFO arbitration (atomic, or split-transaction
// with transient states), an optional shared L2, main memory, and the
// per-line metadata mechanism that hardware extensions build on.
package coherence

import "fmt"

// State is a MESI line state.
type State uint8

// The MESI states, then the transient states of the split-transaction bus
// (named as SLICC names them): a miss past its order point whose data has
// not arrived. The atomic bus never enters them.
const (
	Invalid State = iota
	Shared
	Exclusive
	Modified
	// ISD is a read miss waiting for its data (I → S or E).
	ISD
	// IMD is a write miss waiting for its data (I → M).
	IMD
	numStates
)

var stateNames = [numStates]string{"I", "S", "E", "M", "IS_D", "IM_D"}

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
	// DataResp is the arrival of a split-bus miss's data at the requester.
	DataResp
	numProtoEvents
)

var protoEventNames = [numProtoEvents]string{"LocalRead", "LocalWrite", "SnoopBusRd", "SnoopBusRdX", "SnoopBusUpgr", "Evict", "DataResp"}

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
	// Pending, when not Invalid, is the transient state the line waits in
	// on the split-transaction bus from the row's transaction's order
	// point until its data arrives (the DataResp row of Pending then gives
	// Next and NextAlone). The atomic bus goes straight to Next.
	Pending State
	// Actions are the protocol actions the event takes (Act* bits).
	Actions Action
	// Defined reports whether the pair is part of the protocol; reaching an
	// undefined pair is an internal error.
	Defined bool
}

// mesiTable is the protocol: (state, event) → (next state, actions). A pair
// left zero is undefined and reaching it is an internal error. A line in a
// transient state takes no snoop, local access or eviction: the bus holds
// back every later request for a line with a transaction in flight, and
// its core is blocked on the miss, so reaching any such pair is a bug.
var mesiTable = [numStates][numProtoEvents]Transition{
	Invalid: {
		LocalRead:    {Next: Shared, NextAlone: Exclusive, Pending: ISD, Actions: ActBusRd, Defined: true},
		LocalWrite:   {Next: Modified, Pending: IMD, Actions: ActBusRdX, Defined: true},
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
	ISD: {
		DataResp: {Next: Shared, NextAlone: Exclusive, Defined: true},
	},
	IMD: {
		DataResp: {Next: Modified, Defined: true},
	},
}

// Lookup returns the table row for (s, e).
func Lookup(s State, e ProtoEvent) Transition {
	if s >= numStates || e >= numProtoEvents {
		return Transition{}
	}
	return mesiTable[s][e]
}
