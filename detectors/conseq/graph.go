package conseq

import (
	"math/bits"
	"sort"

	"weft/isa"
)

// bitset is a fixed-size set of small integers.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) set(i int)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }
func (b bitset) each(f func(i int)) {
	for w, x := range b {
		for x != 0 {
			t := bits.TrailingZeros64(x)
			f(w*64 + t)
			x &= x - 1
		}
	}
}

// edge is a backward dependence from an instruction to one it depends on.
type edge struct {
	to   int32
	kind uint8 // depReg, depCtl, depMem
}

const (
	depReg  uint8 = iota
	depCtl        // control dependence inside a routine
	depMem        // store → load
	depCall       // a callee's top-level instruction → a call of it
)

// graph is the program dependence graph, backward: deps[pc] are the
// instructions pc depends on.
type graph struct {
	p    *isa.Program
	cfg  *isa.CFG
	n    int
	deps [][]edge
	// regIn[pc] are the register definitions (facts) reaching pc;
	// regFactPC maps a fact to its instruction and regByReg lists each
	// register's facts.
	regIn     []bitset
	regFactPC []int32
	regByReg  [isa.NumRegs][]int
	// thread[b] is the set of thread entries (indices) that reach block b.
	thread []bitset
	// callees[t] are, for a call-target block t, the blocks its body and
	// its transitive callees hold.
	callees map[int][]bool
	// returns[t] reports, for a call-target block t, whether the routine
	// can return: reach a ret without passing a call that cannot.
	returns map[int]bool
	// mustDef[t] is, for a call-target block t of a routine that can
	// return, the registers (bit r for rr) every path from t to a ret
	// defines, through the calls on it.
	mustDef map[int]uint32
	// ctl[pc] are the branches pc is control dependent on inside its
	// routine.
	ctl [][]int32
	// loops are the cyclic regions (Analysis.Loops).
	loops []Loop
}

// uses returns the registers instruction in reads (r0 excluded).
func uses(in *isa.Instruction) []uint8 {
	var r []uint8
	add := func(x uint8) {
		if x != 0 {
			r = append(r, x)
		}
	}
	o := in.Op
	switch {
	case o == isa.OpLi || o == isa.OpLa:
	case o == isa.OpMov:
		add(in.Rs)
	case o.IsALU():
		add(in.Rs)
		if !in.UseImm {
			add(in.Rt)
		}
	case o == isa.OpLd || o == isa.OpFree || o == isa.OpLock || o == isa.OpUnlock ||
		o == isa.OpCsignal || o == isa.OpCbcast:
		add(in.Base)
	case o == isa.OpSt || o == isa.OpXchg:
		add(in.Rs)
		add(in.Base)
	case o == isa.OpCas:
		add(in.Base)
		add(in.Rs)
		add(in.Rt)
	case o == isa.OpFadd || o == isa.OpBarrier:
		add(in.Base)
		if !in.UseImm {
			add(in.Rs)
		}
	case o == isa.OpAlloc:
		if !in.UseImm {
			add(in.Rs)
		}
	case o == isa.OpCwait:
		add(in.Base)
		add(in.Base2)
	case o == isa.OpBeqz || o == isa.OpBnez:
		add(in.Rs)
	case o.IsBranch():
		add(in.Rs)
		if !in.UseImm {
			add(in.Rt)
		}
	case o == isa.OpSpawn || o == isa.OpJoin || o == isa.OpAssert || o == isa.OpOut:
		add(in.Rs)
	}
	return r
}

// def returns the register in writes, or 0.
func def(in *isa.Instruction) uint8 {
	o := in.Op
	if o.IsALU() || o == isa.OpLd || o == isa.OpCas || o == isa.OpXchg || o == isa.OpFadd ||
		o == isa.OpAlloc || o == isa.OpSpawn || o == isa.OpTid {
		return in.Rd
	}
	return 0
}

// isRead reports whether o reads a data word (sync words excluded).
func isRead(o isa.Op) bool {
	return o == isa.OpLd || o == isa.OpCas || o == isa.OpXchg || o == isa.OpFadd
}

// isWrite reports whether o writes a data word (sync words excluded).
func isWrite(o isa.Op) bool {
	return o == isa.OpSt || o == isa.OpCas || o == isa.OpXchg || o == isa.OpFadd
}

// newGraph builds the dependence graph of p.
func newGraph(p *isa.Program, cfg *isa.CFG) *graph {
	g := &graph{p: p, cfg: cfg, n: len(p.Instrs), deps: make([][]edge, len(p.Instrs))}
	g.threads()
	g.calleeSets()
	g.returnability()
	g.mustDefs()
	succ, retTo := g.supergraph()
	g.registerDeps(succ, retTo)
	g.memoryDeps(succ, retTo)
	g.controlDeps()
	g.callDeps()
	g.findLoops()
	return g
}

// threadEntries returns the blocks where a thread starts: main's (block 0
// without a main label), then every spawn target's.
func (g *graph) threadEntries() []int {
	cfg := g.cfg
	var entries []int
	if pc, ok := g.p.LabelPC("main"); ok && pc >= 0 && int(pc) < g.n {
		entries = append(entries, cfg.BlockOf[pc])
	} else if len(cfg.Blocks) > 0 {
		entries = append(entries, 0)
	}
	for _, s := range cfg.Spawns {
		entries = append(entries, s.Target)
	}
	return entries
}

// threads computes which thread entries (main, spawn targets) reach each
// block, following calls but not spawns.
func (g *graph) threads() {
	cfg := g.cfg
	nb := len(cfg.Blocks)
	entries := g.threadEntries()
	callsIn := make([][]int, nb)
	for _, c := range cfg.Calls {
		callsIn[c.Block] = append(callsIn[c.Block], c.Target)
	}
	g.thread = make([]bitset, nb)
	for i := range g.thread {
		g.thread[i] = newBitset(len(entries))
	}
	for e, b0 := range entries {
		work := []int{b0}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if g.thread[b].has(e) {
				continue
			}
			g.thread[b].set(e)
			work = append(work, cfg.Blocks[b].Succs...)
			work = append(work, callsIn[b]...)
		}
	}
}

// sameThread reports whether one thread can run both a and b.
func (g *graph) sameThread(a, b int32) bool {
	x, y := g.thread[g.cfg.BlockOf[a]], g.thread[g.cfg.BlockOf[b]]
	for i := range x {
		if x[i]&y[i] != 0 {
			return true
		}
	}
	return false
}

// calleeSets computes, for each call target, the blocks of its body and
// its transitive callees.
func (g *graph) calleeSets() {
	cfg := g.cfg
	nb := len(cfg.Blocks)
	callsIn := make([][]int, nb)
	for _, c := range cfg.Calls {
		callsIn[c.Block] = append(callsIn[c.Block], c.Target)
	}
	g.callees = map[int][]bool{}
	for _, c := range cfg.Calls {
		if _, ok := g.callees[c.Target]; ok {
			continue
		}
		in := make([]bool, nb)
		work := []int{c.Target}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if in[b] {
				continue
			}
			in[b] = true
			work = append(work, cfg.Blocks[b].Succs...)
			work = append(work, callsIn[b]...)
		}
		g.callees[c.Target] = in
	}
}

// returnability computes g.returns: a routine can return when a ret is
// reachable from its entry along its own code, passing over a call only
// when that callee can return. It is a least fixed point, so a routine
// that could only return through a call of itself cannot return.
func (g *graph) returnability() {
	g.returns = map[int]bool{}
	var targets []int
	for _, c := range g.cfg.Calls {
		if _, ok := g.returns[c.Target]; !ok {
			g.returns[c.Target] = false
			targets = append(targets, c.Target)
		}
	}
	seen := newBitset(g.n)
	for changed := true; changed; {
		changed = false
		for _, t := range targets {
			if g.returns[t] {
				continue
			}
			clear(seen)
			if g.reachesRet(g.cfg.Blocks[t].Start, seen) {
				g.returns[t] = true
				changed = true
			}
		}
	}
}

// reachesRet reports whether a ret is reachable from start inside its
// routine under the current g.returns; seen holds the PCs visited.
func (g *graph) reachesRet(start int32, seen bitset) bool {
	n := int32(g.n)
	work := []int32{start}
	push := func(pcs ...int32) {
		for _, pc := range pcs {
			if pc >= 0 && pc < n && !seen.has(int(pc)) {
				work = append(work, pc)
			}
		}
	}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		if seen.has(int(pc)) {
			continue
		}
		seen.set(int(pc))
		in := &g.p.Instrs[pc]
		switch {
		case in.Op == isa.OpRet:
			return true
		case in.Op == isa.OpExit:
		case in.Op == isa.OpJmp:
			push(in.Target)
		case in.Op.IsBranch():
			push(in.Target, pc+1)
		case in.Op == isa.OpCall:
			if g.callReturns(pc) {
				push(pc + 1)
			}
		default:
			push(pc + 1)
		}
	}
	return false
}

// callReturns reports whether the call at pc can come back to pc+1. A call
// whose target is out of the code is assumed to.
func (g *graph) callReturns(pc int32) bool {
	t := g.p.Instrs[pc].Target
	if t < 0 || int(t) >= g.n {
		return true
	}
	r, ok := g.returns[g.cfg.BlockOf[t]]
	return !ok || r
}

// mustDefs computes g.mustDef, a must-analysis (intersection over paths)
// over each returning routine's own code, taking a call's callee's
// mustDef as defined at the call; it is the greatest fixed point over the
// call graph, from "every register".
func (g *graph) mustDefs() {
	const all = uint32(1)<<isa.NumRegs - 2 // r1..r15
	g.mustDef = map[int]uint32{}
	var targets []int
	for _, c := range g.cfg.Calls {
		if _, ok := g.mustDef[c.Target]; !ok && g.returns[c.Target] {
			g.mustDef[c.Target] = all
			targets = append(targets, c.Target)
		}
	}
	n := int32(g.n)
	in := make([]uint32, g.n)
	seen := newBitset(g.n)
	for changed := true; changed; {
		changed = false
		for _, t := range targets {
			clear(seen)
			entry := g.cfg.Blocks[t].Start
			in[entry] = 0
			seen.set(int(entry))
			work := []int32{entry}
			rets := all
			for len(work) > 0 {
				pc := work[len(work)-1]
				work = work[:len(work)-1]
				ins := &g.p.Instrs[pc]
				out := in[pc]
				if r := def(ins); r != 0 && r < isa.NumRegs {
					out |= 1 << r
				}
				var next []int32
				switch {
				case ins.Op == isa.OpRet:
					rets &= in[pc]
				case ins.Op == isa.OpExit:
				case ins.Op == isa.OpJmp:
					next = append(next, ins.Target)
				case ins.Op.IsBranch():
					next = append(next, ins.Target, pc+1)
				case ins.Op == isa.OpCall:
					if g.callReturns(pc) {
						if ins.Target >= 0 && ins.Target < n {
							out |= g.mustDef[g.cfg.BlockOf[ins.Target]]
						}
						next = append(next, pc+1)
					}
				default:
					next = append(next, pc+1)
				}
				for _, s := range next {
					if s < 0 || s >= n {
						continue
					}
					if !seen.has(int(s)) {
						seen.set(int(s))
						in[s] = out
						work = append(work, s)
					} else if v := in[s] & out; v != in[s] {
						in[s] = v
						work = append(work, s)
					}
				}
			}
			if rets != g.mustDef[t] {
				g.mustDef[t] = rets
				changed = true
			}
		}
	}
}

// supergraph returns the instruction-level interprocedural successors:
// normal flow, call → callee entry and call → return site (the
// call-to-return edge, only when the callee can return), and retTo: for
// each ret, the calls it returns to (to their next instruction), with the
// callee's target block.
func (g *graph) supergraph() (succ [][]int32, retTo map[int32][]isa.Site) {
	p, cfg := g.p, g.cfg
	n := int32(g.n)
	succ = make([][]int32, n)
	for pc := int32(0); pc < n; pc++ {
		in := &p.Instrs[pc]
		add := func(t int32) {
			if t >= 0 && t < n {
				succ[pc] = append(succ[pc], t)
			}
		}
		switch {
		case in.Op == isa.OpRet || in.Op == isa.OpExit:
		case in.Op == isa.OpJmp:
			add(in.Target)
		case in.Op.IsBranch():
			add(in.Target)
			add(pc + 1)
		case in.Op == isa.OpCall:
			add(in.Target)
			if g.callReturns(pc) {
				add(pc + 1)
			}
		default:
			add(pc + 1)
		}
	}
	retTo = map[int32][]isa.Site{}
	for _, c := range cfg.Calls {
		// The rets of the callee's own body (not its callees').
		for b, in := range g.ownBody(c.Target) {
			if last := cfg.Blocks[b].End - 1; in && p.Instrs[last].Op == isa.OpRet {
				retTo[last] = append(retTo[last], c)
			}
		}
	}
	return succ, retTo
}

// facts describes a forward may-analysis for flow: facts are bits
// 0..n-1.
type facts struct {
	n int
	// gen[pc] is the fact pc generates, -1 for none.
	gen []int
	// kill[pc] are the facts pc kills, nil for none.
	kill []bitset
	// factPC[f] is the instruction of fact f, or -1 for a fact no
	// instruction generates.
	factPC []int32
	// start[pc] are facts that hold before pc whatever flows in (a thread
	// entry's).
	start map[int32]bitset
	// callMask[pc] masks what the call at pc passes over the callee along
	// its call-to-return edge (nil: everything).
	callMask map[int32]bitset
}

// flow runs the forward may-analysis fs over the supergraph. A ret passes
// to a return site only the facts generated inside the callee (or its
// callees). It returns the facts holding before each instruction.
func (g *graph) flow(succ [][]int32, retTo map[int32][]isa.Site, fs facts) []bitset {
	nfacts, gen, kill, factPC := fs.n, fs.gen, fs.kill, fs.factPC
	in := make([]bitset, g.n)
	for i := range in {
		in[i] = newBitset(nfacts)
	}
	for pc, facts := range fs.start {
		if pc >= 0 && int(pc) < g.n {
			copy(in[pc], facts)
		}
	}
	// Per callee target, the mask of facts generated inside it.
	inside := map[int]bitset{}
	for t, blocks := range g.callees {
		m := newBitset(nfacts)
		for f, pc := range factPC {
			if pc >= 0 && blocks[g.cfg.BlockOf[pc]] {
				m.set(f)
			}
		}
		inside[t] = m
	}
	out := newBitset(nfacts)
	onList := make([]bool, g.n)
	work := make([]int32, 0, g.n)
	for pc := g.n - 1; pc >= 0; pc-- {
		work = append(work, int32(pc))
		onList[pc] = true
	}
	merge := func(dst bitset, src bitset, mask bitset) bool {
		changed := false
		for i := range dst {
			v := src[i]
			if mask != nil {
				v &= mask[i]
			}
			if nv := dst[i] | v; nv != dst[i] {
				dst[i] = nv
				changed = true
			}
		}
		return changed
	}
	for len(work) > 0 {
		pc := work[len(work)-1]
		work = work[:len(work)-1]
		onList[pc] = false
		copy(out, in[pc])
		if k := kill[pc]; k != nil {
			for i := range out {
				out[i] &^= k[i]
			}
		}
		if gen[pc] >= 0 {
			out.set(gen[pc])
		}
		push := func(t int32, mask bitset) {
			if merge(in[t], out, mask) && !onList[t] {
				onList[t] = true
				work = append(work, t)
			}
		}
		callMask := fs.callMask[pc]
		for _, t := range succ[pc] {
			if callMask != nil && t == pc+1 && t != g.p.Instrs[pc].Target {
				push(t, callMask)
			} else {
				push(t, nil)
			}
		}
		for _, c := range retTo[pc] {
			if c.PC+1 < int32(g.n) {
				push(c.PC+1, inside[c.Target])
			}
		}
	}
	return in
}

// registerDeps adds the register def-use edges (reaching definitions). A
// call kills the definitions of the registers its callee always defines
// (mustDef). Besides one fact per defining instruction, each register r1..r15 has an
// "unknown at thread entry" fact (its factPC is -1) that holds at main's
// entry and every spawn target's (a spawned thread gets its argument in r1)
// until the register is defined: it gives no edge, but makes regVals
// return unknown on any path where the register has no definition.
func (g *graph) registerDeps(succ [][]int32, retTo map[int32][]isa.Site) {
	p := g.p
	var factPC []int32
	gen := make([]int, g.n)
	var byReg [isa.NumRegs][]int
	for pc := range p.Instrs {
		gen[pc] = -1
		if r := def(&p.Instrs[pc]); r != 0 && r < isa.NumRegs {
			gen[pc] = len(factPC)
			byReg[r] = append(byReg[r], len(factPC))
			factPC = append(factPC, int32(pc))
		}
	}
	entryFact := len(factPC) // entryFact+r-1 is register r's entry fact
	for r := uint8(1); r < isa.NumRegs; r++ {
		byReg[r] = append(byReg[r], len(factPC))
		factPC = append(factPC, -1)
	}
	nf := len(factPC)
	entryFacts := newBitset(nf)
	for r := 1; r < isa.NumRegs; r++ {
		entryFacts.set(entryFact + r - 1)
	}
	start := map[int32]bitset{}
	for _, b := range g.threadEntries() {
		start[g.cfg.Blocks[b].Start] = entryFacts
	}
	var regKill [isa.NumRegs]bitset
	for r := range byReg {
		regKill[r] = newBitset(nf)
		for _, f := range byReg[r] {
			regKill[r].set(f)
		}
	}
	kill := make([]bitset, g.n)
	for pc := range p.Instrs {
		if r := def(&p.Instrs[pc]); r != 0 && r < isa.NumRegs {
			kill[pc] = regKill[r]
		}
	}
	// A call passes over its callee only the registers the callee may
	// leave undefined.
	callMask := map[int32]bitset{}
	for _, c := range g.cfg.Calls {
		m := g.mustDef[c.Target]
		if m == 0 {
			continue
		}
		keep := newBitset(nf)
		for i := range keep {
			keep[i] = ^uint64(0)
		}
		for r := 1; r < isa.NumRegs; r++ {
			if m&(1<<r) != 0 {
				for i := range keep {
					keep[i] &^= regKill[r][i]
				}
			}
		}
		callMask[c.PC] = keep
	}
	in := g.flow(succ, retTo, facts{n: nf, gen: gen, kill: kill, factPC: factPC, start: start, callMask: callMask})
	for pc := range p.Instrs {
		for _, r := range uses(&p.Instrs[pc]) {
			if r >= isa.NumRegs {
				continue
			}
			for _, f := range byReg[r] {
				if in[pc].has(f) && factPC[f] >= 0 {
					g.deps[pc] = append(g.deps[pc], edge{to: factPC[f], kind: depReg})
				}
			}
		}
	}
	g.regIn = in
	g.regFactPC = factPC
	g.regByReg = byReg
}

// controlDeps adds the control-dependence edges from post-dominators: an
// instruction is control dependent on a branch block A when its block
// post-dominates a successor of A but not A itself. The post-dominators
// are those of the CFG cdCFG returns.
func (g *graph) controlDeps() {
	cfg := g.cdCFG()
	nb := len(cfg.Blocks)
	cd := make([][]int, nb)
	for a := range cfg.Blocks {
		blk := cfg.Blocks[a]
		if len(blk.Succs) < 2 || !cfg.Prog.Instrs[blk.End-1].Op.IsBranch() {
			continue
		}
		stop := cfg.IPDom[a]
		for _, s := range blk.Succs {
			r := s
			for steps := 0; r >= 0 && r != stop && steps <= nb; steps++ {
				if len(cd[r]) == 0 || cd[r][len(cd[r])-1] != a {
					cd[r] = append(cd[r], a)
				}
				r = cfg.IPDom[r]
			}
		}
	}
	g.ctl = make([][]int32, g.n)
	for pc := range g.p.Instrs {
		for _, a := range cd[cfg.BlockOf[pc]] {
			br := cfg.Blocks[a].End - 1
			g.ctl[pc] = append(g.ctl[pc], br)
			g.deps[pc] = append(g.deps[pc], edge{to: br, kind: depCtl})
		}
	}
}

// cdCFG returns the CFG control dependences are computed on. isa's CFG
// lets every call fall through to its next instruction; here a call that
// cannot return (g.returns) must instead end its routine's path, so that
// what follows it depends on the branches that avoid it. When the program
// has such a call, the CFG is built from a copy of the code in which each
// one is replaced by exit (for its caller, it leaves the routine as an
// exit does, whether the callee exits or loops forever); otherwise it is
// g.cfg. The copy's blocks may be split at those calls, so its block
// numbers are used only inside controlDeps.
func (g *graph) cdCFG() *isa.CFG {
	var code []isa.Instruction
	for pc := range g.p.Instrs {
		if g.p.Instrs[pc].Op == isa.OpCall && !g.callReturns(int32(pc)) {
			if code == nil {
				code = append([]isa.Instruction(nil), g.p.Instrs...)
			}
			code[pc] = isa.Instruction{Op: isa.OpExit}
		}
	}
	if code == nil {
		return g.cfg
	}
	return isa.BuildCFG(&isa.Program{Instrs: code, Labels: g.p.Labels, Funcs: g.p.Funcs})
}

// ownBody returns the blocks of the routine entered at block t, without
// its callees': the blocks reachable from t along CFG edges.
func (g *graph) ownBody(t int) []bool {
	seen := make([]bool, len(g.cfg.Blocks))
	work := []int{t}
	for len(work) > 0 {
		b := work[len(work)-1]
		work = work[:len(work)-1]
		if seen[b] {
			continue
		}
		seen[b] = true
		work = append(work, g.cfg.Blocks[b].Succs...)
	}
	return seen
}

// callDeps adds the call-site control edges: an instruction of a routine's
// own body that is control dependent on no branch of that body depends on
// every call of the routine (depCall), so a slice from a site inside the
// routine goes on through the call's own dependences to the guards under
// which the routine was called.
func (g *graph) callDeps() {
	cfg := g.cfg
	callsOf := map[int][]int32{}
	var targets []int
	for _, c := range cfg.Calls {
		if _, ok := callsOf[c.Target]; !ok {
			targets = append(targets, c.Target)
		}
		callsOf[c.Target] = append(callsOf[c.Target], c.PC)
	}
	for _, t := range targets {
		body := g.ownBody(t)
		for b, in := range body {
			if !in {
				continue
			}
			for pc := cfg.Blocks[b].Start; pc < cfg.Blocks[b].End; pc++ {
				top := true
				for _, br := range g.ctl[pc] {
					if body[cfg.BlockOf[br]] {
						top = false
						break
					}
				}
				if !top {
					continue
				}
				for _, c := range callsOf[t] {
					g.deps[pc] = append(g.deps[pc], edge{to: c, kind: depCall})
				}
			}
		}
	}
}

// findLoops lists the cyclic regions (Analysis.Loops): isa's natural
// loops at their own indices, then the irreducible regions. Those are the
// strongly connected components with more than one block of the graph of
// the reachable blocks without the natural loops' back edges (acyclic
// when the CFG is reducible), each widened by the bodies of the natural
// loops whose headers it holds, in order of their first block.
func (g *graph) findLoops() {
	cfg := g.cfg
	for i, l := range cfg.Loops {
		g.loops = append(g.loops, Loop{Natural: i, Entries: []int{l.Header}, Body: l.Body})
	}
	nb := len(cfg.Blocks)
	succ := make([][]int, nb)
	for b := range cfg.Blocks {
		if cfg.IDom[b] == isa.NoBlock {
			continue
		}
		for _, s := range cfg.Blocks[b].Succs {
			if !cfg.Dominates(s, b) {
				succ[b] = append(succ[b], s)
			}
		}
	}
	entry := make([]bool, nb)
	for _, e := range cfg.Entries {
		entry[e] = true
	}
	for _, comp := range sccs(succ) {
		if len(comp) < 2 {
			continue
		}
		in := make([]bool, nb)
		for _, b := range comp {
			in[b] = true
		}
		for _, l := range cfg.Loops {
			if in[l.Header] {
				for _, b := range l.Body {
					in[b] = true
				}
			}
		}
		lp := Loop{Natural: -1}
		for b, ok := range in {
			if !ok {
				continue
			}
			lp.Body = append(lp.Body, b)
			outside := entry[b]
			for _, p := range cfg.Blocks[b].Preds {
				outside = outside || !in[p]
			}
			if outside {
				lp.Entries = append(lp.Entries, b)
			}
		}
		g.loops = append(g.loops, lp)
	}
}

// sccs returns the strongly connected components of the graph succ
// (Tarjan's algorithm, iteratively), each ascending, in order of their
// smallest node.
func sccs(succ [][]int) [][]int {
	n := len(succ)
	index := make([]int, n) // 0: not visited yet
	low := make([]int, n)
	onStack := make([]bool, n)
	var stack []int
	var out [][]int
	next := 1
	type frame struct{ v, i int }
	visit := func(v int) {
		index[v], low[v] = next, next
		next++
		stack = append(stack, v)
		onStack[v] = true
	}
	for root := 0; root < n; root++ {
		if index[root] != 0 {
			continue
		}
		visit(root)
		call := []frame{{root, 0}}
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.i < len(succ[f.v]) {
				w := succ[f.v][f.i]
				f.i++
				if index[w] == 0 {
					visit(w)
					call = append(call, frame{w, 0})
				} else if onStack[w] && index[w] < low[f.v] {
					low[f.v] = index[w]
				}
				continue
			}
			v := f.v
			call = call[:len(call)-1]
			if len(call) > 0 {
				if u := call[len(call)-1].v; low[v] < low[u] {
					low[u] = low[v]
				}
			}
			if low[v] != index[v] {
				continue
			}
			var comp []int
			for {
				w := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				onStack[w] = false
				comp = append(comp, w)
				if w == v {
					break
				}
			}
			sort.Ints(comp)
			out = append(out, comp)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out
}
