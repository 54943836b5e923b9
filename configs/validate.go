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

// MaxRunCycles is the largest sim.max_cycles, 10^15 cycles: 11 days of a
// 1 GHz machine, years of host time. With it, a run's cycles summed over
// all 64 cores (the cycle breakdown) and every counter stay far below 2^63,
// so no time or statistic can overflow.
const MaxRunCycles = 1_000_000_000_000_000

// MaxLatencyCycles is the largest latency of one step (cpu.alu_cycles,
// cache.l1.hit_cycles, bus.arbitration_cycles, bus.snoop_cycles,
// bus.c2c_cycles, memory.latency_cycles) and the largest random delay
// (sim.jitter_cycles, sim.start_skew_cycles, sim.irritator_max_cycles):
// 10^9 cycles, a second of a 1 GHz machine and far beyond any real one.
// With it, a bus transaction (its latencies plus the transfer) fits easily
// in 64 bits, and so does a core's time past sim.max_cycles, so busy and
// queueing cycles cannot wrap around to nonsense (2^62 once gave negative
// busy cycles and shares of 200%).
const MaxLatencyCycles = 1_000_000_000

// MaxL2Bytes is the largest cache.l2.size_bytes, 64 MiB: an L2 keeps tags,
// LRU stamps and dirty bits (17 bytes a line), which every checkpoint
// copies, and the papers' machines have a few MiB at most.
const MaxL2Bytes = 64 << 20

// MaxBusWidthBytes is the largest bus.width_bytes, 4096: a bus wider than
// a line and its metadata moves it in one cycle anyway.
const MaxBusWidthBytes = 4096

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
	atMost := func(key string, v, limit uint64, why string) {
		if v > limit {
			bad(key, "must be at most %d (%s), got %d", limit, why, v)
		}
	}
	latency := func(key string, v uint64, min1 bool) {
		if min1 {
			atLeast1(key, v)
		}
		atMost(key, v, MaxLatencyCycles, "10^9 cycles, configs.MaxLatencyCycles")
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
	atMost("sim.max_cycles", c.Sim.MaxCycles, MaxRunCycles, "10^15 cycles, configs.MaxRunCycles")
	latency("sim.jitter_cycles", c.Sim.JitterCycles, false)
	latency("sim.start_skew_cycles", c.Sim.StartSkewCycles, false)
	if p := c.Sim.IrritatorProb; !(p >= 0 && p <= 1) { // NaN too
		bad("sim.irritator_prob", "must be from 0 to 1, got %v", p)
	}
	latency("sim.irritator_max_cycles", c.Sim.IrritatorMaxCycles, false)
	if c.Sim.IrritatorProb > 0 && c.Sim.IrritatorMaxCycles == 0 {
		bad("sim.irritator_max_cycles", "must be at least 1 when sim.irritator_prob is above 0 (it is %v): "+
			"an irritator drawn from 1..0 cycles cannot be honoured", c.Sim.IrritatorProb)
	}
	if n := c.Machine.Cores; n < 1 || n > MaxCores {
		bad("machine.cores", "must be from 1 to %d, got %d", MaxCores, n)
	}
	latency("cpu.alu_cycles", c.CPU.ALUCycles, true)

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
	latency("cache.l1.hit_cycles", l1.HitCycles, true)
	c.l2Problems(bad, lineOK)

	if w := c.Bus.WidthBytes; w < 1 || w > MaxBusWidthBytes {
		bad("bus.width_bytes", "must be from 1 to %d, got %d", MaxBusWidthBytes, w)
	}
	latency("bus.arbitration_cycles", c.Bus.ArbitrationCycles, false)
	latency("bus.snoop_cycles", c.Bus.SnoopCycles, false)
	latency("bus.c2c_cycles", c.Bus.C2CCycles, false)
	latency("memory.latency_cycles", c.Memory.LatencyCycles, false)
	switch c.Bus.Kind {
	case BusAtomic, BusSplit:
	default:
		bad("bus.kind", "must be %q or %q, got %q", BusAtomic, BusSplit, c.Bus.Kind)
	}
	switch c.Bus.DataBus {
	case DataBusShared, DataBusSeparate:
	default:
		bad("bus.data_bus", "must be %q or %q, got %q", DataBusShared, DataBusSeparate, c.Bus.DataBus)
	}
	c.bugabooProblems(bad)
	c.psetProblems(bad)
	c.falconProblems(bad)
	c.conseqProblems(bad)
	return errs
}

// isPow2 reports whether n is a positive power of two.
func isPow2(n int) bool { return n > 0 && bits.OnesCount(uint(n)) == 1 }

// l2Problems checks the [cache.l2] keys; l1LineOK says whether
// cache.l1.line_bytes is valid (the L2's must equal it).
func (c Config) l2Problems(bad func(key, format string, args ...any), l1LineOK bool) {
	l1, l2 := c.Cache.L1, c.Cache.L2
	if l2.Assoc < 1 {
		bad("cache.l2.assoc", "must be at least 1, got %d", l2.Assoc)
	}
	if l2.SizeBytes != 0 && l1LineOK && l2.LineBytes != l1.LineBytes {
		bad("cache.l2.line_bytes", "must equal cache.l1.line_bytes (%d): both levels move whole lines, got %d", l1.LineBytes, l2.LineBytes)
	}
	if c.Cache.L2.HitCycles < 1 || c.Cache.L2.HitCycles > MaxLatencyCycles {
		bad("cache.l2.hit_cycles", "must be from 1 to %d, got %d", uint64(MaxLatencyCycles), l2.HitCycles)
	}
	switch {
	case l2.SizeBytes == 0:
		// No L2.
	case l2.SizeBytes < 0:
		bad("cache.l2.size_bytes", "must be 0 (no L2) or positive, got %d", l2.SizeBytes)
	case l2.SizeBytes > MaxL2Bytes:
		bad("cache.l2.size_bytes", "must be at most %d (%d MiB), got %d", MaxL2Bytes, MaxL2Bytes>>20, l2.SizeBytes)
	case l2.SizeBytes < l1.SizeBytes:
		bad("cache.l2.size_bytes", "must be at least cache.l1.size_bytes (%d): a shared L2 smaller than one L1, got %d", l1.SizeBytes, l2.SizeBytes)
	case l2.Assoc < 1 || l2.LineBytes < 8 || !isPow2(l2.LineBytes):
		// Reported above; the geometry cannot be checked.
	case l2.SizeBytes%l2.LineBytes != 0 || (l2.SizeBytes/l2.LineBytes)%l2.Assoc != 0:
		bad("cache.l2.size_bytes", "must be a multiple of line_bytes × assoc (%d × %d), got %d", l2.LineBytes, l2.Assoc, l2.SizeBytes)
	default:
		if sets := l2.SizeBytes / l2.LineBytes / l2.Assoc; !isPow2(sets) {
			bad("cache.l2.size_bytes", "must give a power-of-two number of sets, got %d / (%d × %d) = %d sets",
				l2.SizeBytes, l2.LineBytes, l2.Assoc, sets)
		}
	}
}
