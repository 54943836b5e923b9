// Package configs is weft's configuration: the schema of every key, its
// defaults, range checks, embedded presets (presets/*.toml), `--set
// key=value` overrides, and the canonical TOML form whose hash is recorded
// next to every result. sweeps/*.toml are example sweep files; package
// sweep reads them.
//
// A config file is TOML whose tables mirror the machine (`[sim]`,
// `[machine]`, `[cpu]`, `[cache.l1]`, `[bus]`, `[memory]`), followed by the
// hardware extensions' and detectors' tables (`[bugaboo]`, `[pset]`,
// `[falcon]`, `[conseq]`). A file sets only the keys it wants; every other
// key keeps its default. Unknown keys, wrong types and out-of-range values
// are errors that name the file, the line where the decoder knows it, and
// the dotted key.
//
// configs is a leaf: it imports nothing else from weft but the leaf
// internal/suggest (its "did you mean" for unknown keys).
package configs

// Config is the fully resolved configuration of one run. Its zero value is
// not useful; start from Default, Preset or Load.
type Config struct {
	// Sim holds run control: seeds, the hang limit and timing noise.
	Sim Sim `toml:"sim"`
	// Machine holds the shape of the machine.
	Machine Machine `toml:"machine"`
	// CPU holds the timing of the in-order cores.
	CPU CPU `toml:"cpu"`
	// Cache holds the private caches of each core.
	Cache Cache `toml:"cache"`
	// Bus holds the timing of the snooping bus.
	Bus Bus `toml:"bus"`
	// Memory holds the timing of main memory.
	Memory Memory `toml:"memory"`
	// Bugaboo holds Bugaboo's hardware (off by default).
	Bugaboo Bugaboo `toml:"bugaboo"`
	// PSet holds PSet's hardware (off by default).
	PSet PSet `toml:"pset"`
	// Falcon holds the Falcon detector's settings.
	Falcon Falcon `toml:"falcon"`
	// ConSeq holds the ConSeq detector's settings.
	ConSeq ConSeq `toml:"conseq"`
}

// Sim is the `[sim]` table: run control.
type Sim struct {
	// Seed is the base random seed (unitless); run i of a batch uses Seed+i.
	Seed uint64 `toml:"seed"`
	// MaxCycles is the hang limit in cycles: a run still going past it hangs.
	// At most MaxRunCycles (10^15), so that cycles summed over every core
	// and every counter stay far below 2^63.
	MaxCycles uint64 `toml:"max_cycles"`
	// JitterCycles is the largest random extra latency, in cycles, added to
	// each memory operation; each operation draws uniformly from 0..JitterCycles.
	// At most MaxLatencyCycles (10^9), like every latency, so that no sum of
	// latencies can overflow.
	JitterCycles uint64 `toml:"jitter_cycles"`
	// StartSkewCycles is the largest random delay, in cycles, before each
	// spawned thread starts; each thread draws uniformly from 0..StartSkewCycles.
	// At most MaxLatencyCycles (10^9), so that no start time can overflow.
	StartSkewCycles uint64 `toml:"start_skew_cycles"`
	// IrritatorProb is the probability, from 0 to 1, that a memory
	// instruction of a thread is preceded by an irritator: a random delay
	// that diversifies the interleaving, as Falcon's test runs do (Park,
	// Vuduc and Harrold, ICSE 2010). The instructions are those that touch
	// a data word: ld, st, cas, xchg, fadd, free and the sync instructions
	// lock, unlock, barrier, cwait, csignal and cbcast. Each draws once,
	// when it issues, before its first access; the later accesses of one
	// instruction (a lock's swap after its test, its re-tests after
	// waiting, cwait's release and reacquire) are not delayed again.
	// 0 (the default) turns irritators off.
	IrritatorProb float64 `toml:"irritator_prob"`
	// IrritatorMaxCycles is the largest irritator, in cycles; each draws
	// uniformly from 1..IrritatorMaxCycles. At least 1 when IrritatorProb
	// is above 0, at most MaxLatencyCycles (10^9) like every delay; with
	// IrritatorProb 0 it has no effect.
	IrritatorMaxCycles uint64 `toml:"irritator_max_cycles"`
}

// Machine is the `[machine]` table: the shape of the machine.
type Machine struct {
	// Cores is the number of cores, 1 to 64.
	Cores int `toml:"cores"`
}

// CPU is the `[cpu]` table: timing of the in-order cores.
type CPU struct {
	// ALUCycles is the latency, in cycles, of one register (non-memory)
	// instruction: 1 to MaxLatencyCycles (10^9), so that a core's local
	// time cannot overflow.
	ALUCycles uint64 `toml:"alu_cycles"`
}

// Cache is the `[cache]` table: the private caches of each core and the
// shared L2.
type Cache struct {
	// L1 is the `[cache.l1]` table: each core's private L1 data cache.
	L1 L1 `toml:"l1"`
	// L2 is the `[cache.l2]` table: the optional shared L2.
	L2 L2 `toml:"l2"`
}

// L2 is the `[cache.l2]` table: the shared, set-associative L2 behind the
// bus, which fills no L1 supplies look up before memory. It is
// non-inclusive and non-exclusive (its victims leave the L1s alone) and
// write-back; the Bugaboo and PSet metadata live in the L1s only, so an L2
// hit brings a line without its record unless the metadata policy keeps
// it (bugaboo.metadata.memory_fill, pset.metadata_on_evict).
type L2 struct {
	// SizeBytes is the L2's capacity in bytes; 0 (the default) means no
	// L2. At most MaxL2Bytes, at least cache.l1.size_bytes, a multiple of
	// LineBytes*Assoc giving a power-of-two number of sets.
	SizeBytes int `toml:"size_bytes"`
	// Assoc is the number of ways per set.
	Assoc int `toml:"assoc"`
	// LineBytes is the L2's line size; with an L2 it must equal
	// cache.l1.line_bytes.
	LineBytes int `toml:"line_bytes"`
	// HitCycles is the L2's access time in cycles before the data
	// transfer; a miss adds memory.latency_cycles. 1 to MaxLatencyCycles.
	HitCycles uint64 `toml:"hit_cycles"`
}

// L1 is the `[cache.l1]` table: geometry and timing of each core's private,
// set-associative L1 cache.
type L1 struct {
	// SizeBytes is the capacity of one core's L1 in bytes, at most
	// MaxL1Bytes; it must be a multiple of LineBytes*Assoc giving a
	// power-of-two number of sets.
	SizeBytes int `toml:"size_bytes"`
	// Assoc is the number of ways per set (1 is direct-mapped).
	Assoc int `toml:"assoc"`
	// LineBytes is the cache line size in bytes, a power of two from 8 to 256.
	LineBytes int `toml:"line_bytes"`
	// HitCycles is the latency of an L1 hit in cycles: 1 to
	// MaxLatencyCycles (10^9), so that no access time can overflow.
	HitCycles uint64 `toml:"hit_cycles"`
}

// Bus is the `[bus]` table: timing of the shared snooping bus.
type Bus struct {
	// WidthBytes is how many bytes the bus moves per bus cycle, for data and
	// metadata payloads alike; a transfer of n bytes takes ceil(n/WidthBytes)
	// cycles. 1 to MaxBusWidthBytes (4096): a wider bus moves a line and
	// its metadata in one cycle anyway.
	WidthBytes int `toml:"width_bytes"`
	// ArbitrationCycles is the time in cycles from a bus request to its
	// grant, at most MaxLatencyCycles (10^9): a transaction adds four
	// latencies and a transfer, and the sum must not overflow (2^62 once
	// gave negative busy cycles).
	ArbitrationCycles uint64 `toml:"arbitration_cycles"`
	// SnoopCycles is the time in cycles for the other caches to snoop a
	// request and respond, at most MaxLatencyCycles (10^9) so that no
	// transaction's latency can overflow.
	SnoopCycles uint64 `toml:"snoop_cycles"`
	// C2CCycles is the time in cycles for a cache-to-cache supply of a line,
	// before the data transfer, at most MaxLatencyCycles (10^9) so that no
	// transaction's latency can overflow.
	C2CCycles uint64 `toml:"c2c_cycles"`
	// Kind is the bus protocol: "atomic" (the default: one transaction
	// holds the bus from grant to completion, through memory's latency) or
	// "split" (split-transaction: the request and snoop phase holds the
	// bus, memory's latency runs off it, the data holds a bus only for its
	// transfer, and misses to different lines overlap).
	Kind string `toml:"kind"`
	// DataBus says where a split bus moves data: "shared" (on the one
	// bus, between requests) or "separate" (a data bus of its own, as
	// wide). The atomic bus ignores it.
	DataBus string `toml:"data_bus"`
}

// The bus kinds and data-bus choices (Bus.Kind, Bus.DataBus).
const (
	BusAtomic       = "atomic"
	BusSplit        = "split"
	DataBusShared   = "shared"
	DataBusSeparate = "separate"
)

// Memory is the `[memory]` table: timing of main memory.
type Memory struct {
	// LatencyCycles is the time in cycles of a main-memory access, before
	// the data transfer, at most MaxLatencyCycles (10^9) so that no
	// transaction's latency can overflow.
	LatencyCycles uint64 `toml:"latency_cycles"`
}

// Default returns the default configuration, the machine of DESIGN.md §7
// and of the `default` preset.
func Default() Config {
	return Config{
		Sim: Sim{
			Seed:            1,
			MaxCycles:       100_000_000,
			JitterCycles:    4,
			StartSkewCycles: 0,
			// Irritators are off.
			IrritatorProb:      0,
			IrritatorMaxCycles: 0,
		},
		Machine: Machine{Cores: 8},
		CPU:     CPU{ALUCycles: 1},
		Cache: Cache{L1: L1{
			SizeBytes: 32768,
			Assoc:     8,
			LineBytes: 64,
			HitCycles: 1,
		}, L2: L2{
			SizeBytes: 0,
			Assoc:     8,
			LineBytes: 64,
			HitCycles: 10,
		}},
		Bus: Bus{
			WidthBytes:        32,
			ArbitrationCycles: 2,
			SnoopCycles:       4,
			C2CCycles:         10,
			Kind:              BusAtomic,
			DataBus:           DataBusSeparate,
		},
		Memory:  Memory{LatencyCycles: 100},
		Bugaboo: defaultBugaboo(),
		PSet:    defaultPSet(),
		Falcon:  defaultFalcon(),
		ConSeq:  defaultConSeq(),
	}
}
