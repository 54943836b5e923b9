package coherence

import (
	"fmt"
	"math/bits"
	"strings"

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
	// Addr is the accessed byte address.
	Addr uint64
	// Line is Addr's line number (Addr >> the line shift).
	Line uint64
	// Ctx is free for an extension to capture state at issue (the MSHR).
	Ctx uint64
	// Supplier is the core that supplied the data, or -1 for memory.
	Supplier int
	// Responders are the cores that held the line when it was snooped.
	Responders []int
	// Requested is the cycle the miss asked for the bus.
	Requested core.Cycle
	// Granted is the cycle the bus was granted (0 in OnIssue).
	Granted core.Cycle
	// Done is the cycle the transaction completed (0 in OnIssue).
	Done core.Cycle
}

// Hooks are the callbacks a hardware extension registers on protocol
// phases. A nil hook costs nothing.
type Hooks struct {
	// OnIssue runs when a miss is queued for the bus (the MSHR is filled).
	OnIssue func(tx *Txn)
	// OnSnoop runs once per responding cache before its state changes. When
	// set, it moves metadata from resp (the responder's record) to req (the
	// requester's record-to-be) itself; when nil, read replies and
	// invalidation acks copy resp into req.
	OnSnoop func(tx *Txn, responder int, before, after State, resp, req []uint64)
	// OnFill runs after the requester's line is filled; meta is its record.
	OnFill func(tx *Txn, meta []uint64)
	// OnAccess runs for every performed access with the line's record.
	OnAccess func(c int, addr uint64, write bool, pc int32, meta []uint64)
	// OnEvict runs before an evicted line's record is dropped or written back.
	OnEvict func(c int, line uint64, meta []uint64)
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
)

type request struct {
	core  int32
	write bool
	pc    int32
	addr  uint64
	at    core.Cycle
	ctx   uint64
}

type historyEntry struct {
	cycle  core.Cycle
	core   int32
	line   uint64
	before State
	event  ProtoEvent
	after  State
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
	stats      Stats
	history    [historySize]historyEntry
	historyN   uint64
	err        error
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

	st SysState

	eng     *core.Engine
	target  int32
	events  *core.Stream
	clients []Client
	hooks   Hooks

	// scratch
	tx         Txn
	responders []int
	ev         core.Event
	list       []uint64
	zeroMeta   []uint64
	// mru is each core's most recently hit frame, checked before the set
	// scan. It is a hint (validated on use), not state.
	mru []int
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
		mru:       make([]int, spec.Cores),
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
	for c := range s.mru {
		// Each core's hint starts at its own first frame, so a hint always
		// names one of the core's frames and needs no range check.
		s.mru[c] = c * sets * spec.Assoc
	}
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
	st.queue = make([]request, 0, spec.Cores)
	s.memBase = dataBase
	s.growMem(memWords)
	s.target = eng.Register(s)
	return s, nil
}

// Target returns the engine target of the bus's completion events.
func (s *System) Target() int32 { return s.target }

// Requester returns the core whose transaction is on the bus (or was last).
func (s *System) Requester() int { return int(s.st.cur.core) }

// SetClient attaches the core-side client of cache c.
func (s *System) SetClient(c int, cl Client) { s.clients[c] = cl }

// SetHooks registers an extension's protocol hooks.
func (s *System) SetHooks(h Hooks) { s.hooks = h }

// Spec returns the system's configuration.
func (s *System) Spec() Spec { return s.spec }

// LineOf returns the line number of addr.
func (s *System) LineOf(addr uint64) uint64 { return addr >> s.lineShift }

// LineShift returns log2 of the line size.
func (s *System) LineShift() uint { return s.lineShift }

// Err returns the first internal protocol error, if any.
func (s *System) Err() error { return s.st.err }

// Stats returns the counters so far.
func (s *System) Stats() Stats { return s.st.stats }

// growMem extends backing memory to at least words words, whole lines.
func (s *System) growMem(words int) {
	if r := words % s.wordsLine; r != 0 {
		words += s.wordsLine - r
	}
	st := &s.st
	for len(st.mem) < words {
		st.mem = append(st.mem, 0)
	}
	for len(st.memMeta) < words/s.wordsLine*s.spec.MetaWords {
		st.memMeta = append(st.memMeta, 0)
	}
	for len(st.present) < words/s.wordsLine {
		st.present = append(st.present, 0)
		st.lostInval = append(st.lostInval, 0)
	}
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

func (s *System) frameBase(c int, line uint64) int {
	return (c*s.sets + int(line&s.setMask)) * s.spec.Assoc
}

// find returns the frame of core c holding line in a valid state, or -1.
func (s *System) find(c int, line uint64) int {
	base := s.frameBase(c, line)
	tags := s.st.tags[base : base+s.spec.Assoc]
	for w, t := range tags {
		if t == line && s.st.states[base+w] != Invalid {
			return base + w
		}
	}
	return -1
}

// Lookup returns the frame of core c's L1 that can serve an access to addr
// now (a read needs a valid copy, a write needs E or M), or -1 for a miss.
// It changes nothing: the access is counted and the line touched by Commit
// once the check phase lets the access proceed.
func (s *System) Lookup(c int, addr uint64, write bool) int {
	line := addr >> s.lineShift
	st := &s.st
	f := s.mru[c]
	if st.tags[f] != line || st.states[f] == Invalid {
		f = s.find(c, line)
		if f < 0 {
			return -1
		}
		s.mru[c] = f
	}
	if write && st.states[f] == Shared {
		return -1
	}
	return f
}

// Commit performs the cache side of a hit found by Lookup: a write in E
// moves the line to M silently, the line becomes most recently used, and,
// when count is set, the access is counted (an access retried after a
// stall is counted once).
func (s *System) Commit(c int, f int, write, count bool) {
	st := &s.st
	if write {
		tr := mesiTable[st.states[f]][LocalWrite]
		if !tr.Defined || tr.Actions != 0 {
			// Lookup only returns frames that can take the write now.
			s.undefined(s.eng.Now(), c, st.tags[f], st.states[f], LocalWrite)
			return
		}
		st.states[f] = tr.Next
	}
	if count {
		if write {
			st.stats[StatWrites]++
			st.stats[StatWriteHits]++
		} else {
			st.stats[StatReads]++
			st.stats[StatReadHits]++
		}
	}
	st.ticks[c]++
	st.lru[f] = st.ticks[c]
}

// Probe is Lookup followed, on a hit, by a counted Commit: for callers with
// no check phase.
func (s *System) Probe(c int, addr uint64, write bool) int {
	f := s.Lookup(c, addr, write)
	if f >= 0 {
		s.Commit(c, f, write, true)
	}
	return f
}

// Holds reports the state of line in core c's L1.
func (s *System) Holds(c int, line uint64) State {
	if f := s.find(c, line); f >= 0 {
		return s.st.states[f]
	}
	return Invalid
}

// ReadWord returns the word at addr from the line in frame.
func (s *System) ReadWord(frame int, addr uint64) int64 {
	return s.st.data[frame<<s.wordShift+int(addr>>3)&(s.wordsLine-1)]
}

// WriteWord stores v at addr in the line in frame, which must be in M.
func (s *System) WriteWord(frame int, addr uint64, v int64) {
	s.st.data[frame<<s.wordShift+int(addr>>3)&(s.wordsLine-1)] = v
}

// Meta returns the metadata record of the line in frame (nil when the
// system has no metadata).
func (s *System) Meta(frame int) []uint64 {
	n := s.spec.MetaWords
	return s.st.meta[frame*n : frame*n+n : frame*n+n]
}

// Accessed runs the OnAccess hook for a performed access.
func (s *System) Accessed(c int, frame int, addr uint64, write bool, pc int32) {
	if s.hooks.OnAccess != nil {
		s.hooks.OnAccess(c, addr, write, pc, s.Meta(frame))
	}
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

// Request queues a miss of core c on addr (a write when write is set) at
// cycle at. When the transaction completes, the core's client gets TxnDone.
// pc is the missing instruction, kept with the request (the MSHR).
//
// The miss counts as an access unless the caller has counted this access
// already (a retry after a stall); Probe's callers pass count = true.
func (s *System) Request(c int, addr uint64, write bool, pc int32, at core.Cycle) {
	s.RequestCounted(c, addr, write, pc, at, true)
}

// RequestCounted is Request with the access counted only when count is set.
func (s *System) RequestCounted(c int, addr uint64, write bool, pc int32, at core.Cycle, count bool) {
	st := &s.st
	line := addr >> s.lineShift
	f := s.find(c, line)
	if count {
		if write {
			st.stats[StatWrites]++
		} else {
			st.stats[StatReads]++
		}
	}
	if write {
		if f >= 0 {
			st.stats[StatUpgradeMisses]++
		} else {
			st.stats[StatWriteMisses]++
		}
	} else {
		st.stats[StatReadMisses]++
	}
	if f < 0 && st.lostInval[line-s.memBase>>s.lineShift]&(1<<uint(c)) != 0 {
		st.stats[StatCoherenceMisses]++
	}
	r := request{core: int32(c), write: write, pc: pc, addr: addr, at: at}
	if s.hooks.OnIssue != nil {
		s.tx = Txn{Core: c, Write: write, PC: pc, Addr: addr, Line: line, Requested: at, Supplier: -1}
		s.hooks.OnIssue(&s.tx)
		r.ctx = s.tx.Ctx
	}
	if !st.busy {
		s.grant(r, at+s.spec.ArbCycles)
		return
	}
	st.queue = append(st.queue, r)
}

func (s *System) xfer(bytes int) core.Cycle {
	return core.Cycle((bytes + s.spec.BusWidth - 1) / s.spec.BusWidth)
}

// missKind reads from the MESI table which transaction core c's access to
// line needs: the action of (its current state, LocalRead/LocalWrite). It
// reports false (after recording an internal error) when the table has no
// bus action for the pair, i.e. the access was not a miss.
func (s *System) missKind(c int, line uint64, write bool) (TxnKind, bool) {
	state, ev := Invalid, LocalRead
	if f := s.find(c, line); f >= 0 {
		state = s.st.states[f]
	}
	if write {
		ev = LocalWrite
	}
	tr := Lookup(state, ev)
	switch {
	case tr.Actions&ActBusRd != 0:
		return TxnBusRd, true
	case tr.Actions&ActBusRdX != 0:
		return TxnBusRdX, true
	case tr.Actions&ActBusUpgr != 0:
		return TxnBusUpgr, true
	}
	s.undefined(s.eng.Now(), c, line, state, ev)
	return TxnNone, false
}

// grant starts transaction r on the bus at cycle g.
func (s *System) grant(r request, g core.Cycle) {
	st := &s.st
	if g < st.busFreeAt {
		g = st.busFreeAt
	}
	if ready := r.at + s.spec.ArbCycles; g > ready {
		st.stats[StatBusQueueCycles] += uint64(g - ready)
	}
	c := int(r.core)
	line := r.addr >> s.lineShift
	kind, ok := s.missKind(c, line, r.write)
	if !ok {
		return
	}
	owner, sharers := false, 0
	for h := s.holders(c, line); h != 0; h &= h - 1 {
		if f := s.find(bits.TrailingZeros64(h), line); f >= 0 {
			sharers++
			if st.states[f] == Exclusive || st.states[f] == Modified {
				owner = true
			}
		}
	}
	lat := s.spec.SnoopCycles
	switch kind {
	case TxnBusRd, TxnBusRdX:
		payload := s.spec.LineBytes
		if owner {
			lat += s.spec.C2CCycles
			payload += s.metaBytes
		} else {
			lat += s.spec.MemCycles
			if s.spec.MetaEvict == MetaWriteback || (s.spec.SharerMetaOnMemRead && sharers > 0) {
				payload += s.metaBytes
			}
		}
		if kind == TxnBusRdX && !owner {
			payload += sharers * s.metaBytes
		}
		lat += s.xfer(payload)
	case TxnBusUpgr:
		if s.metaBytes > 0 && sharers > 0 {
			lat += s.xfer(sharers * s.metaBytes)
		}
	}
	done := g + lat
	st.busy = true
	st.cur = r
	st.curKind = kind
	st.curGranted = g
	st.busFreeAt = done
	st.stats[StatBusBusyCycles] += uint64(lat)
	s.eng.Schedule(done, s.target, opComplete, 0)
}

// Handle completes the transaction in flight (the engine calls it).
func (s *System) Handle(now core.Cycle, op int32, arg uint64) {
	if op != opComplete {
		s.fail(fmt.Errorf("coherence: unknown bus event op %d", op))
		return
	}
	st := &s.st
	r := st.cur
	frame := s.complete(now, r, st.curKind, st.curGranted)
	st.busy = false
	if len(st.queue) > 0 {
		next := st.queue[0]
		copy(st.queue, st.queue[1:])
		st.queue = st.queue[:len(st.queue)-1]
		g := next.at + s.spec.ArbCycles
		if g < now {
			g = now
		}
		s.grant(next, g)
	}
	if frame >= 0 {
		s.clients[r.core].TxnDone(now, frame)
	}
}

func (s *System) fail(err error) {
	if s.st.err == nil {
		s.st.err = err
	}
}

func (s *System) record(now core.Cycle, c int, line uint64, before State, ev ProtoEvent, after State) {
	st := &s.st
	st.history[st.historyN%historySize] = historyEntry{cycle: now, core: int32(c), line: line, before: before, event: ev, after: after}
	st.historyN++
}

// undefined reports an undefined (state, event) pair with the line's
// recent history.
func (s *System) undefined(now core.Cycle, c int, line uint64, state State, ev ProtoEvent) {
	var b strings.Builder
	fmt.Fprintf(&b, "coherence: undefined MESI transition at cycle %d: core[%d].l1 line %#x in %s on %s", now, c, line<<s.lineShift, state, ev)
	st := &s.st
	start := uint64(0)
	if st.historyN > historySize {
		start = st.historyN - historySize
	}
	b.WriteString("; recent history of the line:")
	for i := start; i < st.historyN; i++ {
		h := st.history[i%historySize]
		if h.line == line {
			fmt.Fprintf(&b, " [cycle %d core %d %s-%s->%s]", h.cycle, h.core, h.before, h.event, h.after)
		}
	}
	s.fail(fmt.Errorf("%s", b.String()))
}

// victim picks the frame to fill line into in core c's set: an invalid way
// first, else the least recently used.
func (s *System) victim(c int, line uint64) int {
	base := s.frameBase(c, line)
	st := &s.st
	best := -1
	for w := 0; w < s.spec.Assoc; w++ {
		f := base + w
		if st.states[f] == Invalid {
			if best < 0 || st.states[best] != Invalid {
				best = f
			}
			continue
		}
		if best < 0 || (st.states[best] != Invalid && st.lru[f] < st.lru[best]) {
			best = f
		}
	}
	return best
}

// evict removes the valid line in frame f of core c.
func (s *System) evict(now core.Cycle, c int, f int) {
	st := &s.st
	line := st.tags[f]
	tr := Lookup(st.states[f], Evict)
	if !tr.Defined {
		s.undefined(now, c, line, st.states[f], Evict)
		return
	}
	s.record(now, c, line, st.states[f], Evict, tr.Next)
	meta := s.Meta(f)
	if s.hooks.OnEvict != nil {
		s.hooks.OnEvict(c, line, meta)
	}
	if tr.Actions&ActWriteback != 0 {
		s.writeLineToMemory(f, line)
		st.stats[StatWritebacks]++
		st.stats[StatBusWriteback]++
		wb := s.xfer(s.spec.LineBytes)
		if s.spec.MetaEvict == MetaWriteback {
			wb = s.xfer(s.spec.LineBytes + s.metaBytes)
			st.stats[StatMetaBytes] += uint64(s.metaBytes)
		}
		st.busFreeAt += wb
		st.stats[StatBusBusyCycles] += uint64(wb)
		if s.events.Watching(core.KindWriteback) {
			s.emit(core.KindWriteback, now, c, -1, line<<s.lineShift, 0)
		}
	}
	if s.spec.MetaWords > 0 && s.spec.MetaEvict != MetaLost && !s.otherHolder(c, line) {
		if s.spec.MetaEvict == MetaWriteback && tr.Actions&ActWriteback == 0 && !allZero(meta) {
			wb := s.xfer(s.metaBytes)
			st.busFreeAt += wb
			st.stats[StatBusBusyCycles] += uint64(wb)
			st.stats[StatMetaBytes] += uint64(s.metaBytes)
		}
		copy(s.memMetaOf(line), meta)
	}
	clear(meta)
	st.stats[StatEvictions]++
	if s.events.Watching(core.KindEvict) {
		s.ev = core.Event{Kind: core.KindEvict, Cycle: now, Core: int32(c), Thread: -1, PC: core.NoPC, Addr: line << s.lineShift}
		s.ev.Words[0] = uint64(st.states[f])
		s.events.Emit(&s.ev)
	}
	st.states[f] = Invalid
	st.tags[f] = noTag
	s.setPresent(c, line, false)
	if cl := s.clients[c]; cl != nil {
		cl.LineLost(now, line)
	}
}

func allZero(m []uint64) bool {
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

func (s *System) otherHolder(c int, line uint64) bool {
	return s.holders(c, line) != 0
}

func (s *System) memMetaOf(line uint64) []uint64 {
	i := int((line<<s.lineShift-s.memBase)>>s.lineShift) * s.spec.MetaWords
	return s.st.memMeta[i : i+s.spec.MetaWords]
}

func (s *System) writeLineToMemory(f int, line uint64) {
	w := int((line<<s.lineShift - s.memBase) >> 3)
	copy(s.st.mem[w:w+s.wordsLine], s.st.data[f<<s.wordShift:(f+1)<<s.wordShift])
}

func (s *System) emit(k core.Kind, now core.Cycle, c int, pc int32, addr uint64, flags uint8) {
	s.ev = core.Event{Kind: k, Flags: flags, Cycle: now, Core: int32(c), Thread: -1, PC: pc, Addr: addr}
	s.events.Emit(&s.ev)
}

// complete performs the transaction r at cycle now: snoops, supply,
// invalidations, the fill and its metadata. It returns the requester's frame.
func (s *System) complete(now core.Cycle, r request, kind TxnKind, granted core.Cycle) int {
	st := &s.st
	c := int(r.core)
	line := r.addr >> s.lineShift
	f := s.find(c, line)
	if kind == TxnBusUpgr && f < 0 {
		s.fail(fmt.Errorf("coherence: core[%d].l1 lost line %#x during its upgrade", c, line<<s.lineShift))
		return -1
	}
	if f < 0 {
		f = s.victim(c, line)
		if st.states[f] != Invalid {
			s.evict(now, c, f)
		}
		clear(s.Meta(f))
	}
	reqMeta := s.Meta(f)
	s.tx = Txn{Kind: kind, Core: c, Write: r.write, PC: r.pc, Addr: r.addr, Line: line, Ctx: r.ctx,
		Supplier: -1, Requested: r.at, Granted: granted, Done: now}
	s.responders = s.responders[:0]
	var ev ProtoEvent
	switch kind {
	case TxnBusRd:
		ev = SnoopBusRd
		st.stats[StatBusRd]++
	case TxnBusRdX:
		ev = SnoopBusRdX
		st.stats[StatBusRdX]++
	default:
		ev = SnoopBusUpgr
		st.stats[StatBusUpgr]++
	}
	supplied := false
	sharerMeta := -1
	for h := s.holders(c, line); h != 0; h &= h - 1 {
		o := bits.TrailingZeros64(h)
		of := s.find(o, line)
		if of < 0 {
			s.fail(fmt.Errorf("coherence: presence bit of core %d set for line %#x it does not hold", o, line<<s.lineShift))
			return -1
		}
		before := st.states[of]
		tr := Lookup(before, ev)
		if !tr.Defined {
			s.undefined(now, o, line, before, ev)
			return -1
		}
		s.record(now, o, line, before, ev, tr.Next)
		s.responders = append(s.responders, o)
		resp := s.Meta(of)
		if s.hooks.OnSnoop != nil {
			s.hooks.OnSnoop(&s.tx, o, before, tr.Next, resp, reqMeta)
		} else if tr.Actions&(ActSupply|ActInvalAck) != 0 {
			copy(reqMeta, resp)
		}
		if tr.Actions&(ActSupply|ActInvalAck) != 0 && s.spec.MetaWords > 0 {
			st.stats[StatMetaBytes] += uint64(s.metaBytes)
			via := MetaViaReadReply
			if tr.Actions&ActSupply == 0 {
				via = MetaViaInvalAck
			}
			s.piggyback(now, c, o, line, via)
		}
		if before == Shared && sharerMeta < 0 {
			sharerMeta = of
		}
		if tr.Actions&ActSupply != 0 {
			copy(st.data[f<<s.wordShift:(f+1)<<s.wordShift], st.data[of<<s.wordShift:(of+1)<<s.wordShift])
			supplied = true
			s.tx.Supplier = o
		}
		if tr.Actions&ActWriteback != 0 {
			s.writeLineToMemory(of, line)
			st.stats[StatWritebacks]++
		}
		if s.events.Watching(core.KindSnoop) {
			s.ev = core.Event{Kind: core.KindSnoop, Cycle: now, Core: int32(o), Thread: -1, PC: core.NoPC, Addr: line << s.lineShift}
			s.ev.Words = [4]uint64{uint64(before), uint64(tr.Next), b2u(tr.Actions&ActSupply != 0), uint64(c)}
			s.events.Emit(&s.ev)
		}
		st.states[of] = tr.Next
		if tr.Next == Invalid {
			s.setPresent(o, line, false)
			st.lostInval[line-s.memBase>>s.lineShift] |= 1 << uint(o)
			clear(resp)
			st.stats[StatInvalidations]++
			if cl := s.clients[o]; cl != nil {
				cl.LineLost(now, line)
			}
		}
	}
	s.tx.Responders = s.responders
	if kind != TxnBusUpgr {
		if supplied {
			st.stats[StatFillsC2C]++
		} else {
			st.stats[StatFillsMemory]++
			w := int((line<<s.lineShift - s.memBase) >> 3)
			copy(st.data[f<<s.wordShift:(f+1)<<s.wordShift], st.mem[w:w+s.wordsLine])
			if s.spec.MetaWords > 0 {
				switch {
				case kind == TxnBusRd && sharerMeta >= 0 && (s.spec.SharerMetaOnMemRead || s.spec.MetaEvict == MetaIdeal):
					// Memory's record is refreshed only on eviction, so
					// while sharers exist theirs is the current one.
					if s.hooks.OnSnoop == nil {
						copy(reqMeta, s.Meta(sharerMeta))
					}
					s.piggyback(now, c, sharerMeta/(s.sets*s.spec.Assoc), line, MetaViaSharer)
				case s.spec.MetaEvict != MetaLost && len(s.responders) == 0:
					copy(reqMeta, s.memMetaOf(line))
					s.piggyback(now, c, -1, line, MetaViaMemory)
				}
			}
		}
	}
	before := Invalid
	if kind == TxnBusUpgr {
		before = Shared
	}
	local := LocalRead
	if r.write {
		local = LocalWrite
	}
	tr := Lookup(before, local)
	next := tr.Next
	if tr.Actions&ActBusRd != 0 && len(s.responders) == 0 {
		// ActBusRd: the line is exclusive when no other cache holds it.
		next = Exclusive
	}
	s.record(now, c, line, before, local, next)
	st.tags[f] = line
	st.states[f] = next
	s.setPresent(c, line, true)
	st.lostInval[line-s.memBase>>s.lineShift] &^= 1 << uint(c)
	st.ticks[c]++
	st.lru[f] = st.ticks[c]
	if s.hooks.OnFill != nil {
		s.hooks.OnFill(&s.tx, reqMeta)
	}
	if s.events.Watching(core.KindBusRd + core.Kind(kind-TxnBusRd)) {
		k := core.KindBusRd + core.Kind(kind-TxnBusRd)
		var fl uint8
		if supplied {
			fl = core.FlagC2C
		}
		s.ev = core.Event{Kind: k, Flags: fl, Cycle: now, Core: int32(c), Thread: -1, PC: r.pc, Addr: line << s.lineShift}
		s.ev.Words = [4]uint64{uint64(granted), uint64(r.at), uint64(len(s.responders)), 0}
		s.list = s.list[:0]
		for _, o := range s.responders {
			s.list = append(s.list, uint64(o))
		}
		s.ev.List = s.list
		s.events.Emit(&s.ev)
	}
	if kind != TxnBusUpgr && s.events.Watching(core.KindFill) {
		// Words[0] is the supplying core when FlagC2C is set (memory
		// supplied the line otherwise).
		var fl uint8
		var sup uint64
		if supplied {
			fl = core.FlagC2C
			sup = uint64(s.tx.Supplier)
		}
		s.ev = core.Event{Kind: core.KindFill, Flags: fl, Cycle: now, Core: int32(c), Thread: -1, PC: r.pc, Addr: line << s.lineShift}
		s.ev.Words[0] = sup
		s.events.Emit(&s.ev)
	}
	return f
}

// How a metadata record reached a requester (Words[2] of MetaPiggyback).
const (
	MetaViaReadReply = iota
	MetaViaInvalAck
	MetaViaSharer
	MetaViaMemory
)

// piggyback emits a MetaPiggyback event: line's record moved from core
// from (-1: memory) to core to. Words: [from, payload bytes, via].
func (s *System) piggyback(now core.Cycle, to, from int, line uint64, via int) {
	if !s.events.Watching(core.KindMetaPiggyback) {
		return
	}
	s.ev = core.Event{Kind: core.KindMetaPiggyback, Cycle: now, Core: int32(to), Thread: -1, PC: core.NoPC, Addr: line << s.lineShift}
	s.ev.Words = [4]uint64{uint64(int64(from)), uint64(s.metaBytes), uint64(via), 0}
	s.events.Emit(&s.ev)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
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
	dst.stats, dst.history, dst.historyN, dst.err = src.stats, src.history, src.historyN, src.err
}
