// Package suite is weft's default experiment (`weft`, or `weft reproduce
// default`): every workload of the registry on the default machine with
// hb, lockset, AVIO, PSet's software monitor and BB-SW attached, then with
// BB-HW on and with the PSet hardware on. It prints the detector × bug
// matrix and the false positives (detection.go; the Bugaboo and PSet
// hardware columns come from experiments/bugaboo and experiments/pset, the
// PSet hardware's tally is psethw.go) and the hardware's simulated-cycle
// overhead (overhead.go). It folds each run into its tables as the run
// completes (fold.go), so its memory does not grow with the seeds.
package suite

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"weft/configs"
	"weft/core"
	"weft/detectors/bugaboo"
	"weft/experiments"
	bbrepro "weft/experiments/bugaboo"
	psetrepro "weft/experiments/pset"
	"weft/isa"
	"weft/results"
	"weft/sim"
	"weft/workloads"
)

// Experiment is the default experiment, named "default".
func Experiment() experiments.Experiment {
	return experiments.Experiment{
		Name:  "default",
		Title: "weft default experiment: every workload on the default machine",
		Run:   runDefault,
	}
}

// workloadGroups names the plot groups and each entry's group: the paper of
// a bug kernel's first row, "correct" for correct kernels and "profiles" for
// synthetic profiles, in a fixed order.
func workloadGroups(entries []workloads.Entry) ([]string, []int) {
	groups := append(workloads.Papers(), "correct", "profiles")
	index := map[string]int{}
	for i, g := range groups {
		index[g] = i
	}
	groupOf := make([]int, len(entries))
	for i, en := range entries {
		g := "correct"
		switch {
		case en.Kind == workloads.Profile:
			g = "profiles"
		case en.Bug && len(en.Rows) > 0:
			g, _, _ = strings.Cut(en.Rows[0], ":")
		}
		if _, ok := index[g]; !ok {
			g = "correct"
		}
		groupOf[i] = index[g]
	}
	return groups, groupOf
}

// runDefault runs every workload in the registry over seeds on the
// default preset (machine.cores raised per program as needed).
func runDefault(env experiments.Env) (*experiments.Report, error) {
	base, err := configs.Load("default")
	if err != nil {
		return nil, err
	}
	seeds := env.SeedsOr(20)
	d, err := runDetectors(env, base, defaultEntries(env.Quick), seeds)
	if err != nil {
		return nil, err
	}
	ph, err := runPSetHW(env, base, d, seeds)
	if err != nil {
		return nil, err
	}
	t, summary, instrs, err := workloadsTable(d)
	if err != nil {
		return nil, err
	}
	text := summary
	sec := workloadsSection(d, t)
	matrix, matrixText, err := matrixSection(d, ph)
	if err != nil {
		return nil, fmt.Errorf("default experiment: %w", err)
	}
	text += "\n" + matrixText
	overhead, overheadText := overheadSection(d.entries, d.runs, psetrepro.HWConfig(base, nil))
	text += overheadText
	return defaultReport(base, seeds, []experiments.Section{sec, matrix, overhead}, text, instrs), nil
}

// defaultEntries returns the registry's workloads, every eighth of them
// when quick.
func defaultEntries(quick bool) []workloads.Entry {
	entries := workloads.List()
	if quick {
		var some []workloads.Entry
		for i, e := range entries {
			if i%8 == 0 {
				some = append(some, e)
			}
		}
		entries = some
	}
	return entries
}

// defaultRuns are the default experiment's runs, by entry, folded as
// they complete (fold.go).
type defaultRuns struct {
	entries []workloads.Entry
	cfgs    []configs.Config
	progs   []*isa.Program
	// seeds is the detector runs per entry.
	seeds int
	runs  []*entryRuns
}

// runDetectors runs every entry's training seeds, then its seeds with the
// detectors attached, then the same seeds with BB-HW on, and folds them.
//
// Every kernel runs seeds base.. with hb, lockset, avio and pset
// attached, and as many seeds after those with avio and pset's
// recorder, whose passing runs train AVIO's invariants and the PSets (they
// run first, so that each detector run is checked as it completes). The
// synthetic profiles (performance workloads, most of the simulated
// instructions) run bare, after a few seeds with pset's recorder for their
// PSets. Once the PSets are learned, every workload's seeds run again
// with the PSet hardware on (runPSetHW).
func runDetectors(env experiments.Env, base configs.Config, entries []workloads.Entry, seeds int) (*defaultRuns, error) {
	d := &defaultRuns{
		entries: entries,
		cfgs:    make([]configs.Config, len(entries)),
		progs:   make([]*isa.Program, len(entries)),
		seeds:   seeds,
		runs:    make([]*entryRuns, len(entries)),
	}
	var jobs []sim.Job
	var refs []jobRef
	for i, en := range entries {
		prog, cfg, err := experiments.ProgramFor(en.Name, base)
		if err != nil {
			return nil, fmt.Errorf("default experiment: %w", err)
		}
		d.cfgs[i], d.progs[i] = cfg, prog
		d.runs[i] = newEntryRuns(prog, en.Kind == workloads.Kernel)
		js, rs := d.detectorJobs(i, seeds)
		jobs, refs = append(jobs, js...), append(refs, rs...)
		js, rs = d.bbhwJobs(i, seeds)
		jobs, refs = append(jobs, js...), append(refs, rs...)
		if en.Kind == workloads.Profile {
			js, rs, err = d.splitJobs(i, min(psetProfileSeeds, seeds))
			if err != nil {
				return nil, fmt.Errorf("default experiment: %w", err)
			}
			jobs, refs = append(jobs, js...), append(refs, rs...)
		}
	}
	// Each run's Bugaboo collector, set when the run starts and taken
	// (and dropped) when it is folded.
	sws := make([]*bugaboo.SW, len(jobs))
	hws := make([]*bugaboo.HW, len(jobs))
	for j, ref := range refs {
		en, prog := d.entries[ref.entry], d.progs[ref.entry]
		switch {
		case ref.kind == detectorRun && en.Bug:
			jobs[j].Options = bbrepro.WithBBSW(prog, jobs[j].Options, &sws[j])
		case ref.kind == bbhwRun && en.Bug:
			jobs[j].Options = bbrepro.WithBBHW(prog, jobs[j].Options, &hws[j])
		}
	}
	err := experiments.StreamJobs(env, jobs, func(j int, r sim.Result) error {
		ref, e := refs[j], d.runs[refs[j].entry]
		switch ref.kind {
		case trainRun:
			e.addTrain(r)
		case detectorRun:
			e.addDetector(ref.seed, r, sws[j])
		case bbhwRun:
			e.addBBHW(r, hws[j])
		case splitOffRun, splitBBHWRun:
			e.addSplit(ref.kind, ref.seed, r)
		}
		sws[j], hws[j] = nil, nil
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("default experiment: %w", err)
	}
	return d, nil
}

// bbhwJobs are entry i's seeds with BB-HW on, for its simulated-cycle
// overhead (and on a bug kernel BB-HW's drained graphs, for its column of
// the matrix).
func (d *defaultRuns) bbhwJobs(i, seeds int) ([]sim.Job, []jobRef) {
	prog, cfg := d.progs[i], d.cfgs[i]
	hw := cfg
	hw.Bugaboo.Enabled = true
	var jobs []sim.Job
	var refs []jobRef
	for s := 0; s < seeds; s++ {
		jobs = append(jobs, sim.Job{Config: hw, Program: prog, Seed: cfg.Sim.Seed + uint64(s), Options: experiments.WithGroups})
		refs = append(refs, jobRef{i, bbhwRun, s})
	}
	return jobs, refs
}

// splitJobs are a synthetic profile's first seeds on the split bus with
// an L2, bare and with BB-HW on, for its overheads beside the atomic
// bus's.
func (d *defaultRuns) splitJobs(i, seeds int) ([]sim.Job, []jobRef, error) {
	prog := d.progs[i]
	off, err := experiments.SplitMachine().Apply(d.cfgs[i])
	if err != nil {
		return nil, nil, err
	}
	hw := off
	hw.Bugaboo.Enabled = true
	var jobs []sim.Job
	var refs []jobRef
	for s := 0; s < seeds; s++ {
		seed := off.Sim.Seed + uint64(s)
		jobs = append(jobs, sim.Job{Config: off, Program: prog, Seed: seed}, sim.Job{Config: hw, Program: prog, Seed: seed})
		refs = append(refs, jobRef{i, splitOffRun, s}, jobRef{i, splitBBHWRun, s})
	}
	return jobs, refs, nil
}

// detectorJobs are entry i's training seeds, then its seeds with the
// detectors attached; a synthetic profile's training seeds are a few
// whose passing runs teach the PSet hardware, and its seeds run bare.
func (d *defaultRuns) detectorJobs(i, seeds int) ([]sim.Job, []jobRef) {
	en, prog, cfg := d.entries[i], d.progs[i], d.cfgs[i]
	train := seeds
	if en.Kind == workloads.Profile {
		train = min(psetProfileTrainSeeds, seeds)
	}
	var jobs []sim.Job
	var refs []jobRef
	for s := seeds; s < seeds+train; s++ {
		opts := experiments.DetectorOptions(prog, trainDetectors...)
		if en.Kind == workloads.Profile {
			opts = experiments.DetectorOptions(prog, "pset")
		}
		jobs = append(jobs, sim.Job{Config: cfg, Program: prog, Seed: cfg.Sim.Seed + uint64(s), Options: opts})
		refs = append(refs, jobRef{i, trainRun, s - seeds})
	}
	for s := 0; s < seeds; s++ {
		var opts func() []sim.Option
		if en.Kind != workloads.Profile {
			opts = experiments.DetectorOptions(prog, matrixDetectors...)
		}
		jobs = append(jobs, sim.Job{Config: cfg, Program: prog, Seed: cfg.Sim.Seed + uint64(s), Options: opts})
		refs = append(refs, jobRef{i, detectorRun, s})
	}
	return jobs, refs
}

// runPSetHW runs the same seeds again with the PSet hardware on, checking
// the PSets learned from the training seeds' passing runs (a kernel's are
// those its pset column checks in software); a synthetic profile runs its
// first psetProfileSeeds. It folds the runs into d's entries.
func runPSetHW(env experiments.Env, base configs.Config, d *defaultRuns, seeds int) (psetHWRuns, error) {
	entries := d.entries
	psets := make([]isa.PSets, len(entries))
	var refs []jobRef
	for i, en := range entries {
		n := seeds
		if en.Kind == workloads.Profile {
			n = min(psetProfileSeeds, seeds)
		}
		for s := 0; s < n; s++ {
			refs = append(refs, jobRef{i, psetRun, s})
		}
	}
	for i, e := range d.runs {
		psets[i] = e.psetTrain.PSets()
		e.psets, e.psetTrain = psets[i], nil
	}
	// Each run's violations, set when the run starts and taken when it is
	// folded.
	viols := make([]*psetrepro.Violations, len(refs))
	psetJobs := make([]sim.Job, len(refs))
	for j, ref := range refs {
		i := ref.entry
		cfg := psetrepro.HWConfigLongest(d.cfgs[i], d.runs[i].longest)
		psetJobs[j] = psetrepro.HWJob(cfg, d.progs[i], psets[i], d.cfgs[i].Sim.Seed+uint64(ref.seed), &viols[j])
	}
	// A profile's first seeds again on the split bus with an L2, for its
	// overhead there (only the cycles are read; their violations go to a
	// slot of their own, so that viols, whose elements the jobs point
	// to, never grows).
	for i, en := range entries {
		if en.Kind != workloads.Profile {
			continue
		}
		split, err := experiments.SplitMachine().Apply(d.cfgs[i])
		if err != nil {
			return psetHWRuns{}, err
		}
		cfg := psetrepro.HWConfigLongest(split, d.runs[i].longest)
		for s := range len(d.runs[i].splitOff) {
			refs = append(refs, jobRef{i, splitPSetRun, s})
			psetJobs = append(psetJobs, psetrepro.HWJob(cfg, d.progs[i], psets[i], split.Sim.Seed+uint64(s), new(*psetrepro.Violations)))
		}
	}
	err := experiments.StreamJobs(env, psetJobs, func(j int, r sim.Result) error {
		if refs[j].kind == splitPSetRun {
			d.runs[refs[j].entry].addSplit(splitPSetRun, refs[j].seed, r)
			return nil
		}
		d.runs[refs[j].entry].addPSet(refs[j].seed, r, viols[j])
		viols[j] = nil
		return nil
	})
	if err != nil {
		return psetHWRuns{}, fmt.Errorf("default experiment: PSet hardware: %w", err)
	}
	return psetHWRuns{cfg: psetrepro.HWConfig(base, nil).PSet, psets: psets}, nil
}

// workloadsTable tabulates every workload's detector runs, for the report
// and, as aligned text, for the terminal; instrs is the simulated
// instructions of those runs.
func workloadsTable(d *defaultRuns) (t *results.Table, text string, instrs uint64, err error) {
	t = results.NewTable("workloads", "Every workload over the seeds", "workload", "kind", "class", "cores", "runs",
		"mean cycles", "mean instructions", "buggy runs", "outcomes")
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKLOAD\tCLASS\tCORES\tRUNS\tMEAN CYCLES\tMEAN INSTRS\tOUTCOMES")
	for i, e := range d.runs {
		instrs += e.instrs
		buggy := len(e.off) - e.outcomes.Count(core.Pass)
		n := float64(len(e.off))
		var outs []string
		for _, c := range e.outcomes.Counts() {
			outs = append(outs, fmt.Sprintf("%s %d", c.Outcome, c.Count))
		}
		en := d.entries[i]
		t.AddRow(en.Name, en.Kind.String(), en.Class, d.cfgs[i].Machine.Cores, len(e.off), e.cyc/n, e.ins/n, buggy, strings.Join(outs, ", "))
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%s\n", en.Name, en.Class, d.cfgs[i].Machine.Cores, len(e.off),
			results.FormatReadable(e.cyc/n), results.FormatReadable(e.ins/n), strings.Join(outs, ", "))
	}
	if err := tw.Flush(); err != nil {
		return nil, "", 0, err
	}
	return t, b.String(), instrs, nil
}

// workloadsSection is the report's first section: the workloads table and
// two plots by workload group, the outcomes and the cycle breakdown.
func workloadsSection(d *defaultRuns, t *results.Table) experiments.Section {
	groups, groupOf := workloadGroups(d.entries)
	share, shareData := outcomeShares(d.runs, groups, groupOf)
	breakdown, breakdownData := cycleBreakdown(d.runs, groups, groupOf)
	return experiments.Section{
		Tables: []*results.Table{t},
		Plots: []experiments.Plot{
			{Name: "outcomes", Caption: "Outcomes over seeds, by workload group", Data: shareData, Draw: func(path string) error {
				return results.StackedBar("Outcomes over seeds", "share of runs", groups, share, path)
			}},
			{Name: "breakdown", Caption: "Where the cores' cycles went, by workload group (cores that never ran a thread left out)", Data: breakdownData, Draw: func(path string) error {
				return results.StackedBar("Cycle breakdown (cores that ran a thread)", "share of core cycles", groups, breakdown, path)
			}},
		},
	}
}

// outcomeShares returns, for each outcome, each group's share of runs
// that ended in it, and the same as a table.
func outcomeShares(runs []*entryRuns, groups []string, groupOf []int) ([]results.Series, *results.Table) {
	outcomes := core.OutcomeNames()
	share := make([]results.Series, len(outcomes))
	runsIn := make([]float64, len(groups))
	for i, e := range runs {
		runsIn[groupOf[i]] += float64(len(e.off))
	}
	shareData := results.NewTable("outcomes", "Share of runs per outcome, by workload group", append([]string{"group"}, outcomes...)...)
	for k, o := range outcomes {
		share[k] = results.Series{Name: o, Values: make([]float64, len(groups))}
		for i, e := range runs {
			// Run by run, as the shares were summed over the runs
			// (outcomes are in the order of their kinds).
			for range e.outcomes.Count(core.OutcomeKind(k)) {
				share[k].Values[groupOf[i]] += 1 / runsIn[groupOf[i]]
			}
		}
	}
	for g := range groups {
		srow := []any{groups[g]}
		for k := range outcomes {
			srow = append(srow, share[k].Values[g])
		}
		shareData.AddRow(srow...)
	}
	return share, shareData
}

// cycleBreakdown returns, for each class of core cycles, each group's
// share of the cycles of the cores that ran a thread, and the same as a
// table.
func cycleBreakdown(runs []*entryRuns, groups []string, groupOf []int) ([]results.Series, *results.Table) {
	buckets := breakdownBuckets
	breakdown := make([]results.Series, len(buckets))
	for k, b := range buckets {
		breakdown[k] = results.Series{Name: b, Values: make([]float64, len(groups))}
	}
	totals := make([]float64, len(groups))
	// The sums are of whole cycles, exact in a float64 in any order.
	for i, e := range runs {
		g := groupOf[i]
		for k, v := range e.buckets {
			breakdown[k].Values[g] += float64(v)
			totals[g] += float64(v)
		}
	}
	breakdownData := results.NewTable("breakdown", "Share of core cycles per class, by workload group (cores that ran a thread)", append([]string{"group"}, buckets...)...)
	breakdownData.Notes = append(breakdownData.Notes, "Cores that never ran a thread (idle throughout) are left out.")
	for g := range groups {
		brow := []any{groups[g]}
		for k := range breakdown {
			if totals[g] > 0 {
				breakdown[k].Values[g] /= totals[g]
			}
			brow = append(brow, breakdown[k].Values[g])
		}
		breakdownData.AddRow(brow...)
	}
	return breakdown, breakdownData
}

// defaultReport assembles the default experiment's report from its
// sections and terminal text.
func defaultReport(base configs.Config, seeds int, sections []experiments.Section, text string, instrs uint64) *experiments.Report {
	return &experiments.Report{
		Name:  "default",
		Title: "weft default experiment",
		Intro: fmt.Sprintf(`Every workload in the registry — the bug kernels of the five papers, the
correct kernels and the synthetic profiles — over seeds %d..%d on the default
machine (each kernel's .cores raises machine.cores where it needs more),
with the hb, lockset, AVIO and PSet (software monitor) detectors (and BB-SW on the bug kernels)
attached, and the detector × bug matrix they give; the same seeds again with Bugaboo's hardware on
and with PSet's hardware on (%s, checking the PSets learned from other seeds' passing runs),
for their columns of the matrix and their simulated-cycle overhead. Falcon, ConSeq and interleaving
inference are not in it; each has its own weft reproduce.`, base.Sim.Seed, base.Sim.Seed+uint64(seeds)-1, psetrepro.DefaultMode),
		Sections: sections,
		Configs:  []experiments.NamedConfig{{Name: "default", Config: base}},
		Seeds: fmt.Sprintf("%d..%d for every workload (detectors attached; again with BB-HW on, and with the PSet hardware on: all of them for a kernel, %d..%d for a synthetic profile); %d..%d train AVIO and PSet on the kernels, %d..%d PSet on the synthetic profiles",
			base.Sim.Seed, base.Sim.Seed+uint64(seeds)-1, base.Sim.Seed, base.Sim.Seed+uint64(min(psetProfileSeeds, seeds))-1,
			base.Sim.Seed+uint64(seeds), base.Sim.Seed+uint64(2*seeds)-1,
			base.Sim.Seed+uint64(seeds), base.Sim.Seed+uint64(seeds+min(psetProfileTrainSeeds, seeds))-1),
		Command:      "weft   # or: weft reproduce default",
		Summary:      text,
		Instructions: instrs,
	}
}

// psetProfileTrainSeeds is the number of seeds after the test seeds whose
// passing runs teach a synthetic profile's PSets (its sharing repeats
// itself, so a few runs learn every pair).
const psetProfileTrainSeeds = 3

// psetProfileSeeds is the number of a synthetic profile's seeds (the
// first) that run again with the PSet hardware on, for its overhead: a
// profile's cycles vary little over seeds, and the hardware slows the
// simulator about twofold on them.
const psetProfileSeeds = 3
