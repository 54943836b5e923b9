package core

// This file holds Bugaboo's communication context (Lucia and Ceze, MICRO
// 2009): the events, their codes and the shift register that keeps the most
// recent ones. The hardware (cpu/bugaboo) and the software detector
// (detectors/bugaboo) share it from this leaf, so their graphs compare node
// for node.

import (
	"fmt"
	"strings"
)

// CommEvent is one of the four communication events a thread (BB-SW) or a
// processor (BB-HW) sees, from its own point of view. Events are recorded
// without regard to the data's address (digest §1.2).
type CommEvent uint8

// The communication events, numbered as Recon's 2-bit codes are.
const (
	// LcRd is a local read of data recently written by a remote thread
	// (BB-HW: a local read miss).
	LcRd CommEvent = 0
	// LcWr is a local write of data recently read or written by a remote
	// thread (BB-HW: a local write or upgrade miss).
	LcWr CommEvent = 1
	// RmRd is a remote thread reading data recently written locally
	// (BB-HW: an incoming read request).
	RmRd CommEvent = 2
	// RmWr is a remote thread writing data recently read or written
	// locally (BB-HW: an incoming invalidation).
	RmWr CommEvent = 3
	// NumCommEvents is the number of events.
	NumCommEvents = 4
)

var commEventNames = [NumCommEvents]string{"LcRd", "LcWr", "RmRd", "RmWr"}

// String returns the event's name as the paper spells it, e.g. "LcRd".
func (e CommEvent) String() string {
	if int(e) < NumCommEvents {
		return commEventNames[e]
	}
	return fmt.Sprintf("CommEvent(%d)", uint8(e))
}

// Context is the value of a context register: the codes of the most recent
// events, the newest in the low bits (the communication context, digest
// §1.3). Its layout is given by an ContextCode.
type Context uint32

// Context register sizes.
const (
	// DefaultContextSize is the paper's context size S: 5 events.
	DefaultContextSize = 5
	// MaxContextSize is the largest context size an ContextCode supports (24
	// bits with 3-bit codes).
	MaxContextSize = 8
)

// ContextCode describes a context register: how many events it keeps and how
// each event is coded. The zero ContextCode keeps no event (S = 0, the
// context-oblivious graph).
//
// By default an event is a 2-bit code equal to its CommEvent value (LcRd=0,
// LcWr=1, RmRd=2, RmWr=3, as in Recon), so the initial register value 0
// also reads as S LcRd events. With DistinctEmpty each event is a 3-bit
// code, EMPTY=0 and the events 1..4 (the event's value plus one), so an
// empty slot is told apart from an LcRd.
type ContextCode struct {
	// Size is the number of events S kept, 0..MaxContextSize.
	Size int
	// DistinctEmpty uses 3-bit codes with a distinct EMPTY code 0.
	DistinctEmpty bool
}

// DefaultContextCode is the paper's register: 5 events of 2 bits, 10 bits
// (mask 0x3FF).
var DefaultContextCode = ContextCode{Size: DefaultContextSize}

// Valid reports whether the encoding's size is in range.
func (c ContextCode) Valid() error {
	if c.Size < 0 || c.Size > MaxContextSize {
		return fmt.Errorf("context size %d out of range 0..%d", c.Size, MaxContextSize)
	}
	return nil
}

// Bits returns the width of one event code: 2, or 3 with DistinctEmpty.
func (c ContextCode) Bits() uint {
	if c.DistinctEmpty {
		return 3
	}
	return 2
}

// Width returns the register's width in bits: Size × Bits.
func (c ContextCode) Width() uint { return uint(c.Size) * c.Bits() }

// Mask returns the register's mask: the low Width bits set.
func (c ContextCode) Mask() Context { return Context(1)<<c.Width() - 1 }

// Code returns the code shifted in for event e.
func (c ContextCode) Code(e CommEvent) Context {
	if c.DistinctEmpty {
		return Context(e) + 1
	}
	return Context(e)
}

// Push returns ctx with event e shifted in as the newest event; the oldest
// falls off the top: ((ctx << bits) | code(e)) & mask. With Size 0 it is
// always 0.
func (c ContextCode) Push(ctx Context, e CommEvent) Context {
	return (ctx<<c.Bits() | c.Code(e)) & c.Mask()
}

// Events decodes ctx into its events, oldest first. With DistinctEmpty
// the empty slots are left out (a code that is no event, 5..7, decodes as
// CommEvent(4..6)); without it every one of the Size slots is an event.
func (c ContextCode) Events(ctx Context) []CommEvent {
	bits := c.Bits()
	one := Context(1)<<bits - 1
	out := make([]CommEvent, 0, c.Size)
	for i := c.Size - 1; i >= 0; i-- {
		code := ctx >> (uint(i) * bits) & one
		if c.DistinctEmpty {
			if code == 0 {
				continue
			}
			code--
		}
		out = append(out, CommEvent(code))
	}
	return out
}

// Format spells ctx as the paper does: its events oldest first, e.g.
// "(RmRd,RmRd,LcWr)"; "()" for an empty DistinctEmpty register or Size 0.
func (c ContextCode) Format(ctx Context) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, e := range c.Events(ctx) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(e.String())
	}
	b.WriteByte(')')
	return b.String()
}

// Of returns the register value after pushing events, oldest first, into
// an empty register.
func (c ContextCode) Of(events ...CommEvent) Context {
	var ctx Context
	for _, e := range events {
		ctx = c.Push(ctx, e)
	}
	return ctx
}
