package coherence

import (
	"slices"

	"weft/core"
)

// Stat names one memory-system counter.
type Stat int

// The memory-system counters. The L1 counters (L1Stats) are kept per core:
// reads, hits and misses, fills and coherence misses count against the
// accessing core, invalidations against the core that lost the line,
// writebacks and evictions against the core whose line left. The bus
// counters (BusStats) are the bus's. Stats() gives the totals.
const (
	StatReads Stat = iota
	StatWrites
	StatReadHits
	StatWriteHits
	StatReadMisses
	StatWriteMisses
	StatUpgradeMisses
	StatCoherenceMisses
	StatFillsC2C
	StatFillsMemory
	StatBusRd
	StatBusRdX
	StatBusUpgr
	StatBusWriteback
	StatInvalidations
	StatWritebacks
	StatEvictions
	StatBusBusyCycles
	StatBusQueueCycles
	StatMetaBytes
	// NumStats is the number of counters.
	NumStats
)

var statNames = [NumStats]string{
	"l1_reads", "l1_writes", "l1_read_hits", "l1_write_hits",
	"l1_read_misses", "l1_write_misses", "l1_upgrade_misses", "l1_coherence_misses",
	"fills_c2c", "fills_memory",
	"bus_busrd", "bus_busrdx", "bus_busupgr", "bus_writeback",
	"invalidations", "writebacks", "evictions",
	"bus_busy_cycles", "bus_queue_cycles", "meta_bytes",
}

// String returns the counter's name as it appears in run JSON.
func (s Stat) String() string { return statNames[s] }

// L1Stats are the counters each core's L1 keeps (group "l1[i]").
var L1Stats = []Stat{StatReads, StatWrites, StatReadHits, StatWriteHits, StatReadMisses, StatWriteMisses,
	StatUpgradeMisses, StatCoherenceMisses, StatFillsC2C, StatFillsMemory, StatInvalidations, StatWritebacks, StatEvictions}

// BusStats are the bus's counters (group "bus").
var BusStats = []Stat{StatBusRd, StatBusRdX, StatBusUpgr, StatBusWriteback, StatBusBusyCycles, StatBusQueueCycles, StatMetaBytes}

// The memory system's statistics groups: core i's L1 counters are the
// group L1Group(i), of the family L1Family; the bus's are the group
// BusGroup.
const (
	L1Family = "l1"
	BusGroup = "bus"
)

// L1Group returns the name of core i's L1 statistics group: "l1[i]".
func L1Group(i int) string { return core.IndexedGroup(L1Family, i) }

// GroupName is the counter's name within its group: its run-JSON name
// without the "l1_" or "bus_" prefix.
func (s Stat) GroupName() string {
	n := statNames[s]
	for _, p := range []string{L1Family + "_", BusGroup + "_"} {
		if len(n) > len(p) && n[:len(p)] == p {
			return n[len(p):]
		}
	}
	return n
}

// Stats is a set of memory-system counters.
type Stats [NumStats]uint64

// Sub returns s - base, counter by counter (for region-of-interest deltas).
func (s Stats) Sub(base Stats) Stats {
	for i := range s {
		s[i] -= base[i]
	}
	return s
}

// Add returns s + o, counter by counter.
func (s Stats) Add(o Stats) Stats {
	for i := range s {
		s[i] += o[i]
	}
	return s
}

// Totals declares the memory system's machine-wide counters in a run
// summary (core.Summary), in Stat order under their run-JSON names: each
// L1 counter summed over the L1 groups, each bus counter the bus's.
func Totals() []core.Total {
	out := make([]core.Total, NumStats)
	for s := range NumStats {
		fam := BusGroup
		if slices.Contains(L1Stats, s) {
			fam = L1Family
		}
		out[s] = core.Total{Name: s.String(), Family: fam, Counter: s.GroupName()}
	}
	return out
}

// The names of the memory system's derived statistics besides the rates
// per 10k memory operations (Per10k).
const (
	// L1MissRate is the L1 misses (read, write and upgrade) per L1 access.
	L1MissRate = "l1_miss_rate"
	// BusUtilization is the share of the region's cycles the bus was busy
	// (at most 1).
	BusUtilization = "bus_utilization"
)

// per10kStats are the counters a run summary also gives per 10k memory
// operations, in its order.
var per10kStats = []Stat{StatReadMisses, StatWriteMisses, StatUpgradeMisses, StatCoherenceMisses, StatFillsC2C,
	StatFillsMemory, StatBusRd, StatBusRdX, StatBusUpgr, StatInvalidations, StatWritebacks, StatEvictions}

// Per10k returns the name of the run summary's statistic that is s per
// 10k memory operations: "l1_read_misses_per_10k" (for the counters
// Formulas gives so).
func (s Stat) Per10k() string { return s.String() + "_per_10k" }

// Formulas declares the memory system's derived statistics in a run
// summary (core.Summary), over the totals of Totals: the rates per 10k
// memory operations of the misses, fills, bus transactions,
// invalidations, writebacks and evictions; the L1 miss rate; the bus
// utilisation over the region's cycles (core.ROICycles). memOps names the
// statistic that counts the memory operations, the processors' counter,
// which this package does not declare.
func Formulas(memOps string) []core.Formula {
	var out []core.Formula
	for _, s := range per10kStats {
		name := s.String()
		out = append(out, core.Formula{Name: s.Per10k(), Eval: func(get func(string) float64) float64 {
			return core.Ratio(get(name)*10000, get(memOps))
		}})
	}
	return append(out,
		core.Formula{Name: L1MissRate, Eval: func(get func(string) float64) float64 {
			misses := get(StatReadMisses.String()) + get(StatWriteMisses.String()) + get(StatUpgradeMisses.String())
			return core.Ratio(misses, get(StatReads.String())+get(StatWrites.String()))
		}},
		core.Formula{Name: BusUtilization, Eval: func(get func(string) float64) float64 {
			return min(core.Ratio(get(StatBusBusyCycles.String()), get(core.ROICycles)), 1)
		}})
}
