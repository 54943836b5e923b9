package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"weft/analysis"
	"weft/core"
	"weft/detectors/pset"
	"weft/internal/atomicfile"
	"weft/isa"
	"weft/sim"
)

// cmdPSet is `weft pset train|show|check`.
func cmdPSet(e env, args []string) error {
	usage := "weft pset train (-w KERNEL | -p FILE.s) [--runs N] [--seed S] -o FILE.pset\n" +
		"       weft pset show  (-w KERNEL | -p FILE.s) FILE.pset\n" +
		"       weft pset check (-w KERNEL | -p FILE.s) [--runs N] [--seed S] [--untested null|ignore] FILE.pset"
	if len(args) == 0 {
		return usagef(psetTop{}, "pset: name an action: train, show or check")
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		fmt.Fprintf(e.stdout, "usage: %s\n\n%s", usage, psetHelp)
		return errHelp
	}
	switch args[0] {
	case "train":
		return psetTrain(e, args[1:])
	case "show":
		return psetShow(e, args[1:])
	case "check":
		return psetCheck(e, args[1:])
	}
	return usagef(psetTop{}, "pset: unknown action %q (want train, show or check)", args[0])
}

// psetTop names the pset command's help for errors.
type psetTop struct{}

func (psetTop) helpCommand() string { return "weft help pset" }

const psetHelp = `Learns, shows and checks PSet constraints (Yu and Narayanasamy, ISCA 2009):
each static memory instruction's predecessor set, the instructions that
were its immediate remote predecessor (RAW, WAR or WAW) in some correct
run.

train runs seeds SEED..SEED+N-1, learns the union of the passing runs'
pairs (failing runs are left out) and writes the PSet section in the
paper's encoding (2-bit type, 1-byte count, 4-byte entries) to FILE.pset,
printing the new pairs each passing run added (the paper's Figure 8).
show prints a PSet file's sets beside the program's instructions. check
runs the software PSet monitor (the paper's Pin tool) with a PSet file
over seeds SEED..SEED+N-1 and prints the violations merged over the runs.

A PSet file of another program, or a corrupt or truncated one, is an error
naming the file, the byte offset and the instruction.
`

// psetFlags are the flags the pset actions share.
type psetFlags struct {
	t targetFlags
	// The batch actions' flags (train, check).
	runs       *int
	ignoreSync *bool
	quiet      *bool
	asJSON     *bool
}

// add registers the target flags and, for a batch action, its flags.
func (p *psetFlags) add(fs *flagSet, batch bool) {
	p.t.add(fs)
	if batch {
		p.runs = fs.Int("runs", 50, fmt.Sprintf("number of runs (`N`, at most %d), seeds SEED..SEED+N-1", maxRuns))
		p.ignoreSync = fs.Bool("ignore-sync", false, "leave accesses to synchronisation words out, in training and checking alike (default: they count, as for the paper's Pin tool)")
		p.quiet = fs.Bool("quiet", false, "no progress bar")
		p.asJSON = fs.Bool("json", false, "print the result as one JSON object instead of text")
	}
}

// batch checks --runs and the seed range and returns the target.
func (p *psetFlags) resolve(fs *flagSet, action string) (target, error) {
	if p.runs != nil && (*p.runs < 1 || *p.runs > maxRuns) {
		return target{}, usagef(fs, "pset %s: --runs must be 1..%d, got %d", action, maxRuns, *p.runs)
	}
	tg, err := p.t.resolve(fs)
	if err != nil {
		return target{}, err
	}
	if p.runs != nil {
		if last := tg.cfg.Sim.Seed + uint64(*p.runs-1); last > math.MaxInt64 || last < tg.cfg.Sim.Seed {
			return target{}, fmt.Errorf("pset %s: seeds %d..%d: the last seed must be at most %d", action, tg.cfg.Sim.Seed, last, int64(math.MaxInt64))
		}
	}
	return tg, nil
}

// recorderOf returns the PSet recorder attached to a run.
func recorderOf(r sim.Result) (*pset.Recorder, error) {
	if rec, ok := analysis.DetectorOf[*pset.Recorder](r); ok {
		return rec, nil
	}
	return nil, fmt.Errorf("seed %d: no PSet recorder attached", r.Seed)
}

func psetTrain(e env, args []string) error {
	fs := newFlagSet("pset", "weft pset train (-w KERNEL | -p FILE.s) [--runs N] [--seed S] [--ignore-sync] -o FILE.pset",
		"Learns PSets from the passing runs of seeds SEED..SEED+N-1 and writes them to FILE.pset.")
	var p psetFlags
	p.add(fs, true)
	out := fs.String("o", "", "write the PSet section to `FILE.pset`")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(fs, "pset train: unexpected argument %q", pos[0])
	}
	if *out == "" {
		return usagef(fs, "pset train: name the output file with -o FILE.pset")
	}
	tg, err := p.resolve(fs, "train")
	if err != nil {
		return err
	}
	opts := pset.Options{IgnoreSync: *p.ignoreSync}
	tr := pset.NewTrainer(tg.prog, opts)
	bar := newProgress(e, *p.quiet, *p.runs, "training")
	failing := 0
	err = sim.StreamBatch(e.context(), sim.Batch{
		Config: tg.cfg, Program: tg.prog, BaseSeed: tg.cfg.Sim.Seed, Runs: *p.runs, OnDone: bar.done,
		Options: func() []sim.Option { return []sim.Option{sim.WithDetector(pset.NewRecorder(tg.prog, opts))} },
	}, func(i int, r sim.Result) error {
		rec, err := recorderOf(r)
		if err != nil {
			return err
		}
		if r.Outcome != core.Pass {
			failing++
			return nil
		}
		tr.Add(rec)
		return nil
	})
	bar.finish()
	if err != nil {
		return fmt.Errorf("pset train: %w", err)
	}
	if tr.Runs() == 0 {
		return fmt.Errorf("pset train: none of the %d runs of %s passed: there is nothing to learn from", *p.runs, tg.prog.Name)
	}
	ps := tr.PSets()
	var flags isa.PSetFlags
	if *p.ignoreSync {
		flags = isa.PSetNoSync
	}
	data, err := isa.EncodePSetsFlags(tg.prog, ps, flags)
	if err != nil {
		return fmt.Errorf("pset train: %w", err)
	}
	size, err := isa.EncodedSize(tg.prog, ps)
	if err != nil {
		return fmt.Errorf("pset train: %w", err)
	}
	if err := atomicfile.WriteFile(*out, data); err != nil {
		return fmt.Errorf("pset train: %w", err)
	}
	if *p.asJSON {
		return writeJSON(e.stdout, psetTrainJSON{Program: tg.prog.Name, File: *out, Passing: tr.Runs(), Failing: failing,
			Pairs: tr.Pairs(), NewPairs: tr.NewPairs(), Size: size, BytesPerPair: size.BytesPerPair(), CodeShare: size.CodeShare()})
	}
	fmt.Fprintf(e.stdout, "trained on %d passing runs of %s (%d failing runs left out): %d pairs\n", tr.Runs(), tg.prog.Name, failing, tr.Pairs())
	fmt.Fprintf(e.stdout, "new pairs by passing run: %s\n", curve(tr.NewPairs()))
	fmt.Fprintf(e.stdout, "%s: %s\n", *out, size)
	return nil
}

// curve spells the new-pairs curve, eliding a long run of zeros at its end.
func curve(xs []int) string {
	last := len(xs)
	for last > 0 && xs[last-1] == 0 {
		last--
	}
	var b strings.Builder
	for i, x := range xs[:last] {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprint(&b, x)
	}
	if last < len(xs) {
		if last > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "(then 0 for %d runs)", len(xs)-last)
	}
	return b.String()
}

// readPSets reads and decodes a PSet file of prog, with its flags.
func readPSets(prog *isa.Program, path string) (isa.PSets, isa.PSetFlags, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, fmt.Errorf("pset: %w", err)
	}
	ps, flags, err := isa.DecodePSetsFlags(prog, path, data)
	if err != nil {
		return nil, 0, fmt.Errorf("pset: the PSets of %s: %w", prog.Name, err)
	}
	return ps, flags, nil
}

// syncMismatch says how a PSet file learned without (or with) sync
// accesses disagrees with a check (how) that counts them (ignoreSync
// false) or not, or "".
func syncMismatch(path string, flags isa.PSetFlags, ignoreSync bool, how string) string {
	if flags&isa.PSetUnrecorded != 0 {
		return "" // a version 1 file: not recorded
	}
	fileIgnores := flags&isa.PSetNoSync != 0
	switch {
	case fileIgnores && !ignoreSync:
		return fmt.Sprintf("%s was trained with --ignore-sync (synchronisation accesses left out), but %s counts them", path, how)
	case !fileIgnores && ignoreSync:
		return fmt.Sprintf("%s was trained with synchronisation accesses in, but %s leaves them out", path, how)
	}
	return ""
}

func psetShow(e env, args []string) error {
	fs := newFlagSet("pset", "weft pset show (-w KERNEL | -p FILE.s) FILE.pset",
		"Prints a PSet file's sets beside the program's memory instructions.")
	var p psetFlags
	p.add(fs, false)
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef(fs, "pset show: name one PSet file")
	}
	tg, err := p.resolve(fs, "show")
	if err != nil {
		return err
	}
	ps, _, err := readPSets(tg.prog, pos[0])
	if err != nil {
		return err
	}
	size, err := isa.EncodedSize(tg.prog, ps)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s for %s: %s\n", pos[0], tg.prog.Name, size)
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PC\tINSTRUCTION\tTYPE\tPREDECESSORS")
	for pc := range tg.prog.Instrs {
		if !tg.prog.Instrs[pc].Op.TouchesMemory() {
			continue
		}
		s := ps.At(int32(pc))
		preds := make([]string, len(s.Preds))
		for i, q := range s.Preds {
			preds[i] = fmt.Sprintf("%d (%s)", q, tg.prog.InstrText(q))
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", pc, tg.prog.InstrText(int32(pc)), s.Type(), strings.Join(preds, ", "))
	}
	return tw.Flush()
}

func psetCheck(e env, args []string) error {
	fs := newFlagSet("pset", "weft pset check (-w KERNEL | -p FILE.s) [--runs N] [--seed S] [--untested null|ignore] [--ignore-sync] FILE.pset",
		"Runs the software PSet monitor with FILE.pset over seeds SEED..SEED+N-1.")
	var p psetFlags
	p.add(fs, true)
	untested := fs.String("untested", "null", "an instruction training never ran: null (any remote predecessor violates) or ignore (never checked)")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef(fs, "pset check: name one PSet file")
	}
	if *untested != "null" && *untested != "ignore" {
		return usagef(fs, "pset check: --untested %q: want null or ignore", *untested)
	}
	tg, err := p.resolve(fs, "check")
	if err != nil {
		return err
	}
	ps, flags, err := readPSets(tg.prog, pos[0])
	if err != nil {
		return err
	}
	// The file says whether training left synchronisation accesses out
	// (a version 1 file does not: then --ignore-sync says); the check
	// follows it, and --ignore-sync must agree.
	ignore := flags&isa.PSetNoSync != 0
	if m := syncMismatch(pos[0], flags, true, "--ignore-sync"); *p.ignoreSync && m != "" {
		return usagef(fs, "pset check: %s", m)
	}
	if flags&isa.PSetUnrecorded != 0 {
		ignore = *p.ignoreSync
	}
	opts := pset.Options{IgnoreSync: ignore, IgnoreUntested: *untested == "ignore"}
	bar := newProgress(e, *p.quiet, *p.runs, "checking")
	var merged analysis.Merger
	violating, failing := 0, 0
	err = sim.StreamBatch(e.context(), sim.Batch{
		Config: tg.cfg, Program: tg.prog, BaseSeed: tg.cfg.Sim.Seed, Runs: *p.runs, OnDone: bar.done,
		Options: func() []sim.Option { return []sim.Option{sim.WithDetector(pset.NewMonitor(tg.prog, ps, opts))} },
	}, func(i int, r sim.Result) error {
		fs := r.Findings
		if len(fs) > 0 {
			violating++
		}
		if r.Outcome != core.Pass {
			failing++
		}
		merged.Add(i, r.Seed, fs)
		return nil
	})
	bar.finish()
	if err != nil {
		return fmt.Errorf("pset check: %w", err)
	}
	if *p.asJSON {
		return writeJSON(e.stdout, psetCheckJSON{Program: tg.prog.Name, File: pos[0], Runs: *p.runs, Failing: failing,
			Violating: violating, Violations: merged.Merged()})
	}
	fmt.Fprintf(e.stdout, "%s over %d runs of %s (%d failed): violations in %d runs\n", pos[0], *p.runs, tg.prog.Name, failing, violating)
	return analysis.WriteMerged(e.stdout, "pset", merged.Merged(), *p.runs)
}

// withPSets adds the program's PSets (nil: none) to each run's options.
func withPSets(opts func() []sim.Option, ps isa.PSets) func() []sim.Option {
	if ps == nil {
		return opts
	}
	return func() []sim.Option {
		var o []sim.Option
		if opts != nil {
			o = opts()
		}
		return append(o, sim.WithPSets(ps))
	}
}

// psetTrainJSON is `weft pset train --json`'s object.
type psetTrainJSON struct {
	Program      string       `json:"program"`
	File         string       `json:"file"`
	Passing      int          `json:"passing_runs"`
	Failing      int          `json:"failing_runs"`
	Pairs        int          `json:"pairs"`
	NewPairs     []int        `json:"new_pairs"`
	Size         isa.PSetSize `json:"size"`
	BytesPerPair float64      `json:"bytes_per_pair"`
	CodeShare    float64      `json:"code_share"`
}

// psetCheckJSON is `weft pset check --json`'s object: the violations
// merged over the runs.
type psetCheckJSON struct {
	Program    string            `json:"program"`
	File       string            `json:"file"`
	Runs       int               `json:"runs"`
	Failing    int               `json:"failing_runs"`
	Violating  int               `json:"violating_runs"`
	Violations []analysis.Merged `json:"violations"`
}

// writeJSON writes v as one JSON object on one line.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	return nil
}
