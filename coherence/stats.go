package coherence

// Stat names one memory-system counter.
type Stat int

// The memory-system counters. All are totals over every core.
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

// Stats is a set of memory-system counters.
type Stats [NumStats]uint64

// Sub returns s - base, counter by counter (for region-of-interest deltas).
func (s Stats) Sub(base Stats) Stats {
	for i := range s {
		s[i] -= base[i]
	}
	return s
}
