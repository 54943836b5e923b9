package conseq

import (
	"fmt"
	"sort"
	"strings"

	"weft/isa"
)

// Config is the whole of ConSeq's configuration: the static options and the
// dynamic side's switches. The zero value is the paper's configuration.
type Config struct {
	// Options are the static side's (sites, MaxDistance, distance model).
	Options
	// NoAdHocSync turns the spin-flag recogniser off: spin loops then give
	// no happens-before edge (the paper's main source of false positives).
	NoAdHocSync bool
	// Base turns the critical-read filter off: every shared read is
	// analysed with Algorithm 1, with no site, value pruning only (the
	// paper's "Base" comparison).
	Base bool
	// NoValuePruning keeps an alternative write that wrote the value the
	// read saw.
	NoValuePruning bool
	// NoCondition skips the error-condition evaluation.
	NoCondition bool
	// Invariants are INV sites: each invariant's read is a critical read
	// of its own site (distance 0), and an alternative write is reported
	// when its value breaks the invariant (Trainer learns them).
	Invariants []Invariant
}

// Ref is one dynamic access of a report.
type Ref struct {
	// Thread is the accessing thread (-1 for the initial value).
	Thread int32
	// PC is the instruction (-1 for the initial value).
	PC int32
	// Inst is the dynamic instance: how many earlier executions of PC the
	// thread performed (the park rule's Skip that stops at it).
	Inst uint32
	// Value is the value read or written.
	Value int64
	// Seq is its index in the trace (-1 for the initial value).
	Seq int32
}

// Report is one suspicious interleaving: the critical read R, which read
// from W in the correct run, could read from Alt instead, and Alt's value
// could make the failure at Site happen.
type Report struct {
	// Site is the failure site (PC -1 and Kind NumKinds for a Base report).
	Site Site
	// Distance is R's slice distance from the site.
	Distance int
	// Addr is the word.
	Addr uint64
	// R, W and Alt are the read, the write it read from (Thread -1: the
	// initial value) and the alternative write w' (Thread -1: the initial
	// value, an uninitialised read).
	R, W, Alt Ref
	// SameThread says Alt is in R's thread (anti-atomicity).
	SameThread bool
	// Uninit says Alt is the initial value: no write happens before R.
	Uninit bool
	// Condition is the error condition's verdict for Alt's value:
	// "violated", "may be violated" (the evaluator could not decide),
	// or "" when the site has none (OUT, Base).
	Condition string
	// Also are other executions of the same static triple found feasible
	// (up to MaxInstances-1, in trace order of their reads), which the
	// tester tries when the first does not fail.
	Also []Instance
}

// Instance is one dynamic execution of a report's triple.
type Instance struct {
	// R, W and Alt are as in Report.
	R, W, Alt Ref
}

// MaxInstances bounds the executions a report keeps of its triple.
const MaxInstances = 4

// Key is the report's static triple (site, r, w'), the unit reports are
// deduplicated and counted by.
func (r Report) Key() [3]int32 { return [3]int32{r.Site.PC, r.R.PC, r.Alt.PC} }

// Result is the dynamic analysis of one correct run.
type Result struct {
	// Reports are the suspicious interleavings, one per static triple
	// (site, r, w'), in (site, r, w') order.
	Reports []Report
	// CriticalExecs is how many critical-read executions were analysed.
	CriticalExecs int
	// Trace is the trace's size.
	Trace TraceStats
	// SpinLoops is how many spin-flag loops the recogniser found.
	SpinLoops int
}

// SpinLoop is a recognised spin-flag loop: its body's PCs and the flag
// reads whose exits synchronise.
type SpinLoop struct {
	// Body are the loop's PCs.
	Body []int32
	// Reads are its flag loads.
	Reads []int32
}

// SpinLoops recognises the program's spin-flag loops (ad-hoc
// synchronisation, after SyncFinder): a natural loop whose body reads one
// statically known data word (the flag) and nothing else of data memory,
// writes no data memory, makes no call, and has an exit branch whose
// condition depends on a flag read.
func (a *Analysis) SpinLoops() []SpinLoop {
	if a.g == nil {
		return nil
	}
	var out []SpinLoop
	p, cfg := a.Prog, a.CFG
loops:
	for _, l := range cfg.Loops {
		var body []int32
		inBody := make([]bool, len(p.Instrs))
		for _, b := range l.Body {
			blk := cfg.Blocks[b]
			for pc := blk.Start; pc < blk.End; pc++ {
				body = append(body, pc)
				inBody[pc] = true
			}
		}
		flag := int64(-1)
		var reads []int32
		for _, pc := range body {
			op := p.Instrs[pc].Op
			switch {
			case op == isa.OpCall || op == isa.OpSpawn || isWrite(op) || op == isa.OpAlloc || op == isa.OpFree:
				continue loops
			case op == isa.OpLd:
				locs := a.g.addrOf(pc)
				if len(locs) != 1 || locs[0].kind != locExact {
					continue loops
				}
				w := locs[0].v &^ (isa.WordBytes - 1)
				if flag >= 0 && w != flag {
					continue loops
				}
				flag = w
				reads = append(reads, pc)
			}
		}
		if len(reads) == 0 {
			continue
		}
		// An exit branch whose condition reaches a flag read through
		// register edges inside the loop.
		exits := false
		for _, b := range l.Body {
			last := cfg.Blocks[b].End - 1
			if !p.Instrs[last].Op.IsBranch() {
				continue
			}
			leaves := false
			for _, s := range cfg.Blocks[b].Succs {
				if !hasInt(l.Body, s) {
					leaves = true
				}
			}
			if leaves && a.reachesRead(last, inBody, reads) {
				exits = true
			}
		}
		if exits {
			out = append(out, SpinLoop{Body: body, Reads: reads})
		}
	}
	return out
}

// reachesRead reports whether pc's register dependences inside the loop
// reach one of reads.
func (a *Analysis) reachesRead(pc int32, in []bool, reads []int32) bool {
	seen := map[int32]bool{pc: true}
	work := []int32{pc}
	for len(work) > 0 {
		u := work[len(work)-1]
		work = work[:len(work)-1]
		for _, e := range a.g.deps[u] {
			if e.kind != depReg || !in[e.to] || seen[e.to] {
				continue
			}
			for _, r := range reads {
				if e.to == r {
					return true
				}
			}
			seen[e.to] = true
			work = append(work, e.to)
		}
	}
	return false
}

// NewTraceRecorder returns the recorder for a run analysed under cfg: it
// keeps the analysis's critical reads (every read with cfg.Base) and
// recognises its spin loops (unless cfg.NoAdHocSync).
func (a *Analysis) NewTraceRecorder(cfg Config) *Recorder {
	var crit []bool
	if !cfg.Base {
		crit = make([]bool, len(a.Prog.Instrs))
		for _, s := range a.Sites {
			for _, r := range s.Reads {
				crit[r.PC] = true
			}
		}
		for _, v := range cfg.Invariants {
			if v.PC >= 0 && int(v.PC) < len(crit) {
				crit[v.PC] = true
			}
		}
	}
	var spins []SpinLoop
	if !cfg.NoAdHocSync {
		spins = a.SpinLoops()
		if spins == nil {
			spins = []SpinLoop{}
		}
		// A spin loop's flag reads are recorded for their edges.
		for _, sp := range spins {
			for _, pc := range sp.Reads {
				if crit != nil {
					crit[pc] = true
				}
			}
		}
	}
	var watch []bool
	heap := false
	if crit != nil {
		// Record only the words the critical reads may touch: their
		// abstract locations (every word when one may touch any), and the
		// words the invariants relate.
		watch = make([]bool, len(a.Prog.Data))
		mark := func(addr uint64) {
			if i := (addr - isa.DataBase) / isa.WordBytes; addr >= isa.DataBase && i < uint64(len(watch)) {
				watch[i] = true
			} else {
				heap = true
			}
		}
		for _, v := range cfg.Invariants {
			mark(v.Addr)
			if v.Kind == InvEqual {
				mark(v.Other)
			}
			for _, t := range v.Terms {
				mark(t)
			}
		}
	pcs:
		for pc, c := range crit {
			if !c || !isRead(a.Prog.Instrs[pc].Op) {
				continue
			}
			for _, l := range a.g.addrOf(int32(pc)) {
				switch l.kind {
				case locExact:
					mark(uint64(l.v))
				case locSym:
					sym := a.Prog.Symbols[l.v]
					for w := 0; w < sym.Words; w++ {
						if i := (sym.Addr-isa.DataBase)/isa.WordBytes + uint64(w); i < uint64(len(watch)) {
							watch[i] = true
						}
					}
				case locHeap:
					heap = true
				default:
					watch = nil
					break pcs
				}
			}
		}
	}
	rec := NewRecorder(a.Prog, crit, spins)
	rec.watch, rec.watchHeap = watch, heap
	return rec
}

// siteRead is one (site, distance) a critical read belongs to.
type siteRead struct {
	site int
	dist int
}

// Analyse runs Algorithm 1 with the paper's extensions over rec's trace of
// one correct run: for every execution of a critical read r (at a word
// more than one thread touched) and every other write w' to its word, the
// dependence w'→r is reported when it is feasible (r does not happen
// before w'; w' is not always overwritten by w before r, by order or by
// mutual exclusion), w' wrote a different value (value pruning), the
// value could break the site's error condition (evaluated concretely
// over the slice), and, for a LOOP site (only the last read before the
// loop exited), w' does not happen before w. A read no write happens
// before reports the initial value (an uninitialised read). Reports are
// deduplicated by their static triple (site, r, w').
func (a *Analysis) Analyse(rec *Recorder, cfg Config) *Result {
	res := &Result{Trace: rec.Stats(), SpinLoops: len(rec.spinBody)}
	byPC := map[int32][]siteRead{}
	sites := make([]Site, 0, len(a.Sites)+len(cfg.Invariants))
	for i, s := range a.Sites {
		sites = append(sites, s.Site)
		for _, r := range s.Reads {
			byPC[r.PC] = append(byPC[r.PC], siteRead{site: i, dist: r.Distance})
		}
	}
	invOf := map[int]*Invariant{}
	if !a.Options.Disabled.Has(INV) {
		for k := range cfg.Invariants {
			v := &cfg.Invariants[k]
			if v.PC < 0 || int(v.PC) >= len(a.Prog.Instrs) {
				continue
			}
			invOf[len(sites)] = v
			byPC[v.PC] = append(byPC[v.PC], siteRead{site: len(sites)})
			sites = append(sites, Site{PC: v.PC, Kind: INV, Loop: -1})
		}
	}
	// next[i] is the thread's next access after i (-1: none).
	next := make([]int32, rec.count())
	lastOf := map[int32]int32{}
	for i := rec.count() - 1; i >= 0; i-- {
		t := rec.at(i).thread
		if j, ok := lastOf[t]; ok {
			next[i] = j
		} else {
			next[i] = -1
		}
		lastOf[t] = int32(i)
	}
	loopPCs := map[int][]bool{}
	inLoop := func(l int, pc int32) bool {
		body, ok := loopPCs[l]
		if !ok {
			body = make([]bool, len(a.Prog.Instrs))
			keep := a.g.loopFilter(Site{Kind: LOOP, Loop: l})
			for b, k := range keep {
				if k {
					blk := a.CFG.Blocks[b]
					for x := blk.Start; x < blk.End; x++ {
						body[x] = true
					}
				}
			}
			loopPCs[l] = body
		}
		return pc >= 0 && int(pc) < len(body) && body[pc]
	}
	ev := newEvaluator(a.Prog)
	// groups returns a word's writes grouped by PC and thread (in
	// first-write order), so a decided static triple skips all its
	// executions at once.
	type pcGroup struct {
		pc, thread int32
		idx        []int32
	}
	grouped := map[uint64][]pcGroup{}
	groups := func(addr uint64) []pcGroup {
		if g, ok := grouped[addr]; ok {
			return g
		}
		var g []pcGroup
		at := map[[2]int32]int{}
		for _, j := range rec.writesOf(addr) {
			x := rec.at(j)
			key := [2]int32{x.pc, x.thread}
			k, ok := at[key]
			if !ok {
				k = len(g)
				at[key] = k
				g = append(g, pcGroup{pc: x.pc, thread: x.thread})
			}
			g[k].idx = append(g[k].idx, j)
		}
		grouped[addr] = g
		return g
	}
	// seen maps a static triple to its report; a report whose condition
	// only may be violated gives way to a later execution that violates
	// it.
	seen := map[[3]int32]int{}
	put := func(rep Report) {
		k, ok := seen[rep.Key()]
		if !ok {
			seen[rep.Key()] = len(res.Reports)
			res.Reports = append(res.Reports, rep)
			return
		}
		old := &res.Reports[k]
		if old.Condition == "may be violated" && rep.Condition == "violated" {
			rep.Also = old.Also
			*old = rep
			return
		}
		if len(old.Also) < MaxInstances-1 && rep.R.Seq != old.R.Seq {
			for _, x := range old.Also {
				if x.R.Seq == rep.R.Seq {
					return
				}
			}
			old.Also = append(old.Also, Instance{R: rep.R, W: rep.W, Alt: rep.Alt})
		}
	}
	decided := func(k [3]int32) bool {
		i, ok := seen[k]
		return ok && res.Reports[i].Condition != "may be violated" && len(res.Reports[i].Also) == MaxInstances-1
	}
	for i := int32(0); i < rec.count(); i++ {
		r := rec.at(i)
		if r.write {
			continue
		}
		if !rec.shared(r.addr) {
			continue // a word only one thread touched
		}
		var srs []siteRead
		if cfg.Base {
			srs = []siteRead{{site: -1}}
		} else {
			srs = byPC[r.pc]
			if len(srs) == 0 {
				continue
			}
		}
		res.CriticalExecs++
		for _, sr := range srs {
			site := Site{PC: -1, Kind: NumKinds, Loop: -1}
			if sr.site >= 0 {
				site = sites[sr.site]
			}
			inv := invOf[sr.site]
			if inv != nil && r.addr != inv.Addr {
				continue // the invariant is about another word
			}
			if site.Kind == LOOP && !lastBeforeExit(rec, next, int32(i), func(pc int32) bool { return inLoop(site.Loop, pc) }) {
				continue
			}
			var w *access
			if r.src >= 0 {
				w = rec.at(r.src)
			}
			mem := func(addr uint64) (int64, bool) {
				if !rec.recorded(addr) {
					return 0, false
				}
				return rec.valueBefore(addr, i), true
			}
			check := func(alt int64) (string, bool) {
				if inv != nil {
					word := func(addr uint64) int64 { v, _ := mem(addr); return v }
					if cfg.NoCondition || !inv.Holds(alt, word) {
						return "violated", true
					}
					return "", false
				}
				if cfg.Base || cfg.NoCondition || site.Kind == OUT {
					return "", true
				}
				switch ev.check(site, a, r, alt, mem) {
				case violated:
					return "violated", true
				case undecided:
					return "may be violated", true
				}
				return "", false
			}
			// try considers write j as w'; it reports whether the triple is
			// now decided.
			try := func(j int32) bool {
				alt := rec.at(j)
				if !rec.feasible(w, alt, r) {
					return false
				}
				if !cfg.NoValuePruning && alt.value == r.value {
					return false
				}
				if site.Kind == LOOP && w != nil && rec.hb(alt, w) {
					return false
				}
				cond, ok := check(alt.value)
				if !ok {
					return false
				}
				put(Report{Site: site, Distance: sr.dist, Addr: r.addr,
					R: ref(rec, i), W: ref(rec, r.src), Alt: ref(rec, j),
					SameThread: alt.thread == r.thread, Condition: cond})
				return cond != "may be violated"
			}
			for _, g := range groups(r.addr) {
				if decided([3]int32{site.PC, r.pc, g.pc}) {
					continue
				}
				// One thread's executions of the PC, in trace order: those
				// after r stop at the first r happens before (the later
				// ones are after it too); those before r stop at the
				// first that happens before w when w happens before r
				// (the earlier ones are overwritten too).
				split := sort.Search(len(g.idx), func(k int) bool { return g.idx[k] > i })
				done := false
				for _, j := range g.idx[split:] {
					if rec.hb(r, rec.at(j)) {
						break
					}
					if done = try(j); done {
						break
					}
				}
				wr := w != nil && rec.hb(w, r)
				for k := split - 1; k >= 0 && !done; k-- {
					j := g.idx[k]
					if j == r.src {
						continue
					}
					if wr && rec.hb(rec.at(j), w) {
						break
					}
					done = try(j)
				}
			}
			// The uninitialised-read extension.
			if decided([3]int32{site.PC, r.pc, -1}) {
				continue
			}
			init := rec.initial(r.addr)
			if !cfg.NoValuePruning && init == r.value {
				continue
			}
			if site.Kind == LOOP && w != nil {
				continue // the loop rule: the initial value happens before w
			}
			ordered := false
			for _, j := range rec.writesOf(r.addr) {
				if j > i {
					break
				}
				if rec.hb(rec.at(j), r) {
					ordered = true
					break
				}
			}
			if ordered {
				continue
			}
			cond, ok := check(init)
			if !ok {
				continue
			}
			put(Report{Site: site, Distance: sr.dist, Addr: r.addr,
				R: ref(rec, int32(i)), W: ref(rec, r.src), Alt: Ref{Thread: -1, PC: -1, Value: init, Seq: -1},
				Uninit: true, Condition: cond})
		}
	}
	sort.SliceStable(res.Reports, func(x, y int) bool {
		kx, ky := res.Reports[x].Key(), res.Reports[y].Key()
		for k := range kx {
			if kx[k] != ky[k] {
				return kx[k] < ky[k]
			}
		}
		return false
	})
	return res
}

// lastBeforeExit reports whether read i is its thread's last execution of
// its PC before the thread left the loop: following the thread's accesses,
// one outside the loop (or none) comes before another execution of the PC.
func lastBeforeExit(rec *Recorder, next []int32, i int32, in func(pc int32) bool) bool {
	pc := rec.at(i).pc
	for n := next[i]; n >= 0; n = next[n] {
		x := rec.at(n)
		if !in(x.pc) {
			return true
		}
		if x.pc == pc && !x.write {
			return false
		}
	}
	return true
}

// ref returns the Ref of access i (-1: the initial value).
func ref(rec *Recorder, i int32) Ref {
	if i < 0 {
		return Ref{Thread: -1, PC: -1, Seq: -1}
	}
	x := rec.at(i)
	return Ref{Thread: x.thread, PC: x.pc, Inst: x.inst, Value: x.value, Seq: i}
}

// feasible is Algorithm 1: whether r could read from alt instead of w (nil:
// the initial value) in another interleaving.
func (rec *Recorder) feasible(w, alt, r *access) bool {
	hb := rec.hb
	// Condition 2: r must not happen before w'.
	if hb(r, alt) {
		return false
	}
	if w == nil {
		return true
	}
	// Condition 3 (a)/(b): w' always overwritten by w before r.
	if rec.hb(alt, w) && hb(w, r) {
		return false
	}
	// Condition 3 (c), form 1: w then r inside one critical section that
	// excludes w'.
	if w.thread == r.thread && alt.thread != r.thread {
		if excludes(rec.lockset(w), rec.lockset(r), rec.lockset(alt)) {
			return false
		}
	}
	// Form 2: w' then w inside one critical section that excludes r.
	if alt.thread == w.thread && r.thread != w.thread {
		if excludes(rec.lockset(alt), rec.lockset(w), rec.lockset(r)) {
			return false
		}
	}
	return true
}

// excludes reports whether x and y are inside one dynamic critical section
// whose lock z holds (the section and z's are mutually exclusive).
func excludes(x, y, z lockState) bool {
	for _, a := range x {
		for _, b := range y {
			if a.cs == b.cs && holds(z, a.lock) {
				return true
			}
		}
	}
	return false
}

// holds reports whether ls holds lock l.
func holds(ls lockState, l uint64) bool {
	for _, h := range ls {
		if h.lock == l {
			return true
		}
	}
	return false
}

// Describe spells a report in one line, with source lines where the program
// has them.
func (a *Analysis) Describe(r Report) string {
	var b strings.Builder
	if r.Site.PC >= 0 {
		fmt.Fprintf(&b, "%s site at pc %d%s: ", r.Site.Kind, r.Site.PC, a.line(r.Site.PC))
	}
	fmt.Fprintf(&b, "read at pc %d%s (thread %d, execution %d, distance %d) of %s read %d from ",
		r.R.PC, a.line(r.R.PC), r.R.Thread, r.R.Inst+1, r.Distance, a.Prog.DescribeAddr(r.Addr), r.R.Value)
	if r.W.Thread < 0 {
		b.WriteString("the initial value")
	} else {
		fmt.Fprintf(&b, "pc %d%s (thread %d)", r.W.PC, a.line(r.W.PC), r.W.Thread)
	}
	if r.Uninit {
		fmt.Fprintf(&b, "; it could run before every write and read the initial %d", r.Alt.Value)
	} else {
		fmt.Fprintf(&b, "; it could read %d from pc %d%s (thread %d", r.Alt.Value, r.Alt.PC, a.line(r.Alt.PC), r.Alt.Thread)
		if r.SameThread {
			b.WriteString(", its own thread")
		}
		b.WriteString(")")
	}
	if r.Condition != "" {
		fmt.Fprintf(&b, "; condition %s", r.Condition)
	}
	return b.String()
}

// line returns " (line N)" for pc when the program has source lines.
func (a *Analysis) line(pc int32) string {
	if pc >= 0 && int(pc) < len(a.Prog.Instrs) && a.Prog.Instrs[pc].Line > 0 {
		return fmt.Sprintf(" (line %d)", a.Prog.Instrs[pc].Line)
	}
	return ""
}
