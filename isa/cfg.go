package isa

import "sort"

// Special block numbers in CFG.IDom and CFG.IPDom.
const (
	// VirtualEntry is the immediate dominator of the entry blocks: a node
	// before main and every spawn and call target.
	VirtualEntry = -1
	// VirtualExit is the immediate post-dominator of blocks that leave
	// their thread or function directly (exit, ret, falling off the end).
	VirtualExit = -1
	// NoBlock marks a block with no dominator (unreachable from every
	// entry) or no post-dominator (it cannot reach an exit, as in an
	// endless loop).
	NoBlock = -2
)

// Block is a basic block: the instructions [Start, End).
type Block struct {
	// Start is the PC of the block's first instruction.
	Start int32
	// End is the PC one past its last instruction.
	End int32
	// Succs and Preds are block indices in ascending order. A call falls
	// through to the next instruction; call and spawn edges are in
	// CFG.Calls and CFG.Spawns instead.
	Succs []int
	// Preds are the indices of the blocks with an edge into this one.
	Preds []int
	// Exit is set when the block leaves its thread or function: it ends
	// in exit or ret, runs off the end of the code, or jumps out of it.
	Exit bool
}

// Site is a call or spawn: the instruction, its block and the target
// block.
type Site struct {
	// PC is the PC of the call or spawn instruction.
	PC int32
	// Block is the index of the block that holds it.
	Block int
	// Target is the index of the block it calls or spawns.
	Target int
}

// Loop is a natural loop: a header and every block that reaches a back
// edge's tail without passing through the header.
type Loop struct {
	// Header is the index of the loop's header block.
	Header int
	// Latches are the tails of the back edges into Header, ascending.
	Latches []int
	// Body holds the loop's blocks, Header included, ascending.
	Body []int
	// Parent is the index in CFG.Loops of the innermost enclosing loop, or
	// -1; Depth is 1 for an outermost loop.
	Parent int
	// Depth is the loop's nesting depth, 1 for an outermost loop.
	Depth int
}

// CFG is the control-flow graph of a program with its dominator and
// post-dominator trees and natural loops.
type CFG struct {
	// Prog is the program the graph describes.
	Prog *Program
	// Blocks are the basic blocks in PC order.
	Blocks []Block
	// BlockOf maps a PC to its block.
	BlockOf []int
	// Entries are the blocks where execution can start: main's, then the
	// call and spawn targets, ascending and without duplicates.
	Entries []int
	// Calls are the call sites in PC order.
	Calls []Site
	// Spawns are the spawn sites in PC order.
	Spawns []Site
	// IDom is each block's immediate dominator, VirtualEntry for entry
	// blocks, or NoBlock when no entry reaches it.
	IDom []int
	// IPDom is each block's immediate post-dominator, VirtualExit, or
	// NoBlock when the block cannot reach an exit.
	IPDom []int
	// Loops are the natural loops ordered by header; back edges that share
	// a header form one loop.
	Loops []Loop
}

// ends reports whether op ends a basic block.
func ends(o Op) bool { return o.IsBranch() || o == OpJmp || o == OpRet || o == OpExit }

// BuildCFG builds the control-flow graph of p. Leaders are the first
// instruction, main, every branch, jump, call and spawn target, every .func
// start and the instruction after a branch, jmp, ret or exit. It never
// panics, even on a hand-made program with targets out of range.
func BuildCFG(p *Program) *CFG {
	g := &CFG{Prog: p}
	n := int32(len(p.Instrs))
	if n == 0 {
		return g
	}
	inRange := func(pc int32) bool { return pc >= 0 && pc < n }
	leader := make([]bool, n)
	leader[0] = true
	mainPC, hasMain := p.LabelPC("main")
	if hasMain && inRange(mainPC) {
		leader[mainPC] = true
	}
	for _, f := range p.Funcs {
		if inRange(f.Start) {
			leader[f.Start] = true
		}
	}
	for pc := int32(0); pc < n; pc++ {
		in := &p.Instrs[pc]
		if hasSlot(in.Op, slotTarget) && inRange(in.Target) {
			leader[in.Target] = true
		}
		if ends(in.Op) && pc+1 < n {
			leader[pc+1] = true
		}
	}
	g.BlockOf = make([]int, n)
	for pc := int32(0); pc < n; pc++ {
		if leader[pc] {
			g.Blocks = append(g.Blocks, Block{Start: pc})
		}
		g.BlockOf[pc] = len(g.Blocks) - 1
	}
	for i := range g.Blocks {
		if i+1 < len(g.Blocks) {
			g.Blocks[i].End = g.Blocks[i+1].Start
		} else {
			g.Blocks[i].End = n
		}
	}

	// Edges.
	nb := len(g.Blocks)
	succ := make([][]int, nb)
	addEdge := func(from int, to int32) {
		if !inRange(to) {
			g.Blocks[from].Exit = true
			return
		}
		succ[from] = append(succ[from], g.BlockOf[to])
	}
	for i := range g.Blocks {
		b := &g.Blocks[i]
		last := &p.Instrs[b.End-1]
		switch {
		case last.Op == OpExit || last.Op == OpRet:
			b.Exit = true
		case last.Op == OpJmp:
			addEdge(i, last.Target)
		case last.Op.IsBranch():
			addEdge(i, last.Target)
			addEdge(i, b.End)
		default:
			addEdge(i, b.End)
		}
		for pc := b.Start; pc < b.End; pc++ {
			in := &p.Instrs[pc]
			if (in.Op == OpCall || in.Op == OpSpawn) && inRange(in.Target) {
				s := Site{PC: pc, Block: i, Target: g.BlockOf[in.Target]}
				if in.Op == OpCall {
					g.Calls = append(g.Calls, s)
				} else {
					g.Spawns = append(g.Spawns, s)
				}
			}
		}
	}
	for i := range g.Blocks {
		g.Blocks[i].Succs = sortedUnique(succ[i])
		for _, s := range g.Blocks[i].Succs {
			g.Blocks[s].Preds = append(g.Blocks[s].Preds, i)
		}
	}
	// Preds come out ascending because blocks are visited in order.

	// Entries.
	var entries []int
	if hasMain && inRange(mainPC) {
		entries = append(entries, g.BlockOf[mainPC])
	} else {
		entries = append(entries, 0)
	}
	for _, s := range g.Calls {
		entries = append(entries, s.Target)
	}
	for _, s := range g.Spawns {
		entries = append(entries, s.Target)
	}
	g.Entries = sortedUnique(entries)

	// Dominators: a virtual root (index nb) before every entry.
	fwd := make([][]int, nb+1)
	bwd := make([][]int, nb+1)
	for i := range g.Blocks {
		fwd[i] = g.Blocks[i].Succs
		bwd[i] = g.Blocks[i].Preds
	}
	fwd[nb] = g.Entries
	for _, e := range g.Entries {
		bwd[e] = append(append([]int(nil), bwd[e]...), nb)
	}
	g.IDom = idoms(fwd, bwd, nb)

	// Post-dominators: the same on the reversed graph from a virtual exit.
	rfwd := make([][]int, nb+1)
	rbwd := make([][]int, nb+1)
	for i := range g.Blocks {
		rfwd[i] = g.Blocks[i].Preds
		rbwd[i] = g.Blocks[i].Succs
		if g.Blocks[i].Exit {
			rfwd[nb] = append(rfwd[nb], i)
			rbwd[i] = append(append([]int(nil), rbwd[i]...), nb)
		}
	}
	g.IPDom = idoms(rfwd, rbwd, nb)

	g.findLoops()
	return g
}

// sortedUnique sorts s and drops duplicates, in place.
func sortedUnique(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	sort.Ints(s)
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// idoms computes immediate dominators from root over the graph fwd/bwd
// (successor and predecessor lists of nodes 0..root) with the algorithm of
// Cooper, Harvey and Kennedy. The result, for nodes 0..root-1, holds -1
// where the root is the immediate dominator and NoBlock where the root
// does not reach the node.
func idoms(fwd, bwd [][]int, root int) []int {
	n := root + 1
	// Iterative depth-first search for a postorder.
	po := make([]int, n) // postorder number, -1 when unreached
	for i := range po {
		po[i] = -1
	}
	visited := make([]bool, n)
	order := make([]int, 0, n) // nodes in postorder
	type frame struct{ v, next int }
	stack := []frame{{root, 0}}
	visited[root] = true
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.next < len(fwd[f.v]) {
			w := fwd[f.v][f.next]
			f.next++
			if !visited[w] {
				visited[w] = true
				stack = append(stack, frame{w, 0})
			}
			continue
		}
		po[f.v] = len(order)
		order = append(order, f.v)
		stack = stack[:len(stack)-1]
	}
	idom := make([]int, n)
	for i := range idom {
		idom[i] = -1
	}
	idom[root] = root
	intersect := func(a, b int) int {
		for a != b {
			for po[a] < po[b] {
				a = idom[a]
			}
			for po[b] < po[a] {
				b = idom[b]
			}
		}
		return a
	}
	for changed := true; changed; {
		changed = false
		for k := len(order) - 2; k >= 0; k-- { // reverse postorder, root skipped
			v := order[k]
			nd := -1
			for _, u := range bwd[v] {
				if idom[u] == -1 {
					continue
				}
				if nd == -1 {
					nd = u
				} else {
					nd = intersect(u, nd)
				}
			}
			if nd != idom[v] {
				idom[v] = nd
				changed = true
			}
		}
	}
	out := make([]int, root)
	for v := 0; v < root; v++ {
		switch {
		case po[v] < 0:
			out[v] = NoBlock
		case idom[v] == root:
			out[v] = -1
		default:
			out[v] = idom[v]
		}
	}
	return out
}

// Dominates reports whether block a dominates block b (every path from an
// entry to b passes through a). A block dominates itself; an unreachable
// block is dominated by nothing.
func (g *CFG) Dominates(a, b int) bool { return chainHas(g.IDom, a, b) }

// PostDominates reports whether block a post-dominates block b (every
// path from b to an exit passes through a). A block post-dominates itself;
// a block that cannot reach an exit is post-dominated by nothing.
func (g *CFG) PostDominates(a, b int) bool { return chainHas(g.IPDom, a, b) }

// chainHas reports whether a is on b's chain of immediate dominators.
func chainHas(tree []int, a, b int) bool {
	if a < 0 || b < 0 || a >= len(tree) || b >= len(tree) || tree[b] == NoBlock {
		return false
	}
	for steps := 0; b >= 0 && steps <= len(tree); steps++ {
		if b == a {
			return true
		}
		b = tree[b]
	}
	return false
}

// findLoops finds the natural loops.
func (g *CFG) findLoops() {
	nb := len(g.Blocks)
	latches := make([][]int, nb)
	for t := range g.Blocks {
		for _, h := range g.Blocks[t].Succs {
			if g.Dominates(h, t) {
				latches[h] = append(latches[h], t)
			}
		}
	}
	in := make([]bool, nb)
	for h := range g.Blocks {
		if len(latches[h]) == 0 {
			continue
		}
		for i := range in {
			in[i] = false
		}
		in[h] = true
		work := append([]int(nil), latches[h]...)
		for len(work) > 0 {
			v := work[len(work)-1]
			work = work[:len(work)-1]
			if in[v] {
				continue
			}
			in[v] = true
			work = append(work, g.Blocks[v].Preds...)
		}
		var body []int
		for v, ok := range in {
			if ok {
				body = append(body, v)
			}
		}
		g.Loops = append(g.Loops, Loop{Header: h, Latches: sortedUnique(latches[h]), Body: body, Parent: -1})
	}
	// Nesting: the parent is the smallest strictly larger loop whose body
	// holds the header (natural loops with different headers are nested or
	// disjoint; strictly larger keeps the parent chain acyclic).
	for i := range g.Loops {
		best := -1
		for j := range g.Loops {
			lj := len(g.Loops[j].Body)
			if lj <= len(g.Loops[i].Body) || !containsInt(g.Loops[j].Body, g.Loops[i].Header) {
				continue
			}
			if best == -1 || lj < len(g.Loops[best].Body) {
				best = j
			}
		}
		g.Loops[i].Parent = best
	}
	for i := range g.Loops {
		d := 0
		for j := i; j >= 0; j = g.Loops[j].Parent {
			d++
		}
		g.Loops[i].Depth = d
	}
}

// containsInt reports whether the ascending slice s holds v.
func containsInt(s []int, v int) bool {
	i := sort.SearchInts(s, v)
	return i < len(s) && s[i] == v
}

// LoopOf returns the index of the innermost loop holding block b, or -1.
func (g *CFG) LoopOf(b int) int {
	best := -1
	for i := range g.Loops {
		if containsInt(g.Loops[i].Body, b) && (best == -1 || g.Loops[i].Depth > g.Loops[best].Depth) {
			best = i
		}
	}
	return best
}
