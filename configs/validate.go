package configs

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"reflect"
)

// MaxCores is the largest machine.cores.
const MaxCores = 64

// MaxL1Bytes is the largest cache.l1.size_bytes, 4 MiB: generous for a
// private L1, and small enough that 64 such caches fit in host memory (the
// simulator allocates every frame of every core's L1 up front).
const MaxL1Bytes = 4 << 20

// Validate range-checks every key. It returns nil or one *Error per problem
// (joined with errors.Join), each naming its key.
func (c *Config) Validate() error {
	errs := c.problems()
	if len(errs) == 0 {
		return nil
	}
	joined := make([]error, len(errs))
	for i, e := range errs {
		joined[i] = e
	}
	return errors.Join(joined...)
}

// problems lists every range problem in c, in key order.
func (c *Config) problems() []*Error {
	var errs []*Error
	bad := func(key, format string, args ...any) {
		errs = append(errs, &Error{Key: key, Msg: fmt.Sprintf(format, args...)})
	}
	atLeast1 := func(key string, v uint64) {
		if v < 1 {
			bad(key, "must be at least 1, got %d", v)
		}
	}

	// Every unsigned value must fit a TOML integer, or TOML() could not be
	// read back.
	v := reflect.ValueOf(*c)
	for _, key := range Keys() {
		fv, _, _ := lookup(v, key)
		if k := fv.Kind(); k >= reflect.Uint && k <= reflect.Uint64 && fv.Uint() > math.MaxInt64 {
			bad(key, "must be at most %d (the largest TOML integer), got %d", int64(math.MaxInt64), fv.Uint())
		}
	}

	atLeast1("sim.max_cycles", c.Sim.MaxCycles)
	if n := c.Machine.Cores; n < 1 || n > MaxCores {
		bad("machine.cores", "must be from 1 to %d, got %d", MaxCores, n)
	}
	atLeast1("cpu.alu_cycles", c.CPU.ALUCycles)

	l1 := c.Cache.L1
	lineOK := l1.LineBytes >= 8 && l1.LineBytes <= 256 && isPow2(l1.LineBytes)
	if !lineOK {
		bad("cache.l1.line_bytes", "must be a power of two from 8 to 256, got %d", l1.LineBytes)
	}
	if l1.Assoc < 1 {
		bad("cache.l1.assoc", "must be at least 1, got %d", l1.Assoc)
	}
	switch {
	case l1.SizeBytes < 1:
		bad("cache.l1.size_bytes", "must be positive, got %d", l1.SizeBytes)
	case l1.SizeBytes > MaxL1Bytes:
		bad("cache.l1.size_bytes", "must be at most %d (%d MiB), got %d", MaxL1Bytes, MaxL1Bytes>>20, l1.SizeBytes)
	case !lineOK || l1.Assoc < 1:
		// Reported above; the geometry cannot be checked.
	case l1.SizeBytes%l1.LineBytes != 0 || (l1.SizeBytes/l1.LineBytes)%l1.Assoc != 0:
		bad("cache.l1.size_bytes", "must be a multiple of line_bytes × assoc (%d × %d), got %d",
			l1.LineBytes, l1.Assoc, l1.SizeBytes)
	default:
		if sets := l1.SizeBytes / l1.LineBytes / l1.Assoc; !isPow2(sets) {
			bad("cache.l1.size_bytes", "must give a power-of-two number of sets, got %d / (%d × %d) = %d sets",
				l1.SizeBytes, l1.LineBytes, l1.Assoc, sets)
		}
	}
	atLeast1("cache.l1.hit_cycles", l1.HitCycles)

	if c.Bus.WidthBytes < 1 {
		bad("bus.width_bytes", "must be at least 1, got %d", c.Bus.WidthBytes)
	}
	return errs
}

// isPow2 reports whether n is a positive power of two.
func isPow2(n int) bool { return n > 0 && bits.OnesCount(uint(n)) == 1 }
