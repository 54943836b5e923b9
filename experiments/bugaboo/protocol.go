package bugaboo

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	bbhw "weft/cpu/bugaboo"

	"weft/configs"
	"weft/core"
	"weft/detectors/bugaboo"
	"weft/experiments"
	"weft/isa"
	"weft/results"
	"weft/sim"
	"weft/workloads"
)

// This file is Bugaboo's evaluation protocol (digest §4.1, §5.1): runs
// with BB-HW on and BB-SW attached, grouped into trials of labeled and
// unlabeled runs, and scored with the ranking and the inspection metric
// of detectors/bugaboo.

// bbMaxContext is the largest BB-SW context size of the sweep (Table 4).
const bbMaxContext = 5

// bbGraphs names the graphs collected from every run of a Bugaboo kernel.
const (
	bbHW    = iota // BB-HW: the drained communication tables (context 5)
	bbLine         // BB-SW, line granularity, context 5
	bbWord0        // BB-SW, word granularity, context 0 .. 5
)

// bbWord returns the graph index of BB-SW word with context size s.
func bbWord(s int) int { return bbWord0 + s }

// bbNumGraphs is the number of graphs per run.
const bbNumGraphs = bbWord0 + bbMaxContext + 1

// bbGraphName names graph i.
func bbGraphName(i int) string {
	switch i {
	case bbHW:
		return "BB-HW"
	case bbLine:
		return "BB-SW line"
	}
	return "BB-SW word ctx " + strconv.Itoa(i-bbWord0)
}

// bbSWOptions returns the BB-SW options of graph i (i ≠ bbHW) for a
// machine with the given line size.
func bbSWOptions(i, lineBytes int) bugaboo.SWOptions {
	if i == bbLine {
		return bugaboo.SWOptions{Granularity: bugaboo.Line, LineBytes: lineBytes}
	}
	s := i - bbWord0
	if s == 0 {
		return bugaboo.SWOptions{NoContext: true}
	}
	return bugaboo.SWOptions{ContextSize: s}
}

// bbCollectors holds one run's graph collectors.
type bbCollectors struct {
	hw *bugaboo.HW
	sw [bbNumGraphs]*bugaboo.SW // nil at bbHW
}

// bbCollect returns options that attach every collector (BB-HW's, which
// reads the CTDrain events, and the seven BB-SW ones) to a run of prog,
// storing them in *slot. They are observers, not detectors, so no run
// ranks its own graph at its end.
func bbCollect(prog *isa.Program, lineBytes int, slot **bbCollectors) func() []sim.Option {
	return func() []sim.Option {
		c := &bbCollectors{hw: bugaboo.NewHW(prog)}
		opts := []sim.Option{sim.WithStatGroups(), sim.WithObserver(c.hw.Kinds(), c.hw)}
		for i := bbLine; i < bbNumGraphs; i++ {
			c.sw[i] = bugaboo.NewSW(prog, bbSWOptions(i, lineBytes))
			opts = append(opts, sim.WithObserver(c.sw[i].Kinds(), c.sw[i]))
		}
		*slot = c
		return opts
	}
}

// trim drops the BB-SW collectors' location tables once their run has
// ended, keeping their graphs.
func (c *bbCollectors) trim() {
	for _, sw := range c.sw {
		if sw != nil {
			sw.Trim()
		}
	}
}

// bbGraphs are one run's graphs, by graph index.
type bbGraphs = [bbNumGraphs]*bugaboo.Graph

// graphs returns the collected graphs, by graph index.
func (c *bbCollectors) graphs() bbGraphs {
	var g bbGraphs
	g[bbHW] = c.hw.Graph()
	for i := bbLine; i < bbNumGraphs; i++ {
		g[i] = c.sw[i].Graph()
	}
	return g
}

// bbCounters are the per-run counters Table 5 uses.
type bbCounters struct {
	memOps, rd, wr, upgr, coh float64
	rdPer10k, wrPer10k        float64
	cohPer10k, upgrPer10k     float64
	metaWrites, ctInserts     float64
	ctRAW, ctWAW, ctMEM       float64
	traps, drops              float64
	cycles                    float64
}

// countersOf reads a run's counters (BB-HW's are 0 when it was off).
func countersOf(r sim.Result) bbCounters {
	g := func(name string) float64 { return experiments.GroupStat(r, bbhw.StatGroup, name) }
	return bbCounters{
		memOps: experiments.Stat(r, "mem_ops"), rd: experiments.Stat(r, "l1_read_misses"), wr: experiments.Stat(r, "l1_write_misses"),
		upgr: experiments.Stat(r, "l1_upgrade_misses"), coh: experiments.Stat(r, "l1_coherence_misses"),
		rdPer10k: experiments.Stat(r, "l1_read_misses_per_10k"), wrPer10k: experiments.Stat(r, "l1_write_misses_per_10k"),
		cohPer10k: experiments.Stat(r, "l1_coherence_misses_per_10k"), upgrPer10k: experiments.Stat(r, "l1_upgrade_misses_per_10k"),
		metaWrites: g(bbhw.CounterMetaWrites), ctInserts: g(bbhw.CounterInserts), ctRAW: g(bbhw.CounterRAW), ctWAW: g(bbhw.CounterWAW), ctMEM: g(bbhw.CounterMEM),
		traps: g(bbhw.CounterTraps), drops: g(bbhw.CounterDrops), cycles: float64(r.Cycles),
	}
}

// bbRun is one run of a Bugaboo kernel as its trial keeps it: its seed,
// label and counters, not its graphs (the trial folds those as the run
// is filed).
type bbRun struct {
	seed  uint64
	buggy bool
	c     bbCounters
}

// bbInsp is one ranking's inspections (bugaboo.Inspections).
type bbInsp struct {
	n, funcs int
	found    bool
}

// bbImprecision is one trial's Table 3 row: the code points of the union
// of its labeled runs' BB-SW word graphs, and the percentages of them
// missing from the line graph and the BB-HW graph, without and with its
// NULL-source edges.
type bbImprecision struct {
	cps, line, hw, hwNull float64
}

// bbTrial is one trial, folded: what the tables read of its runs, the
// runs' graphs themselves long gone. A trial is the runs of a seed range,
// its labeled sets the first perKind runs of each label, its unlabeled
// set the first unlab runs, with at least one buggy (bbKernel.add).
type bbTrial struct {
	// runs are the runs of its seed range, in seed order (Table 5's
	// counters).
	runs []bbRun
	// insp are the inspections of every graph's labeled (bug-only graphs
	// of the buggy runs against the union of the non-buggy) and unlabeled
	// ranking, with both readings of the formula: [graph][labeled=0,
	// unlabeled=1][how].
	insp [bbNumGraphs][2][2]bbInsp
	// imprecision is its Table 3 row.
	imprecision bbImprecision
	// conv is Figure 7: the convergence of the BB-SW word graph at
	// context size 0..5 over the first unlab runs, as they came.
	conv [bbMaxContext + 1][]float64
	// sizes are Table 5's graph sizes of the unlabeled runs, in order:
	// the nodes and edges of the BB-SW word graph at context 0 and at 5.
	sizes [][4]float64
}

// bbTrialFold is the trial being filled: the graphs the rankings still
// need, folded where the ranking allows.
type bbTrialFold struct {
	runs    []bbRun
	nb, nok int // labeled runs so far, buggy and not
	// ok is the union of the labeled non-buggy runs' graphs; buggy are
	// the labeled buggy runs' graphs less the union ok had when each was
	// filed (the bug-only graph is the difference with the final union,
	// which holds the earlier one).
	ok    bbGraphs
	buggy []bbGraphs
	// lab is the union of every labeled run's graphs (Table 3).
	lab bbGraphs
	// unlab ranks the unlabeled runs' graphs but the last one's (pending):
	// that one is replaced by the trial's first buggy run (firstBuggy)
	// when no unlabeled run is buggy.
	unlab      [bbNumGraphs]*bugaboo.RankFold
	nFirst     int // the first runs seen (at most unlab)
	unlabBuggy bool
	pending    *bbGraphs
	firstBuggy *bbGraphs
	conv       [bbMaxContext + 1]bugaboo.Converger
	convVals   [bbMaxContext + 1][]float64
	sizes      [][4]float64
}

// newBBTrialFold returns an empty trial of a kernel of prog.
func newBBTrialFold(prog *isa.Program) bbTrialFold {
	var f bbTrialFold
	for gi := range bbNumGraphs {
		f.ok[gi], f.lab[gi] = bugaboo.NewGraph(), bugaboo.NewGraph()
		f.unlab[gi] = bugaboo.NewRankFold(prog)
	}
	return f
}

// bbProtocol is the size of the evaluation: trials of perKind buggy and
// perKind non-buggy runs (labeled) and of unlab runs with at least one
// buggy (unlabeled).
type bbProtocol struct {
	trials, perKind, unlab int
	// maxSeeds bounds the seeds one trial may take.
	maxSeeds int
}

// bbProtocolFor returns the paper's protocol (5 trials, 25 + 25 labeled,
// 25 unlabeled) or the env's reduction: Seeds sets the runs per kind and
// the unlabeled runs; Quick runs 2 trials of 5 + 5 (and 5 unlabeled).
func bbProtocolFor(env experiments.Env) bbProtocol {
	p := bbProtocol{trials: 5, perKind: 25, unlab: 25}
	if env.Quick {
		p.trials, p.perKind, p.unlab = 2, 5, 5
	}
	if env.Seeds > 0 {
		p.perKind, p.unlab = env.Seeds, env.Seeds
	}
	// The rarest failure (mysql-binlog, about 1 run in 25 on this machine)
	// needs about 25 seeds per failing run.
	p.maxSeeds = 120 * p.perKind
	return p
}

// bbKernel is one Bugaboo Table 1 kernel and its trials.
type bbKernel struct {
	row    int    // Table 1 row, 1..13
	paper  string // the paper's name, "BankAcct"
	name   string // the weft kernel
	prog   *isa.Program
	cfg    configs.Config
	bugCPs []int32
	trials []bbTrial
	seeds  int // seeds run
	buggy  int // buggy runs among them
	done   bool
	// cur is the trial being filled.
	cur          bbTrialFold
	nextSeed     uint64
	seedsInTrial int
}

// bugabooMachine returns the bugaboo-micro09 preset, the paper's machine,
// which every Bugaboo experiment runs on.
func bugabooMachine() (configs.Config, error) {
	return configs.Preset("bugaboo-micro09")
}

// bbKernels returns the 13 Table 1 kernels (bugaboo:1 .. bugaboo:13) on
// base with BB-HW on, in row order, with the paper's names from Table 1.
func bbKernels(base configs.Config, rows []int) ([]*bbKernel, error) {
	names, err := bbPaperNames()
	if err != nil {
		return nil, err
	}
	rk := workloads.RowKernels()
	var ks []*bbKernel
	for _, row := range rows {
		ids := rk["bugaboo:"+strconv.Itoa(row)]
		if len(ids) == 0 {
			return nil, fmt.Errorf("no kernel for bugaboo:%d", row)
		}
		prog, cfg, err := experiments.ProgramFor(ids[0], base)
		if err != nil {
			return nil, err
		}
		cfg.Bugaboo.Enabled = true
		k := &bbKernel{row: row, paper: names[row-1], name: ids[0], prog: prog, cfg: cfg, nextSeed: cfg.Sim.Seed, cur: newBBTrialFold(prog)}
		for _, pc := range prog.BugPCs() {
			if cp := prog.Instrs[pc].CodePoint; !slices.Contains(k.bugCPs, cp) {
				k.bugCPs = append(k.bugCPs, cp)
			}
		}
		ks = append(ks, k)
	}
	return ks, nil
}

// bbPaperNames returns the names of Bugaboo Table 1's rows, in row order.
func bbPaperNames() ([]string, error) {
	t1, err := referenceColumn("bugaboo/table1", "Name")
	if err != nil {
		return nil, err
	}
	return t1, nil
}

// bbAllRows is 1..13.
func bbAllRows() []int {
	rows := make([]int, 13)
	for i := range rows {
		rows[i] = i + 1
	}
	return rows
}

// add files one run, with its graphs g, into the kernel's current trial,
// closing the trial once it has perKind runs of each label. Of g it keeps
// only what the trial's rankings still need.
func (k *bbKernel) add(p bbProtocol, r bbRun, g *bbGraphs) {
	k.seeds++
	k.seedsInTrial++
	if r.buggy {
		k.buggy++
	}
	f := &k.cur
	f.runs = append(f.runs, r)
	if r.buggy && f.nb < p.perKind {
		var b bbGraphs
		for gi := range b {
			b[gi] = bugaboo.Difference(g[gi], f.ok[gi])
			f.lab[gi] = bugaboo.Union(f.lab[gi], g[gi])
		}
		f.buggy = append(f.buggy, b)
		f.nb++
	} else if !r.buggy && f.nok < p.perKind {
		for gi := range g {
			f.ok[gi] = bugaboo.Union(f.ok[gi], g[gi])
			f.lab[gi] = bugaboo.Union(f.lab[gi], g[gi])
		}
		f.nok++
	}
	if f.nFirst < p.unlab {
		f.nFirst++
		for s := range f.conv {
			f.convVals[s] = append(f.convVals[s], f.conv[s].Add(g[bbWord(s)]))
		}
		if f.pending != nil {
			f.addUnlabeled(f.pending)
		}
		f.pending = g
		f.unlabBuggy = f.unlabBuggy || r.buggy
	}
	if r.buggy && f.firstBuggy == nil {
		f.firstBuggy = g
	}
	if f.nb < p.perKind || f.nok < p.perKind {
		return
	}
	k.trials = append(k.trials, f.close(k))
	k.cur, k.seedsInTrial = newBBTrialFold(k.prog), 0
	if len(k.trials) == p.trials {
		k.done = true
	}
}

// addUnlabeled adds a run of the unlabeled set to its rankings and graph
// sizes.
func (f *bbTrialFold) addUnlabeled(g *bbGraphs) {
	for gi := range g {
		f.unlab[gi].Add(g[gi])
	}
	g0, g5 := g[bbWord(0)], g[bbWord(bbMaxContext)]
	f.sizes = append(f.sizes, [4]float64{float64(g0.NodeCount()), float64(g0.EdgeCount()), float64(g5.NodeCount()), float64(g5.EdgeCount())})
}

// bbHows are the readings of the ranking formula, in bbScores' order.
var bbHows = [2]bugaboo.How{bugaboo.MinRelFreq, bugaboo.Literal}

// close completes the trial of kernel k: the unlabeled set's last run
// (the trial's first buggy run instead when no unlabeled run is buggy),
// the labeled and unlabeled rankings' inspections, Table 3's row.
func (f *bbTrialFold) close(k *bbKernel) bbTrial {
	last := f.pending
	if !f.unlabBuggy {
		last = f.firstBuggy
	}
	if last != nil {
		f.addUnlabeled(last)
	}
	t := bbTrial{runs: f.runs, conv: f.convVals, sizes: f.sizes}
	for gi := range bbNumGraphs {
		lab := bugaboo.NewRankFold(k.prog)
		for _, b := range f.buggy {
			lab.Add(bugaboo.Difference(b[gi], f.ok[gi]))
		}
		for h, how := range bbHows {
			n, fn, found := bugaboo.Inspections(lab.Rank(how), k.bugCPs, k.prog)
			t.insp[gi][0][h] = bbInsp{n, fn, found}
			n, fn, found = bugaboo.Inspections(f.unlab[gi].Rank(how), k.bugCPs, k.prog)
			t.insp[gi][1][h] = bbInsp{n, fn, found}
		}
	}
	word, hw := f.lab[bbWord(bbMaxContext)], f.lab[bbHW]
	t.imprecision = bbImprecision{
		cps:    float64(len(bugaboo.CodePoints(k.prog, word))),
		line:   bugaboo.Imprecision(k.prog, word, f.lab[bbLine]),
		hw:     bugaboo.Imprecision(k.prog, word, withoutNull(hw)),
		hwNull: bugaboo.Imprecision(k.prog, word, hw),
	}
	return t
}

// want estimates the seeds the kernel still needs, from the buggy rate so
// far (with a prior of one run of each label), with a margin.
func (k *bbKernel) want(p bbProtocol) int {
	needB := p.perKind - k.cur.nb + p.perKind*(p.trials-len(k.trials)-1)
	needOK := p.perKind - k.cur.nok + p.perKind*(p.trials-len(k.trials)-1)
	rate := (float64(k.buggy) + 1) / (float64(k.seeds) + 2)
	n := math.Max(float64(needB)/rate, float64(needOK)/(1-rate))
	return min(int(1.1*n)+8, 4096)
}

// runBugabooTrials runs every kernel's seeds, from its config's sim.seed
// on, in rounds, until each has its trials. A round runs each unfinished
// kernel's estimated remaining seeds; the runs are filed into trials in
// seed order, so the trials do not depend on the rounds or the worker
// count. A round holds its plan (kernel and seed of each job), not its
// jobs, and each run is filed as it is delivered (in job order), its
// collectors trimmed and its graphs folded into its trial, so it holds no
// run. It returns the simulated instructions run.
func runBugabooTrials(env experiments.Env, p bbProtocol, ks []*bbKernel) (uint64, error) {
	var instrs uint64
	for {
		// The round's plan: job i runs seed seeds[i] of owner[i].
		var owner []*bbKernel
		var seeds []uint64
		for _, k := range ks {
			if k.done {
				continue
			}
			if k.seedsInTrial >= p.maxSeeds {
				return 0, fmt.Errorf("%s: a trial has %d buggy and %d non-buggy runs after %d seeds", k.name, k.cur.nb, k.cur.nok, k.seedsInTrial)
			}
			for range k.want(p) {
				owner = append(owner, k)
				seeds = append(seeds, k.nextSeed)
				k.nextSeed++
			}
		}
		if len(owner) == 0 {
			return instrs, nil
		}
		slots := make([]*bbCollectors, len(owner))
		jobAt := func(i int) sim.Job {
			k := owner[i]
			return sim.Job{Config: k.cfg, Program: k.prog, Seed: seeds[i], Options: bbCollect(k.prog, k.cfg.Cache.L1.LineBytes, &slots[i])}
		}
		err := experiments.StreamJobsOf(env, len(owner), jobAt, func(i int, r sim.Result) error {
			c := slots[i]
			slots[i] = nil
			c.trim()
			instrs += r.Instructions
			k := owner[i]
			if k.done {
				return nil // the kernel's trials were complete before this seed
			}
			g := c.graphs()
			k.add(p, bbRun{seed: r.Seed, buggy: r.Outcome != core.Pass, c: countersOf(r)}, &g)
			return nil
		})
		if err != nil {
			return 0, err
		}
		// Seeds a finished kernel ran past its last trial are not part of
		// any trial; the next round starts after the seeds already run.
	}
}

// bbScore is one method's result on one kernel over the trials.
type bbScore struct {
	found       int     // trials whose ranking holds a bug code point
	insp, funcs float64 // mean over the trials that found it
	trials      int
}

// add records one trial's inspections.
func (s *bbScore) add(n, f int, found bool) {
	s.trials++
	if found {
		s.found++
		s.insp += float64(n)
		s.funcs += float64(f)
	}
}

// finish turns the sums into means over the trials that found the bug.
func (s bbScore) finish() bbScore {
	if s.found > 0 {
		s.insp /= float64(s.found)
		s.funcs /= float64(s.found)
	}
	return s
}

// cell prints the score as the paper does, "3.6 (1.4)", with "[k/n]"
// when the bug was found in only k of n trials, and "—" when in none.
func (s bbScore) cell() string {
	if s.found == 0 {
		return "—"
	}
	c := fmt.Sprintf("%.1f (%.1f)", s.insp, s.funcs)
	if s.found < s.trials {
		c += fmt.Sprintf(" [%d/%d]", s.found, s.trials)
	}
	return c
}

// detected prints detection over the trials: Yes (every trial), No (none)
// or k/n.
func (s bbScore) detected() string {
	switch s.found {
	case s.trials:
		return "Yes"
	case 0:
		return "No"
	}
	return fmt.Sprintf("%d/%d", s.found, s.trials)
}

// bbScores are a kernel's scores: [graph][labeled=0, unlabeled=1][how].
type bbScores [bbNumGraphs][2][2]bbScore

// score sums the trials' inspections of every graph's labeled and
// unlabeled rankings, with both readings of the formula, into the
// kernel's scores.
func (k *bbKernel) score() bbScores {
	var s bbScores
	for _, t := range k.trials {
		for gi := range t.insp {
			for l := range t.insp[gi] {
				for h, x := range t.insp[gi][l] {
					s[gi][l][h].add(x.n, x.funcs, x.found)
				}
			}
		}
	}
	for gi := range s {
		for l := range s[gi] {
			for h := range s[gi][l] {
				s[gi][l][h] = s[gi][l][h].finish()
			}
		}
	}
	return s
}

// withoutNull returns g without its NULL-source edges (BB-HW's
// memory-served read misses): the cache-to-cache communication alone.
func withoutNull(g *bugaboo.Graph) *bugaboo.Graph {
	out := bugaboo.NewGraph()
	g.Each(func(e bugaboo.Edge, n uint64) {
		if !e.Src.IsNull() {
			out.Add(e, n)
		}
	})
	return out
}

// referenceColumn returns a column of a paper's table as printed strings.
func referenceColumn(name, col string) ([]string, error) {
	t, err := results.Reference(name)
	if err != nil {
		return nil, err
	}
	i, ok := t.Column(col)
	if !ok {
		return nil, fmt.Errorf("reference table %s has no column %q", name, col)
	}
	out := make([]string, len(t.Rows))
	for r, row := range t.Rows {
		out[r] = results.FormatCell(row[i])
	}
	return out, nil
}
