package core

import "strings"

// CommEvent is one of Bugaboo's four communication events (Lucia and Ceze,
// MICRO 2009), as a thread or a core sees them: a local read or write of
// remotely written data, a remote read or write of locally written data.
type CommEvent uint8

// The communication events, numbered as their 2-bit codes.
const (
	LcRd CommEvent = iota
	LcWr
	RmRd
	RmWr
)

var commEventNames = [...]string{"LcRd", "LcWr", "RmRd", "RmWr"}

// String returns the event's name.
func (e CommEvent) String() string {
	if int(e) < len(commEventNames) {
		return commEventNames[e]
	}
	return "CommEvent(?)"
}

// ContextCode is how communication contexts are encoded: the most recent
// Size events, newest in the low bits, 2 bits each (an empty slot reads as
// LcRd, the paper's encoding) or, with DistinctEmpty, 3 bits each with
// EMPTY = 0 and the events 1 to 4. The hardware's context register and the
// software detector share it, so their graphs compare node for node.
type ContextCode struct {
	// Size is the number of events kept (0 to 8; 0 is no context).
	Size int
	// DistinctEmpty gives an empty slot its own code.
	DistinctEmpty bool
}

// bits is the width of one event's code.
func (c ContextCode) bits() uint {
	if c.DistinctEmpty {
		return 3
	}
	return 2
}

// Bits is the width of a context in bits.
func (c ContextCode) Bits() int { return c.Size * int(c.bits()) }

// Push shifts event e into context ctx and returns the new context: the
// oldest event falls off the top.
func (c ContextCode) Push(ctx uint32, e CommEvent) uint32 {
	if c.Size == 0 {
		return 0
	}
	b := c.bits()
	code := uint32(e)
	if c.DistinctEmpty {
		code++
	}
	mask := uint32(1)<<(uint(c.Size)*b) - 1
	return (ctx<<b | code) & mask
}

// Format writes a context oldest event first, e.g. "(RmRd,RmRd,LcWr)";
// empty slots are left out with DistinctEmpty, and written as the LcRd
// they read as otherwise only when n, the number of events pushed so far,
// covers them (n < 0: all Size slots).
func (c ContextCode) Format(ctx uint32, n int) string {
	if n < 0 || n > c.Size {
		n = c.Size
	}
	b := c.bits()
	var parts []string
	for i := c.Size - 1; i >= 0; i-- {
		code := ctx >> (uint(i) * b) & (1<<b - 1)
		if c.DistinctEmpty {
			if code == 0 {
				continue
			}
			code--
		} else if i >= n {
			continue
		}
		parts = append(parts, CommEvent(code).String())
	}
	return "(" + strings.Join(parts, ",") + ")"
}
