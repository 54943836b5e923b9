package bugaboo

import (
	"weft/core"
	"weft/isa"
)

// HW collects BB-HW's per-run graph: the thin software layer that drains
// the communication table (digest §3) into a graph, edge → count. It is a
// core.Observer of CTDrain events and a core.Detector; it is not safe for
// concurrent use.
//
// A CTDrain event carries the drained entries in List, 4 words per edge:
// the source PC (all ones for the NULL source of a memory-served miss),
// the source context, the destination PC and the destination context;
// EdgeCount (Value) is the number of edges; CtxSize and DistinctEmpty
// name the context encoding. When the count and the List disagree, the
// smaller count is used and the event is counted in Malformed; an entry
// whose destination PC is negative is skipped. A NULL source is stored as
// Node{NullPC, 0}, whatever context word it carries.
type HW struct {
	// Ranking is the reading of the ranking formula for the per-run
	// findings (default MinRelFreq).
	Ranking How
	// Top is the number of code points reported as findings (0: 10).
	Top int

	prog      *isa.Program
	enc       Encoding
	encSet    bool
	graph     *Graph
	drains    uint64
	malformed uint64
}

// NewHW returns the BB-HW graph collector for runs of prog.
func NewHW(prog *isa.Program) *HW {
	return &HW{enc: DefaultEncoding, prog: prog, graph: NewGraph()}
}

// Encoding returns the hardware's context encoding: the one SetEncoding
// gave, else what the first CTDrain event named (its CtxSize and
// DistinctEmpty), DefaultEncoding before one.
func (h *HW) Encoding() Encoding { return h.enc }

// SetEncoding fixes the context encoding, whatever the CTDrain events
// name (a trace recorded before they named it has zeros there).
func (h *HW) SetEncoding(enc Encoding) { h.enc, h.encSet = enc, true }

// Name returns "bbhw".
func (h *HW) Name() string { return "bbhw" }

// Kinds returns the event kinds HW observes: CTDrain.
func (h *HW) Kinds() core.KindMask { return core.MaskOf(core.KindCTDrain) }

// Graph returns the run's communication graph so far.
func (h *HW) Graph() *Graph { return h.graph }

// Drains returns the number of CTDrain events seen.
func (h *HW) Drains() uint64 { return h.drains }

// Malformed returns the number of CTDrain events whose Value did not match
// their List, whose encoding words were invalid, or that listed a context
// wider than the encoding.
func (h *HW) Malformed() uint64 { return h.malformed }

// Observe adds a drain's edges to the graph.
func (h *HW) Observe(e *core.Event) {
	if e.Kind != core.KindCTDrain {
		return
	}
	if h.drains == 0 && !h.encSet {
		enc := Encoding{Size: int(min(e.CtxSize(), 64)), DistinctEmpty: e.DistinctEmpty()}
		if enc.Valid() == nil {
			h.enc = enc
		} else {
			h.malformed++
		}
	}
	mask := uint64(h.enc.Mask())
	h.drains++
	edges, count := e.DrainedEdges(), e.EdgeCount()
	n := len(edges) / 4
	if count < 0 || int64(n) != count || len(edges)%4 != 0 {
		h.malformed++
		if count >= 0 && count < int64(n) {
			n = int(count)
		}
	}
	bad := false
	defer func() {
		if bad {
			h.malformed++
		}
	}()
	for i := 0; i < n; i++ {
		w := edges[4*i : 4*i+4]
		src := Node{PC: int32(w[0]), Ctx: uint32(w[1])}
		if w[0] == ^uint64(0) {
			src = Node{PC: NullPC}
		}
		dst := Node{PC: int32(w[2]), Ctx: uint32(w[3])}
		if dst.PC < 0 {
			continue
		}
		if w[3] > mask || (!src.IsNull() && w[1] > mask) {
			bad = true
		}
		h.graph.AddEdge(src, dst)
	}
}

// Findings returns the run's most suspicious code points, by the same rule
// as SW.Findings, with detector name "bbhw".
func (h *HW) Findings() []core.Finding {
	top := h.Top
	if top == 0 {
		top = 10
	}
	r := Ranker{Prog: h.prog, How: h.Ranking}
	return RankFindings(h.Name(), h.prog, h.enc, r.Rank([]*Graph{h.graph}), top)
}

// Program returns the program the graphs' PCs belong to.
func (h *HW) Program() *isa.Program { return h.prog }
