package core

import (
	"fmt"
	"strings"
)

// Cycle is simulated time in processor cycles. One clock drives the machine.
type Cycle uint64

// Kind names what an Event reports. The names are stable: trace files and
// detectors depend on them.
type Kind uint8

// The event kinds, grouped as in DESIGN.md §3.
const (
	KindNone Kind = iota

	// Program events.
	KindRead
	KindWrite
	KindRMW
	KindSpawn
	KindJoin
	KindThreadExit
	KindAcquire
	KindRelease
	KindBarrierArrive
	KindBarrierLeave
	KindCondWait
	KindCondWake
	KindCondSignal
	KindFree
	KindOutput
	KindAssertFail
	KindErrorMsg
	KindCrash
	KindHang

	// Coherence events.
	KindBusRd
	KindBusRdX
	KindBusUpgr
	KindWriteback
	KindSnoop
	KindFill
	KindEvict
	KindMetaPiggyback

	// Bugaboo hardware events.
	KindCtxShift
	KindCTInsert
	KindCTDrop
	KindCTTrapBegin
	KindCTDrain
	KindCTTrapEnd

	// PSet hardware events.
	KindPSetCheck
	KindPSetViolation
	KindStallBegin
	KindStallEnd
	KindCheckpoint
	KindRollback
	KindRollbackExhausted
	KindPSetUpdate

	// Run events.
	KindRunStart
	KindRunEnd

	// NumKinds is one past the last kind.
	NumKinds
)

var kindNames = [NumKinds]string{
	"None",
	"Read", "Write", "RMW", "Spawn", "Join", "ThreadExit", "Acquire", "Release",
	"BarrierArrive", "BarrierLeave", "CondWait", "CondWake", "CondSignal", "Free",
	"Output", "AssertFail", "ErrorMsg", "Crash", "Hang",
	"BusRd", "BusRdX", "BusUpgr", "Writeback", "Snoop", "Fill", "Evict", "MetaPiggyback",
	"CtxShift", "CTInsert", "CTDrop", "CTTrapBegin", "CTDrain", "CTTrapEnd",
	"PSetCheck", "PSetViolation", "StallBegin", "StallEnd", "Checkpoint", "Rollback",
	"RollbackExhausted", "PSetUpdate",
	"RunStart", "RunEnd",
}

// String returns the kind's stable name, e.g. "Read".
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// ParseKind returns the kind with the given stable name, ignoring case.
func ParseKind(name string) (Kind, error) {
	for k, n := range kindNames {
		if k != 0 && strings.EqualFold(n, name) {
			return Kind(k), nil
		}
	}
	return KindNone, fmt.Errorf("unknown event kind %q", name)
}

// KindMask is a set of kinds, one bit per kind.
type KindMask uint64

// MaskOf returns the set holding the given kinds.
func MaskOf(kinds ...Kind) KindMask {
	var m KindMask
	for _, k := range kinds {
		m |= 1 << k
	}
	return m
}

// AllKinds is the set of every kind.
const AllKinds KindMask = (1<<NumKinds - 1) &^ 1

// Has reports whether k is in the set.
func (m KindMask) Has(k Kind) bool { return m&(1<<k) != 0 }

// Names returns the names of the kinds in m, in kind order.
func (m KindMask) Names() []string {
	var names []string
	for k := Kind(1); k < NumKinds; k++ {
		if m.Has(k) {
			names = append(names, k.String())
		}
	}
	return names
}

// Event flags.
const (
	// FlagSync marks an access to a synchronisation word (lock, barrier,
	// condition variable).
	FlagSync uint8 = 1 << iota
	// FlagHit marks an access (Read, Write, RMW) the L1 served without
	// the bus.
	FlagHit
	// FlagC2C marks a fill or transaction served cache to cache.
	FlagC2C
)

// NoPC is the PC of events that no instruction caused.
const NoPC int32 = -1

// Event is one flat record of the event stream. What each field means for
// each kind is its Contract (ContractOf); unused fields are zero (-1 for
// Core and Thread, NoPC for PC). List is borrowed: an observer that keeps
// it must copy it. Readers decode a program event with Op and read the
// payload (Value, Words, List) with the named accessors (Stored, Child,
// Generation, Outcome, …), never by index.
type Event struct {
	// Kind says what the event reports.
	Kind Kind
	// Flags holds Flag* bits (FlagSync, FlagHit, FlagC2C).
	Flags uint8
	// Core is the core the event concerns, or -1 for run-wide events.
	Core int32
	// Thread is the thread that caused it, or -1 (bus and cache events).
	Thread int32
	// PC is the PC of the instruction that caused it, or NoPC.
	PC int32
	// Cycle is the cycle at which it happened.
	Cycle Cycle
	// Addr is the byte address it concerns (a line's first byte for bus
	// and cache events), or 0.
	Addr uint64
	// Value is a kind-specific signed payload, such as the value read or
	// written.
	Value int64
	// Words are kind-specific payload words (the contract names each).
	Words [4]uint64
	// List is a kind-specific payload of any length, such as the cores that
	// responded to a bus transaction.
	List []uint64
}

// Observer is a passive consumer of events. It must not change the run.
type Observer interface {
	Observe(e *Event)
}

type watcher struct {
	mask KindMask
	obs  Observer
}

// Stream fans events out to observers registered by kind mask. Producers
// call Watching before filling an event, so an unwatched kind costs one
// branch.
type Stream struct {
	mask     KindMask
	watchers []watcher
}

// Attach registers an observer for the kinds in mask.
func (s *Stream) Attach(mask KindMask, o Observer) {
	s.watchers = append(s.watchers, watcher{mask: mask, obs: o})
	s.mask |= mask
}

// Watching reports whether any observer wants kind k.
func (s *Stream) Watching(k Kind) bool { return s.mask&(1<<k) != 0 }

// Mask returns the union of all observers' masks.
func (s *Stream) Mask() KindMask { return s.mask }

// Emit delivers e to every observer that watches its kind, in attach order.
func (s *Stream) Emit(e *Event) {
	bit := KindMask(1) << e.Kind
	if s.mask&bit == 0 {
		return
	}
	for i := range s.watchers {
		if s.watchers[i].mask&bit != 0 {
			s.watchers[i].obs.Observe(e)
		}
	}
}

// ObserverFunc adapts a function to the Observer interface.
type ObserverFunc func(e *Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e *Event) { f(e) }
