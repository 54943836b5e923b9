package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"weft/analysis"
	"weft/detectors"

	"weft/internal/atomicfile"
	"weft/internal/version"

	"weft/configs"
	"weft/isa"
	"weft/sim"
)

// cmdRun is `weft run`.
func cmdRun(e env, args []string) error {
	fs := newFlagSet("run",
		"weft run [-c PRESET|FILE] (-w KERNEL | -p FILE.s) [--seed N] [--runs N] [--workers N]\n"+
			"                [--set KEY=VALUE]... [--detectors NAME,...] [--json] [--out DIR] [--quiet]",
		`Runs a workload from the registry (-w) or an assembly program (-p) on the
machine the config describes. The config is the preset or file given by -c,
then every --set in order; machine.cores is raised to the program's .cores
if needed (a note on stderr says so). Run i of a batch uses seed SEED+i.

Without --json it prints a readable summary: one run's outcome, cycles,
instructions, statistics and per-core cycle breakdown, or for --runs N the
outcome distribution with the first seed of each failing outcome. With
--json stdout holds exactly one JSON object per run, one a line, in run
order, and nothing else; equal runs print equal bytes.

--detectors attaches software detectors (weft list --detectors) to every
run; the summary lists each detector's findings merged over the runs, each
with the number of runs that reported it and the first seed, and what
detectors that learn across runs (avio) learned from the batch. With
--json each run's object gains "findings". Detectors never change a cycle
of a run.

--groups records the counters per part: each core's ("core[i]"), each
L1's ("l1[i]"), the bus's and, with sim.irritator_prob above 0, the
irritators' ("irritators": delays and delay_cycles), over the region of
interest; JSON gains "groups", and a single run's summary a per-core table.

--out DIR also writes DIR/runs.jsonl (the JSON lines), DIR/config.toml (the
resolved config) and DIR/program.s (the program's disassembly, each
instruction with its PC and source line). runs.jsonl is written as the
runs finish, to a hidden temporary file renamed into place when the batch
is complete, so a runs.jsonl is always a whole batch.

Runs are printed and written in run order as they finish, and a batch
keeps only what its summary needs, so memory does not grow with --runs.
--runs is at most 100000000: more would take hours even for the smallest
program and hundreds of GB of JSON, so it can only be a typing mistake;
split a bigger study into batches with --seed. A run's outcome, whatever
it is (a crash, a spawn that finds no free core among them), never stops
the batch.

Ctrl-C (or SIGTERM) stops a run or a batch at once: runs in flight stop
within a moment, even in an endless loop, and have no result; the runs
finished before the first unfinished one are printed (or summarised) and,
with --out, written to DIR/runs.partial.jsonl instead of runs.jsonl; a
note on stderr says how many (for a single run, the cycle it reached). A
second Ctrl-C kills at once. A later
batch into a DIR holding runs.partial.jsonl is refused until it is moved
away or deleted: no batch deletes another's runs.

The exit status is 0 whatever the programs' outcomes; 1 for bad input or
an internal error; 130 (143 for SIGTERM) for an interrupted batch.`)
	var t targetFlags
	t.add(fs)
	runs := fs.Int("runs", 1, fmt.Sprintf("number of runs (`N`, at most %d), seeds SEED..SEED+N-1", maxRuns))
	workers := fs.Int("workers", 0, "runs in flight at once (`N`; 0: one per host CPU); results do not depend on it")
	asJSON := fs.Bool("json", false, "print one JSON object per run, one a line, and nothing else")
	out := fs.String("out", "", "also write runs.jsonl, config.toml and program.s into `DIR`")
	quiet := fs.Bool("quiet", false, "no progress bar and no notes on stderr")
	groups := fs.Bool("groups", false, `also record every statistics group's counters (per core, per L1, the bus): JSON "groups", and a per-core table`)
	graphs := fs.String("graphs", "", "write each run's Bugaboo graph (bbsw, bbhw detectors) to `DIR`/DETECTOR-seedN.graph, for weft rank")
	var det detectorFlag
	fs.Var(&det, "detectors", "attach these detectors to every run (`NAME,...`; weft list --detectors)")
	psetFile := fs.String("psets", "", "the program's PSets for the PSet hardware (`FILE.pset`, from weft pset train; needs pset.enabled=true)")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(fs, "run: unexpected argument %q (programs are given with -w KERNEL or -p FILE.s)", pos[0])
	}
	if *runs < 1 {
		return usagef(fs, "run: --runs must be at least 1, got %d", *runs)
	}
	if *runs > maxRuns {
		return usagef(fs, "run: --runs %d is more than %d, the most one batch may have (split a bigger study into batches with --seed)", *runs, maxRuns)
	}
	if *workers < 0 {
		return usagef(fs, "run: --workers must be at least 0, got %d", *workers)
	}
	tg, err := t.resolve(fs)
	if err != nil {
		return err
	}
	if err := det.suite.CheckHardware(tg.cfg, "--detectors"); err != nil {
		return usagef(fs, "run: %v", err)
	}
	if err := det.suite.CheckOracle(tg.prog); err != nil {
		return usagef(fs, "run: %v", err)
	}
	det.suite = det.suite.Configured(tg.cfg)
	if err := det.suite.Check(tg.prog); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	var psets isa.PSets
	switch {
	case *psetFile != "" && !tg.cfg.PSet.Enabled:
		return usagef(fs, "run: --psets gives the PSet hardware its PSets, which is off: add --set pset.enabled=true")
	case *psetFile == "" && tg.cfg.PSet.Enabled:
		return usagef(fs, "run: pset.enabled = true needs the program's PSets: --psets FILE.pset (weft pset train writes one)")
	case *psetFile != "":
		var flags isa.PSetFlags
		if psets, flags, err = readPSets(tg.prog, *psetFile); err != nil {
			return err
		}
		if m := syncMismatch(*psetFile, flags, !tg.cfg.PSet.IncludeSyncOps, fmt.Sprintf("pset.include_sync_ops = %v", tg.cfg.PSet.IncludeSyncOps)); m != "" {
			return usagef(fs, "run: %s", m)
		}
		t.psets = *psetFile
	}
	if *graphs != "" && !slices.ContainsFunc(det.suite, func(d detectors.Info) bool { return strings.HasPrefix(d.Name, "bb") }) {
		return usagef(fs, "run: --graphs writes the graphs of Bugaboo's detectors: name one with --detectors (bbsw, bbsw-line, bbsw-noctx, bbhw)")
	}
	if *graphs != "" {
		if err := os.MkdirAll(*graphs, 0o755); err != nil {
			return fmt.Errorf("--graphs: %w", err)
		}
	}
	if last := tg.cfg.Sim.Seed + uint64(*runs-1); last > math.MaxInt64 || last < tg.cfg.Sim.Seed {
		return fmt.Errorf("run: seeds %d..%d: the last seed must be at most %d (the largest TOML integer)", tg.cfg.Sim.Seed, last, int64(math.MaxInt64))
	}
	if tg.note != "" && !*quiet {
		fmt.Fprintln(e.stderr, tg.note)
	}
	var od *outDir
	if *out != "" {
		if od, err = createOutDir(*out); err != nil {
			return err
		}
		defer od.abort() // a no-op once finished
	}

	in := catchInterrupts(e.context())
	defer in.stop()
	bar := newProgress(e, *quiet || *runs == 1, *runs, "running "+tg.prog.Name)
	sum := newBatchSummary(*runs)
	var found *analysis.Summary
	if det.set {
		found = det.suite.NewSummary()
	}
	var line bytes.Buffer
	enc := json.NewEncoder(&line)
	enc.SetEscapeHTML(false)
	start := time.Now()
	err = sim.StreamBatch(in.ctx, sim.Batch{
		Config:   tg.cfg,
		Program:  tg.prog,
		BaseSeed: tg.cfg.Sim.Seed,
		Runs:     *runs,
		Workers:  *workers,
		OnDone:   bar.done,
		Options:  withPSets(runOptions(det.options(tg.prog), *groups), psets),
	}, func(i int, r sim.Result) error {
		if *asJSON || od != nil {
			line.Reset()
			if err := enc.Encode(&r); err != nil {
				return fmt.Errorf("encode run %d (seed %d): %w", i, r.Seed, err)
			}
			if od != nil {
				if err := od.write(line.Bytes()); err != nil {
					return err
				}
			}
			if *asJSON {
				if _, err := e.stdout.Write(line.Bytes()); err != nil {
					return fmt.Errorf("write run %d: %w", i, err)
				}
			}
		}
		sum.add(i, r)
		if found != nil {
			found.Add(i, r)
		}
		if *graphs != "" {
			if err := writeGraphs(*graphs, tg.prog, r); err != nil {
				return err
			}
		}
		return nil
	})
	bar.finish()
	host := time.Since(start)
	interrupted := err != nil && errors.Is(err, context.Canceled)
	if err != nil && !interrupted {
		return err
	}
	if od != nil {
		var summary []byte
		if sum.runs > 0 {
			if summary, err = sum.json(found); err != nil {
				return err
			}
		}
		if err := od.finish(tg.cfg, tg.prog, summary, interrupted); err != nil {
			return err
		}
	}
	if !*asJSON && sum.runs > 0 {
		if *runs == 1 {
			printRun(e.stdout, tg, sum.head)
			printGroups(e.stdout, sum.head.Groups)
		} else {
			sum.print(e.stdout, &t, tg.prog)
		}
		if found != nil {
			if err := found.Report().WriteText(e.stdout); err != nil {
				return err
			}
		}
		printHost(e.stdout, sum.instrs, sum.cycles, host)
	}
	var stopped *sim.InterruptedError
	if interrupted && *runs == 1 && errors.As(err, &stopped) {
		msg := fmt.Sprintf("run: interrupted at cycle %d of seed %d, before the run ended: it has no result", stopped.Cycle, tg.cfg.Sim.Seed)
		if od != nil {
			msg += fmt.Sprintf(" (%s is empty)", od.partialPath())
		}
		return &interruptedError{status: in.status(), msg: msg}
	}
	if interrupted {
		msg := fmt.Sprintf("run: interrupted after %d of %d runs", sum.runs, *runs)
		if sum.runs > 0 {
			msg += fmt.Sprintf(" (seeds %d..%d", tg.cfg.Sim.Seed, sum.lastSeed)
			switch {
			case *asJSON && od != nil:
				msg += fmt.Sprintf(", printed and in %s)", od.partialPath())
			case *asJSON:
				msg += ", printed)"
			case od != nil:
				msg += fmt.Sprintf(", summarised and in %s)", od.partialPath())
			default:
				msg += ", summarised)"
			}
		}
		return &interruptedError{msg: msg, status: in.status()}
	}
	return nil
}

// maxRuns is the most runs one `weft run` batch may have (sim.MaxRuns).
const maxRuns = sim.MaxRuns

// jsonLines encodes the results as JSON, one object a line.
func jsonLines(results []sim.Result) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range results {
		if err := enc.Encode(&results[i]); err != nil {
			return nil, fmt.Errorf("encode run %d: %w", i, err)
		}
	}
	return buf.Bytes(), nil
}

// Files of a `weft run --out` directory.
const (
	// runsFile holds the JSON lines of a complete batch.
	runsFile = "runs.jsonl"
	// partialRunsFile holds the JSON lines of the runs an interrupted
	// batch finished, in run order; its name says it is not the batch.
	partialRunsFile = "runs.partial.jsonl"
	// summaryFile holds the batch's summary and findings report as one
	// JSON object.
	summaryFile = "summary.json"
)

// outDir is a `weft run --out DIR` being written. The JSON lines go, as
// the runs are delivered, to a hidden temporary file in DIR; when the batch
// is complete it becomes DIR/runs.jsonl, when it is interrupted
// DIR/runs.partial.jsonl (and any runs.jsonl of an earlier batch is
// removed, so DIR never shows a complete-looking runs.jsonl beside this
// batch's config); when it fails DIR is left as it was. config.toml and
// program.s are written when the batch ends, before the runs file.
type outDir struct {
	dir  string
	f    *atomicfile.File
	w    *bufio.Writer
	done bool
}

// createOutDir creates dir if needed and starts its runs file. A dir
// holding the runs.partial.jsonl of an interrupted batch is refused: a
// batch never deletes another's runs.
func createOutDir(dir string) (*outDir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	partial := filepath.Join(dir, partialRunsFile)
	if data, err := os.ReadFile(partial); err == nil {
		return nil, fmt.Errorf("--out %s holds %s, the %s an interrupted batch finished (its config is %s): move it away or delete it first, or write this batch to another --out DIR",
			dir, partial, plural(bytes.Count(data, []byte("\n")), "run"), filepath.Join(dir, "config.toml"))
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("--out: %w", err)
	}
	f, err := atomicfile.Create(filepath.Join(dir, runsFile))
	if err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	return &outDir{dir: dir, f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// write appends one JSON line.
func (o *outDir) write(line []byte) error {
	if _, err := o.w.Write(line); err != nil {
		return fmt.Errorf("--out: write %s: %w", filepath.Join(o.dir, runsFile), err)
	}
	return nil
}

// partialPath is where an interrupted batch's runs go.
func (o *outDir) partialPath() string { return filepath.Join(o.dir, partialRunsFile) }

// finish moves the runs into place with config.toml, program.s and
// summary.json (the batch's summary; nil when no run finished): it removes
// the runs files of an earlier batch (runs.jsonl and runs.partial.jsonl)
// and its summary.json, writes config.toml, program.s and summary.json,
// then renames the runs file to runs.jsonl, or to runs.partial.jsonl when
// the batch was interrupted. Each file appears whole or not at all.
func (o *outDir) finish(cfg configs.Config, prog *isa.Program, summary []byte, interrupted bool) error {
	o.done = true
	fail := func(err error) error {
		o.f.Abort()
		return fmt.Errorf("--out: %w", err)
	}
	if err := o.w.Flush(); err != nil {
		return fail(fmt.Errorf("write %s: %w", filepath.Join(o.dir, runsFile), err))
	}
	keep := filepath.Join(o.dir, runsFile)
	if interrupted {
		keep = o.partialPath()
	}
	for _, name := range []string{runsFile, partialRunsFile, summaryFile} {
		if err := os.Remove(filepath.Join(o.dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fail(err)
		}
	}
	files := []struct {
		name string
		data []byte
	}{
		{"config.toml", []byte(configText(cfg, "resolved config of the runs in "+filepath.Base(keep)))},
		{"program.s", []byte(isa.Listing(prog))},
	}
	if summary != nil {
		files = append(files, struct {
			name string
			data []byte
		}{summaryFile, summary})
	}
	for _, f := range files {
		if err := atomicfile.WriteFile(filepath.Join(o.dir, f.name), f.data); err != nil {
			return fail(err)
		}
	}
	if err := o.f.CommitAs(keep); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// abort discards the runs file of a batch that failed, leaving DIR as it
// was; it does nothing once finish has run.
func (o *outDir) abort() {
	if !o.done {
		o.done = true
		o.f.Abort()
	}
}

// configText is cfg as TOML under a comment line giving its hash, the weft
// version and what it is.
func configText(cfg configs.Config, what string) string {
	return fmt.Sprintf("# config hash %s, weft %s: %s\n%s", cfg.Hash(), version.String(), what, cfg.TOML())
}

// printHost prints the host-speed line of a batch that simulated instrs
// instructions and cycles cycles in host time.
func printHost(w io.Writer, instrs, cycles uint64, host time.Duration) {
	secs := host.Seconds()
	if secs <= 0 {
		secs = 1e-9
	}
	fmt.Fprintf(w, "\nhost: %s, %s simulated instructions/s, %s simulated cycles/s\n",
		host.Round(time.Microsecond), si(float64(instrs)/secs), si(float64(cycles)/secs))
}
