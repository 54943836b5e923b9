// Package conseq is ConSeq (Zhang et al., ASPLOS 2011), which works
// backwards from where a program can fail. It holds:
//
//   - the static side (conseq.go, slice.go, graph.go): a program's potential
//     failure sites and, by bounded backward slicing from each, the critical
//     reads: the shared loads whose value can reach the site within
//     MaxDistance dependence steps;
//   - the dynamic side (trace.go, analyse.go, eval.go): a Recorder that
//     traces one correct run, and Analysis.Analyse, which finds every
//     critical read that could read another write's value (Algorithm 1)
//     and keeps those whose value makes the site fail when the thread is
//     executed forward from the read (the condition evaluator);
//   - Daikon-lite (invariant.go): equality invariants at global reads,
//     learned from passing runs by a Trainer, that become INV sites;
//   - the Tester (tester.go), which re-runs the traced seed with park rules
//     that force a report's interleaving and gives its verdict;
//   - Detector (detector.go), ConSeq as a registry detector.
//
// Sites (Kind): every assert (ASS), every fail (ERR), every out (OUT) and
// every exit branch of a cyclic region whose slice, restricted to the
// region, holds a load within MaxDistance (LOOP). The cyclic regions
// (Analysis.Loops) are the natural loops and the irreducible regions: the
// strongly connected components left when the natural loops' back edges
// are removed, such as a cycle entered at two blocks. A branch leaving
// nested regions is one LOOP site per region it leaves.
//
// The slice follows intra-thread dependences only: control dependence from
// post-dominators, continued from a routine's top-level instructions to
// its call sites; register reaching definitions (through calls and
// returns, but never across a spawn; a call kills the registers its
// callee defines on every path); and memory store→load edges between
// instructions that one thread can run, through statically resolved
// addresses when the base register's reaching definitions are constants,
// and otherwise by may-alias (an unknown base with a symbol offset may
// touch that symbol only; an alloc'd base only its own allocation site's
// objects; anything else may touch any address). A register that some
// path leaves undefined since its thread's entry (main's or a spawn
// target's, whose r1 is the spawn argument) is an unknown base. A call
// whose callee cannot reach a ret (it exits or loops forever, itself or
// through its calls) does not fall through, for the data flow and for the
// post-dominators alike. Distances are shortest paths from the site (a
// 0-1 breadth-first search), under one of two models (DistanceModel).
//
// The static analysis reads only the program's code and data layout:
// never its name, provenance or @bug marks.
package conseq

import (
	"fmt"
	"sort"
	"strings"

	"weft/isa"
)

// Kind is a failure-site kind.
type Kind uint8

// The site kinds, with the paper's Table 4 column names.
const (
	// OUT is an out instruction: a wrong or missing output.
	OUT Kind = iota
	// ASS is an assert instruction: an assertion failure.
	ASS
	// ERR is a fail instruction: an error message.
	ERR
	// LOOP is a loop-exit branch: an infinite loop.
	LOOP
	// INV is a global read with an invariant learned from training runs
	// (Config.Invariants; Daikon in the paper): a broken invariant.
	INV
	// NumKinds is the number of site kinds.
	NumKinds
)

var kindNames = [NumKinds]string{"OUT", "ASS", "ERR", "LOOP", "INV"}

// String returns the kind's Table 4 column name.
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// KindMask is a set of site kinds, one bit per Kind.
type KindMask uint8

// Has reports whether m holds k.
func (m KindMask) Has(k Kind) bool { return m&(1<<k) != 0 }

// Mask returns the set holding only k.
func (k Kind) Mask() KindMask { return 1 << k }

// DistanceModel says how slice distances are counted.
type DistanceModel uint8

const (
	// Statement is the paper's model (calibrated on Figure 5): a load and
	// the instructions consuming its register in the same basic block are
	// one node, so a register def-use edge inside a block costs 0 and one
	// across blocks (or around a loop within a block) costs 1; each control
	// dependence and each store→load edge costs 1. The site is at 0. An
	// assert is its own guarding branch: the definitions of its condition
	// register are at 1 (in any block) and its control dependences at 2; a
	// fail's guarding branch is at 1; an out's argument definitions are at
	// 1 (in any block) and its control dependences at 1; a loop-exit
	// branch's node is at 0. A load feeding a store in the same block is in
	// the store's node. A call and its callee's entry statement are one
	// node: the edge from a routine's top-level instruction to a call of
	// the routine costs 0, so the call's guard is 1 from a fail at the
	// start of the callee (and 2 from an assert there, as inline).
	Statement DistanceModel = iota
	// Instruction counts every dependence edge, register def-use and
	// callee-to-call included, as 1, from the site at 0.
	Instruction
)

// String returns the model's name.
func (m DistanceModel) String() string {
	switch m {
	case Statement:
		return "statement"
	case Instruction:
		return "instruction"
	}
	return fmt.Sprintf("DistanceModel(%d)", uint8(m))
}

// DefaultMaxDistance is the paper's default slice bound.
const DefaultMaxDistance = 4

// MaxMaxDistance is the largest MaxDistance accepted.
const MaxMaxDistance = 64

// Options configure the static analysis. The zero value is the paper's
// configuration: every site kind, MaxDistance 4, the statement model.
type Options struct {
	// MaxDistance bounds the slice: reads farther from the site are not
	// critical. 0 means DefaultMaxDistance; it must be in
	// 0..MaxMaxDistance.
	MaxDistance int
	// Model is the distance model.
	Model DistanceModel
	// Disabled are the site kinds not to look for.
	Disabled KindMask
	// AssertRoutines, ErrorRoutines and OutputRoutines name routines (code
	// labels) whose call sites are ASS, ERR and OUT sites: the paper's
	// per-application lists of custom assertion, error-message and output
	// functions. A call site's slice starts at the call (its guarding
	// branch is at 1); an output routine's arguments are not followed (the
	// ISA has no calling convention to find them by).
	AssertRoutines, ErrorRoutines, OutputRoutines []string
}

// maxDistance returns the effective bound.
func (o Options) maxDistance() int {
	if o.MaxDistance == 0 {
		return DefaultMaxDistance
	}
	return o.MaxDistance
}

// Validate reports a clear error for out-of-range options.
func (o Options) Validate() error {
	if o.MaxDistance < 0 || o.MaxDistance > MaxMaxDistance {
		return fmt.Errorf("conseq: max_distance %d out of range: want 1..%d (0 for the default %d)",
			o.MaxDistance, MaxMaxDistance, DefaultMaxDistance)
	}
	if o.Model != Statement && o.Model != Instruction {
		return fmt.Errorf("conseq: unknown distance model %d: want statement or instruction", o.Model)
	}
	return nil
}

// routineSites returns, per call-target PC, the site kind its calls are,
// or an error naming a routine the program does not have.
func (o Options) routineSites(p *isa.Program) (map[int32]Kind, error) {
	out := map[int32]Kind{}
	for _, l := range []struct {
		kind  Kind
		what  string
		names []string
	}{{ASS, "assert", o.AssertRoutines}, {ERR, "error", o.ErrorRoutines}, {OUT, "output", o.OutputRoutines}} {
		for _, n := range l.names {
			pc, ok := p.LabelPC(n)
			if !ok || pc < 0 || int(pc) >= len(p.Instrs) {
				return nil, fmt.Errorf("conseq: %s routine %q: no such code label in %s", l.what, n, progName(p))
			}
			if k, dup := out[pc]; dup && k != l.kind {
				return nil, fmt.Errorf("conseq: routine %q is listed as both %v and %v", n, k, l.kind)
			}
			out[pc] = l.kind
		}
	}
	return out, nil
}

// progName names p in messages.
func progName(p *isa.Program) string {
	switch {
	case p.File != "":
		return p.File
	case p.Name != "":
		return p.Name
	}
	return "the program"
}

// Site is a potential failure site.
type Site struct {
	// PC is the site's instruction: the assert, fail or out, or the loop's
	// exit branch.
	PC int32
	// Kind is the site's kind.
	Kind Kind
	// Loop is, for a LOOP site, the index in Analysis.Loops of the loop the
	// branch leaves (for a natural loop, also its index in isa.CFG.Loops);
	// -1 for other kinds. A branch that leaves several nested loops is one
	// site per loop.
	Loop int
}

// Loop is a cyclic region of the CFG: a LOOP site is a branch that leaves
// it, and only the slice members inside it count.
type Loop struct {
	// Natural is the index in isa.CFG.Loops of the natural loop, or -1 for
	// an irreducible region.
	Natural int
	// Entries are the blocks where the region is entered: a natural loop's
	// header; for an irreducible region, every block with a predecessor
	// outside it or where a routine or thread starts (two or more).
	Entries []int
	// Body holds the region's blocks, ascending.
	Body []int
}

// String spells the site as "KIND@pc".
func (s Site) String() string { return fmt.Sprintf("%s@%d", s.Kind, s.PC) }

// CriticalRead is a load in a site's bounded slice.
type CriticalRead struct {
	// PC is the load (ld, or the read of cas, xchg or fadd).
	PC int32
	// Distance is its shortest dependence distance from the site.
	Distance int
}

// SiteReads is one site with its critical reads.
type SiteReads struct {
	// Site is the failure site.
	Site Site
	// Reads are its critical reads in PC order.
	Reads []CriticalRead
}

// Analysis is the static result for one program.
type Analysis struct {
	// Prog is the analysed program.
	Prog *isa.Program
	// CFG is its control-flow graph.
	CFG *isa.CFG
	// Options are the options used, MaxDistance resolved.
	Options Options
	// Sites are the failure sites in PC order, each with its critical
	// reads. A branch leaving several loops is one LOOP site per loop
	// (Site.Loop), innermost (smallest body) first, each keeping only the
	// reads inside its own loop, so a read of an outer loop's body that
	// keeps the outer loop going is a critical read of the outer loop's
	// site. ASS, ERR and OUT sites are listed even with no critical read;
	// a LOOP site exists only when it has one.
	Sites []SiteReads
	// Loops are the cyclic regions LOOP sites leave: isa.CFG.Loops, at the
	// same indices, then the irreducible regions (cycles with no natural
	// loop, such as a loop entered at two blocks).
	Loops []Loop
	// Empty says why Sites is empty when it is (no code, every kind
	// disabled, or no site in the code); "" otherwise.
	Empty string

	g *graph
}

// Analyze finds p's failure sites and their critical reads. It returns an
// error for invalid options or a nil program, never panics, and on a
// program with no sites returns an empty Analysis whose Empty says why.
func Analyze(p *isa.Program, opts Options) (*Analysis, error) {
	if p == nil {
		return nil, fmt.Errorf("conseq: no program")
	}
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	routines, err := opts.routineSites(p)
	if err != nil {
		return nil, err
	}
	opts.MaxDistance = opts.maxDistance()
	a := &Analysis{Prog: p, CFG: isa.BuildCFG(p), Options: opts}
	if len(p.Instrs) == 0 {
		a.Empty = "the program has no code"
		return a, nil
	}
	if opts.Disabled&(1<<NumKinds-1) == 1<<NumKinds-1 {
		a.Empty = "every site kind is disabled"
		return a, nil
	}
	a.g = newGraph(p, a.CFG)
	a.Loops = a.g.loops
	for _, s := range a.findSites(routines) {
		d := a.g.slice(s, opts)
		reads := a.g.reads(s, d, opts.MaxDistance)
		if s.Kind == LOOP && len(reads) == 0 {
			continue
		}
		a.Sites = append(a.Sites, SiteReads{Site: s, Reads: reads})
	}
	if len(a.Sites) == 0 {
		var on []string
		for k := Kind(0); k < NumKinds; k++ {
			if !opts.Disabled.Has(k) {
				on = append(on, k.String())
			}
		}
		a.Empty = fmt.Sprintf("no failure site of the enabled kinds (%s) in the code", strings.Join(on, ", "))
	}
	return a, nil
}

// findSites lists the candidate sites in PC order.
func (a *Analysis) findSites(routines map[int32]Kind) []Site {
	p, g := a.Prog, a.CFG
	dis := a.Options.Disabled
	var sites []Site
	for pc := range p.Instrs {
		in := &p.Instrs[pc]
		switch {
		case in.Op == isa.OpAssert && !dis.Has(ASS):
			sites = append(sites, Site{PC: int32(pc), Kind: ASS, Loop: -1})
		case in.Op == isa.OpFail && !dis.Has(ERR):
			sites = append(sites, Site{PC: int32(pc), Kind: ERR, Loop: -1})
		case in.Op == isa.OpOut && !dis.Has(OUT):
			sites = append(sites, Site{PC: int32(pc), Kind: OUT, Loop: -1})
		case in.Op == isa.OpCall && len(routines) > 0:
			if k, ok := routines[in.Target]; ok && !dis.Has(k) {
				sites = append(sites, Site{PC: int32(pc), Kind: k, Loop: -1})
			}
		case in.Op.IsBranch() && !dis.Has(LOOP):
			b := g.BlockOf[pc]
			if g.Blocks[b].End-1 != int32(pc) {
				continue
			}
			var left []int
			for l, lp := range a.Loops {
				if !hasInt(lp.Body, b) {
					continue
				}
				for _, s := range g.Blocks[b].Succs {
					if !hasInt(lp.Body, s) {
						left = append(left, l)
						break
					}
				}
			}
			sort.SliceStable(left, func(i, j int) bool {
				return len(a.Loops[left[i]].Body) < len(a.Loops[left[j]].Body)
			})
			for _, l := range left {
				sites = append(sites, Site{PC: int32(pc), Kind: LOOP, Loop: l})
			}
		}
	}
	return sites
}

// Slice returns every instruction in s's bounded slice with its shortest
// distance (the site itself at 0), under the analysis's options; for a
// LOOP site only the members inside the loop are kept. s need not be one
// of a.Sites (a LOOP site must name its loop, an index in a.Loops).
func (a *Analysis) Slice(s Site) map[int32]int {
	out := map[int32]int{}
	if a.g == nil || s.PC < 0 || int(s.PC) >= len(a.Prog.Instrs) {
		return out
	}
	d := a.g.slice(s, a.Options)
	keep := a.g.loopFilter(s)
	for pc, v := range d {
		if v >= 0 && v <= a.Options.MaxDistance && (keep == nil || keep[a.CFG.BlockOf[pc]]) {
			out[int32(pc)] = v
		}
	}
	return out
}

// Site returns the site at pc and its reads, if there is one. For a branch
// that is a LOOP site for several loops, it is the first listed: the
// innermost loop's that has a critical read.
func (a *Analysis) Site(pc int32) (SiteReads, bool) {
	for _, s := range a.Sites {
		if s.Site.PC == pc {
			return s, true
		}
	}
	return SiteReads{}, false
}

// CriticalReads returns every critical read PC with its shortest distance
// over all sites, in PC order.
func (a *Analysis) CriticalReads() []CriticalRead {
	best := map[int32]int{}
	for _, s := range a.Sites {
		for _, r := range s.Reads {
			if d, ok := best[r.PC]; !ok || r.Distance < d {
				best[r.PC] = r.Distance
			}
		}
	}
	out := make([]CriticalRead, 0, len(best))
	for pc, d := range best {
		out = append(out, CriticalRead{PC: pc, Distance: d})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].PC < out[j].PC })
	return out
}

// hasInt reports whether the ascending slice s holds v.
func hasInt(s []int, v int) bool {
	i := sort.SearchInts(s, v)
	return i < len(s) && s[i] == v
}
