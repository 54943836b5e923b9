package pset

import (
	"slices"

	"weft/core"
	"weft/detectors/shadow"
	"weft/isa"
)

// edge is one static (predecessor, instruction) pair of a run, with its
// first occurrence.
type edge struct {
	pred, tid, predTid int32
	dep                dep
	addr               uint64
}

// Recorder is the training observer of one run, named "pset-train": it
// records the run's static pairs (each access's immediate remote
// predecessors, package doc) and the memory instructions it executed. Add
// a recorder of a correct run to its Trainer; Violations checks the run
// against PSets instead. A Recorder reports no findings; it is not safe
// for concurrent use.
type Recorder struct {
	tr       tracker
	opts     Options
	executed []bool   // by PC
	edges    [][]edge // by PC: the run's predecessors of each instruction
	pairs    int
	accesses uint64
}

// NewRecorder returns a recorder for one run of prog.
func NewRecorder(prog *isa.Program, opts Options) *Recorder {
	return &Recorder{
		tr:       tracker{prog: prog, ignoreSync: opts.IgnoreSync},
		opts:     opts,
		executed: make([]bool, len(prog.Instrs)),
		edges:    make([][]edge, len(prog.Instrs)),
	}
}

// Name returns "pset-train".
func (r *Recorder) Name() string { return "pset-train" }

// Kinds returns the kinds it observes (the package's Kinds).
func (r *Recorder) Kinds() core.KindMask { return Kinds() }

// Findings returns nothing: a recorder learns, it does not report.
func (r *Recorder) Findings() []core.Finding { return nil }

// Observe processes one event.
func (r *Recorder) Observe(e *core.Event) { r.tr.observe(e, r.visit) }

// visit records one access and its counted candidates.
func (r *Recorder) visit(tid, pc int32, a uint64, cands []cand) {
	if pc < 0 || int(pc) >= len(r.executed) {
		return
	}
	r.accesses++
	r.executed[pc] = true
next:
	for _, c := range cands {
		for _, e := range r.edges[pc] {
			if e.pred == c.pc {
				continue next
			}
		}
		r.edges[pc] = append(r.edges[pc], edge{pred: c.pc, tid: tid, predTid: c.tid, dep: c.dep, addr: a})
		r.pairs++
	}
}

// Trim drops the run's shadow memory once the run has ended, keeping what
// Violations and Trainer.Add need: a learner that holds recorders of many
// runs then holds only their pairs.
func (r *Recorder) Trim() { r.tr.words, r.tr.cands = shadow.Memory[word]{}, nil }

// Program returns the program the recorder's PCs belong to.
func (r *Recorder) Program() *isa.Program { return r.tr.prog }

// Pairs returns the number of distinct static pairs the run showed.
func (r *Recorder) Pairs() int { return r.pairs }

// Accesses returns the number of accesses the run made (an RMW counts
// once, a Free once per word).
func (r *Recorder) Accesses() uint64 { return r.accesses }

// Violations returns the findings a Monitor of the same run with psets
// and the recorder's options would report (Monitor's Findings): one per
// static pair not in psets. A batch can thus record every run, train on
// its passing runs and check the others afterwards.
func (r *Recorder) Violations(psets isa.PSets) []core.Finding {
	var rep reporter
	for pc := range r.edges {
		ps := psets.At(int32(pc))
		if !ps.Tested && r.opts.IgnoreUntested {
			continue
		}
		for _, e := range r.edges[pc] {
			if !ps.Has(e.pred) {
				rep.report(r.tr.prog, e, int32(pc), ps)
			}
		}
	}
	return rep.sorted()
}

// Trainer learns PSets from correct runs: the union of their static pairs
// (digest §1.5). Record each run with a Recorder (NewRun) and Add the
// recorders of the runs that passed. A Trainer is not safe for concurrent
// use; its recorders are independent of it and of each other until added.
type Trainer struct {
	prog     *isa.Program
	opts     Options
	tested   []bool
	preds    [][]int32 // by PC, ascending
	pairs    int
	newPairs []int
}

// NewTrainer returns a trainer for prog with no runs: every instruction
// untested.
func NewTrainer(prog *isa.Program, opts Options) *Trainer {
	return &Trainer{
		prog:   prog,
		opts:   opts,
		tested: make([]bool, len(prog.Instrs)),
		preds:  make([][]int32, len(prog.Instrs)),
	}
}

// NewRun returns a recorder for one run of the trainer's program, with its
// options.
func (t *Trainer) NewRun() *Recorder { return NewRecorder(t.prog, t.opts) }

// Add merges a correct run's recorder into the union and returns the
// number of pairs it added (one point of the paper's Figure 8).
func (t *Trainer) Add(r *Recorder) int {
	added := 0
	for pc, ex := range r.executed {
		if pc >= len(t.tested) {
			break
		}
		if ex {
			t.tested[pc] = true
		}
		for _, e := range r.edges[pc] {
			i, found := slices.BinarySearch(t.preds[pc], e.pred)
			if !found {
				t.preds[pc] = slices.Insert(t.preds[pc], i, e.pred)
				added++
			}
		}
	}
	t.pairs += added
	t.newPairs = append(t.newPairs, added)
	return added
}

// Runs returns the number of runs added.
func (t *Trainer) Runs() int { return len(t.newPairs) }

// Pairs returns the number of pairs learned.
func (t *Trainer) Pairs() int { return t.pairs }

// NewPairs returns the number of new pairs each added run brought, in
// order (the paper's Figure 8 learning curve).
func (t *Trainer) NewPairs() []int { return slices.Clone(t.newPairs) }

// PSets returns the learned PSets, one per PC of the program: memory
// instructions executed in some added run are tested (null when they had
// no remote predecessor), the others untested.
func (t *Trainer) PSets() isa.PSets {
	s := make(isa.PSets, len(t.prog.Instrs))
	for pc := range s {
		s[pc] = isa.PSet{Tested: t.tested[pc], Preds: slices.Clone(t.preds[pc])}
	}
	return s
}
