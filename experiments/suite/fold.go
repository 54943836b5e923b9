package suite

import (
	"weft/analysis"
	"weft/core"
	"weft/cpu"
	bbhw "weft/cpu/bugaboo"
	psethw "weft/cpu/pset"
	"weft/detectors/bugaboo"
	"weft/experiments"
	bbrepro "weft/experiments/bugaboo"
	psetrepro "weft/experiments/pset"
	"weft/isa"
	"weft/sim"
)

// The default experiment folds every run into its entry's entryRuns as it
// completes (experiments.StreamJobs delivers the runs in job order), so
// what it holds is a few numbers per run and per-program state (learned
// PSets and invariants, distinct findings, Bugaboo graphs), never the runs
// with their detectors: its memory does not grow with the runs' size, and
// grows with --seeds only by a few words a run.

// jobKind says which of an entry's runs a job is.
type jobKind uint8

const (
	// trainRun is a training seed: its passing runs teach AVIO's
	// invariants and the PSets.
	trainRun jobKind = iota
	// detectorRun is a seed with the detectors attached (bare on a
	// synthetic profile), the hardware off.
	detectorRun
	// bbhwRun is a seed with BB-HW on.
	bbhwRun
	// psetRun is a seed with the PSet hardware on.
	psetRun
	// splitOffRun, splitBBHWRun and splitPSetRun are a synthetic profile's
	// first seeds on the split bus with an L2 (experiments.TimingMachines):
	// bare, with BB-HW on, with the PSet hardware on.
	splitOffRun
	splitBBHWRun
	splitPSetRun
)

// jobRef names the entry, kind and seed index of a job.
type jobRef struct {
	entry int
	kind  jobKind
	seed  int
}

// offRun is what the PSet hardware's scoring and overhead read of a
// detector run: its outcome and cycles.
type offRun struct {
	outcome core.OutcomeKind
	cycles  uint64
}

// breakdownBuckets are the classes of core cycles of the cycle breakdown,
// in its order.
var breakdownBuckets = []string{"busy", "mem_stall", "lock_wait", "barrier_wait", "cond_wait", "join_wait", "idle"}

// entryRuns is one entry's runs, folded: the workloads table's sums, the
// cycle breakdown, the detectors' scores, the Bugaboo graphs, BB-HW's and
// the PSet hardware's sums.
type entryRuns struct {
	// off are the detector runs' outcomes and cycles, by seed.
	off []offRun
	// cyc and ins sum the detector runs' cycles and instructions, instrs
	// the instructions again as an integer; outcomes counts their outcomes.
	cyc, ins float64
	instrs   uint64
	outcomes sim.OutcomeCounter
	// buckets sums the detector runs' core cycles by breakdownBuckets,
	// over the cores that ran a thread.
	buckets [7]uint64
	// longest is the longest detector run's cycles (the PSet hardware's
	// hang limit).
	longest uint64

	// training learns the matrix detectors' checkers (a kernel's only),
	// psetTrain the PSet hardware's sets, from the training runs; mergers
	// and det score the detector runs, one per matrix detector.
	training  *analysis.Training
	psetTrain *psetrepro.RunTrainer
	bugs      []int32
	mergers   []analysis.Merger
	det       []detection
	// sw and hw collect BB-SW's graphs of a bug kernel's detector runs and
	// BB-HW's of its runs with the hardware on.
	sw, hw bbrepro.LabeledRuns

	// hwRuns counts the runs with BB-HW on; hwCyc, inserts, traps, drops
	// and memOps sum their cycles and counters.
	hwRuns                               int
	hwCyc, inserts, traps, drops, memOps float64

	// psets are the PSets learned from the training runs; psetRuns counts
	// the runs with the PSet hardware on, score and cost score them.
	psets    isa.PSets
	psetRuns int
	score    *psetrepro.HWScorer
	cost     psetCost

	// splitOff are a profile's first seeds' cycles on the split bus with
	// an L2, by seed; splitHWCyc and splitHWRuns sum its runs with BB-HW
	// on there, splitCost its runs with the PSet hardware on.
	splitOff    []uint64
	splitHWCyc  float64
	splitHWRuns int
	splitCost   psetCost
}

// addSplit adds a profile's run on the split bus with an L2 (seed s of
// kind k).
func (e *entryRuns) addSplit(k jobKind, s int, r sim.Result) {
	switch k {
	case splitOffRun:
		for len(e.splitOff) <= s {
			e.splitOff = append(e.splitOff, 0)
		}
		e.splitOff[s] = r.Cycles
	case splitBBHWRun:
		e.splitHWRuns++
		e.splitHWCyc += float64(r.Cycles)
	case splitPSetRun:
		if s < len(e.splitOff) {
			e.splitCost.add(e.splitOff[s], r)
		}
	}
}

// splitOverheads returns a profile's BB-HW and PSet overheads on the
// split bus with an L2, in %, and false when it has none.
func (e *entryRuns) splitOverheads() (bbhw, pset float64, ok bool) {
	if e.splitHWRuns == 0 || len(e.splitOff) < e.splitHWRuns || e.splitCost.off == 0 {
		return 0, 0, false
	}
	var off float64
	for _, c := range e.splitOff[:e.splitHWRuns] {
		off += float64(c)
	}
	return 100 * (e.splitHWCyc - off) / off, e.splitCost.overhead(), true
}

// newEntryRuns returns the empty fold of a workload of prog; kernel says
// whether its detector runs are scored (the synthetic profiles run bare).
func newEntryRuns(prog *isa.Program, kernel bool) *entryRuns {
	e := &entryRuns{psetTrain: psetrepro.NewRunTrainer(prog), score: psetrepro.NewHWScorer(prog)}
	if kernel {
		e.training = analysis.MustLookup(matrixDetectors...).NewTraining()
		e.bugs = prog.BugPCs()
		e.mergers = make([]analysis.Merger, len(matrixDetectors))
		e.det = make([]detection, len(matrixDetectors))
	}
	return e
}

// addTrain learns from a training run.
func (e *entryRuns) addTrain(r sim.Result) {
	if e.training != nil {
		e.training.Train(r)
	}
	e.psetTrain.Add(r)
}

// addDetector adds detector run s (every training run has been added);
// sw is its BB-SW collector (nil: none).
func (e *entryRuns) addDetector(s int, r sim.Result, sw *bugaboo.SW) {
	e.off = append(e.off, offRun{r.Outcome, r.Cycles})
	e.cyc += float64(r.Cycles)
	e.ins += float64(r.Instructions)
	e.instrs += r.Instructions
	e.outcomes.Add(s, r.Outcome)
	e.longest = max(e.longest, r.Cycles)
	for _, c := range r.Breakdown {
		if !c.RanThread() {
			continue
		}
		for k, v := range []uint64{c.Busy, c.MemStall, c.LockWait, c.BarrierWait, c.CondWait, c.JoinWait, c.Idle} {
			e.buckets[k] += v
		}
	}
	if e.training != nil {
		e.det = scoreRun(e.training, e.bugs, e.mergers, e.det, s, r)
	}
	if sw != nil {
		e.sw.Add(r.Outcome, sw.Graph())
	}
}

// addBBHW adds a run with BB-HW on; hw is its graph collector (nil: none).
func (e *entryRuns) addBBHW(r sim.Result, hw *bugaboo.HW) {
	e.hwRuns++
	e.hwCyc += float64(r.Cycles)
	e.inserts += experiments.GroupStat(r, bbhw.StatGroup, bbhw.CounterInserts)
	e.traps += experiments.GroupStat(r, bbhw.StatGroup, bbhw.CounterTraps)
	e.drops += experiments.GroupStat(r, bbhw.StatGroup, bbhw.CounterDrops)
	m, _ := r.Stats.Get(cpu.StatMemOps.String())
	e.memOps += m
	if hw != nil {
		e.hw.Add(r.Outcome, hw.Graph())
	}
}

// addPSet adds run s with the PSet hardware on, v its violations.
func (e *entryRuns) addPSet(s int, r sim.Result, v *psetrepro.Violations) {
	e.psetRuns++
	if s < len(e.off) {
		e.score.Add(r, v, e.off[s].outcome)
		e.cost.add(e.off[s].cycles, r)
	} else {
		e.score.AddUnpaired(r, v)
	}
}

// add adds a run with the PSet hardware on, beside the cycles of its seed
// with it off.
func (c *psetCost) add(off uint64, on sim.Result) {
	rb := experiments.GroupStat(on, psethw.StatGroup, psethw.CounterRollbackCycles)
	c.off += float64(off)
	c.on += float64(on.Cycles) + rb
	c.check += experiments.GroupStat(on, psethw.StatGroup, psethw.CounterCheckCycles)
	c.stall += experiments.GroupStat(on, psethw.StatGroup, psethw.CounterStallCycles)
	c.rollback += rb
	c.rbs += experiments.GroupStat(on, psethw.StatGroup, psethw.CounterRollbacks)
}

// scoreRun scores detector run i, r, with the checkers t trained: each
// matrix detector's findings (checked against what t learned) go to its
// merger and its detection in det (all but distinct, which the mergers
// hold), which it returns.
func scoreRun(t *analysis.Training, bugs []int32, mergers []analysis.Merger, det []detection, i int, r sim.Result) []detection {
	for k, name := range matrixDetectors {
		fs := t.Check(name, r)
		mergers[k].Add(i, r.Seed, fs)
		if len(fs) > 0 {
			det[k].flagged++
		}
		for _, f := range fs {
			if f.Involves(bugs) {
				det[k].hits++
				break
			}
		}
	}
	return det
}

// detections returns the matrix detectors' scores on the detector runs
// added (nil on a synthetic profile).
func (e *entryRuns) detections() []detection {
	for k := range e.det {
		e.det[k].distinct = len(e.mergers[k].Merged())
	}
	return e.det
}
