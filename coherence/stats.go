package coherence

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

// GroupName is the counter's name within its group: its run-JSON name
// without the "l1_" or "bus_" prefix.
func (s Stat) GroupName() string {
	n := statNames[s]
	for _, p := range []string{"l1_", "bus_"} {
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
