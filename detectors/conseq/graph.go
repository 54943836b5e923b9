package conseq

import (
	"math/bits"

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
	depReg uint8 = iota
	depCtl
	depMem
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
	succ, retTo := g.supergraph()
	g.registerDeps(succ, retTo)
	g.memoryDeps(succ, retTo)
	g.controlDeps()
	return g
}

// threads computes which thread entries (main, spawn targets) reach each
// block, following calls but not spawns.
func (g *graph) threads() {
	cfg := g.cfg
	nb := len(cfg.Blocks)
	var entries []int
	if pc, ok := g.p.LabelPC("main"); ok && pc >= 0 && int(pc) < g.n {
		entries = append(entries, cfg.BlockOf[pc])
	} else if nb > 0 {
		entries = append(entries, 0)
	}
	for _, s := range cfg.Spawns {
		entries = append(entries, s.Target)
	}
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

// supergraph returns the instruction-level interprocedural successors:
// normal flow, call → callee entry and call → return site (the
// call-to-return edge), and retTo: for each ret, the calls it returns to
// (to their next instruction), with the callee's target block.
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
			add(pc + 1)
		default:
			add(pc + 1)
		}
	}
	retTo = map[int32][]isa.Site{}
	for _, c := range cfg.Calls {
		// The rets of the callee's own body (not its callees').
		seen := make([]bool, len(cfg.Blocks))
		work := []int{c.Target}
		for len(work) > 0 {
			b := work[len(work)-1]
			work = work[:len(work)-1]
			if seen[b] {
				continue
			}
			seen[b] = true
			blk := cfg.Blocks[b]
			if last := blk.End - 1; p.Instrs[last].Op == isa.OpRet {
				retTo[last] = append(retTo[last], c)
			}
			work = append(work, blk.Succs...)
		}
	}
	return succ, retTo
}

// flow runs a forward may-analysis over the supergraph: facts are bits
// 0..nfacts-1; gen[pc] is the fact pc generates (-1 for none) and kill[pc]
// the facts it kills (nil for none); factPC[f] is the instruction of fact
// f. A ret passes to a return site only the facts generated inside the
// callee (or its callees). It returns the facts holding before each
// instruction.
func (g *graph) flow(succ [][]int32, retTo map[int32][]isa.Site, nfacts int, gen []int, kill []bitset, factPC []int32) []bitset {
	in := make([]bitset, g.n)
	for i := range in {
		in[i] = newBitset(nfacts)
	}
	// Per callee target, the mask of facts generated inside it.
	inside := map[int]bitset{}
	for t, blocks := range g.callees {
		m := newBitset(nfacts)
		for f, pc := range factPC {
			if blocks[g.cfg.BlockOf[pc]] {
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
		for _, t := range succ[pc] {
			push(t, nil)
		}
		for _, c := range retTo[pc] {
			if c.PC+1 < int32(g.n) {
				push(c.PC+1, inside[c.Target])
			}
		}
	}
	return in
}

// registerDeps adds the register def-use edges (reaching definitions).
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
	nf := len(factPC)
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
	in := g.flow(succ, retTo, nf, gen, kill, factPC)
	for pc := range p.Instrs {
		for _, r := range uses(&p.Instrs[pc]) {
			if r >= isa.NumRegs {
				continue
			}
			for _, f := range byReg[r] {
				if in[pc].has(f) {
					g.deps[pc] = append(g.deps[pc], edge{to: factPC[f], kind: depReg})
				}
			}
		}
	}
	g.regIn = in
	g.regFactPC = factPC
	g.regByReg = byReg
}
