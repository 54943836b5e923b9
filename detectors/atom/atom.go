// Package atom is the Atom column of ConSeq's comparison (Zhang et al.,
// ASPLOS 2011, Table 3): CTrigger-style prediction (Park, Lu and Zhou,
// ASPLOS 2009) of single-variable unserializable interleavings from one
// run, which need not have failed, that the run did not exercise.
//
// For every thread T and word m, each pair of consecutive accesses (p, c)
// by T to m (no other access of T to m between them in T's program order)
// is checked against every access x to m by another thread that could be
// interleaved between them in some run:
//
//   - not (x happens before p) and not (c happens before x), under the
//     relation of race.Clocks: program order, spawn, join, barrier
//     generations and csignal/cbcast → wake, never locks;
//   - not excluded by mutual exclusion: when p and c are in one dynamic
//     critical section of a lock L and x holds L, x cannot fall between
//     them (the same accesses in two different critical sections of L
//     can be split);
//   - (p, x, c) is unserializable (local, remote, local): R-W-R, W-W-R,
//     R-W-W or W-R-W (avio.Unserializable).
//
// x may come before p, between p and c, or after c in the traced run: the
// interleaving is predicted. As in CTrigger, only interleavings the run
// did not exercise are reported: a static triple (the PCs of p, x and c
// and whether each writes) is observed when some dynamic instance ran in
// that order, x of another thread between p and c in the event stream and
// p and c consecutive accesses of their thread to the word; a run that
// exercised it and passed shows it benign. Observation is judged per
// static triple, not per dynamic instance: once any instance is observed,
// the triple is not reported, however many other instances were only
// predicted, and whether it was observed before or after it was predicted.
// Observation is exact, not bounded by Options.History: per word, each
// thread keeps the distinct (PC, write) of the other threads' accesses
// since its own last access, at most the static accesses to the word.
// Options.ReportObserved reports every predicted triple instead.
//
// Each static triple is reported once per run as a finding of kind "RWR",
// "WWR", "RWW" or "WRW", with PCs [p, x, c], the word of its first
// predicted occurrence as Addr and score 1, sorted with
// core.CompareFindings (a cas reads when it fails and writes when it
// stores, so its PCs can make two triples of different kinds).
//
// Memory is bounded: per word, the detector keeps each thread's last
// Options.History accesses (DefaultHistory by default) with their clocks
// and critical sections (shared, immutable stamps). A remote access older
// than its thread's last History accesses to the word is no longer
// matched against later pairs, and a pair older than its thread's last
// History accesses no longer against later remote accesses; so a triple
// whose only instances are that far apart is missed. DefaultHistory is
// more than every cq-* kernel needs (tested: the findings equal those with
// an unbounded history).
//
// What counts as data: Read, Write and RMW events without core.FlagSync
// (lock, barrier and condition-variable words are not data). An RMW on an
// ordinary word (fadd, cas, xchg) is one access, a write when it stored
// and a read when a cas failed. A Free is a write to each freed word (at
// most race.MaxFreeWords of them). A Crash with an address is the access
// that faulted: a ld reads, any other instruction writes; it is counted
// only for an aligned word at or below the highest word accessed so far.
package atom

import (
	"fmt"
	"slices"

	"weft/core"
	"weft/detectors/avio"
	"weft/detectors/race"
	"weft/isa"
)

// DefaultHistory is the accesses per thread per word kept by default.
const DefaultHistory = 16

// Options configures a Detector.
type Options struct {
	// History is the number of each thread's latest accesses to a word
	// that are kept (0: DefaultHistory; at least 2 for any pair).
	History int
	// ReportObserved reports every predicted triple, including those the
	// run exercised (x between p and c in the event stream). The default,
	// false, is CTrigger's rule: a triple observed in the run is benign and
	// not reported.
	ReportObserved bool
}

// Validate reports bad options.
func (o Options) Validate() error {
	if o.History < 0 || o.History == 1 {
		return fmt.Errorf("atom: history %d: keep 0 (the default, %d) or at least 2 accesses per thread per word", o.History, DefaultHistory)
	}
	return nil
}

// acc is one remembered access.
type acc struct {
	pc    int32
	write bool
	clk   race.Clock
	held  *race.Held
}

// remote is a static access by another thread: its PC and whether it
// wrote.
type remote struct {
	pc    int32
	write bool
}

// hist is one thread's latest accesses to a word, oldest first, and the
// distinct static accesses of other threads to the word since its last
// one (unordered).
type hist struct {
	tid   int
	accs  []acc
	since []remote
}

// word is the shadow state of one data word: one history per thread that
// touched it, in the order they first did.
type word struct {
	threads []hist
}

// tripleKey identifies a static triple.
type tripleKey struct {
	p, x, c int32
	kinds   uint8 // bit 2: p writes, bit 1: x writes, bit 0: c writes
}

// Detector is the Atom detector for one run. It is a core.Observer for the
// kinds Kinds returns; it is not safe for concurrent use.
type Detector struct {
	prog     *isa.Program
	k        int
	rd       *race.Reader
	words    map[uint64]*word
	all      bool // Options.ReportObserved
	seen     map[tripleKey]struct{}
	observed map[tripleKey]struct{}
	keys     []tripleKey // of findings, index for index
	findings []core.Finding
}

// New returns an Atom detector for runs of prog (nil: an empty program,
// for messages only), or an error for bad options.
func New(prog *isa.Program, opts Options) (*Detector, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if prog == nil {
		prog = &isa.Program{}
	}
	k := opts.History
	if k == 0 {
		k = DefaultHistory
	}
	d := &Detector{
		prog:     prog,
		k:        k,
		words:    map[uint64]*word{},
		all:      opts.ReportObserved,
		seen:     map[tripleKey]struct{}{},
		observed: map[tripleKey]struct{}{},
	}
	d.rd = race.NewReader(prog, d.access)
	return d, nil
}

// Name returns "atom".
func (d *Detector) Name() string { return "atom" }

// Kinds returns the event kinds the detector reads: race.ReaderKinds.
func (d *Detector) Kinds() core.KindMask { return race.ReaderKinds() }

// Findings returns the triples predicted so far and (unless
// Options.ReportObserved) not observed so far, sorted with
// core.CompareFindings. A triple returned before the end of a run may be
// missing from a later call, once the run has exercised it.
func (d *Detector) Findings() []core.Finding {
	var fs []core.Finding
	for i, f := range d.findings {
		if _, ok := d.observed[d.keys[i]]; ok && !d.all {
			continue
		}
		f.PCs = slices.Clone(f.PCs)
		fs = append(fs, f)
	}
	slices.SortFunc(fs, core.CompareFindings)
	return fs
}

// Observe reads one event.
func (d *Detector) Observe(e *core.Event) { d.rd.Observe(e) }

// access checks one access by thread t, first as the closing access c of
// t's pair with its previous access to the word (marking the triples with
// the other threads' accesses since then observed), then as the remote
// access x of every other thread's remembered pairs, and remembers it.
func (d *Detector) access(in race.Access) {
	t, a, pc, write := in.Thread, in.Addr, in.PC, in.Write
	w := d.words[a]
	if w == nil {
		w = &word{}
		d.words[a] = w
	}
	cur := acc{pc: pc, write: write, clk: d.rd.Clocks.Now(t), held: d.rd.Locks.Now(t)}
	mine := -1
	for i := range w.threads {
		if w.threads[i].tid == t {
			mine = i
		}
	}
	if mine >= 0 {
		if n := len(w.threads[mine].accs); n > 0 {
			p := &w.threads[mine].accs[n-1]
			for _, x := range w.threads[mine].since {
				if avio.Unserializable(p.write, x.write, write) {
					d.observed[key(p.pc, p.write, x.pc, x.write, pc, write)] = struct{}{}
				}
			}
			for _, h := range w.threads {
				if h.tid == t {
					continue
				}
				for i := range h.accs {
					d.check(a, t, p, &cur, h.tid, &h.accs[i])
				}
			}
		}
	}
	r := remote{pc: pc, write: write}
	for j := range w.threads {
		h := &w.threads[j]
		if h.tid == t {
			continue
		}
		for i := 0; i+1 < len(h.accs); i++ {
			d.check(a, h.tid, &h.accs[i], &h.accs[i+1], t, &cur)
		}
		if !slices.Contains(h.since, r) {
			h.since = append(h.since, r)
		}
	}
	if mine < 0 {
		w.threads = append(w.threads, hist{tid: t})
		mine = len(w.threads) - 1
	}
	h := &w.threads[mine]
	h.since = h.since[:0]
	if len(h.accs) < d.k {
		h.accs = append(h.accs, cur)
	} else {
		copy(h.accs, h.accs[1:])
		h.accs[len(h.accs)-1] = cur
	}
}

// check reports the triple (p, x, c), p and c consecutive accesses of
// thread lt and x one of thread rt, when it is unserializable and x could
// fall between p and c.
func (d *Detector) check(a uint64, lt int, p, c *acc, rt int, x *acc) {
	if !avio.Unserializable(p.write, x.write, c.write) {
		return
	}
	if race.Before(rt, x.clk, p.clk) || race.Before(lt, c.clk, x.clk) {
		return
	}
	for _, s := range p.held.Sections {
		if c.held.In(s) && x.held.Holds(s.Lock) {
			return
		}
	}
	k := key(p.pc, p.write, x.pc, x.write, c.pc, c.write)
	if _, ok := d.seen[k]; ok {
		return
	}
	d.seen[k] = struct{}{}
	d.keys = append(d.keys, k)
	kind := letter(p.write) + letter(x.write) + letter(c.write)
	d.findings = append(d.findings, core.Finding{
		Detector: "atom",
		Kind:     kind,
		PCs:      []int32{p.pc, x.pc, c.pc},
		Addr:     a,
		Score:    1,
		Message: fmt.Sprintf("%s on %s: thread %d's %s (pc %d) and %s (pc %d) can be interleaved by thread %d's %s (pc %d)",
			kind, d.prog.DescribeAddr(a), lt, verb(p.write), p.pc, verb(c.write), c.pc, rt, verb(x.write), x.pc),
	})
}

// key returns the static triple of p, x and c.
func key(p int32, pw bool, x int32, xw bool, c int32, cw bool) tripleKey {
	return tripleKey{p: p, x: x, c: c, kinds: b2k(pw)<<2 | b2k(xw)<<1 | b2k(cw)}
}

func b2k(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}

func letter(write bool) string {
	if write {
		return "W"
	}
	return "R"
}

func verb(write bool) string {
	if write {
		return "write"
	}
	return "read"
}
