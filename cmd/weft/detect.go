package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"weft/configs"
	"weft/core"
	"weft/cpu"
	"weft/detectors"
	"weft/detectors/bugaboo"
	"weft/detectors/conseq"
	"weft/detectors/falcon"
	"weft/isa"
	"weft/sim"
)

// detectorFlag is --detectors a,b: the detectors to attach.
type detectorFlag struct {
	infos []detectors.Info
	set   bool
}

func (f *detectorFlag) String() string {
	var names []string
	for _, d := range f.infos {
		names = append(names, d.Name)
	}
	return strings.Join(names, ",")
}

func (f *detectorFlag) Set(s string) error {
	if f.set {
		return fmt.Errorf("given twice; name every detector in one list (hb,lockset)")
	}
	infos, err := detectors.Parse(s)
	if err != nil {
		return err
	}
	f.infos, f.set = infos, true
	return nil
}

// runOptions builds the options that attach fresh detectors to one run of
// prog (nil when none are named).
func (f *detectorFlag) runOptions(prog *isa.Program) func() []sim.Option {
	if !f.set {
		return nil
	}
	return func() []sim.Option {
		opts := make([]sim.Option, len(f.infos))
		for i, d := range f.infos {
			opts[i] = sim.WithDetector(d.New(prog))
		}
		return opts
	}
}

// findingsSummary merges each detector's findings over the runs of a
// batch as they are delivered (detectors.Merger) and feeds the detectors
// that learn across runs (detectors.Learner). It keeps no run: each run's
// findings go to the mergers, and to a learner, which keeps what it needs
// (AVIO keeps the findings of failing runs to check against what the
// passing runs taught it).
type findingsSummary struct {
	dets []detectorSummary
	// runs is the number of runs added.
	runs int
	// seed0 is the seed of run 0: run i has seed seed0+i.
	seed0 uint64
}

// detectorSummary is one detector's merged findings and learner.
type detectorSummary struct {
	info    detectors.Info
	merged  detectors.Merger
	learner detectors.Learner // nil for detectors that do not learn
}

// newFindingsSummary returns an empty summary for the detectors.
func newFindingsSummary(infos []detectors.Info) *findingsSummary {
	s := &findingsSummary{dets: make([]detectorSummary, len(infos))}
	for i, d := range infos {
		s.dets[i].info = d
		if d.Learn != nil {
			s.dets[i].learner = d.Learn()
		}
	}
	return s
}

// add adds run i's findings; runs arrive in index order.
func (s *findingsSummary) add(i int, r sim.Result) {
	if s.runs == 0 {
		s.seed0 = r.Seed - uint64(i)
	}
	s.runs++
	for k := range s.dets {
		d := &s.dets[k]
		fs := detectors.Of(d.info.Name, r.Findings)
		d.merged.Add(i, r.Seed, fs)
		if d.learner != nil {
			var det detectors.Detector
			for _, x := range r.Detectors {
				if x, ok := x.(detectors.Detector); ok && x.Name() == d.info.Name {
					det = x
				}
			}
			d.learner.Add(i, r.Outcome == "pass", fs, det)
		}
	}
}

// print prints each detector's findings merged over the runs, and for
// detectors that learn across runs what they learned.
func (s *findingsSummary) print(w io.Writer) {
	for k := range s.dets {
		d := &s.dets[k]
		printMerged(w, d.info.Name, d.merged.Merged(), s.runs)
		if d.learner != nil {
			var lm detectors.Merger
			var batch []detectors.Merged
			for _, rf := range d.learner.Analyse() {
				if rf.Run < 0 {
					for _, f := range rf.Findings {
						batch = append(batch, detectors.Merged{Finding: f})
					}
					continue
				}
				lm.Add(rf.Run, s.seed0+uint64(rf.Run), rf.Findings)
			}
			title := d.info.Name + " across the batch (" + d.learner.Summary() + ")"
			if batch != nil {
				printMerged(w, title, batch, 1)
			} else {
				printMerged(w, title, lm.Merged(), s.runs)
			}
		}
	}
}

// printMerged prints one detector's merged findings.
func printMerged(w io.Writer, title string, ms []detectors.Merged, runs int) {
	fmt.Fprintf(w, "\n%s: %s\n", title, plural(len(ms), "finding"))
	for _, f := range ms {
		in := ""
		if runs > 1 {
			in = fmt.Sprintf("  [%d of %d runs, first seed %d]", f.Runs, runs, f.FirstSeed)
		}
		fmt.Fprintf(w, "  %-11s pcs %-14s %s%s\n", f.Kind, joinInts(f.PCs), f.Message, in)
	}
}

// cmdDetect is `weft detect TRACE --detectors a,b [--json]`.
func cmdDetect(e env, args []string) error {
	fs := newFlagSet("detect", "weft detect TRACE --detectors NAME,... [--json]",
		`Runs detectors over a trace file written by 'weft trace -o', offline:
the findings are those the same detectors report when attached to the run
itself ('weft run --detectors'). The trace's header holds the program and
the config, so PCs map back to code. A detector that needs event kinds the
trace did not record is an error, and so is a trace without RunEnd (the
run's outcome, which the record and the learners need). Detectors that learn across runs (avio)
analyse the one run: a failing run is checked against no training.

With --json it prints one JSON object: workload, seed, outcome (with its
PC and thread), cycles, cores, config hash and findings, as 'weft run
--json --detectors' prints them; the statistics a trace does not hold are
zero.`)
	var det detectorFlag
	fs.Var(&det, "detectors", "detectors to run (`NAME,...`; weft list --detectors)")
	asJSON := fs.Bool("json", false, "print one JSON object with the findings")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef(fs, "detect: want one trace FILE, got %d arguments", len(pos))
	}
	if !det.set {
		return usagef(fs, "detect: name the detectors with --detectors NAME,... (weft list --detectors)")
	}
	r, err := detectTrace(pos[0], det.infos)
	if err != nil {
		return err
	}
	if *asJSON {
		lines, err := jsonLines([]sim.Result{r})
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(lines)
		return err
	}
	fmt.Fprintf(e.stdout, "trace %s: %s seed %d, %s\n", pos[0], r.Workload, r.Seed, r.Outcome)
	fsum := newFindingsSummary(det.infos)
	fsum.add(0, r)
	fsum.print(e.stdout)
	return nil
}

// detectTrace replays the trace at path into fresh detectors. The result
// carries the workload, seed, outcome and findings (nothing else).
func detectTrace(path string, infos []detectors.Info) (sim.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return sim.Result{}, fmt.Errorf("detect: %w", err)
	}
	defer f.Close()
	bad := func(err error) error {
		return fmt.Errorf("trace %s: %s", path, strings.TrimPrefix(err.Error(), "trace: "))
	}
	tr, err := core.NewTraceReader(f)
	if err != nil {
		return sim.Result{}, bad(err)
	}
	h := tr.Header()
	prog, err := isa.Assemble(path+" (header program)", []byte(h.Program))
	if err != nil {
		return sim.Result{}, fmt.Errorf("trace %s: its program does not assemble: %w", path, err)
	}
	cfg, err := configs.Parse(path+" (header config)", []byte(h.Config))
	if err != nil {
		return sim.Result{}, fmt.Errorf("trace %s: its config does not parse: %w", path, err)
	}
	if err := checkHardware(infos, cfg, "detect: the trace "+path); err != nil {
		return sim.Result{}, err
	}
	infos = configureDetectors(infos, cfg)
	if err := detectors.CheckAll(infos, prog); err != nil {
		return sim.Result{}, fmt.Errorf("detect: the trace %s: %w", path, err)
	}
	if !h.Kinds.Has(core.KindRunEnd) {
		return sim.Result{}, fmt.Errorf("detect: the trace %s did not record RunEnd, which detect needs for the run's outcome (record it with weft trace --kind ...,RunEnd, or record every kind)", path)
	}
	var stream core.Stream
	dets := make([]detectors.Detector, len(infos))
	for i, d := range infos {
		if missing := d.Kinds &^ h.Kinds; missing != 0 {
			return sim.Result{}, fmt.Errorf("detect: detector %s needs event kinds the trace %s did not record: %s (record them with weft trace --kind, or record every kind)",
				d.Name, path, strings.Join(kindNames(missing), ","))
		}
		dets[i] = d.New(prog)
		// BB-HW's contexts are spelled in the trace's config's encoding
		// (traces before CTDrain carried it have zeros there).
		if hw, ok := detectors.Unwrap(dets[i]).(*bugaboo.HW); ok {
			hw.SetEncoding(bugaboo.Encoding{Size: cfg.Bugaboo.Context.Size, DistinctEmpty: cfg.Bugaboo.Context.DistinctEmpty})
		}
		stream.Attach(dets[i].Kinds(), dets[i])
	}
	r := sim.Result{Workload: h.ProgramName, Seed: h.Seed, Outcome: "unknown", OutcomePC: core.NoPC, OutcomeThread: -1,
		Cores: cfg.Machine.Cores, ConfigHash: cfg.Hash(), Findings: sim.Findings{}}
	var ev core.Event
	for {
		err := tr.Next(&ev)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sim.Result{}, bad(err)
		}
		if ev.Kind == core.KindRunEnd {
			k := cpu.OutcomeKind(ev.Words[0])
			if ev.Words[0] > uint64(cpu.Crash) {
				return sim.Result{}, fmt.Errorf("trace %s: RunEnd with unknown outcome %d", path, ev.Words[0])
			}
			r.Outcome, r.OutcomePC, r.OutcomeThread, r.Cycles = k.String(), ev.PC, ev.Thread, uint64(ev.Cycle)
		}
		stream.Emit(&ev)
	}
	for _, d := range dets {
		r.Findings = append(r.Findings, d.Findings()...)
		r.Detectors = append(r.Detectors, d)
	}
	return r, nil
}

// resolveSweepDetectors resolves a sweep's detectors key against the
// registry, so every run of the sweep gets fresh detectors; an unknown
// name is an error naming the file and line.
func resolveSweepDetectors(plan *sim.SweepPlan) error {
	if len(plan.Sweep.Detectors) == 0 {
		return nil
	}
	infos := make([]detectors.Info, len(plan.Sweep.Detectors))
	for i, name := range plan.Sweep.Detectors {
		d, err := detectors.Lookup(name)
		if err != nil {
			return &configs.SweepError{File: plan.Sweep.File, Line: plan.Sweep.DetectorsLine, Where: "detectors", Err: err}
		}
		infos[i] = d
	}
	for _, pt := range plan.Points {
		if err := checkHardware(infos, pt.Config, "detectors"); err != nil {
			return &configs.SweepError{File: plan.Sweep.File, Line: plan.Sweep.DetectorsLine, Where: fmt.Sprintf("point %d", pt.Index), Err: err}
		}
		if pt.Config.ConSeq != plan.Points[0].Config.ConSeq && slices.Contains(plan.Sweep.Detectors, "conseq") {
			return &configs.SweepError{File: plan.Sweep.File, Line: plan.Sweep.DetectorsLine, Where: fmt.Sprintf("point %d", pt.Index),
				Err: fmt.Errorf("the conseq detector's settings ([conseq]) differ between points; a sweep's detectors have one setting: sweep them in separate files")}
		}
		if (falconOptions(pt.Config) != falconOptions(plan.Points[0].Config) || pt.Config.Falcon.Score != plan.Points[0].Config.Falcon.Score) &&
			slices.Contains(plan.Sweep.Detectors, "falcon") {
			return &configs.SweepError{File: plan.Sweep.File, Line: plan.Sweep.DetectorsLine, Where: fmt.Sprintf("point %d", pt.Index),
				Err: fmt.Errorf("the falcon detector's settings ([falcon], and cache.l1.line_bytes with line granularity) differ between points; a sweep's detectors have one setting: sweep them in separate files")}
		}
	}
	if len(plan.Points) > 0 {
		infos = configureDetectors(infos, plan.Points[0].Config)
	}
	f := detectorFlag{infos: infos, set: true}
	plan.Detectors = func(prog *isa.Program) []sim.Option { return f.runOptions(prog)() }
	return nil
}

// runOptions adds statistics groups to a run's detector options.
func runOptions(dets func() []sim.Option, groups bool) func() []sim.Option {
	if !groups {
		return dets
	}
	return func() []sim.Option {
		opts := []sim.Option{sim.WithStatGroups()}
		if dets != nil {
			opts = append(opts, dets()...)
		}
		return opts
	}
}

// configureDetectors gives the detectors that have settings in the config
// theirs (falcon: [falcon], conseq: [conseq]), on a copy of infos.
func configureDetectors(infos []detectors.Info, cfg configs.Config) []detectors.Info {
	out := slices.Clone(infos)
	for i, d := range out {
		switch d.Name {
		case "falcon":
			out[i] = detectors.Falcon(falconOptions(cfg), falconScore(cfg))
		case "conseq":
			out[i] = detectors.ConSeq(conseqConfig(cfg))
		}
	}
	return out
}

// conseqConfig converts the [conseq] table (valid) to the detector's
// configuration (its invariants are learned by weft conseq only).
func conseqConfig(cfg configs.Config) conseq.Config {
	q := cfg.ConSeq
	c := conseq.Config{Options: conseq.Options{MaxDistance: q.MaxDistance,
		AssertRoutines: configs.SplitList(q.AssertRoutines), ErrorRoutines: configs.SplitList(q.ErrorRoutines),
		OutputRoutines: configs.SplitList(q.OutputRoutines)}, NoAdHocSync: !q.AdHocSync}
	if q.Model == "instruction" {
		c.Model = conseq.Instruction
	}
	on := map[string]bool{}
	for _, k := range configs.SplitList(q.Sites) {
		on[k] = true
	}
	for k := conseq.Kind(0); k < conseq.NumKinds; k++ {
		if !on[k.String()] {
			c.Disabled |= k.Mask()
		}
	}
	return c
}

// falconOptions converts the [falcon] table (valid) to the detector's
// options.
func falconOptions(cfg configs.Config) falcon.Options {
	f := cfg.Falcon
	return falcon.Options{Window: f.Window, Line: f.Granularity == "line", LineBytes: cfg.Cache.L1.LineBytes,
		AllCode: f.Scope == "all", KeyByAddr: f.KeyByAddr}
}

// falconScore converts falcon.score (valid).
func falconScore(cfg configs.Config) falcon.Score {
	s, _ := falcon.ParseScore(cfg.Falcon.Score)
	return s
}

// checkOracle rejects falcon on a program that cannot fail (no assert,
// fail or .expect): its ranking needs failing runs.
func checkOracle(infos []detectors.Info, prog *isa.Program) error {
	if !slices.ContainsFunc(infos, func(d detectors.Info) bool { return d.Name == "falcon" }) || prog.HasExpect {
		return nil
	}
	for _, in := range prog.Instrs {
		if in.Op == isa.OpAssert || in.Op == isa.OpFail {
			return nil
		}
	}
	return fmt.Errorf("falcon ranks patterns by the runs that fail, but %s has no oracle (no assert, fail or .expect): no run can fail", prog.Name)
}

// checkHardware rejects detectors that read events a hardware extension
// makes when cfg leaves it off (bbhw reads BB-HW's drained graphs).
func checkHardware(infos []detectors.Info, cfg configs.Config, where string) error {
	for _, d := range infos {
		if d.Kinds.Has(core.KindCTDrain) && !cfg.Bugaboo.Enabled {
			return fmt.Errorf("%s: %s reads the graphs Bugaboo's hardware drains, which is off: add --set bugaboo.enabled=true", where, d.Name)
		}
	}
	return nil
}
