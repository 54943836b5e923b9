package infer

import (
	"fmt"
	"slices"
	"sort"

	"weft/core"
	"weft/isa"
)

// DefaultWindowEvents is the paper's window: 10,000 sync events.
const DefaultWindowEvents = 10000

// Options configure the analysis.
type Options struct {
	// WindowEvents is the number of sync events per window
	// (window_events); it must be at least 1.
	WindowEvents int
}

// DefaultOptions returns the paper's settings: windows of 10,000 sync
// events.
func DefaultOptions() Options { return Options{WindowEvents: DefaultWindowEvents} }

// Object is a shared object: a region of adjacent shared words (each
// accessed by at least two threads, at least one access a write) that the
// same thread segments access.
type Object struct {
	// ID is the object's index in Analysis.Objects.
	ID int
	// Addr is its first word.
	Addr uint64
	// Words is its length in words.
	Words int
	// Accesses are the indices into Trace.Accesses of its accesses.
	Accesses []int
}

// Contains reports whether word a lies in the object.
func (o *Object) Contains(a uint64) bool {
	return a >= o.Addr && a < o.Addr+uint64(o.Words)*isa.WordBytes
}

// CondInstance is one use of a condition variable: a signal or broadcast
// and the wakes it caused.
type CondInstance struct {
	// CV is the condition-variable word.
	CV uint64
	// Index is the instance's number among the signals on CV (the
	// Instance of its sync events).
	Index int
	// Signal is the index into Trace.Syncs of the signal or broadcast.
	Signal int
	// Bcast marks a cbcast.
	Bcast bool
	// Wakes are the indices into Trace.Syncs of the wakes it caused.
	Wakes []int
	// LoopExits are the indices into Trace.Syncs of the wait-loop exits
	// paired with it (the waits it released, run or skipped).
	LoopExits []int
	// Skipped is set when the signal found nobody waiting (a skipped
	// wait: the waiter, if any, found its predicate true and did not
	// sleep).
	Skipped bool
}

// Episode is one generation of a barrier: every arrival of it happens
// before every leave.
type Episode struct {
	// Barrier is the barrier word.
	Barrier uint64
	// Gen is the generation.
	Gen int
	// N is the participant count the arrivals saw (the last arrival's).
	N int
	// Arrivals and Leaves are indices into Trace.Syncs.
	Arrivals, Leaves []int
}

// Window is a span of consecutive sync events analysed on its own; the
// events before it are the schedule prefix.
type Window struct {
	// Index is the window's number.
	Index int
	// First and End delimit its sync events: Trace.Syncs[First:End].
	First, End int
	// Start[t] is the number of thread t's sync events before the window
	// (its position at the window's start).
	Start []int
	// Owners maps each lock held at the window's start to its holder.
	Owners map[uint64]int
}

// Pair is a pair of conflicting accesses (different threads, at least one
// write, not both atomic) to a shared object that happens-before without
// lock edges does not order.
type Pair struct {
	// A and B are indices into Trace.Accesses, A's thread below B's.
	A, B int
	// Observed is set when the pair is unordered even with lock edges:
	// the accesses already race in the observed run. Otherwise only the
	// observed lock order hides the race.
	Observed bool
}

// Candidate is a shared object the prefilter keeps for the search: it has
// at least one pair unordered by happens-before without lock edges whose
// locksets do not intersect.
type Candidate struct {
	// Object is the index into Analysis.Objects.
	Object int
	// Pairs are the surviving pairs, one per (segment, segment, word)
	// triple, in access order.
	Pairs []Pair
	// Protected counts the unordered pairs the lockset step discarded
	// (a common lock makes them mutually exclusive).
	Protected int
}

// Observed reports whether some pair already races in the observed run (a
// plain race an ordinary happens-before detector sees in this run); when
// not, the race is hidden by the observed lock order.
func (c *Candidate) Observed() bool {
	return slices.ContainsFunc(c.Pairs, func(p Pair) bool { return p.Observed })
}

// Analysis is the postprocessed trace with the prefilter's candidates.
type Analysis struct {
	// Trace is the analysed trace.
	Trace *Trace
	// Options are the options used.
	Options Options
	// Objects are the shared objects in address order.
	Objects []Object
	// Conds are the condition instances in signal order.
	Conds []CondInstance
	// Episodes are the barrier episodes in order of their first arrival.
	Episodes []Episode
	// Windows split Trace.Syncs into spans of Options.WindowEvents.
	Windows []Window
	// Candidates are the candidate objects in object order.
	Candidates []Candidate
	// Hb says how the prefilter's happens-before was computed.
	Hb string
}

// Analyse postprocesses t and runs the hybrid prefilter on it. It is an
// error when the window cannot hold one sync event.
func Analyse(t *Trace, o Options) (*Analysis, error) {
	if o.WindowEvents < 1 {
		return nil, fmt.Errorf("infer: window_events is %d: a window must hold at least one sync event", o.WindowEvents)
	}
	a := &Analysis{Trace: t, Options: o,
		Hb: "vector clocks over the recorded trace: spawn→start, exit→join, signal→wake and wait-loop exit, barrier arrivals→leaves (no lock edges)"}
	a.objects()
	a.conds()
	a.episodes()
	a.windows()
	a.prefilter()
	return a, nil
}

// objects computes the shared objects: words with two threads and a
// write, adjacent ones with the same accessing segments merged.
func (a *Analysis) objects() {
	type wordInfo struct {
		accs    []int
		threads map[int]bool
		write   bool
	}
	words := map[uint64]*wordInfo{}
	for i, x := range a.Trace.Accesses {
		w := words[x.Addr]
		if w == nil {
			w = &wordInfo{threads: map[int]bool{}}
			words[x.Addr] = w
		}
		w.accs = append(w.accs, i)
		w.threads[x.Thread] = true
		w.write = w.write || x.Write
	}
	var addrs []uint64
	for addr, w := range words {
		if len(w.threads) >= 2 && w.write {
			addrs = append(addrs, addr)
		}
	}
	slices.Sort(addrs)
	segs := func(addr uint64) [][2]int {
		var s [][2]int
		for _, i := range words[addr].accs {
			x := a.Trace.Accesses[i]
			s = append(s, [2]int{x.Thread, x.Seg})
		}
		slices.SortFunc(s, func(p, q [2]int) int {
			if p[0] != q[0] {
				return p[0] - q[0]
			}
			return p[1] - q[1]
		})
		return s
	}
	var prev [][2]int
	for _, addr := range addrs {
		s := segs(addr)
		if n := len(a.Objects); n > 0 {
			last := &a.Objects[n-1]
			if last.Addr+uint64(last.Words)*isa.WordBytes == addr && slices.Equal(prev, s) {
				last.Words++
				last.Accesses = append(last.Accesses, words[addr].accs...)
				continue
			}
		}
		a.Objects = append(a.Objects, Object{ID: len(a.Objects), Addr: addr, Words: 1, Accesses: slices.Clone(words[addr].accs)})
		prev = s
	}
	for i := range a.Objects {
		slices.Sort(a.Objects[i].Accesses)
	}
}

// conds matches every wake to the signal that caused it.
func (a *Analysis) conds() {
	type key struct {
		cv  uint64
		idx int
	}
	at := map[key]int{}
	for i, s := range a.Trace.Syncs {
		switch s.Kind {
		case SyncSignal:
			at[key{s.Obj, s.Instance}] = len(a.Conds)
			a.Conds = append(a.Conds, CondInstance{CV: s.Obj, Index: s.Instance, Signal: i, Bcast: s.Bcast, Skipped: s.Woken == 0})
		case SyncWake:
			if c, ok := at[key{s.Obj, s.Instance}]; ok {
				a.Conds[c].Wakes = append(a.Conds[c].Wakes, i)
			}
		case SyncLoopExit:
			if c, ok := at[key{s.Obj, s.Instance}]; ok {
				a.Conds[c].LoopExits = append(a.Conds[c].LoopExits, i)
			}
		}
	}
}

// episodes groups barrier arrivals and leaves by generation.
func (a *Analysis) episodes() {
	type key struct {
		bar uint64
		gen int
	}
	at := map[key]int{}
	for i, s := range a.Trace.Syncs {
		if s.Kind != SyncArrive && s.Kind != SyncLeave {
			continue
		}
		k := key{s.Obj, s.Instance}
		e, ok := at[k]
		if !ok {
			e = len(a.Episodes)
			at[k] = e
			a.Episodes = append(a.Episodes, Episode{Barrier: s.Obj, Gen: s.Instance})
		}
		if s.Kind == SyncArrive {
			a.Episodes[e].Arrivals = append(a.Episodes[e].Arrivals, i)
			a.Episodes[e].N = s.N
		} else {
			a.Episodes[e].Leaves = append(a.Episodes[e].Leaves, i)
		}
	}
}

// windows splits the sync events into windows, with each window's start
// positions and lock owners.
func (a *Analysis) windows() {
	t := a.Trace
	pos := make([]int, t.Threads)
	owners := map[uint64]int{}
	for first := 0; first < len(t.Syncs) || first == 0; first += a.Options.WindowEvents {
		end := min(first+a.Options.WindowEvents, len(t.Syncs))
		w := Window{Index: len(a.Windows), First: first, End: end, Start: slices.Clone(pos), Owners: map[uint64]int{}}
		for l, th := range owners {
			w.Owners[l] = th
		}
		a.Windows = append(a.Windows, w)
		for _, s := range t.Syncs[first:end] {
			pos[s.Thread]++
			switch s.Kind {
			case SyncAcquire:
				owners[s.Obj] = s.Thread
			case SyncRelease:
				delete(owners, s.Obj)
			}
		}
		if end == len(t.Syncs) {
			break
		}
	}
}

// clocks are the vector clocks and locksets of every thread segment.
type clocks struct {
	// weak[t][p] is segment p of thread t's clock without lock edges,
	// full[t][p] with them.
	weak, full [][]vc
	// locks[t][p] are the locks held during segment p of thread t,
	// ascending.
	locks [][][]uint64
}

// vc is a vector clock indexed by logical thread.
type vc []uint32

func (v vc) join(w vc) {
	for i := range v {
		v[i] = max(v[i], w[i])
	}
}

// hbSeg reports whether segment (ta, pa) happens before segment (tb, pb)
// in the clocks cs (each sync event ticks its thread, so a segment's own
// entry identifies it).
func hbSeg(cs [][]vc, ta, pa, tb, pb int) bool {
	return cs[ta][pa][ta] <= cs[tb][pb][ta]
}

// computeClocks walks the trace in observed order. Edges: spawn → the
// child's start, exit → join, signal → each wake of its instance, every
// arrival of a barrier episode → every leave of it; the full clocks add
// release → the next acquire of the same lock.
func computeClocks(t *Trace) *clocks {
	n := t.Threads
	c := &clocks{weak: make([][]vc, n), full: make([][]vc, n), locks: make([][][]uint64, n)}
	weak := make([]vc, n)
	full := make([]vc, n)
	held := make([][]uint64, n)
	for i := range n {
		weak[i], full[i] = make(vc, n), make(vc, n)
		weak[i][i], full[i][i] = 1, 1
		c.weak[i] = []vc{slices.Clone(weak[i])}
		c.full[i] = []vc{slices.Clone(full[i])}
		c.locks[i] = [][]uint64{nil}
	}
	type key struct {
		obj uint64
		idx int
	}
	spawnW, spawnF := map[int]vc{}, map[int]vc{}
	exitW, exitF := map[int]vc{}, map[int]vc{}
	sigW, sigF := map[key]vc{}, map[key]vc{}
	barW, barF := map[key]vc{}, map[key]vc{}
	lockF := map[uint64]vc{}
	for _, s := range t.Syncs {
		th := s.Thread
		w, f := weak[th], full[th]
		switch s.Kind {
		case SyncStart:
			if v, ok := spawnW[th]; ok {
				w.join(v)
				f.join(spawnF[th])
			}
		case SyncSpawn:
			spawnW[s.Peer], spawnF[s.Peer] = slices.Clone(w), slices.Clone(f)
		case SyncExit:
			exitW[th], exitF[th] = slices.Clone(w), slices.Clone(f)
		case SyncJoin:
			if v, ok := exitW[s.Peer]; ok {
				w.join(v)
				f.join(exitF[s.Peer])
			}
		case SyncSignal:
			k := key{s.Obj, s.Instance}
			sigW[k], sigF[k] = slices.Clone(w), slices.Clone(f)
		case SyncWake, SyncLoopExit:
			if v, ok := sigW[key{s.Obj, s.Instance}]; ok {
				w.join(v)
				f.join(sigF[key{s.Obj, s.Instance}])
			}
		case SyncArrive:
			k := key{s.Obj, s.Instance}
			if barW[k] == nil {
				barW[k], barF[k] = make(vc, n), make(vc, n)
			}
			barW[k].join(w)
			barF[k].join(f)
		case SyncLeave:
			if v, ok := barW[key{s.Obj, s.Instance}]; ok {
				w.join(v)
				f.join(barF[key{s.Obj, s.Instance}])
			}
		case SyncAcquire:
			if v, ok := lockF[s.Obj]; ok {
				f.join(v)
			}
			held[th] = append(held[th], s.Obj)
			slices.Sort(held[th])
		case SyncRelease:
			lockF[s.Obj] = slices.Clone(f)
			if i := slices.Index(held[th], s.Obj); i >= 0 {
				held[th] = slices.Delete(held[th], i, i+1)
			}
		}
		w[th]++
		f[th]++
		c.weak[th] = append(c.weak[th], slices.Clone(w))
		c.full[th] = append(c.full[th], slices.Clone(f))
		c.locks[th] = append(c.locks[th], slices.Clone(held[th]))
	}
	return c
}

// intersects reports whether the ascending slices a and b share an
// element.
func intersects(a, b []uint64) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); ok {
			return true
		}
	}
	return false
}

// prefilter keeps the shared objects with a conflicting pair that
// happens-before without lock edges leaves unordered and whose locksets do
// not intersect.
func (a *Analysis) prefilter() {
	t := a.Trace
	cs := computeClocks(t)
	for _, o := range a.Objects {
		c := Candidate{Object: o.ID}
		for i, ia := range o.Accesses {
			for _, ib := range o.Accesses[i+1:] {
				x, y := t.Accesses[ia], t.Accesses[ib]
				if x.Addr != y.Addr || x.Thread == y.Thread || !(x.Write || y.Write) || (x.Atomic && y.Atomic) {
					continue
				}
				if hbSeg(cs.weak, x.Thread, x.Seg, y.Thread, y.Seg) || hbSeg(cs.weak, y.Thread, y.Seg, x.Thread, x.Seg) {
					continue
				}
				if intersects(cs.locks[x.Thread][x.Seg], cs.locks[y.Thread][y.Seg]) {
					c.Protected++
					continue
				}
				p := Pair{A: ia, B: ib}
				if x.Thread > y.Thread {
					p.A, p.B = ib, ia
				}
				p.Observed = !hbSeg(cs.full, x.Thread, x.Seg, y.Thread, y.Seg) && !hbSeg(cs.full, y.Thread, y.Seg, x.Thread, x.Seg)
				c.Pairs = append(c.Pairs, p)
			}
		}
		if len(c.Pairs) > 0 {
			a.Candidates = append(a.Candidates, c)
		}
	}
}

// Findings returns one finding per candidate object (kind "candidate"):
// its address, the PCs of its first surviving pair (thread order), and
// whether the race is hidden by the observed lock order or already
// observed; sorted with core.CompareFindings.
func (a *Analysis) Findings() []core.Finding {
	var fs []core.Finding
	for _, c := range a.Candidates {
		o := a.Objects[c.Object]
		p := c.Pairs[0]
		x, y := a.Trace.Accesses[p.A], a.Trace.Accesses[p.B]
		how := "hidden by the observed lock order"
		if c.Observed() {
			how = "already racing in the observed run"
		}
		fs = append(fs, core.Finding{Detector: "infer", Kind: "candidate", PCs: []int32{x.PC, y.PC}, Addr: o.Addr, Score: 1,
			Message: fmt.Sprintf("shared object %#x (%d words): %d unordered lock-disjoint pairs (%d discarded by lockset), %s", o.Addr, o.Words, len(c.Pairs), c.Protected, how)})
	}
	sort.SliceStable(fs, func(i, j int) bool { return core.CompareFindings(fs[i], fs[j]) < 0 })
	return fs
}

// CandidateAt returns the candidate whose object holds word addr, or nil.
func (a *Analysis) CandidateAt(addr uint64) *Candidate {
	for i := range a.Candidates {
		if a.Objects[a.Candidates[i].Object].Contains(addr) {
			return &a.Candidates[i]
		}
	}
	return nil
}
