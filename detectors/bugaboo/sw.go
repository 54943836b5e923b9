package bugaboo

import (
	"fmt"
	"slices"

	"weft/core"
	"weft/isa"
)

// Granularity is the size of the locations BB-SW's last-writer table
// tracks.
type Granularity uint8

// The granularities of the last-writer table.
const (
	// Word tracks every 8-byte word (the paper's word granularity).
	Word Granularity = iota
	// Line tracks every cache line of SWOptions.LineBytes (aliasing like
	// the hardware's, without its evictions).
	Line
)

// String returns "word" or "line".
func (g Granularity) String() string {
	if g == Line {
		return "line"
	}
	return "word"
}

// RmWrTargets says which threads a write sends RmWr to (bugaboo.sw's
// rmwr_targets).
type RmWrTargets uint8

// The RmWr targets.
const (
	// LastWriter sends RmWr to the location's last writer only, when it is
	// another thread (the paper's BB-SW).
	LastWriter RmWrTargets = iota
	// Readers sends RmWr to the threads that read the location since its
	// last write (up to MaxReaders of them, as Recon keeps), and not to
	// the last writer as such.
	Readers
	// Both sends RmWr to the readers since the last write and to the last
	// writer, each once.
	Both
)

// String returns "last_writer", "readers" or "both".
func (t RmWrTargets) String() string {
	switch t {
	case Readers:
		return "readers"
	case Both:
		return "both"
	}
	return "last_writer"
}

// MaxReaders is the number of readers since the last write a location
// remembers (for RmWrTargets Readers and Both, and FirstReadOnly).
const MaxReaders = 8

// SWOptions configures BB-SW. The zero value is the paper's BB-SW (digest
// §2, §5.2 [bugaboo.sw]) but for ContextSize, whose zero value means the
// default 5; use NoContext for the context-oblivious graph.
type SWOptions struct {
	// ContextSize is the number of events S in a context, 0..8. 0 means
	// DefaultContextSize (5); NoContext means S = 0.
	ContextSize int
	// NoContext forces S = 0, the context-oblivious (basic) graph.
	NoContext bool
	// DistinctEmpty codes events in 3 bits with a distinct EMPTY code.
	DistinctEmpty bool
	// Granularity is the last-writer table's granularity (default Word).
	Granularity Granularity
	// LineBytes is the line size for Line granularity: a power of two of
	// at least 8 (0: 64).
	LineBytes int
	// FirstReadOnly counts only a thread's first read of a location since
	// its last write: later reads add no edge and push no event (Recon's
	// FIRSTREAD). A location remembers MaxReaders readers; a reader past
	// them always counts.
	FirstReadOnly bool
	// FirstWriteOnly updates a location's last writer only on a thread's
	// first write to it: while the same thread keeps writing, the entry
	// keeps the PC and context of its first write (Recon's FIRSTWRITE).
	FirstWriteOnly bool
	// RmWrTargets says which threads a write sends RmWr to (default
	// LastWriter).
	RmWrTargets RmWrTargets
	// NullReads adds an edge from the NULL node for every read of a
	// location no thread has written yet (the initial data image, fresh
	// heap words), as BB-HW's memory-served read misses do; it pushes no
	// event. Not in the paper's BB-SW, whose reads of unwritten data
	// communicate with nobody; off by default.
	NullReads bool
	// Ranking is the reading of the ranking formula for the per-run
	// findings (default MinRelFreq).
	Ranking How
	// Top is the number of code points reported as findings (0: 10).
	Top int
}

// Encoding returns the context encoding the options describe.
func (o SWOptions) Encoding() Encoding {
	s := o.ContextSize
	if s == 0 {
		s = DefaultContextSize
	}
	if o.NoContext {
		s = 0
	}
	return Encoding{Size: s, DistinctEmpty: o.DistinctEmpty}
}

// location is one entry of the last-writer table.
type location struct {
	pc  int32  // the last writer's PC
	tid int32  // the last writer's thread + 1; 0: never written
	ctx uint32 // the last writer's context at its write
}

// readerSet is the readers of a location since its last write.
type readerSet struct {
	n uint8
	t [MaxReaders]int32
}

func (r *readerSet) has(t int32) bool { return slices.Contains(r.t[:r.n], t) }

func (r *readerSet) add(t int32) {
	if int(r.n) < MaxReaders && !r.has(t) {
		r.t[r.n] = t
		r.n++
	}
}

// SW is BB-SW, the software Bugaboo (digest §2), for one run: it builds
// the run's context-aware communication graph from the data accesses of
// the event stream. It is a core.Observer for the kinds Kinds returns and
// a core.Detector; it is not safe for concurrent use.
//
// Data accesses are Read, Write and RMW events without core.FlagSync
// (lock, barrier and condition-variable words are not data). An RMW that
// stored (cas, xchg, fadd on an ordinary word) is one write access: the
// hardware sees one exclusive request, and its read half would only repeat
// the same (last writer, this instruction) edge with the context shifted
// by its own LcRd. So it adds at most one edge, pushes LcWr to itself and
// RmWr to the targets, and becomes the last writer. An RMW that did not
// store (a failed cas) is a read. A Free is a write of every freed word by
// the freeing thread. A Crash with an address is the access that faulted,
// as a Pin tool would have seen it: a ld reads, a st writes, a cas, xchg
// or fadd writes, a sync instruction is not data; it counts only for an
// aligned word inside the table so far.
//
// Each thread (the event's Thread) has a context register. On a read or a
// write of a location whose last writer is another thread, SW adds the
// edge (last writer's PC, its context at the write) → (this PC, this
// thread's context before its own event), pushes LcRd or LcWr to this
// thread and RmRd or RmWr to the last writer (and, per RmWrTargets, RmWr
// to the readers since the last write; a write with such readers pushes
// LcWr even when the last writer is this thread). A write then makes this
// thread the last writer, with its context before its LcWr. Accesses to
// locations no thread has written communicate with nobody.
//
// The last-writer table is a slice indexed by word or line from
// isa.DataBase, grown for the heap. SW does not reset on a Rollback: a
// re-executed span is taken as new accesses.
type SW struct {
	prog    *isa.Program
	opts    SWOptions
	enc     Encoding
	shift   uint // log2 of the location size
	readers bool // keep readers since the last write
	table   []location
	rd      []readerSet
	ctx     []Context // per thread
	graph   *Graph
	pushes  uint64
	access  uint64
}

// NewSW returns BB-SW for runs of prog with the given options. It panics on
// options out of range (a context size past 8, a line size that is not a
// power of two of at least 8).
func NewSW(prog *isa.Program, opts SWOptions) *SW {
	enc := opts.Encoding()
	if err := enc.Valid(); err != nil {
		panic(err)
	}
	s := &SW{prog: prog, opts: opts, enc: enc, graph: NewGraph(), shift: 3}
	if opts.Granularity == Line {
		lb := opts.LineBytes
		if lb == 0 {
			lb = 64
		}
		if lb < isa.WordBytes || lb&(lb-1) != 0 {
			panic(fmt.Sprintf("bugaboo: line size %d is not a power of two of at least %d", lb, isa.WordBytes))
		}
		s.shift = 0
		for 1<<s.shift < lb {
			s.shift++
		}
	}
	s.readers = opts.FirstReadOnly || opts.RmWrTargets != LastWriter
	return s
}

// Name returns "bbsw".
func (s *SW) Name() string { return "bbsw" }

// Kinds returns the event kinds SW observes: Read, Write, RMW, Free and
// Crash.
func (s *SW) Kinds() core.KindMask {
	return core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW, core.KindFree, core.KindCrash)
}

// Graph returns the run's communication graph so far (SW's own: do not
// modify it during the run).
func (s *SW) Graph() *Graph { return s.graph }

// Encoding returns the context encoding SW uses.
func (s *SW) Encoding() Encoding { return s.enc }

// Context returns thread t's context now.
func (s *SW) Context(t int32) Context {
	if t < 0 || int(t) >= len(s.ctx) {
		return 0
	}
	return s.ctx[t]
}

// Pushes returns the number of context events pushed so far.
func (s *SW) Pushes() uint64 { return s.pushes }

// Accesses returns the number of data accesses seen so far.
func (s *SW) Accesses() uint64 { return s.access }

// Trim drops the run's location table once the run has ended, keeping
// its graph and each thread's context: a caller that holds many finished
// runs then holds only their graphs.
func (s *SW) Trim() { s.table, s.rd = nil, nil }

// Findings returns the run's most suspicious code points: the top
// SWOptions.Top (10) of the single run's unlabeled ranking, as findings
// of kind "rare-context" (see RankFindings), sorted with
// core.CompareFindings.
func (s *SW) Findings() []core.Finding {
	top := s.opts.Top
	if top == 0 {
		top = 10
	}
	r := Ranker{Prog: s.prog, How: s.opts.Ranking}
	return RankFindings(s.Name(), s.prog, s.enc, r.Rank([]*Graph{s.graph}), top)
}

// Observe processes one event.
func (s *SW) Observe(e *core.Event) {
	switch e.Op() {
	case core.OpRead, core.OpWrite, core.OpAtomic:
		// An RMW that did not store (a failed cas) only read.
		if e.Writes() {
			s.write(e.Thread, e.PC, e.Addr)
		} else {
			s.read(e.Thread, e.PC, e.Addr)
		}
	case core.OpFree:
		for a := range isa.Words(e.Addr, e.FreeWords()) {
			s.write(e.Thread, e.PC, a)
		}
	case core.OpFault:
		s.crash(e)
	}
}

// crash counts the access a faulting instruction attempted.
func (s *SW) crash(e *core.Event) {
	a := e.Addr
	op, ok := s.prog.FaultOp(e.PC, a, isa.DataBase+uint64(len(s.table))<<s.shift)
	if !ok {
		return
	}
	switch op {
	case isa.OpLd:
		s.read(e.Thread, e.PC, a)
	case isa.OpSt, isa.OpCas, isa.OpXchg, isa.OpFadd:
		s.write(e.Thread, e.PC, a)
	}
}

// index returns the table index of address a, growing the table as needed,
// or -1 below the data segment.
func (s *SW) index(a uint64) int {
	if a < isa.DataBase {
		return -1
	}
	i := int((a - isa.DataBase) >> s.shift)
	if i >= len(s.table) {
		n := max(2*len(s.table), i+1, 64)
		s.table = append(s.table, make([]location, n-len(s.table))...)
		if s.readers {
			s.rd = append(s.rd, make([]readerSet, n-len(s.rd))...)
		}
	}
	return i
}

// context returns thread t's register, growing the per-thread array.
func (s *SW) context(t int32) *Context {
	if int(t) >= len(s.ctx) {
		s.ctx = append(s.ctx, make([]Context, int(t)+1-len(s.ctx))...)
	}
	return &s.ctx[t]
}

// push shifts event ev into thread t's context.
func (s *SW) push(t int32, ev Event) {
	c := s.context(t)
	*c = s.enc.Push(*c, ev)
	s.pushes++
}

// read processes a data read by thread t at pc of address a.
func (s *SW) read(t, pc int32, a uint64) {
	i := s.index(a)
	if i < 0 || t < 0 {
		return
	}
	s.access++
	loc := &s.table[i]
	if loc.tid != 0 && loc.tid-1 != t {
		if s.opts.FirstReadOnly && s.rd[i].has(t) {
			return
		}
		s.graph.AddEdge(Node{PC: loc.pc, Ctx: loc.ctx}, Node{PC: pc, Ctx: uint32(*s.context(t))})
		s.push(t, LcRd)
		s.push(loc.tid-1, RmRd)
	} else if loc.tid == 0 && s.opts.NullReads && !(s.opts.FirstReadOnly && s.rd[i].has(t)) {
		s.graph.AddEdge(Node{PC: NullPC}, Node{PC: pc, Ctx: uint32(*s.context(t))})
	}
	if s.readers {
		s.rd[i].add(t)
	}
}

// write processes a data write by thread t at pc of address a.
func (s *SW) write(t, pc int32, a uint64) {
	i := s.index(a)
	if i < 0 || t < 0 {
		return
	}
	s.access++
	loc := &s.table[i]
	ctx := uint32(*s.context(t))
	remote := loc.tid != 0 && loc.tid-1 != t
	if remote {
		s.graph.AddEdge(Node{PC: loc.pc, Ctx: loc.ctx}, Node{PC: pc, Ctx: ctx})
	}
	local := remote
	if remote && s.opts.RmWrTargets != Readers {
		s.push(loc.tid-1, RmWr)
	}
	if s.opts.RmWrTargets != LastWriter {
		rs := &s.rd[i]
		for _, r := range rs.t[:rs.n] {
			if r == t || s.opts.RmWrTargets == Both && remote && r == loc.tid-1 {
				continue
			}
			s.push(r, RmWr)
			local = true
		}
	}
	if local {
		s.push(t, LcWr)
	}
	if !(s.opts.FirstWriteOnly && loc.tid-1 == t) {
		loc.pc, loc.tid, loc.ctx = pc, t+1, ctx
	}
	if s.readers {
		s.rd[i].n = 0
	}
}

// RankFindings turns a ranking into findings: its first top code points,
// each of kind "rare-context" with PCs the code point's instructions that
// appear in the graphs, Score 1 − the ranking score (higher is more
// suspicious) and a message naming the code point and its rarest context
// in enc; sorted with core.CompareFindings.
func RankFindings(detector string, prog *isa.Program, enc Encoding, ranked []Ranked, top int) []core.Finding {
	out := make([]core.Finding, 0, min(top, len(ranked)))
	for i := range ranked {
		if i >= top {
			break
		}
		rk := &ranked[i]
		out = append(out, core.Finding{
			Detector: detector,
			Kind:     "rare-context",
			PCs:      slices.Clone(rk.PCs),
			Score:    1 - rk.Score,
			Message: fmt.Sprintf("%s ran in %d context(s) with %d communication event(s); rarest context %s in %d of %d graph(s) (rank %d)",
				DescribeCodePoint(prog, rk.CodePoint), rk.Contexts, rk.Dyn, enc.Format(Context(rk.Rarest)), rk.RarestRuns, rk.Graphs, i+1),
		})
	}
	slices.SortFunc(out, core.CompareFindings)
	return out
}

// DescribeCodePoint names a code point for messages: "line 42 in deposit",
// or "code point jrn (line 57 in journal)" for a named one; with a nil
// prog, "pc N".
func DescribeCodePoint(prog *isa.Program, cp int32) string {
	if prog == nil || cp < 0 || int(cp) >= len(prog.CodePoints) {
		return fmt.Sprintf("pc %d", cp)
	}
	c := prog.CodePoints[cp]
	where := fmt.Sprintf("line %d", c.Line)
	if c.Func >= 0 && int(c.Func) < len(prog.Funcs) {
		where += " in " + prog.Funcs[c.Func].Name
	}
	if c.Name != "" {
		return fmt.Sprintf("code point %s (%s)", c.Name, where)
	}
	return where
}

// Program returns the program the graphs' PCs belong to.
func (s *SW) Program() *isa.Program { return s.prog }
