package pset

import (
	"fmt"
	"strings"
	psethw "weft/cpu/pset"

	"weft/configs"
	"weft/core"
	"weft/detectors/pset"
	"weft/experiments"
	"weft/isa"
	"weft/results"
	"weft/sim"
	"weft/workloads"
)

// psetTable3Runs is the number of unseen seeds Table 3 runs per program
// (the paper: cumulative over 10 runs) and psetTable3Train the training
// seeds of the programs Table 1 did not train.
const (
	psetTable3Runs  = 10
	psetTable3Train = 10
)

// psetTable3Programs maps the paper's Table 3 programs to weft's
// workloads: the Table 1 kernels of the same applications, and the
// synthetic profiles of the same benchmarks (fmm has none: barnes is the
// other SPLASH-2 N-body code). The unrolled copy over a fresh buffer
// (§4.6's bmove512) is added when the suite has it.
var psetTable3Programs = [][2]string{
	{"pbzip2", "pbzip2-uaf"}, {"aget", "pset-aget"}, {"pfscan", "pset-pfscan"}, {"apache", "pset-apache-log"},
	{"mysql", "mysql-binlog"}, {"fft", "fft"}, {"fmm", "barnes"}, {"lu", "lu"}, {"radix", "radix"},
	{"blackscholes", "blackscholes"}, {"canneal", "canneal"}, {"mysql bmove512", "pset-bmove"},
}

// psetT3Count is what one run of Table 3 saw, each false violation
// (one involving no @bug instruction: scoring may read the marks) counted
// once, by how it ended: resolved by stalling (the re-check after its
// stall passed), resolved by rolling back (the run went on past it to a
// new checkpoint), or not resolved (accepted after the last rollback, and
// learned). Work a later rollback discarded is not counted; rollbacks
// counts every rollback a false violation caused, and discarded the
// instructions they discarded.
type psetT3Count struct {
	stall, rollback, cannot int
	rollbacks               int
	pairs                   map[[2]int32]bool
	discarded               int64
	// accepted counts each pair's unresolved violations: an online
	// update must stop a pair from firing twice in a run.
	accepted map[[2]int32]int
}

// t3Viol is one checked access's violation: where and when, and whether
// every pair of it is false.
type t3Viol struct {
	ok     bool
	core   int32
	thread int32
	cycle  core.Cycle
	pc     int32
	addr   uint64
	false_ bool
}

// same reports whether e is (another pair of) v's check.
func (v t3Viol) same(e *core.Event) bool {
	return v.ok && v.core == e.Core && v.cycle == e.Cycle && v.pc == e.PC && v.addr == e.Addr
}

// psetT3Observer classifies a run's false violations for Table 3 from the
// hardware's events (core/contract.go): a stalling or rolling-back check
// emits PSetViolation (stalled = 1), then StallBegin, or the Rollback at
// the safe point after it; a stall's StallEnd is followed at once, in the
// same cycle, by its re-check, which emits PSetViolation again if it
// still violates; an accepted violation emits PSetViolation (stalled = 0)
// and a Checkpoint follows. Counts since the last checkpoint are
// tentative: a rollback discards them.
type psetT3Observer struct {
	bug map[int32]bool
	c   *psetT3Count
	// viol is each core's last stalled violation; stallOf the violation
	// each core's current stall is for (none: a perturbation hold).
	viol, stallOf map[int32]t3Viol
	// ended is a stall that ended by its condition, awaiting its re-check
	// (the next event).
	ended t3Viol
	// cause is the last stalled violation: a rollback's.
	cause t3Viol
	// accept is the last accepted violation (several pairs, one count).
	accept t3Viol
	// episodes are the false violations (thread, pc) rolled back since the
	// last checkpoint and not accepted.
	episodes map[[2]int32]bool
	// tentative counts since the last checkpoint.
	tStall, tCannot int
}

func newT3Observer(bug map[int32]bool, c *psetT3Count) *psetT3Observer {
	return &psetT3Observer{bug: bug, c: c, viol: map[int32]t3Viol{}, stallOf: map[int32]t3Viol{}, episodes: map[[2]int32]bool{}}
}

// Observe implements core.Observer.
func (o *psetT3Observer) Observe(e *core.Event) {
	if o.ended.ok {
		if !(e.Kind == core.KindPSetViolation && o.ended.same(e)) && o.ended.false_ {
			o.tStall++ // the re-check passed
		}
		o.ended = t3Viol{}
	}
	switch e.Kind {
	case core.KindPSetViolation:
		pred := e.Pred()
		isFalse := !o.bug[e.PC] && !o.bug[pred]
		if isFalse {
			o.c.pairs[[2]int32{pred, e.PC}] = true
		}
		v := t3Viol{ok: true, core: e.Core, thread: e.Thread, cycle: e.Cycle, pc: e.PC, addr: e.Addr, false_: isFalse}
		if e.Stalled() {
			if o.viol[e.Core].same(e) {
				v.false_ = v.false_ && o.viol[e.Core].false_
			}
			o.viol[e.Core], o.cause = v, v
			return
		}
		if isFalse {
			o.c.accepted[[2]int32{pred, e.PC}]++
		}
		if o.accept.same(e) {
			o.accept.false_ = o.accept.false_ && isFalse
			return
		}
		o.commitAccept()
		o.accept = v
	case core.KindStallBegin:
		if o.viol[e.Core].same(e) {
			o.stallOf[e.Core] = o.viol[e.Core]
		} else {
			o.stallOf[e.Core] = t3Viol{}
		}
	case core.KindStallEnd:
		if v := o.stallOf[e.Core]; v.ok && !e.TimedOut() {
			v.cycle = e.Cycle
			o.ended = v
		}
		delete(o.stallOf, e.Core)
	case core.KindRollback:
		o.accept = t3Viol{}
		if o.cause.ok && o.cause.false_ {
			o.c.rollbacks++
			o.c.discarded += e.Value
			o.episodes[[2]int32{o.cause.thread, o.cause.pc}] = true
		}
		o.tStall, o.tCannot = 0, 0
	case core.KindCheckpoint, core.KindRunEnd:
		o.commitAccept()
		o.c.stall, o.c.cannot = o.c.stall+o.tStall, o.c.cannot+o.tCannot
		o.c.rollback += len(o.episodes)
		o.tStall, o.tCannot = 0, 0
		clear(o.episodes)
	}
}

// commitAccept counts the last accepted violation, once, and ends its
// rollback episode (its rollbacks did not resolve it).
func (o *psetT3Observer) commitAccept() {
	if !o.accept.ok {
		return
	}
	if o.accept.false_ {
		o.tCannot++
	}
	delete(o.episodes, [2]int32{o.accept.thread, o.accept.pc})
	o.accept = t3Viol{}
}

// psetTable3 runs Table 3: each program's PSets (Table 1's for its
// kernels; learned from psetTable3Train seeds' passing runs for the
// others) checked by the hardware in stall_then_rollback mode on unseen
// seeds, counting the false violations by how they were resolved.
func psetTable3(env experiments.Env, ks []*psetKernel, nTrain int) (experiments.Section, uint64, error) {
	paper, err := results.Reference("pset/table3")
	if err != nil {
		return experiments.Section{}, 0, err
	}
	base, err := configs.Load("default")
	if err != nil {
		return experiments.Section{}, 0, err
	}
	known := map[string]bool{}
	for _, e := range workloads.List() {
		known[e.Name] = true
	}
	ps, instrs, err := psetT3Programs(env, ks, nTrain, base, known)
	if err != nil {
		return experiments.Section{}, 0, err
	}
	var jobs []sim.Job
	var counts [][]psetT3Count // each program's (the observers write them)
	for _, p := range ps {
		js, cs := psetT3Jobs(p.prog, p.cfg, p.psets, p.from, psetTable3Runs)
		jobs, counts = append(jobs, js...), append(counts, cs)
	}
	all, err := experiments.RunJobs(env, jobs)
	if err != nil {
		return experiments.Section{}, 0, err
	}
	t := results.NewTable("table3", fmt.Sprintf("PSet Table 3: false violations on %d unseen seeds per program with the hardware stalling, then rolling back, weft beside the paper", psetTable3Runs),
		"program (paper)", "workload", "resolved by stall", "resolved by rollback", "cannot resolve", "total", "distinct pairs", "rollbacks", "instructions", "violations per 10^9 instructions",
		"re-executed % (actual)", "re-executed % (100k a rollback)", "online updates", "stall (paper)", "rollback (paper)", "cannot resolve (paper)", "total (paper)", "instructions (paper)")
	var tl psetT3Tally
	for pi, p := range ps {
		instrs += tl.add(t, paper, p, all[pi*psetTable3Runs:(pi+1)*psetTable3Runs], counts[pi])
	}
	t.Notes = []string{fmt.Sprintf("Unseen seeds follow the training seeds (Table 1's %d for its kernels, %d for the others); weft's programs take no input beyond the seed, so an unseen seed is an unseen schedule (and timing jitter), not new data. A violation counts when it involves no @bug instruction (scoring reads the marks). Each false violation counts once, by how it ended, and work a rollback discarded does not count: resolved by stall (the re-check after its stall passed), resolved by rollback (the run went on past it to a new checkpoint), cannot resolve (accepted after the last rollback of its checkpoint, or with none to return to; its pairs then join the run's PSets: online updates). Rollbacks: every rollback a false violation caused (an unresolved one has max_rollbacks of them). Re-executed %%: the instructions those rollbacks discarded over those kept, and the paper's estimate, 10^5 instructions a rollback.", nTrain, psetTable3Train)}
	sec := experiments.Section{
		Heading: "Table 3: false violations on unseen seeds",
		Text: `Each program's PSets (Table 1's for its kernels; learned from 10 seeds' passing runs for the
profiles) are checked by the hardware in stall_then_rollback mode on seeds training never saw, and
every violation that involves no @bug instruction is a false one: counted by how it was resolved.`,
		Tables:  []*results.Table{t},
		Comment: tl.comment(),
	}
	if known[psetBmove] {
		wt, n, err := psetBmoveWindows(env, base)
		if err != nil {
			return experiments.Section{}, 0, err
		}
		instrs += n
		sec.Tables = append(sec.Tables, wt)
		sec.Comment += psetBmoveComment(wt)
	}
	return sec, instrs, nil
}

// psetT3Program is one program of Table 3 with its PSets.
type psetT3Program struct {
	paper, name string
	prog        *isa.Program
	cfg         configs.Config
	psets       isa.PSets
	from        uint64 // the first unseen seed
}

// psetT3Programs returns Table 3's programs that the registry knows (known
// names its workloads): a Table 1 kernel of ks with the PSets Table 1
// learned on its nTrain seeds, another program with PSets learned here on
// base from psetTable3Train seeds' passing runs. It returns the
// instructions of the training runs.
func psetT3Programs(env experiments.Env, ks []*psetKernel, nTrain int, base configs.Config, known map[string]bool) ([]*psetT3Program, uint64, error) {
	var ps []*psetT3Program
	var train []sim.Job
	var err error
	for _, pn := range psetTable3Programs {
		if !known[pn[1]] {
			continue
		}
		p := &psetT3Program{paper: pn[0], name: pn[1]}
		for _, k := range ks {
			if k.name == pn[1] {
				p.prog, p.cfg, p.psets = k.prog, k.cfg, k.psets
				p.from = k.cfg.Sim.Seed + uint64(nTrain)
			}
		}
		if p.prog == nil {
			if p.prog, p.cfg, err = experiments.ProgramFor(pn[1], base); err != nil {
				return nil, 0, err
			}
			p.from = p.cfg.Sim.Seed + psetTable3Train
			for s := range uint64(psetTable3Train) {
				train = append(train, sim.Job{Config: p.cfg, Program: p.prog, Seed: p.cfg.Sim.Seed + s, Options: psetRecorderOptions(p.prog)})
			}
		}
		ps = append(ps, p)
	}
	trained, err := experiments.RunJobs(env, train)
	if err != nil {
		return nil, 0, err
	}
	var instrs uint64
	i := 0
	for _, p := range ps {
		if p.psets != nil {
			continue
		}
		tr := pset.NewTrainer(p.prog, pset.Options{})
		for _, r := range trained[i : i+psetTable3Train] {
			instrs += r.Instructions
			if r.Outcome == core.Pass {
				tr.Add(recorderOf(r))
			}
		}
		i += psetTable3Train
		p.psets = tr.PSets()
	}
	return ps, instrs, nil
}

// psetT3Tally sums Table 3 over the programs for its comment: the
// programs with violations that could not be resolved and those with
// none, and the violations and instructions.
type psetT3Tally struct {
	cannotRows, cleanRows []string
	totalV, totalI        float64
}

// add adds program p's row to t, beside the paper's: runs are its unseen
// seeds' runs and counts their violations. It returns their instructions.
func (tl *psetT3Tally) add(t, paper *results.Table, p *psetT3Program, runs []sim.Result, counts []psetT3Count) uint64 {
	col := func(name string) int {
		i, _ := paper.Column(name)
		return i
	}
	var st, rb, cn, rbs, updates int
	var disc int64
	var in uint64
	pairs := map[[2]int32]bool{}
	for s := range psetTable3Runs {
		r, c := runs[s], counts[s]
		in += r.Instructions
		st, rb, cn, rbs, disc = st+c.stall, rb+c.rollback, cn+c.cannot, rbs+c.rollbacks, disc+c.discarded
		for k := range c.pairs {
			pairs[k] = true
		}
		g, _ := r.Groups.Get(psethw.StatGroup)
		u, _ := g.Stats.Get(psethw.CounterPSetUpdates)
		updates += int(u)
	}
	total := st + rb + cn
	tl.totalV, tl.totalI = tl.totalV+float64(total), tl.totalI+float64(in)
	if cn > 0 {
		tl.cannotRows = append(tl.cannotRows, p.name)
	}
	if total == 0 {
		tl.cleanRows = append(tl.cleanRows, p.name)
	}
	row := []any{p.paper, p.name, st, rb, cn, total, len(pairs), rbs, in, 1e9 * float64(total) / float64(in),
		100 * float64(disc) / float64(in), 100 * float64(rbs) * 1e5 / float64(in), updates}
	found := false
	for _, pr := range paper.Rows {
		if results.FormatCell(pr[col("program")]) == p.paper {
			row = append(row, pr[col("stall")], pr[col("rollback")], pr[col("cannot_resolve")], pr[col("total")], pr[col("inst_count")])
			found = true
		}
	}
	if !found {
		row = append(row, "", "", "", "", "")
	}
	t.AddRow(row...)
	return in
}

// comment comments Table 3 with its numbers.
func (tl *psetT3Tally) comment() string {
	var perBillion float64
	if tl.totalI > 0 {
		perBillion = 1e9 * tl.totalV / tl.totalI
	}
	cannot := "no program"
	if len(tl.cannotRows) > 0 {
		cannot = strings.Join(tl.cannotRows, ", ")
	}
	return fmt.Sprintf(`weft: %.3g false violations per 10^9 instructions over the programs (the paper: 21 in
about 1.25e10, 1.7 per 10^9); none on %s. The profiles are regular: 10 training seeds teach
every pair their unseen seeds show. The kernels' rates are orders of magnitude above the paper's
because a kernel run is a few thousand instructions of almost nothing but shared accesses, built so
that rare interleavings occur; the re-executed share uses the rollbacks' actual windows, beside the
paper's estimate of 10^5 instructions a rollback. Cannot resolve (violations accepted after the
last rollback of their checkpoint, their pairs then learned): %s.`, perBillion, strings.Join(tl.cleanRows, ", "), cannot)
}

// psetBmove is the unrolled copy over a fresh buffer (§4.6's bmove512).
const psetBmove = "pset-bmove"

// psetBmoveWindows checks pset-bmove with PSets from each of 10 disjoint
// windows of psetTable3Train training seeds, on the psetTable3Runs seeds
// after each: how often the unseen seeds' copy reads a word whose remote
// writer training never saw, which no interleaving can fix. One window is
// one draw of the training; ten show the spread instead of a chosen one.
func psetBmoveWindows(env experiments.Env, base configs.Config) (*results.Table, uint64, error) {
	prog, cfg, err := experiments.ProgramFor(psetBmove, base)
	if err != nil {
		return nil, 0, err
	}
	const windows = 10
	var train []sim.Job
	for w := range uint64(windows) {
		for s := range uint64(psetTable3Train) {
			train = append(train, sim.Job{Config: cfg, Program: prog, Seed: cfg.Sim.Seed + w*psetTable3Train + s, Options: psetRecorderOptions(prog)})
		}
	}
	trained, err := experiments.RunJobs(env, train)
	if err != nil {
		return nil, 0, err
	}
	var instrs uint64
	var jobs []sim.Job
	var counts [][]psetT3Count
	for w := range windows {
		tr := pset.NewTrainer(prog, pset.Options{})
		for _, r := range trained[w*psetTable3Train : (w+1)*psetTable3Train] {
			instrs += r.Instructions
			if r.Outcome == core.Pass {
				tr.Add(recorderOf(r))
			}
		}
		js, cs := psetT3Jobs(prog, cfg, tr.PSets(), cfg.Sim.Seed+uint64((w+1)*psetTable3Train), psetTable3Runs)
		jobs, counts = append(jobs, js...), append(counts, cs)
	}
	all, err := experiments.RunJobs(env, jobs)
	if err != nil {
		return nil, 0, err
	}
	t := results.NewTable("table3_bmove", fmt.Sprintf("%s (an unrolled 64-word copy over a record a producer filled to a timing-dependent length): PSets from 10 training windows of %d seeds, each checked on the %d seeds after it", psetBmove, psetTable3Train, psetTable3Runs),
		"training seeds", "checked seeds", "runs with unresolved violations", "cannot resolve", "rollbacks", "distinct pairs", "pairs unresolved twice in a run", "failing runs")
	for w := range windows {
		var runs, cannot, rolled, twice, failing int
		pairs := map[[2]int32]bool{}
		for s := range psetTable3Runs {
			r, c := all[w*psetTable3Runs+s], counts[w][s]
			instrs += r.Instructions
			if c.cannot > 0 {
				runs++
			}
			cannot, rolled = cannot+c.cannot, rolled+c.rollbacks
			for k := range c.pairs {
				pairs[k] = true
			}
			for _, n := range c.accepted {
				if n > 1 {
					twice++
				}
			}
			if r.Outcome != core.Pass {
				failing++
			}
		}
		from := cfg.Sim.Seed + uint64(w*psetTable3Train)
		t.AddRow(fmt.Sprintf("%d–%d", from, from+psetTable3Train-1), fmt.Sprintf("%d–%d", from+psetTable3Train, from+psetTable3Train+psetTable3Runs-1),
			runs, cannot, rolled, len(pairs), twice, failing)
	}
	return t, instrs, nil
}

// psetBmoveComment comments the bmove windows' table from its numbers.
func psetBmoveComment(t *results.Table) string {
	runs, _ := t.Floats("runs with unresolved violations")
	cannot, _ := t.Floats("cannot resolve")
	twice, _ := t.Floats("pairs unresolved twice in a run")
	failing, _ := t.Floats("failing runs")
	hit := 0
	var nRuns, nCannot, nTwice, nFail float64
	for i := range runs {
		if runs[i] > 0 {
			hit++
		}
		nRuns, nCannot, nTwice, nFail = nRuns+runs[i], nCannot+cannot[i], nTwice+twice[i], nFail+failing[i]
	}
	return fmt.Sprintf(`

%s: with PSets from %d of the %d training windows, some unseen seed's copy read words the
producer filled further than in any training run (%s runs, %s unresolved violations in all):
no interleaving helps (the producer's stores are ordered before the copy by a join, and a rollback
re-runs only the copy: the record's sum is output before it, and no rollback goes past an output),
so stalls time out, rollbacks repeat it, and each is accepted and learned; %s pairs were
unresolved twice in one run (the second round of the copy, the same instructions, must not
violate again after the online update) and %s runs failed. Which windows see it depends on how
far their seeds' producer ran: a window whose training includes a long fill covers every load.`,
		psetBmove, hit, len(runs), results.FormatCell(nRuns), results.FormatCell(nCannot), results.FormatCell(nTwice), results.FormatCell(nFail))
}

// psetT3Jobs returns n runs of prog from seed from with the PSet hardware
// in stall_then_rollback mode checking psets, and the counts their
// observers fill.
func psetT3Jobs(prog *isa.Program, cfg configs.Config, psets isa.PSets, from uint64, n int) ([]sim.Job, []psetT3Count) {
	cfg.PSet.Enabled = true
	cfg.PSet.Recovery.Mode = "stall_then_rollback"
	cfg.Sim.MaxCycles = max(cfg.Sim.MaxCycles, Table2MaxCycles)
	bug := map[int32]bool{}
	for _, pc := range prog.BugPCs() {
		bug[pc] = true
	}
	counts := make([]psetT3Count, n)
	jobs := make([]sim.Job, n)
	for s := range n {
		c := &counts[s]
		jobs[s] = sim.Job{Config: cfg, Program: prog, Seed: from + uint64(s), Options: func() []sim.Option {
			*c = psetT3Count{pairs: map[[2]int32]bool{}, accepted: map[[2]int32]int{}}
			return []sim.Option{sim.WithPSets(psets), sim.WithStatGroups(), sim.WithObserver(core.MaskOf(core.KindPSetViolation,
				core.KindStallBegin, core.KindStallEnd, core.KindRollback, core.KindCheckpoint, core.KindRunEnd), newT3Observer(bug, c))}
		}}
	}
	return jobs, counts
}

// psetRecorderOptions attaches only a PSet recorder to a run of prog.
func psetRecorderOptions(prog *isa.Program) func() []sim.Option {
	return func() []sim.Option {
		return []sim.Option{sim.WithDetector(pset.NewRecorder(prog, pset.Options{}))}
	}
}
