package coherence

import (
	"fmt"

	"weft/core"
)

// MetaPolicy says what happens to a line's metadata when the line leaves
// the last cache.
type MetaPolicy uint8

// The metadata eviction policies.
const (
	// MetaLost drops the record on eviction; memory fills start empty.
	MetaLost MetaPolicy = iota
	// MetaWriteback writes the record back to memory beside the data (paying
	// bus bytes) and memory fills bring it back.
	MetaWriteback
	// MetaIdeal never loses a record and costs no bus bytes: an ideal,
	// unbounded metadata store (memory-served reads also take a sharer's
	// record, as if memory always held the current one).
	MetaIdeal
)

// String returns the policy's config name.
func (p MetaPolicy) String() string {
	switch p {
	case MetaWriteback:
		return "writeback"
	case MetaIdeal:
		return "ideal"
	}
	return "lost"
}

// ParseMetaPolicy parses "lost", "writeback" or "ideal".
func ParseMetaPolicy(s string) (MetaPolicy, error) {
	switch s {
	case "lost":
		return MetaLost, nil
	case "writeback":
		return MetaWriteback, nil
	case "ideal":
		return MetaIdeal, nil
	}
	return MetaLost, fmt.Errorf("unknown metadata eviction policy %q (want lost, writeback or ideal)", s)
}

// Spec is the fixed configuration of the memory system.
type Spec struct {
	// Cores is the number of cores, 1 to 64, each with a private L1
	// (cpu.New sets it from cpu.Spec.Cores).
	Cores int
	// SizeBytes is the capacity of one core's L1 in bytes.
	SizeBytes int
	// Assoc is the number of ways per set.
	Assoc int
	// LineBytes is the cache line size in bytes, a power of two ≥ 8.
	LineBytes int
	// HitCycles is the L1 hit latency in cycles. The processor charges it
	// (cpu.Spec.HitCycles); the memory system does not read it.
	HitCycles core.Cycle
	// BusWidth is how many bytes the bus moves per cycle.
	BusWidth int
	// ArbCycles is the time in cycles from a bus request to its grant.
	ArbCycles core.Cycle
	// SnoopCycles is the time in cycles for the other caches to snoop a
	// transaction and respond.
	SnoopCycles core.Cycle
	// C2CCycles is the time in cycles of a cache-to-cache supply of a line,
	// before the data transfer.
	C2CCycles core.Cycle
	// MemCycles is the time in cycles of a main-memory access, before the
	// data transfer.
	MemCycles core.Cycle
	// Split selects the split-transaction bus: a transaction holds the bus
	// for its request and snoop phase only (its order point ends it), the
	// data comes after the supplier's latency and holds a bus only for its
	// transfer, and different lines' misses overlap. False is the atomic
	// bus, held by one transaction from grant to completion.
	Split bool
	// SeparateDataBus gives the split bus's data transfers (and
	// writebacks) a data bus of their own, as wide as the address bus;
	// false shares one bus between requests and data.
	SeparateDataBus bool
	// L2SizeBytes is the capacity of the shared L2 in bytes; 0 means no L2
	// (an L1 miss no cache supplies goes to memory). The L2 has the L1s'
	// line size, is non-inclusive and non-exclusive and write-back, and
	// keeps tags only: data lives in the L1s and memory, so it changes
	// timing, never a value.
	L2SizeBytes int
	// L2Assoc is the L2's number of ways per set.
	L2Assoc int
	// L2HitCycles is the L2's access time in cycles, before the data
	// transfer; a miss adds MemCycles.
	L2HitCycles core.Cycle

	// Layout is the per-line metadata record the extensions reserved. When
	// it has regions, it sets MetaWords and MetaBits.
	Layout Layout
	// MetaWords is the number of uint64 words of metadata per line (0: none).
	MetaWords int
	// MetaBits is the size of one line's record on the bus, in bits.
	MetaBits int
	// MetaEvict is the eviction policy for metadata.
	MetaEvict MetaPolicy
	// SharerMetaOnMemRead lets a read served by memory take the metadata of a
	// cache that holds the line in S.
	SharerMetaOnMemRead bool
}

// TxnKind is a bus transaction type.
type TxnKind uint8

// The bus transactions.
const (
	TxnNone TxnKind = iota
	TxnBusRd
	TxnBusRdX
	TxnBusUpgr
)

var txnNames = [...]string{"None", "BusRd", "BusRdX", "BusUpgr"}

// String returns the transaction's name.
func (k TxnKind) String() string { return txnNames[k] }

// Txn is the bus transaction in flight. Extensions read it in their hooks;
// Responders is borrowed.
type Txn struct {
	// Kind is the transaction type (TxnNone in OnIssue: the bus picks it
	// at the grant).
	Kind TxnKind
	// Core is the requesting core.
	Core int
	// Write reports whether the miss is for a write.
	Write bool
	// PC is the PC of the instruction that missed.
	PC int32
	// Thread is the thread whose access missed.
	Thread int32
	// Addr is the accessed byte address.
	Addr uint64
	// Line is Addr's line number (Addr >> the line shift).
	Line uint64
	// Supplier is the core that supplied the data, or -1 for memory.
	Supplier int
	// Responders are the cores that held the line when it was snooped.
	Responders []int
	// Requested is the cycle the miss asked for the bus.
	Requested core.Cycle
	// Granted is the cycle the bus was granted (0 in OnIssue).
	Granted core.Cycle
	// Done is the cycle the protocol performed the transaction (0 in
	// OnIssue): the atomic bus's completion, the split bus's order point
	// (its data arrives later).
	Done core.Cycle
}

// Client is the core side of a cache: told when its transaction completes
// and when it loses a line.
type Client interface {
	// TxnDone is called when the core's transaction completes; frame holds
	// the line with the permission asked for.
	TxnDone(now core.Cycle, frame int)
	// LineLost is called when a line this core held is invalidated or evicted.
	LineLost(now core.Cycle, line uint64)
}

const (
	noTag       = ^uint64(0)
	historySize = 64
	opComplete  = 1
	// opOrder ends a split-bus transaction's request and snoop phase
	// (arg: the requesting core); opArrive delivers its data.
	opOrder  = 2
	opArrive = 3
)

type request struct {
	core   int32
	thread int32
	write  bool
	pc     int32
	addr   uint64
	at     core.Cycle
}

// historyEntry is one protocol transition, packed in two words so that
// recording it is two stores: word holds the states and event (4 bits
// each), the core (6 bits) and the line's index in memory (46 bits).
type historyEntry struct {
	cycle core.Cycle
	word  uint64
}

// SysState is the memory system's mutable state, copied by snapshots.
type SysState struct {
	tags   []uint64
	states []State
	lru    []uint64
	// lostInval has one bit per core for every memory line: set when the
	// core's copy was invalidated by another core's write and cleared when
	// the core holds the line again, so its next miss on the line is a
	// coherence miss.
	lostInval []uint64
	data      []int64
	meta      []uint64
	ticks     []uint64
	mem       []int64
	memMeta   []uint64
	// present has one bit per core for every memory line: which caches
	// hold the line in a valid state, so snoops visit only the holders.
	present    []uint64
	queue      []request
	busy       bool
	busFreeAt  core.Cycle
	cur        request
	curKind    TxnKind
	curGranted core.Cycle
	// curFrame is the requester's frame of the line in flight when the
	// grant found one (an upgrade), else -1; holderFrame[o] is the frame
	// in which the grant found holder o's copy. Only a completion changes
	// frames, so the completion reuses what its grant found.
	curFrame    int32
	holderFrame [64]int32
	// The split-transaction bus (Spec.Split): each core's transaction in
	// flight (a core has at most one), the reservations of the address
	// bus and of the data bus (the same timeline when they are one bus).
	flights  []flight
	addrBus  timeline
	dataBus  timeline
	dataBusy uint64
	// The shared L2 (Spec.L2SizeBytes > 0): tags and LRU stamps, dirty
	// bits, its clock and its counters.
	l2tags  []uint64
	l2lru   []uint64
	l2dirty []bool
	l2tick  uint64
	l2      [numL2Stats]uint64
	// l1 holds each core's L1 counters, bus the bus's (coherence.L1Stats,
	// BusStats); the other entries stay zero.
	l1  []Stats
	bus Stats
	// scratch holds each extension's per-miss slot for each core's
	// outstanding miss (a core has at most one): core*extensions + ext.
	scratch  []uint64
	history  [historySize]historyEntry
	historyN uint64
	err      error
}

// System is the memory system of one machine.
type System struct {
	spec      Spec
	sets      int
	setMask   uint64
	lineShift uint
	wordsLine int
	wordShift uint
	metaBytes int
	memBase   uint64
	l2sets    int

	st SysState

	eng     *core.Engine
	target  int32
	events  *core.Stream
	clients []Client
	hooks   hookLists

	// scratch
	tx         Txn
	sn         Snoop
	responders []int
	ev         core.Event
	list       []uint64
	zeroMeta   []uint64
}

// New builds a memory system with memWords words of backing memory starting
// at dataBase. Events are emitted on events; bus completions are scheduled
// on eng.
func New(spec Spec, eng *core.Engine, events *core.Stream, dataBase uint64, memWords int) (*System, error) {
	if spec.Cores < 1 || spec.Cores > 64 || spec.Assoc < 1 || spec.LineBytes < 8 || spec.LineBytes&(spec.LineBytes-1) != 0 {
		return nil, fmt.Errorf("coherence: bad geometry: %d cores, %d ways, %d-byte lines", spec.Cores, spec.Assoc, spec.LineBytes)
	}
	sets := spec.SizeBytes / (spec.LineBytes * spec.Assoc)
	if sets < 1 || sets&(sets-1) != 0 || sets*spec.LineBytes*spec.Assoc != spec.SizeBytes {
		return nil, fmt.Errorf("coherence: %d-byte L1 with %d ways of %d-byte lines does not give a power-of-two number of sets", spec.SizeBytes, spec.Assoc, spec.LineBytes)
	}
	if spec.BusWidth < 1 {
		return nil, fmt.Errorf("coherence: bus width %d bytes", spec.BusWidth)
	}
	l2sets := 0
	if spec.L2SizeBytes > 0 {
		if spec.L2Assoc < 1 {
			return nil, fmt.Errorf("coherence: L2 with %d ways", spec.L2Assoc)
		}
		l2sets = spec.L2SizeBytes / (spec.LineBytes * spec.L2Assoc)
		if l2sets < 1 || l2sets&(l2sets-1) != 0 || l2sets*spec.LineBytes*spec.L2Assoc != spec.L2SizeBytes {
			return nil, fmt.Errorf("coherence: %d-byte L2 with %d ways of %d-byte lines does not give a power-of-two number of sets", spec.L2SizeBytes, spec.L2Assoc, spec.LineBytes)
		}
		if spec.L2SizeBytes < spec.SizeBytes {
			return nil, fmt.Errorf("coherence: %d-byte L2 is smaller than a %d-byte L1", spec.L2SizeBytes, spec.SizeBytes)
		}
	}
	if len(spec.Layout.Regions) > 0 {
		spec.MetaWords, spec.MetaBits = spec.Layout.Words, spec.Layout.Bits
	}
	if dataBase%uint64(spec.LineBytes) != 0 {
		return nil, fmt.Errorf("coherence: data base %#x is not line aligned", dataBase)
	}
	s := &System{
		spec:      spec,
		sets:      sets,
		setMask:   uint64(sets - 1),
		wordsLine: spec.LineBytes / 8,
		eng:       eng,
		events:    events,
		clients:   make([]Client, spec.Cores),
		zeroMeta:  make([]uint64, spec.MetaWords),
		// Bounded by the core count; sized now so the hot path never grows them.
		responders: make([]int, 0, spec.Cores),
		list:       make([]uint64, 0, spec.Cores),
	}
	for 1<<s.lineShift < spec.LineBytes {
		s.lineShift++
	}
	for 1<<s.wordShift < s.wordsLine {
		s.wordShift++
	}
	s.metaBytes = (spec.MetaBits + 7) / 8
	frames := spec.Cores * sets * spec.Assoc
	st := &s.st
	st.tags = make([]uint64, frames)
	for i := range st.tags {
		st.tags[i] = noTag
	}
	st.states = make([]State, frames)
	st.lru = make([]uint64, frames)
	st.data = make([]int64, frames*s.wordsLine)
	st.meta = make([]uint64, frames*spec.MetaWords)
	st.ticks = make([]uint64, spec.Cores)
	st.l1 = make([]Stats, spec.Cores)
	st.queue = make([]request, 0, spec.Cores)
	st.curFrame = -1
	for i := range st.holderFrame {
		st.holderFrame[i] = -1
	}
	if spec.Split {
		st.flights = make([]flight, spec.Cores)
	}
	if l2sets > 0 {
		s.l2sets = l2sets
		n := l2sets * spec.L2Assoc
		st.l2tags = make([]uint64, n)
		for i := range st.l2tags {
			st.l2tags[i] = noTag
		}
		st.l2lru = make([]uint64, n)
		st.l2dirty = make([]bool, n)
	}
	s.memBase = dataBase
	s.growMem(memWords)
	s.target = eng.Register(s)
	return s, nil
}

// Target returns the engine target of the bus's completion events.
func (s *System) Target() int32 { return s.target }

// Requester returns the core whose transaction is on the bus (or was last;
// on the split bus, the last to reach its order point).
func (s *System) Requester() int { return int(s.st.cur.core) }

// EventCore returns the core whose transaction the memory system's engine
// event (op, arg) serves: the argument of a split-bus order point or data
// arrival, the atomic bus's transaction in flight otherwise.
func (s *System) EventCore(op int32, arg uint64) int {
	if op == opOrder || op == opArrive {
		return int(arg)
	}
	return int(s.st.cur.core)
}

// SetClient attaches the core-side client of cache c.
func (s *System) SetClient(c int, cl Client) { s.clients[c] = cl }

// Spec returns the system's configuration.
func (s *System) Spec() Spec { return s.spec }

// LineOf returns the line number of addr.
func (s *System) LineOf(addr uint64) uint64 { return addr >> s.lineShift }

// LineShift returns log2 of the line size.
func (s *System) LineShift() uint { return s.lineShift }

// Err returns the first internal protocol error, if any.
func (s *System) Err() error { return s.st.err }

// Stats returns the counters so far.
func (s *System) Stats() Stats {
	t := s.st.bus
	for i := range s.st.l1 {
		t = t.Add(s.st.l1[i])
	}
	return t
}

// CoreStats returns core c's L1 counters so far.
func (s *System) CoreStats(c int) Stats { return s.st.l1[c] }

// BusStats returns the bus's counters so far.
func (s *System) BusStats() Stats { return s.st.bus }

// RegisterStats adds the groups L1Group(i) (L1Stats of core i) and
// BusGroup (BusStats) to r.
func (s *System) RegisterStats(r *core.StatRegistry) error {
	names := func(ss []Stat) []string {
		out := make([]string, len(ss))
		for i, x := range ss {
			out[i] = x.GroupName()
		}
		return out
	}
	l1 := names(L1Stats)
	for c := range s.st.l1 {
		if err := r.Register(core.StatGroup{Name: L1Group(c), Counters: l1, Read: func(dst []uint64) {
			for i, x := range L1Stats {
				dst[i] = s.st.l1[c][x]
			}
		}}); err != nil {
			return err
		}
	}
	if err := r.Register(core.StatGroup{Name: BusGroup, Counters: names(BusStats), Read: func(dst []uint64) {
		for i, x := range BusStats {
			dst[i] = s.st.bus[x]
		}
	}}); err != nil {
		return err
	}
	// The timing model's optional parts have groups only when present,
	// so that a machine without them records what it always did.
	if s.spec.Split && s.spec.SeparateDataBus {
		if err := r.Register(core.StatGroup{Name: DataBusGroup, Counters: []string{DataBusBusyCycles}, Read: func(dst []uint64) {
			dst[0] = s.st.dataBusy
		}}); err != nil {
			return err
		}
	}
	if s.l2sets > 0 {
		return r.Register(core.StatGroup{Name: L2Group, Counters: l2StatNames[:], Read: func(dst []uint64) {
			copy(dst, s.st.l2[:])
		}})
	}
	return nil
}

// growMem extends backing memory to at least words words, whole lines.
func (s *System) growMem(words int) {
	if r := words % s.wordsLine; r != 0 {
		words += s.wordsLine - r
	}
	st := &s.st
	grow := func(xs []uint64, n int) []uint64 {
		if len(xs) >= n {
			return xs
		}
		return append(xs, make([]uint64, n-len(xs))...)
	}
	if len(st.mem) < words {
		st.mem = append(st.mem, make([]int64, words-len(st.mem))...)
	}
	// Memory keeps records only when eviction does not lose them.
	if s.spec.MetaEvict != MetaLost {
		st.memMeta = grow(st.memMeta, words/s.wordsLine*s.spec.MetaWords)
	}
	st.present = grow(st.present, words/s.wordsLine)
	st.lostInval = grow(st.lostInval, words/s.wordsLine)
}

// holders returns the set of cores other than c holding line.
func (s *System) holders(c int, line uint64) uint64 {
	return s.st.present[line-s.memBase>>s.lineShift] &^ (1 << uint(c))
}

func (s *System) setPresent(c int, line uint64, on bool) {
	p := &s.st.present[line-s.memBase>>s.lineShift]
	if on {
		*p |= 1 << uint(c)
	} else {
		*p &^= 1 << uint(c)
	}
}

// GrowMemory makes backing memory hold at least words words.
func (s *System) GrowMemory(words int) { s.growMem(words) }

// MemoryWords returns the number of words of backing memory.
func (s *System) MemoryWords() int { return len(s.st.mem) }

// InitMemory copies an initial image into memory at the data base.
func (s *System) InitMemory(words []int64) {
	s.growMem(len(words))
	copy(s.st.mem, words)
}

// MemoryWord returns the word at addr as memory (not the caches) holds it.
func (s *System) MemoryWord(addr uint64) int64 { return s.st.mem[(addr-s.memBase)>>3] }

// CoherentWord returns the current value of addr: from the cache that owns
// it in M or E, or else from any sharer or memory. For tests and outputs.
func (s *System) CoherentWord(addr uint64) int64 {
	line := addr >> s.lineShift
	for c := 0; c < s.spec.Cores; c++ {
		if f := s.find(c, line); f >= 0 {
			return s.ReadWord(f, addr)
		}
	}
	return s.MemoryWord(addr)
}

// Save copies the memory system's state into dst, reusing its storage.
func (s *System) Save(dst *SysState) { copyState(dst, &s.st) }

// Load restores the memory system from a state made by Save.
func (s *System) Load(src *SysState) { copyState(&s.st, src) }

func copyState(dst, src *SysState) {
	dst.tags = append(dst.tags[:0], src.tags...)
	dst.states = append(dst.states[:0], src.states...)
	dst.lru = append(dst.lru[:0], src.lru...)
	dst.lostInval = append(dst.lostInval[:0], src.lostInval...)
	dst.data = append(dst.data[:0], src.data...)
	dst.meta = append(dst.meta[:0], src.meta...)
	dst.ticks = append(dst.ticks[:0], src.ticks...)
	dst.mem = append(dst.mem[:0], src.mem...)
	dst.memMeta = append(dst.memMeta[:0], src.memMeta...)
	dst.present = append(dst.present[:0], src.present...)
	dst.queue = append(dst.queue[:0], src.queue...)
	dst.busy, dst.busFreeAt, dst.cur, dst.curKind, dst.curGranted = src.busy, src.busFreeAt, src.cur, src.curKind, src.curGranted
	dst.curFrame, dst.holderFrame = src.curFrame, src.holderFrame
	dst.flights = append(dst.flights[:0], src.flights...)
	dst.addrBus.copyFrom(&src.addrBus)
	dst.dataBus.copyFrom(&src.dataBus)
	dst.dataBusy = src.dataBusy
	dst.l2tags = append(dst.l2tags[:0], src.l2tags...)
	dst.l2lru = append(dst.l2lru[:0], src.l2lru...)
	dst.l2dirty = append(dst.l2dirty[:0], src.l2dirty...)
	dst.l2tick, dst.l2 = src.l2tick, src.l2
	dst.scratch = append(dst.scratch[:0], src.scratch...)
	dst.l1 = append(dst.l1[:0], src.l1...)
	dst.bus, dst.history, dst.historyN, dst.err = src.bus, src.history, src.historyN, src.err
}
