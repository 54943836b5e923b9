// Package falcon is Falcon (Park, Vuduc and Harrold, ICSE 2010) over
// weft's event stream: per-location sliding windows of recent accesses
// from which each run's conflicting (order-violation) and unserializable
// (atomicity-violation) interleaving patterns are extracted, and a
// Learner that ranks the patterns of many runs of one program by how
// strongly they go with its failing runs (Jaccard, or Tarantula), beside
// CCI-Prev's per-access predicates ranked with CBI's Importance.
//
// Windows. Each shared location (a word, or a cache line with
// Options.Line) keeps the last W accesses (Options.Window, default 5) as
// slots of (read or write, thread, PC). A thread-local access (the same
// thread as the last slot) replaces the last slot, except that a read
// does not replace a write (writes are preferred: every violation
// involves one); a remote access is appended, and when the window is full
// it is first scanned for patterns and its oldest slot evicted. Adjacent
// slots therefore always belong to different threads. At the end of the
// run every window is scanned and slid until it is empty, so that every
// slot anchors a scan once (digest §1.4).
//
// Patterns. A scan is anchored at the oldest slot a: if a's thread has a
// later slot k (its next local access), every slot j between them that
// makes (a, j, k) one of the five unserializable patterns of Falcon's
// Table 2 (R-W-R, W-W-R, W-R-W, R-W-W, W-W-W) is reported; only when none
// is, the pair (a, next slot) is reported if it is conflicting (Table 1:
// R-W, W-R, W-W). A pattern's key is its kind, its operations and its
// PCs (static: thread labels are normalised, 1 for the anchor's thread, 2
// for the other), and with Options.KeyByAddr its location. A run reports
// each pattern once (presence, not counts), with the span (closing slot −
// anchor + 1) of every unserializable detection for Falcon's Study 1.
//
// Scope. Only data accesses count: Read, Write and RMW events without
// core.FlagSync (lock, barrier and condition-variable words are not data;
// an RMW on an ordinary word that stored is a write, as a local read then
// write would merge into one; one that did not, a failed cas, a read). Like the paper's instrumentation, which covered the
// application's code and not the libraries it calls, accesses by
// instructions of functions named lib_* are not instrumented unless
// Options.AllCode is set. Faulting accesses (Crash events) and frees are
// not counted. The detector does not reset on a Rollback event (PSet's
// hardware): a re-executed span's accesses count again.
package falcon

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"weft/core"
	"weft/isa"
)

// DefaultWindow is the default window capacity (the paper's Study 2).
const DefaultWindow = 5

// MaxWindow is the largest window capacity.
const MaxWindow = 1024

// LibPrefix starts the names of the functions that are library code,
// which Falcon does not instrument by default.
const LibPrefix = "lib_"

// Options configures a Detector.
type Options struct {
	// Window is each location's capacity W (0: DefaultWindow; else 3, the
	// longest pattern, to MaxWindow).
	Window int
	// Line makes a location a cache line of LineBytes bytes instead of a
	// word.
	Line bool
	// LineBytes is the line size with Line (a power of two, at least a
	// word; 0: 64).
	LineBytes int
	// AllCode instruments library code (functions named lib_*) too.
	AllCode bool
	// KeyByAddr puts the location in a pattern's key, so the same
	// instructions on two locations are two patterns.
	KeyByAddr bool
}

// Check reports what is wrong with o, or nil.
func (o Options) Check() error {
	if o.Window != 0 && (o.Window < 3 || o.Window > MaxWindow) {
		return fmt.Errorf("falcon: window %d (want 3 to %d)", o.Window, MaxWindow)
	}
	if o.Line && o.LineBytes != 0 && (o.LineBytes < isa.WordBytes || o.LineBytes&(o.LineBytes-1) != 0) {
		return fmt.Errorf("falcon: line size %d bytes (want a power of two of at least %d)", o.LineBytes, isa.WordBytes)
	}
	return nil
}

// Kind is a pattern's kind.
type Kind uint8

// The pattern kinds.
const (
	// Unserializable is a (local, remote, local) triple of Falcon's Table
	// 2: an atomicity violation's shape.
	Unserializable Kind = iota
	// Conflicting is a (local, remote) pair of Table 1 with a write: an
	// order violation's shape.
	Conflicting
)

// String returns "unserializable" or "conflicting".
func (k Kind) String() string {
	if k == Conflicting {
		return "conflicting"
	}
	return "unserializable"
}

// Pattern is one interleaving pattern: its kind, its accesses' operations
// (true: write) and PCs in window order (the anchor first), and its
// location when the key has one.
type Pattern struct {
	Kind  Kind
	N     int // 2 (conflicting) or 3 (unserializable)
	Write [3]bool
	PC    [3]int32
	Loc   uint64 // the location's byte address with KeyByAddr, else 0
}

// Ops spells the pattern's operations with normalised thread labels, e.g.
// "R1-W2-R1".
func (p Pattern) Ops() string {
	var b strings.Builder
	for i := range p.N {
		if i > 0 {
			b.WriteByte('-')
		}
		b.WriteByte("RW"[b2i(p.Write[i])])
		if i == 1 {
			b.WriteByte('2')
		} else {
			b.WriteByte('1')
		}
	}
	return b.String()
}

// PCs returns the pattern's PCs.
func (p Pattern) PCs() []int32 { return slices.Clone(p.PC[:p.N]) }

// Compare orders patterns: unserializable first, then by PCs, operations
// and location.
func (p Pattern) Compare(q Pattern) int {
	if p.Kind != q.Kind {
		return int(p.Kind) - int(q.Kind)
	}
	if c := slices.Compare(p.PC[:p.N], q.PC[:q.N]); c != 0 {
		return c
	}
	for i := range p.N {
		if p.Write[i] != q.Write[i] {
			return b2i(p.Write[i]) - b2i(q.Write[i])
		}
	}
	switch {
	case p.Loc < q.Loc:
		return -1
	case p.Loc > q.Loc:
		return 1
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Unserializable reports whether the interleaving (local p, remote r,
// local c), each true for a write, is one of Falcon's Table 2 patterns:
// every remote write (R-W-R, W-W-R, R-W-W, W-W-W) and W-R-W.
func IsUnserializable(p, r, c bool) bool { return r || (p && c) }

// slot is one window entry.
type slot struct {
	pc    int32
	tid   int32
	write bool
}

// win is one location's window: count slots from head in a ring of W.
type win struct {
	head, n int32
	loc     uint64 // the location's byte address
}

// seen is what a run knows of one of its patterns.
type seen struct {
	addr uint64 // the location of its first detection
}

// Detector is Falcon's pattern detector for one run. It is a
// core.Observer for the kinds Kinds returns; it is not safe for
// concurrent use.
type Detector struct {
	prog  *isa.Program
	opts  Options
	w     int32
	shift uint
	lib   []bool // per PC: not instrumented
	loc   []int32
	wins  []win
	slots []slot
	found map[Pattern]seen
	spans []int
	// sites holds CCI-Prev's per-PC observations: bit 0 the PC accessed a
	// location, bit 1 with the previous access by another thread, bit 2
	// by its own thread.
	sites    []uint8
	accesses uint64
	ended    bool
}

// New returns a detector for runs of prog. Options must pass Check.
func New(prog *isa.Program, opts Options) *Detector {
	d := &Detector{prog: prog, opts: opts, w: DefaultWindow, shift: 3, found: map[Pattern]seen{}}
	if opts.Window != 0 {
		d.w = int32(opts.Window)
	}
	if opts.Line {
		lb := opts.LineBytes
		if lb == 0 {
			lb = 64
		}
		d.shift = uint(bits.TrailingZeros(uint(lb)))
	}
	d.lib = make([]bool, len(prog.Instrs))
	d.sites = make([]uint8, len(prog.Instrs))
	if !opts.AllCode {
		for pc, in := range prog.Instrs {
			if in.Func >= 0 && int(in.Func) < len(prog.Funcs) && strings.HasPrefix(prog.Funcs[in.Func].Name, LibPrefix) {
				d.lib[pc] = true
			}
		}
	}
	return d
}

// Name returns "falcon".
func (d *Detector) Name() string { return "falcon" }

// Kinds returns the event kinds the detector observes: Read, Write, RMW
// and RunEnd.
func (d *Detector) Kinds() core.KindMask {
	return core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW, core.KindRunEnd)
}

// Program returns the program the detector was built for.
func (d *Detector) Program() *isa.Program { return d.prog }

// Observe processes one event.
func (d *Detector) Observe(e *core.Event) {
	if e.Kind == core.KindRunEnd {
		d.Flush()
		return
	}
	op := e.Op()
	if (op == core.OpRead || op == core.OpWrite || op == core.OpAtomic) && e.PC >= 0 && int(e.PC) < len(d.lib) && !d.lib[e.PC] {
		// An RMW that stored nothing (a failed cas) only read.
		d.Access(e.Thread, e.PC, e.Addr, e.Writes())
	}
}

// Access applies one access to its location's window (exported for
// hand-built access sequences).
func (d *Detector) Access(tid, pc int32, addr uint64, write bool) {
	if addr < isa.DataBase || d.ended {
		return
	}
	d.accesses++
	i := (addr - isa.DataBase) >> d.shift
	if i >= uint64(len(d.loc)) {
		d.loc = append(d.loc, make([]int32, int(i)+1-len(d.loc)+len(d.loc)/2)...)
	}
	s := slot{pc: pc, tid: tid, write: write}
	id := d.loc[i]
	if id == 0 {
		d.wins = append(d.wins, win{n: 1, loc: isa.DataBase + i<<d.shift})
		d.slots = append(d.slots, make([]slot, d.w)...)
		d.slots[int32(len(d.wins)-1)*d.w] = s
		d.loc[i] = int32(len(d.wins))
		d.sites[pc] |= 1
		return
	}
	w := &d.wins[id-1]
	ring := d.slots[(id-1)*d.w : id*d.w]
	last := &ring[(w.head+w.n-1)%d.w]
	if last.tid == tid {
		d.sites[pc] |= 1 | 4
		if write || !last.write {
			*last = s
		}
		return
	}
	d.sites[pc] |= 1 | 2
	if w.n == d.w {
		d.scan(w, ring)
		w.head, w.n = (w.head+1)%d.w, w.n-1
	}
	ring[(w.head+w.n)%d.w] = s
	w.n++
}

// scan extracts the patterns anchored at the window's oldest slot.
func (d *Detector) scan(w *win, ring []slot) {
	at := func(j int32) slot { return ring[(w.head+j)%d.w] }
	a := at(0)
	k := int32(-1)
	for j := int32(1); j < w.n; j++ {
		if at(j).tid == a.tid {
			k = j
			break
		}
	}
	var loc uint64
	if d.opts.KeyByAddr {
		loc = w.loc
	}
	unser := false
	if k > 0 {
		c := at(k)
		for j := int32(1); j < k; j++ {
			r := at(j)
			if IsUnserializable(a.write, r.write, c.write) {
				d.report(Pattern{Kind: Unserializable, N: 3, Write: [3]bool{a.write, r.write, c.write}, PC: [3]int32{a.pc, r.pc, c.pc}, Loc: loc}, w.loc)
				d.spans = append(d.spans, int(k)+1)
				unser = true
			}
		}
	}
	if !unser && w.n >= 2 {
		if b := at(1); a.write || b.write {
			d.report(Pattern{Kind: Conflicting, N: 2, Write: [3]bool{a.write, b.write}, PC: [3]int32{a.pc, b.pc}, Loc: loc}, w.loc)
		}
	}
}

// report records a pattern's presence in the run.
func (d *Detector) report(p Pattern, addr uint64) {
	if _, ok := d.found[p]; !ok {
		d.found[p] = seen{addr: addr}
	}
}

// Flush ends the run: every window is scanned and slid until it is empty.
// Later accesses are ignored. Observe calls it at the RunEnd event.
func (d *Detector) Flush() {
	if d.ended {
		return
	}
	d.ended = true
	for id := range d.wins {
		w := &d.wins[id]
		ring := d.slots[int32(id)*d.w : int32(id+1)*d.w]
		for w.n > 0 {
			if w.n >= 2 {
				d.scan(w, ring)
			}
			w.head, w.n = (w.head+1)%d.w, w.n-1
		}
	}
}

// Patterns returns the run's patterns (each once), sorted with
// Pattern.Compare. It flushes the windows first.
func (d *Detector) Patterns() []Pattern {
	d.Flush()
	out := make([]Pattern, 0, len(d.found))
	for p := range d.found {
		out = append(out, p)
	}
	slices.SortFunc(out, Pattern.Compare)
	return out
}

// Spans returns the span of every unserializable detection of the run (the
// window capacity that detection needed), in detection order.
func (d *Detector) Spans() []int {
	d.Flush()
	return slices.Clone(d.spans)
}

// Accesses returns the number of monitored (shared data) accesses.
func (d *Detector) Accesses() uint64 { return d.accesses }

// Locations returns the number of locations that have a window.
func (d *Detector) Locations() int { return len(d.wins) }

// WindowSlots returns the slots the windows take: locations × W (the
// storage, independent of the number of accesses).
func (d *Detector) WindowSlots() int { return len(d.slots) }

// Findings returns one finding per pattern of the run so far: kind
// "unserializable" or "conflicting", the pattern's PCs, the location of
// its first detection, score 1, sorted with core.CompareFindings. It does
// not flush the windows (a statistics read in the middle of a run must
// not end it): after the run's RunEnd they hold every pattern.
func (d *Detector) Findings() []core.Finding {
	ps := make([]Pattern, 0, len(d.found))
	for p := range d.found {
		ps = append(ps, p)
	}
	out := make([]core.Finding, 0, len(ps))
	for _, p := range ps {
		out = append(out, core.Finding{Detector: "falcon", Kind: p.Kind.String(), PCs: p.PCs(), Addr: d.found[p].addr, Score: 1,
			Message: fmt.Sprintf("%s %s", p.Kind, p.Ops())})
	}
	slices.SortFunc(out, core.CompareFindings)
	return out
}
