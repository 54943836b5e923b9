package race

import (
	"slices"
	"strconv"
	"strings"

	"weft/core"
)

// Section is one dynamic critical section a thread is in: the lock word
// and the section's id, unique within a run (every acquire opens a new
// one, cwait's reacquire included).
type Section struct {
	// Lock is the lock word.
	Lock uint64
	// ID numbers the acquire that opened it, from 1.
	ID uint64
}

// Held is what one thread holds at one point: its open critical sections,
// sorted by lock word. A Held handed out by Locks is never modified.
type Held struct {
	// Set identifies the set of lock words (not the sections): two Helds
	// with the same lock words have the same Set. 0 is the empty set.
	Set int32
	// Sections are the open critical sections, sorted by Lock.
	Sections []Section
}

// noLocks is the Held of a thread that holds nothing.
var noLocks = &Held{}

// Common reports whether h and o hold a common lock word.
func (h *Held) Common(o *Held) bool {
	i, j := 0, 0
	for i < len(h.Sections) && j < len(o.Sections) {
		a, b := h.Sections[i].Lock, o.Sections[j].Lock
		switch {
		case a == b:
			return true
		case a < b:
			i++
		default:
			j++
		}
	}
	return false
}

// Holds reports whether h holds lock word l.
func (h *Held) Holds(l uint64) bool {
	_, ok := h.section(l)
	return ok
}

// section returns the open section of lock word l.
func (h *Held) section(l uint64) (Section, bool) {
	i, ok := slices.BinarySearchFunc(h.Sections, l, func(s Section, l uint64) int {
		switch {
		case s.Lock < l:
			return -1
		case s.Lock > l:
			return 1
		}
		return 0
	})
	if !ok {
		return Section{}, false
	}
	return h.Sections[i], true
}

// In reports whether h is in the dynamic critical section s.
func (h *Held) In(s Section) bool {
	t, ok := h.section(s.Lock)
	return ok && t.ID == s.ID
}

// Locks tracks the locks each thread holds from Acquire and Release
// events (a cwait releases its lock and reacquires it when woken, as its
// events say), with dynamic critical-section ids. It is not safe for
// concurrent use.
type Locks struct {
	threads []*Held
	sets    map[string]int32
	nextCS  uint64
}

// NewLocks returns an empty lock tracker.
func NewLocks() *Locks { return &Locks{sets: map[string]int32{"": 0}} }

// LockKinds are the event kinds Locks.Observe reads.
func LockKinds() core.KindMask { return core.MaskOf(core.KindAcquire, core.KindRelease) }

// Now returns what thread t holds (nothing for a thread not seen, or out
// of range). The result must not be modified.
func (l *Locks) Now(t int) *Held {
	if t < 0 || t >= len(l.threads) || l.threads[t] == nil {
		return noLocks
	}
	return l.threads[t]
}

// Observe reads one event; kinds outside LockKinds, and events with a
// thread id out of range, are ignored. Acquiring a lock the thread holds,
// or releasing one it does not, changes nothing.
func (l *Locks) Observe(e *core.Event) {
	t, op := int(e.Thread), e.Op()
	if !validThread(t) || (op != core.OpAcquire && op != core.OpRelease) {
		return
	}
	cur := l.Now(t)
	_, holds := cur.section(e.Addr)
	var secs []Section
	switch {
	case op == core.OpAcquire && !holds:
		l.nextCS++
		secs = append(slices.Clone(cur.Sections), Section{Lock: e.Addr, ID: l.nextCS})
		slices.SortFunc(secs, func(a, b Section) int {
			if a.Lock < b.Lock {
				return -1
			}
			return 1
		})
	case op == core.OpRelease && holds:
		secs = slices.DeleteFunc(slices.Clone(cur.Sections), func(s Section) bool { return s.Lock == e.Addr })
	default:
		return
	}
	for len(l.threads) <= t {
		l.threads = append(l.threads, nil)
	}
	l.threads[t] = &Held{Set: l.intern(secs), Sections: secs}
}

// intern returns the id of the set of lock words of secs.
func (l *Locks) intern(secs []Section) int32 {
	var b strings.Builder
	for _, s := range secs {
		b.WriteString(strconv.FormatUint(s.Lock, 16))
		b.WriteByte(',')
	}
	k := b.String()
	id, ok := l.sets[k]
	if !ok {
		id = int32(len(l.sets))
		l.sets[k] = id
	}
	return id
}
