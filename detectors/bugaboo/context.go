package bugaboo

// This file holds the communication context: the events, their codes and
// the shift register that keeps the most recent ones. It imports nothing
// but the standard library, so the hardware model (cpu/bugaboo) can import
// it, or copy it, and code contexts exactly as BB-SW does.

import (
	"fmt"
	"strings"
)

// Event is one of the four communication events a thread (BB-SW) or a
// processor (BB-HW) sees, from its own point of view. Events are recorded
// without regard to the data's address (digest §1.2).
type Event uint8

// The communication events, numbered as Recon's 2-bit codes are.
const (
	// LcRd is a local read of data recently written by a remote thread
	// (BB-HW: a local read miss).
	LcRd Event = 0
	// LcWr is a local write of data recently read or written by a remote
	// thread (BB-HW: a local write or upgrade miss).
	LcWr Event = 1
	// RmRd is a remote thread reading data recently written locally
	// (BB-HW: an incoming read request).
	RmRd Event = 2
	// RmWr is a remote thread writing data recently read or written
	// locally (BB-HW: an incoming invalidation).
	RmWr Event = 3
	// NumEvents is the number of events.
	NumEvents = 4
)

var eventNames = [NumEvents]string{"LcRd", "LcWr", "RmRd", "RmWr"}

// String returns the event's name as the paper spells it, e.g. "LcRd".
func (e Event) String() string {
	if int(e) < NumEvents {
		return eventNames[e]
	}
	return fmt.Sprintf("Event(%d)", uint8(e))
}

// Context is the value of a context register: the codes of the most recent
// events, the newest in the low bits (the communication context, digest
// §1.3). Its layout is given by an Encoding.
type Context uint32

// Context register sizes.
const (
	// DefaultContextSize is the paper's context size S: 5 events.
	DefaultContextSize = 5
	// MaxContextSize is the largest context size an Encoding supports (24
	// bits with 3-bit codes).
	MaxContextSize = 8
)

// Encoding describes a context register: how many events it keeps and how
// each event is coded. The zero Encoding keeps no event (S = 0, the
// context-oblivious graph).
//
// By default an event is a 2-bit code equal to its Event value (LcRd=0,
// LcWr=1, RmRd=2, RmWr=3, as in Recon), so the initial register value 0
// also reads as S LcRd events. With DistinctEmpty each event is a 3-bit
// code, EMPTY=0 and the events 1..4 (the event's value plus one), so an
// empty slot is told apart from an LcRd.
type Encoding struct {
	// Size is the number of events S kept, 0..MaxContextSize.
	Size int
	// DistinctEmpty uses 3-bit codes with a distinct EMPTY code 0.
	DistinctEmpty bool
}

// DefaultEncoding is the paper's register: 5 events of 2 bits, 10 bits
// (mask 0x3FF).
var DefaultEncoding = Encoding{Size: DefaultContextSize}

// Valid reports whether the encoding's size is in range.
func (c Encoding) Valid() error {
	if c.Size < 0 || c.Size > MaxContextSize {
		return fmt.Errorf("bugaboo: context size %d out of range 0..%d", c.Size, MaxContextSize)
	}
	return nil
}

// Bits returns the width of one event code: 2, or 3 with DistinctEmpty.
func (c Encoding) Bits() uint {
	if c.DistinctEmpty {
		return 3
	}
	return 2
}

// Width returns the register's width in bits: Size × Bits.
func (c Encoding) Width() uint { return uint(c.Size) * c.Bits() }

// Mask returns the register's mask: the low Width bits set.
func (c Encoding) Mask() Context { return Context(1)<<c.Width() - 1 }

// Code returns the code shifted in for event e.
func (c Encoding) Code(e Event) Context {
	if c.DistinctEmpty {
		return Context(e) + 1
	}
	return Context(e)
}

// Push returns ctx with event e shifted in as the newest event; the oldest
// falls off the top: ((ctx << bits) | code(e)) & mask. With Size 0 it is
// always 0.
func (c Encoding) Push(ctx Context, e Event) Context {
	return (ctx<<c.Bits() | c.Code(e)) & c.Mask()
}

// Events decodes ctx into its events, oldest first. With DistinctEmpty
// the empty slots are left out (a code that is no event, 5..7, decodes as
// Event(4..6)); without it every one of the Size slots is an event.
func (c Encoding) Events(ctx Context) []Event {
	bits := c.Bits()
	one := Context(1)<<bits - 1
	out := make([]Event, 0, c.Size)
	for i := c.Size - 1; i >= 0; i-- {
		code := ctx >> (uint(i) * bits) & one
		if c.DistinctEmpty {
			if code == 0 {
				continue
			}
			code--
		}
		out = append(out, Event(code))
	}
	return out
}

// Format spells ctx as the paper does: its events oldest first, e.g.
// "(RmRd,RmRd,LcWr)"; "()" for an empty DistinctEmpty register or Size 0.
func (c Encoding) Format(ctx Context) string {
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
func (c Encoding) Of(events ...Event) Context {
	var ctx Context
	for _, e := range events {
		ctx = c.Push(ctx, e)
	}
	return ctx
}

// Push shifts event e into ctx with the default encoding (5 events of 2
// bits): ((ctx << 2) | e) & 0x3FF.
func Push(ctx Context, e Event) Context { return DefaultEncoding.Push(ctx, e) }
