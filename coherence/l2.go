package coherence

import "weft/core"

// The shared L2 (Spec.L2SizeBytes > 0): one set-associative, LRU,
// write-back cache of tags behind the bus, non-inclusive and
// non-exclusive. A fill that no L1 supplies looks it up (a hit costs
// L2HitCycles, a miss L2HitCycles + MemCycles and allocates the line);
// an L1 writeback writes the line into it, dirty. Its victims leave
// without touching the L1s (no back-invalidation, which would invalidate
// lines nobody shared and so add coherence events the papers' detectors
// would read as communication); a dirty victim is written back to memory
// off the bus. Data lives in the L1s and memory, so the L2 changes
// timing, never a value; metadata lives in the L1s and follows
// MetaEvict as without an L2.

// The groups of the timing model's optional parts, registered only when
// the machine has them: the shared L2's counters (L2Stat) and the split
// bus's separate data bus (its busy cycles; the address bus's are the bus
// group's busy_cycles).
const (
	L2Group           = "l2"
	DataBusGroup      = "databus"
	DataBusBusyCycles = "busy_cycles"
)

// L2Stat is a counter of the shared L2.
type L2Stat int

// The L2's counters.
const (
	// StatL2Hits counts fills the L2 served.
	StatL2Hits L2Stat = iota
	// StatL2Misses counts fills that went on to memory.
	StatL2Misses
	// StatL2Writebacks counts dirty L2 victims written back to memory.
	StatL2Writebacks
	numL2Stats
)

var l2StatNames = [numL2Stats]string{"hits", "misses", "writebacks"}

// String returns the counter's name in its group, L2Group.
func (s L2Stat) String() string { return l2StatNames[s] }

// memoryLatency returns the cycles before a fill no L1 supplies can move:
// memory's, or the L2's (and memory's on an L2 miss).
func (s *System) memoryLatency(line uint64) core.Cycle {
	if s.l2sets == 0 {
		return s.spec.MemCycles
	}
	return s.l2Latency(line)
}

// l2Latency is memoryLatency with an L2: its access time, plus memory's
// on a miss.
func (s *System) l2Latency(line uint64) core.Cycle {
	if s.l2Access(line, false) {
		s.st.l2[StatL2Hits]++
		return s.spec.L2HitCycles
	}
	s.st.l2[StatL2Misses]++
	return s.spec.L2HitCycles + s.spec.MemCycles
}

// l2Written records an L1 writeback of line into the L2.
func (s *System) l2Written(line uint64) {
	if s.l2sets != 0 {
		s.l2Access(line, true)
	}
}

// l2Access looks line up in the L2, allocating it on a miss (its LRU
// victim written back when dirty), makes it most recently used, marks it
// dirty when dirty is set, and reports whether it hit.
func (s *System) l2Access(line uint64, dirty bool) bool {
	st := &s.st
	a := s.spec.L2Assoc
	base := int(line&uint64(s.l2sets-1)) * a
	st.l2tick++
	victim := base
	for w := base; w < base+a; w++ {
		if st.l2tags[w] == line {
			st.l2lru[w] = st.l2tick
			st.l2dirty[w] = st.l2dirty[w] || dirty
			return true
		}
		if st.l2lru[w] < st.l2lru[victim] {
			victim = w
		}
	}
	if st.l2tags[victim] != noTag && st.l2dirty[victim] {
		st.l2[StatL2Writebacks]++
	}
	st.l2tags[victim], st.l2lru[victim], st.l2dirty[victim] = line, st.l2tick, dirty
	return false
}
