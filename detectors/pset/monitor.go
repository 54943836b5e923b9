package pset

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"weft/core"
	"weft/isa"
)

// Stats counts a Monitor's dynamic work.
type Stats struct {
	// Accesses is the number of accesses observed (an RMW counts once, a
	// Free once per word).
	Accesses uint64
	// Checks is the number of accesses checked: those with at least one
	// immediate remote predecessor (the hardware's trigger).
	Checks uint64
	// Violations is the number of checks that failed.
	Violations uint64
	// Skipped is the number of checks skipped because the instruction is
	// untested (Options.IgnoreUntested).
	Skipped uint64
}

// Monitor is the software PSet monitor of one run, named "pset": it
// reports every dynamic access one of whose immediate remote predecessors
// (package doc) is not in its PSet, as a finding of kind "violation" with
// PCs [predecessor, access], the word of the pair's first violation and
// score 1, once per static pair per run. It is a core.Observer for Kinds;
// it is not safe for concurrent use.
type Monitor struct {
	tr       tracker
	opts     Options
	psets    isa.PSets // one per PC
	reported [][]int32 // by PC: predecessors already reported
	rep      reporter
	stats    Stats
}

// NewMonitor returns a monitor for one run of prog checking psets, which
// should come from a Trainer of prog with the same options or from
// isa.DecodePSets. PCs past the end of psets are untested.
func NewMonitor(prog *isa.Program, psets isa.PSets, opts Options) *Monitor {
	ps := make(isa.PSets, len(prog.Instrs))
	copy(ps, psets)
	return &Monitor{
		tr:       tracker{prog: prog, ignoreSync: opts.IgnoreSync},
		opts:     opts,
		psets:    ps,
		reported: make([][]int32, len(prog.Instrs)),
	}
}

// Name returns "pset".
func (m *Monitor) Name() string { return "pset" }

// Kinds returns the kinds it observes (the package's Kinds).
func (m *Monitor) Kinds() core.KindMask { return Kinds() }

// Observe processes one event.
func (m *Monitor) Observe(e *core.Event) { m.tr.observe(e, m.visit) }

// Stats returns the counts so far.
func (m *Monitor) Stats() Stats { return m.stats }

// Findings returns the violations so far, one per static pair, sorted
// with core.CompareFindings.
func (m *Monitor) Findings() []core.Finding { return m.rep.sorted() }

// visit checks one access against its PSet.
func (m *Monitor) visit(tid, pc int32, a uint64, cands []cand) {
	m.stats.Accesses++
	if len(cands) == 0 || pc < 0 || int(pc) >= len(m.psets) {
		return
	}
	ps := &m.psets[pc]
	if !ps.Tested && m.opts.IgnoreUntested {
		m.stats.Skipped++
		return
	}
	m.stats.Checks++
	bad := false
	for _, c := range cands {
		if ps.Has(c.pc) {
			continue
		}
		bad = true
		if !slices.Contains(m.reported[pc], c.pc) {
			m.reported[pc] = append(m.reported[pc], c.pc)
			m.rep.report(m.tr.prog, edge{pred: c.pc, tid: tid, predTid: c.tid, dep: c.dep, addr: a}, pc, *ps)
		}
	}
	if bad {
		m.stats.Violations++
	}
}

// reporter builds violation findings.
type reporter struct {
	clean    *isa.Program // the program without its @bug marks, for texts
	findings []core.Finding
}

// report adds the violation of e's pair at pc, whose PSet is ps.
func (r *reporter) report(prog *isa.Program, e edge, pc int32, ps isa.PSet) {
	if r.clean == nil {
		r.clean = unmarked(prog)
	}
	r.findings = append(r.findings, core.Finding{
		Detector: "pset",
		Kind:     "violation",
		PCs:      []int32{e.pred, pc},
		Addr:     e.addr,
		Score:    1,
		Message: fmt.Sprintf("%s on %s: thread %d's %s (pc %d) follows thread %d's %s (pc %d), not in its PSet %s",
			e.dep, prog.DescribeAddr(e.addr), e.tid, r.clean.InstrText(pc), pc, e.predTid, r.clean.InstrText(e.pred), e.pred, describe(ps)),
	})
}

// sorted returns copies of the findings, sorted.
func (r *reporter) sorted() []core.Finding { return core.SortedFindings(r.findings) }

// describe spells a PSet for messages: "(untested)", "{}" or "{3, 17}"
// (at most 8 PCs).
func describe(ps isa.PSet) string {
	if !ps.Tested {
		return "(untested)"
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range ps.Preds {
		if i == 8 {
			fmt.Fprintf(&b, ", … %d more", len(ps.Preds)-8)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(int(p)))
	}
	b.WriteByte('}')
	return b.String()
}

// unmarked returns a copy of prog without its @bug marks, so that
// instruction texts in findings do not show the ground truth.
func unmarked(prog *isa.Program) *isa.Program {
	c := *prog
	c.Instrs = slices.Clone(prog.Instrs)
	for i := range c.Instrs {
		c.Instrs[i].Bug = false
	}
	return &c
}
