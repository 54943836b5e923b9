package bugaboo

import (
	"cmp"
	"maps"
	"slices"

	"weft/isa"
)

// NullPC is the PC of the NULL node: the source of a BB-HW edge whose data
// came from memory (a memory-served read miss), which no instruction
// wrote as far as the caches know.
const NullPC int32 = -1

// Node is a node of a context-aware communication graph: a static memory
// instruction (its PC) paired with the context it ran in (a Context value
// of the graph's Encoding). PC NullPC is the NULL source.
type Node struct {
	// PC is the instruction, or NullPC.
	PC int32
	// Ctx is the context the instruction ran in.
	Ctx uint32
}

// IsNull reports whether n is the NULL source.
func (n Node) IsNull() bool { return n.PC == NullPC }

// Edge is a communication: Dst consumed (RAW) or overwrote (WAW) data that
// Src produced.
type Edge struct {
	// Src is the producer: the last writer, or the NULL node.
	Src Node
	// Dst is the consumer.
	Dst Node
}

// CompareNodes orders nodes by PC, then context.
func CompareNodes(a, b Node) int {
	if c := cmp.Compare(a.PC, b.PC); c != 0 {
		return c
	}
	return cmp.Compare(a.Ctx, b.Ctx)
}

// CompareEdges orders edges by source, then destination.
func CompareEdges(a, b Edge) int {
	if c := CompareNodes(a.Src, b.Src); c != 0 {
		return c
	}
	return CompareNodes(a.Dst, b.Dst)
}

// Graph is a context-aware communication graph: each edge with the number
// of times it was inserted in the run (set semantics for Union and
// Difference, counts for the ranking). The zero Graph is empty and ready
// to use. Nothing a Graph returns depends on Go's map order: Edges, Nodes
// and Each are sorted. A Graph is not safe for concurrent use.
type Graph struct {
	edges map[Edge]uint64
	total uint64
}

// NewGraph returns an empty graph.
func NewGraph() *Graph { return &Graph{} }

// Add inserts edge e n times.
func (g *Graph) Add(e Edge, n uint64) {
	if n == 0 {
		return
	}
	if g.edges == nil {
		g.edges = map[Edge]uint64{}
	}
	g.edges[e] += n
	g.total += n
}

// AddEdge inserts the edge src → dst once.
func (g *Graph) AddEdge(src, dst Node) { g.Add(Edge{Src: src, Dst: dst}, 1) }

// Count returns how many times e was inserted (0: it is not in the graph).
func (g *Graph) Count(e Edge) uint64 { return g.edges[e] }

// Has reports whether e is in the graph.
func (g *Graph) Has(e Edge) bool { return g.edges[e] != 0 }

// EdgeCount returns the number of distinct edges.
func (g *Graph) EdgeCount() int { return len(g.edges) }

// Total returns the number of edge insertions, counts included (the
// dynamic communication events the graph holds).
func (g *Graph) Total() uint64 { return g.total }

// NodeCount returns the number of distinct nodes, the NULL node left out.
func (g *Graph) NodeCount() int {
	seen := make(map[Node]struct{}, 2*len(g.edges))
	for e := range g.edges {
		for _, n := range [2]Node{e.Src, e.Dst} {
			if !n.IsNull() {
				seen[n] = struct{}{}
			}
		}
	}
	return len(seen)
}

// Edges returns the distinct edges, sorted with CompareEdges.
func (g *Graph) Edges() []Edge {
	return slices.SortedFunc(maps.Keys(g.edges), CompareEdges)
}

// Nodes returns the distinct nodes, the NULL node left out, sorted with
// CompareNodes.
func (g *Graph) Nodes() []Node {
	seen := make(map[Node]struct{}, 2*len(g.edges))
	for e := range g.edges {
		for _, n := range [2]Node{e.Src, e.Dst} {
			if !n.IsNull() {
				seen[n] = struct{}{}
			}
		}
	}
	return slices.SortedFunc(maps.Keys(seen), CompareNodes)
}

// Each calls f for every edge and its count, in Edges order.
func (g *Graph) Each(f func(e Edge, count uint64)) {
	for _, e := range g.Edges() {
		f(e, g.edges[e])
	}
}

// Clone returns a copy of g.
func (g *Graph) Clone() *Graph {
	return &Graph{edges: maps.Clone(g.edges), total: g.total}
}

// Union returns the edge-set union of graphs, each edge with its counts
// summed (the union of the non-buggy runs, the deployment testing graph).
// Nil graphs are skipped.
func Union(graphs ...*Graph) *Graph {
	u := NewGraph()
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for e, n := range g.edges {
			u.Add(e, n)
		}
	}
	return u
}

// Difference returns the edges of a that are not in b, with a's counts:
// the bug-only graph of a buggy run is Difference(buggy, Union(nonbuggy...)).
// A nil b is empty.
func Difference(a, b *Graph) *Graph {
	d := NewGraph()
	for e, n := range a.edges {
		if b == nil || !b.Has(e) {
			d.Add(e, n)
		}
	}
	return d
}

// Convergence returns, for a sequence of per-run graphs, the percentage of
// new edges each run adds relative to the union of the runs before it
// (Fig. 7's "% edges added"): 100 for the first run; for a later run, the
// number of its edges absent from the earlier union over that union's
// edge count, times 100 (100 when the earlier union is empty and the run
// adds edges, 0 when it adds none).
func Convergence(runs []*Graph) []float64 {
	out := make([]float64, len(runs))
	var c Converger
	for i, g := range runs {
		out[i] = c.Add(g)
	}
	return out
}

// Converger is Convergence over runs added one at a time: it keeps the
// union of their edges, not the runs. The zero Converger has seen no run.
type Converger struct {
	seen map[Edge]struct{}
	runs int
}

// Add adds the next run's graph (nil: a run with no edges) and returns
// the percentage of new edges it brings, Convergence's value for it.
func (c *Converger) Add(g *Graph) float64 {
	if c.seen == nil {
		c.seen = map[Edge]struct{}{}
	}
	var added int
	if g != nil {
		for e := range g.edges {
			if _, ok := c.seen[e]; !ok {
				added++
			}
		}
	}
	var v float64
	switch {
	case c.runs == 0:
		v = 100
	case len(c.seen) == 0 && added > 0:
		v = 100
	case len(c.seen) > 0:
		v = 100 * float64(added) / float64(len(c.seen))
	}
	c.runs++
	if g != nil {
		for e := range g.edges {
			c.seen[e] = struct{}{}
		}
	}
	return v
}

// CodePointOf returns the code point of the instruction at pc
// (prog.Instrs[pc].CodePoint), or false for the NULL node and PCs outside
// the program. With a nil prog every PC is its own code point.
func CodePointOf(prog *isa.Program, pc int32) (int32, bool) {
	if pc < 0 {
		return 0, false
	}
	if prog == nil {
		return pc, true
	}
	if int(pc) >= len(prog.Instrs) {
		return 0, false
	}
	return prog.Instrs[pc].CodePoint, true
}

// CodePoints returns the communicating code points of g: those of its
// nodes' instructions, ascending (see CodePointOf).
func CodePoints(prog *isa.Program, g *Graph) []int32 {
	seen := map[int32]struct{}{}
	for e := range g.edges {
		for _, n := range [2]Node{e.Src, e.Dst} {
			if cp, ok := CodePointOf(prog, n.PC); ok {
				seen[cp] = struct{}{}
			}
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// Imprecision returns the percentage of the communicating code points of
// ref that are missing from lossy (digest §4.4, Table 3: ref is the BB-SW
// word graph, lossy the line or hardware graph); 0 when ref has none.
func Imprecision(prog *isa.Program, ref, lossy *Graph) float64 {
	want := CodePoints(prog, ref)
	if len(want) == 0 {
		return 0
	}
	have := CodePoints(prog, lossy)
	var missing int
	for _, cp := range want {
		if _, ok := slices.BinarySearch(have, cp); !ok {
			missing++
		}
	}
	return 100 * float64(missing) / float64(len(want))
}
