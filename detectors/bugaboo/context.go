package bugaboo

import "weft/core"

// The communication context lives in core, shared with the hardware model
// (cpu/bugaboo); these names keep the paper's vocabulary in this package.
type (
	// Event is one of the four communication events (core.CommEvent).
	Event = core.CommEvent
	// Context is a context register's value (core.Context).
	Context = core.Context
	// Encoding describes a context register (core.ContextCode).
	Encoding = core.ContextCode
)

// The communication events and register sizes (see core).
const (
	LcRd               = core.LcRd
	LcWr               = core.LcWr
	RmRd               = core.RmRd
	RmWr               = core.RmWr
	NumEvents          = core.NumCommEvents
	DefaultContextSize = core.DefaultContextSize
	MaxContextSize     = core.MaxContextSize
)

// DefaultEncoding is the paper's register: 5 events of 2 bits.
var DefaultEncoding = core.DefaultContextCode

// Push shifts e into ctx with the paper's register (DefaultEncoding).
func Push(ctx Context, e Event) Context { return DefaultEncoding.Push(ctx, e) }
