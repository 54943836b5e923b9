package main

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"weft/analysis"
	"weft/configs"
	"weft/core"
	"weft/detectors/conseq"
	"weft/sim"
)

// maxSeedTries bounds the search for a passing seed to trace.
const maxSeedTries = 1000

// cmdConseq is `weft conseq (-w KERNEL | -p FILE.s) [--seed S] ...`: the
// whole ConSeq pipeline on one program.
func cmdConseq(e env, args []string) error {
	fs := newFlagSet("conseq", "weft conseq (-w KERNEL | -p FILE.s) [--seed S] [--max-distance N] [--model M] [--sites K,...] [--no-adhoc] [--base] [--invariants N] [--test] [--timeout C]",
		`ConSeq on one program: finds the failure sites (assert, fail, out, loop exits) and, by bounded
backward slicing, their critical reads; traces one correct run (seed S, or the next seed that
passes: ConSeq never traces a failing run); reports every critical read that could read another
write's value and make its site fail (one line per static site/read/write triple); and with
--test re-runs the seed with delays that force each report's order, giving the verdict (bug,
pruned, not forced) and the park points that reproduce it. --invariants N first learns equality
invariants at global reads from N passing runs (the seeds after the traced one; Daikon-lite) and
adds each as an INV site.`)
	var t targetFlags
	t.add(fs)
	md := fs.Int("max-distance", 0, fmt.Sprintf("slice bound `N` in dependence steps (1..%d; default: conseq.max_distance)", conseq.MaxMaxDistance))
	model := fs.String("model", "", "distance `MODEL`: statement (the paper's) or instruction (default: conseq.model)")
	sites := fs.String("sites", "", "site `KINDS` to look for, comma-separated: OUT, ASS, ERR, LOOP, INV (default: conseq.sites)")
	noAdhoc := fs.Bool("no-adhoc", false, "do not recognise spin-flag synchronisation (conseq.adhoc_sync = false)")
	base := fs.Bool("base", false, "analyse every shared read, not only critical ones (the paper's Base)")
	test := fs.Bool("test", false, "run the tester on every report")
	ninv := fs.Int("invariants", -1, "learn INV sites from `N` passing training runs (0: none; default: conseq.invariant_runs)")
	timeout := fs.Uint64("timeout", 0, "the tester's park timeout in `CYCLES` (default: conseq.test_timeout_cycles)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object instead of text")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef(fs, "conseq: unexpected argument %q", pos[0])
	}
	// The flags given override the config's [conseq] table.
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var sets []string
	if given["max-distance"] {
		if *md < 1 || *md > conseq.MaxMaxDistance {
			return usagef(fs, "conseq: --max-distance must be in 1..%d, got %d", conseq.MaxMaxDistance, *md)
		}
		sets = append(sets, fmt.Sprintf("conseq.max_distance=%d", *md))
	}
	if given["model"] {
		if *model != "statement" && *model != "instruction" {
			return usagef(fs, "conseq: --model must be statement or instruction, got %q", *model)
		}
		sets = append(sets, fmt.Sprintf("conseq.model=%q", *model))
	}
	if given["sites"] {
		var kinds []string
		for _, k := range strings.Split(*sites, ",") {
			k = strings.ToUpper(strings.TrimSpace(k))
			ok := false
			for x := conseq.Kind(0); x < conseq.NumKinds; x++ {
				ok = ok || x.String() == k
			}
			if !ok {
				return usagef(fs, "conseq: --sites: unknown site kind %q (want OUT, ASS, ERR, LOOP, INV)", k)
			}
			kinds = append(kinds, k)
		}
		sets = append(sets, fmt.Sprintf("conseq.sites=%q", strings.Join(kinds, ",")))
	}
	if *noAdhoc {
		sets = append(sets, "conseq.adhoc_sync=false")
	}
	if given["invariants"] {
		if *ninv < 0 || *ninv > configs.MaxInvariantRuns {
			return usagef(fs, "conseq: --invariants must be from 0 to %d, got %d", configs.MaxInvariantRuns, *ninv)
		}
		sets = append(sets, fmt.Sprintf("conseq.invariant_runs=%d", *ninv))
	}
	if given["timeout"] {
		if *timeout == 0 {
			return usagef(fs, "conseq: --timeout must be at least 1 cycle")
		}
		sets = append(sets, fmt.Sprintf("conseq.test_timeout_cycles=%d", *timeout))
	}
	t.sets = append(t.sets, sets...)
	tg, err := t.resolve(fs)
	if err != nil {
		return err
	}
	cfg := analysis.ConSeqConfig(tg.cfg)
	cfg.Base = *base
	q := tg.cfg.ConSeq
	w := e.stdout
	var js *conseqJSON
	if *asJSON {
		w, js = io.Discard, &conseqJSON{Program: tg.prog.Name, Reports: []conseqReportJSON{}}
	}
	a, err := conseq.Analyze(tg.prog, cfg.Options)
	if err != nil {
		return err
	}
	nreads := len(a.CriticalReads())
	perKind := make([]int, conseq.NumKinds)
	for _, s := range a.Sites {
		perKind[s.Site.Kind]++
	}
	fmt.Fprintf(w, "%s: %d failure sites (OUT %d, ASS %d, ERR %d, LOOP %d), %d critical reads at max distance %d (%s model)\n",
		tg.prog.Name, len(a.Sites), perKind[conseq.OUT], perKind[conseq.ASS], perKind[conseq.ERR], perKind[conseq.LOOP],
		nreads, a.Options.MaxDistance, a.Options.Model)
	if js != nil {
		js.Sites = map[string]int{}
		for k := conseq.Kind(0); k < conseq.NumKinds; k++ {
			js.Sites[k.String()] = perKind[k]
		}
		js.CriticalReads, js.MaxDistance, js.Model = nreads, a.Options.MaxDistance, a.Options.Model.String()
	}
	if a.Empty != "" && !cfg.Base && q.InvariantRuns == 0 {
		fmt.Fprintf(w, "nothing to analyse: %s\n", a.Empty)
		if js != nil {
			js.Empty = a.Empty
			return writeJSON(e.stdout, js)
		}
		return nil
	}
	seed := tg.cfg.Sim.Seed
	var rec *conseq.Recorder
	var res sim.Result
	first := seed
	for i := 0; ; i++ {
		if i == maxSeedTries {
			return fmt.Errorf("conseq: %s: no passing run in seeds %d..%d: ConSeq needs a correct run to trace", tg.prog.Name, first, seed-1)
		}
		rec = a.NewTraceRecorder(cfg)
		res, err = sim.Run(tg.cfg, tg.prog, seed, sim.WithObserver(rec.Kinds(), rec))
		if err != nil {
			return err
		}
		if res.Outcome == core.Pass {
			break
		}
		fmt.Fprintf(w, "seed %d fails (%s: %s): not traced\n", seed, res.Outcome, res.OutcomeMsg)
		if js != nil {
			js.FailingSeeds = append(js.FailingSeeds, seed)
		}
		seed++
	}
	if seed != first {
		fmt.Fprintf(w, "tracing seed %d instead, the first that passes\n", seed)
	}
	if ninv := q.InvariantRuns; ninv > 0 {
		trainer := conseq.NewTrainer(tg.prog, conseq.TrainOptions{MinRuns: min(ninv, 5)})
		for ts := seed + 1; ; ts++ {
			if passed, failed := trainer.Runs(); passed == ninv {
				break
			} else if passed+failed >= maxSeedTries {
				return fmt.Errorf("conseq: %s: only %d passing runs in %d training seeds", tg.prog.Name, passed, maxSeedTries)
			}
			r, err := sim.Run(tg.cfg, tg.prog, ts, sim.WithObserver(trainer.Kinds(), trainer))
			if err != nil {
				return err
			}
			trainer.EndRun(r.Outcome == core.Pass)
		}
		cfg.Invariants = trainer.Invariants()
		if js != nil {
			js.Invariants = len(cfg.Invariants)
		}
		fmt.Fprintf(w, "invariants: %d from %d passing training runs (seeds from %d)\n", len(cfg.Invariants), ninv, seed+1)
		// The traced run must record the invariants' reads too.
		rec = a.NewTraceRecorder(cfg)
		if _, err := sim.Run(tg.cfg, tg.prog, seed, sim.WithObserver(rec.Kinds(), rec)); err != nil {
			return err
		}
	}
	out := a.Analyse(rec, cfg)
	st := out.Trace
	fmt.Fprintf(w, "trace of seed %d: %d access records, %d sync records, %d bytes; %d critical-read executions analysed; %d spin-flag loops recognised\n",
		seed, st.Records, st.SyncRecords, st.Bytes, out.CriticalExecs, out.SpinLoops)
	fmt.Fprintf(w, "suspicious interleavings: %d\n", len(out.Reports))
	if js != nil {
		js.TracedSeed = seed
		js.Trace = conseqTraceJSON{Records: st.Records, SyncRecords: st.SyncRecords, Bytes: st.Bytes,
			CriticalExecs: out.CriticalExecs, SpinLoops: out.SpinLoops}
	}
	var tr *conseq.Tester
	if *test {
		if tr, err = conseq.NewTester(sim.Runner{Config: tg.cfg, Program: tg.prog}, tg.prog, seed, rec); err != nil {
			return err
		}
		tr.Timeout = core.Cycle(q.TestTimeoutCycles)
	}
	verdicts := map[string]int{}
	for i, r := range out.Reports {
		fmt.Fprintf(w, "%3d. %s\n", i+1, a.Describe(r))
		if js != nil {
			js.Reports = append(js.Reports, conseqReportJSON{Report: i + 1, Site: r.Site.Kind.String(), SitePC: r.Site.PC,
				ReadPC: r.R.PC, AltWritePC: r.Alt.PC, Addr: r.Addr, Distance: r.Distance, Description: a.Describe(r)})
		}
		if tr == nil {
			continue
		}
		tres, err := tr.Test(a, r)
		if err != nil {
			return err
		}
		verdicts[tres.Verdict()]++
		fmt.Fprintf(w, "     tester: %s\n", tres.Describe())
		for _, p := range tres.Points {
			fmt.Fprintf(w, "       park %s\n", p)
		}
		if js != nil {
			t := &conseqTestJSON{Verdict: tres.Verdict(), Outcome: tres.Outcome, OutcomePC: tres.OutcomePC, OutcomeMsg: tres.OutcomeMsg,
				OutputsDiffer: tres.OutputsDiffer, Describe: tres.Describe()}
			for _, p := range tres.Points {
				t.Parks = append(t.Parks, p.String())
			}
			js.Reports[i].Tester = t
		}
	}
	if tr != nil {
		fmt.Fprintf(w, "tester: %d bug, %d failed (not as forced), %d pruned, %d not forced (seed %d, timeout %d cycles)\n",
			verdicts["bug"], verdicts["failed (not as forced)"], verdicts["pruned"], verdicts["not forced"], seed, q.TestTimeoutCycles)
		if js != nil {
			js.Verdicts = verdicts
		}
	}
	if js != nil {
		return writeJSON(e.stdout, js)
	}
	return nil
}

// conseqJSON is `weft conseq --json`'s object.
type conseqJSON struct {
	Program string `json:"program"`
	// Sites counts the failure sites by kind (OUT, ASS, ERR, LOOP, INV).
	Sites         map[string]int `json:"sites"`
	CriticalReads int            `json:"critical_reads"`
	MaxDistance   int            `json:"max_distance"`
	Model         string         `json:"model"`
	// Empty says why there is nothing to analyse ("" when there is).
	Empty        string             `json:"empty,omitempty"`
	FailingSeeds []uint64           `json:"failing_seeds,omitempty"`
	TracedSeed   uint64             `json:"traced_seed,omitempty"`
	Invariants   int                `json:"invariants,omitempty"`
	Trace        conseqTraceJSON    `json:"trace"`
	Reports      []conseqReportJSON `json:"reports"`
	// Verdicts counts the tester's verdicts (--test only).
	Verdicts map[string]int `json:"verdicts,omitempty"`
}

// conseqTraceJSON is the traced run's trace.
type conseqTraceJSON struct {
	Records       uint64 `json:"records"`
	SyncRecords   uint64 `json:"sync_records"`
	Bytes         uint64 `json:"bytes"`
	CriticalExecs int    `json:"critical_execs"`
	SpinLoops     int    `json:"spin_loops"`
}

// conseqReportJSON is one suspicious interleaving.
type conseqReportJSON struct {
	Report      int             `json:"report"`
	Site        string          `json:"site"`
	SitePC      int32           `json:"site_pc"`
	ReadPC      int32           `json:"read_pc"`
	AltWritePC  int32           `json:"alt_write_pc"`
	Addr        uint64          `json:"addr"`
	Distance    int             `json:"distance"`
	Description string          `json:"description"`
	Tester      *conseqTestJSON `json:"tester,omitempty"`
}

// conseqTestJSON is the tester's verdict on a report.
type conseqTestJSON struct {
	Verdict       string           `json:"verdict"`
	Outcome       core.OutcomeKind `json:"outcome"`
	OutcomePC     int32            `json:"outcome_pc"`
	OutcomeMsg    string           `json:"outcome_msg"`
	OutputsDiffer bool             `json:"outputs_differ"`
	Describe      string           `json:"describe"`
	Parks         []string         `json:"parks"`
}
