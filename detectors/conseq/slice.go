package conseq

import (
	"weft/isa"
)

// Abstract locations of a memory operand.
const (
	locExact uint8 = iota // v is the byte address
	locSym                // v is the index of the symbol it stays inside
	locHeap               // v is the PC of the alloc that made the object
	locTop                // any address
)

// loc is one abstract location.
type loc struct {
	kind uint8
	v    int64
}

// val is one abstract register value.
type val struct {
	kind uint8 // valConst, valHeap, valUnknown
	v    int64
}

const (
	valConst uint8 = iota
	valHeap
	valUnknown
)

// maxVals bounds the values tracked for one register before giving up.
const maxVals = 16

// regVals returns the abstract values register r may hold just before pc,
// looking through li, la, mov, alloc and add/sub of an immediate. A
// register that some path leaves undefined since its thread's entry (its
// entry fact reaches pc) is unknown.
func (g *graph) regVals(pc int32, r uint8, depth int) []val {
	if r == 0 {
		return []val{{kind: valConst}}
	}
	unknown := []val{{kind: valUnknown}}
	if depth <= 0 || r >= isa.NumRegs {
		return unknown
	}
	var out []val
	for _, f := range g.regByReg[r] {
		if !g.regIn[pc].has(f) {
			continue
		}
		d := g.regFactPC[f]
		if d < 0 {
			return unknown
		}
		in := &g.p.Instrs[d]
		switch {
		case in.Op == isa.OpLi || in.Op == isa.OpLa:
			out = append(out, val{kind: valConst, v: in.Imm})
		case in.Op == isa.OpAlloc:
			out = append(out, val{kind: valHeap, v: int64(d)})
		case in.Op == isa.OpMov:
			out = append(out, g.regVals(d, in.Rs, depth-1)...)
		case (in.Op == isa.OpAdd || in.Op == isa.OpSub) && in.UseImm:
			for _, v := range g.regVals(d, in.Rs, depth-1) {
				if v.kind == valConst {
					if in.Op == isa.OpAdd {
						v.v += in.Imm
					} else {
						v.v -= in.Imm
					}
				}
				out = append(out, v)
			}
		default:
			return unknown
		}
		if len(out) > maxVals {
			return unknown
		}
	}
	if len(out) == 0 {
		return unknown
	}
	for _, v := range out {
		if v.kind == valUnknown {
			return unknown
		}
	}
	return out
}

// symAt returns the index of the data symbol holding byte address a, or -1.
func (g *graph) symAt(a int64) int {
	for i, s := range g.p.Symbols {
		lo := int64(s.Addr)
		if a >= lo && a < lo+int64(s.Words)*isa.WordBytes {
			return i
		}
	}
	return -1
}

// addrOf returns the abstract locations instruction pc's memory operand
// may touch.
func (g *graph) addrOf(pc int32) []loc {
	in := &g.p.Instrs[pc]
	if in.Base == 0 {
		return []loc{{kind: locExact, v: in.Off}}
	}
	var out []loc
	for _, v := range g.regVals(pc, in.Base, 6) {
		switch v.kind {
		case valConst:
			out = append(out, loc{kind: locExact, v: v.v + in.Off})
		case valHeap:
			out = append(out, loc{kind: locHeap, v: v.v})
		default:
			if s := g.symAt(in.Off); s >= 0 {
				out = append(out, loc{kind: locSym, v: int64(s)})
			} else {
				return []loc{{kind: locTop}}
			}
		}
	}
	return out
}

// mayAlias reports whether two abstract locations may be one word.
func (g *graph) mayAlias(x, y loc) bool {
	if x.kind == locTop || y.kind == locTop {
		return true
	}
	if x.kind > y.kind {
		x, y = y, x
	}
	switch {
	case x.kind == locExact && y.kind == locExact:
		return x.v&^(isa.WordBytes-1) == y.v&^(isa.WordBytes-1)
	case x.kind == locExact && y.kind == locSym:
		return g.symAt(x.v) == int(y.v)
	case x.kind == y.kind:
		return x.v == y.v
	}
	return false
}

// memoryDeps adds the store→load edges: a load depends on every store
// that may reach it (along the supergraph, without kills), that one
// thread can run together with it, and whose address may alias its own.
func (g *graph) memoryDeps(succ [][]int32, retTo map[int32][]isa.Site) {
	p := g.p
	var factPC []int32
	gen := make([]int, g.n)
	for pc := range p.Instrs {
		gen[pc] = -1
		if isWrite(p.Instrs[pc].Op) {
			gen[pc] = len(factPC)
			factPC = append(factPC, int32(pc))
		}
	}
	if len(factPC) == 0 {
		return
	}
	in := g.flow(succ, retTo, facts{n: len(factPC), gen: gen, kill: make([]bitset, g.n), factPC: factPC})
	addrs := make(map[int32][]loc)
	addr := func(pc int32) []loc {
		a, ok := addrs[pc]
		if !ok {
			a = g.addrOf(pc)
			addrs[pc] = a
		}
		return a
	}
	for pc := range p.Instrs {
		if !isRead(p.Instrs[pc].Op) {
			continue
		}
		r := int32(pc)
		in[pc].each(func(f int) {
			w := factPC[f]
			if !g.sameThread(r, w) {
				return
			}
			for _, x := range addr(r) {
				for _, y := range addr(w) {
					if g.mayAlias(x, y) {
						g.deps[r] = append(g.deps[r], edge{to: w, kind: depMem})
						return
					}
				}
			}
		})
	}
}

// slice returns the shortest distance of every instruction from site s
// (-1 when not within opts.MaxDistance), by a 0-1 breadth-first search over
// the backward dependence edges.
func (g *graph) slice(s Site, opts Options) []int {
	md := opts.maxDistance()
	dist := make([]int, g.n)
	for i := range dist {
		dist[i] = -1
	}
	// A bucket queue: buckets[d] holds the instructions reached at d.
	buckets := make([][]int32, md+1)
	relax := func(pc int32, d int) {
		if d > md || (dist[pc] >= 0 && dist[pc] <= d) {
			return
		}
		dist[pc] = d
		buckets[d] = append(buckets[d], pc)
	}
	weight := func(u int32, e edge) int {
		if opts.Model == Instruction {
			return 1
		}
		switch {
		case e.kind == depReg && e.to < u && g.cfg.BlockOf[e.to] == g.cfg.BlockOf[u]:
			return 0
		case e.kind == depCall:
			return 0
		}
		return 1
	}
	dist[s.PC] = 0
	// The site's own step. In the statement model an assert's or out's
	// operand definitions are at 1 wherever they are (the guarding
	// condition, the argument), and an assert's control dependences at 2
	// (those of its guarding branch), its call edges at 1 (the call is one
	// statement with the routine's entry, inside the guarding branch).
	for _, e := range g.deps[s.PC] {
		w := weight(s.PC, e)
		if op := g.p.Instrs[s.PC].Op; opts.Model == Statement && (op == isa.OpAssert || op == isa.OpOut) {
			switch {
			case e.kind == depReg:
				w = 1
			case s.Kind == ASS && e.kind == depCall:
				w = 1
			case s.Kind == ASS:
				w = 2
			}
		}
		if e.to != s.PC {
			relax(e.to, w)
		}
	}
	for d := 0; d <= md; d++ {
		for i := 0; i < len(buckets[d]); i++ {
			pc := buckets[d][i]
			if dist[pc] != d {
				continue
			}
			for _, e := range g.deps[pc] {
				relax(e.to, d+weight(pc, e))
			}
		}
	}
	return dist
}

// loopFilter returns, for a LOOP site, the blocks its slice may keep: the
// loop's body and the bodies of the routines called from it; nil for
// other sites.
func (g *graph) loopFilter(s Site) []bool {
	if s.Kind != LOOP || s.Loop < 0 || s.Loop >= len(g.loops) {
		return nil
	}
	body := g.loops[s.Loop].Body
	keep := make([]bool, len(g.cfg.Blocks))
	for _, b := range body {
		keep[b] = true
	}
	for _, c := range g.cfg.Calls {
		if hasInt(body, c.Block) {
			for b, in := range g.callees[c.Target] {
				if in {
					keep[b] = true
				}
			}
		}
	}
	return keep
}

// reads returns the critical reads of s from its distances.
func (g *graph) reads(s Site, dist []int, md int) []CriticalRead {
	keep := g.loopFilter(s)
	var out []CriticalRead
	for pc, d := range dist {
		if d < 0 || d > md || !isRead(g.p.Instrs[pc].Op) {
			continue
		}
		if keep != nil && !keep[g.cfg.BlockOf[pc]] {
			continue
		}
		out = append(out, CriticalRead{PC: int32(pc), Distance: d})
	}
	return out
}
