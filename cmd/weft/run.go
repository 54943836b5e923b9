package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

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
L1's ("l1[i]") and the bus's, over the region of interest; JSON gains
"groups", and a single run's summary a per-core table.

--out DIR also writes DIR/runs.jsonl (the JSON lines), DIR/config.toml (the
resolved config) and DIR/program.s (the program's disassembly, each
instruction with its PC and source line).

The exit status is 0 whatever the programs' outcomes.`)
	var t targetFlags
	t.add(fs)
	runs := fs.Int("runs", 1, "number of runs (`N`), seeds SEED..SEED+N-1")
	workers := fs.Int("workers", 0, "runs in flight at once (`N`; 0: one per host CPU); results do not depend on it")
	asJSON := fs.Bool("json", false, "print one JSON object per run, one a line, and nothing else")
	out := fs.String("out", "", "also write runs.jsonl, config.toml and program.s into `DIR`")
	quiet := fs.Bool("quiet", false, "no progress bar and no notes on stderr")
	groups := fs.Bool("groups", false, `also record every statistics group's counters (per core, per L1, the bus): JSON "groups", and a per-core table`)
	var det detectorFlag
	fs.Var(&det, "detectors", "attach these detectors to every run (`NAME,...`; weft list --detectors)")
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
	if *workers < 0 {
		return usagef(fs, "run: --workers must be at least 0, got %d", *workers)
	}
	tg, err := t.resolve(fs)
	if err != nil {
		return err
	}
	if last := tg.cfg.Sim.Seed + uint64(*runs-1); last > math.MaxInt64 || last < tg.cfg.Sim.Seed {
		return fmt.Errorf("run: seeds %d..%d: the last seed must be at most %d (the largest TOML integer)", tg.cfg.Sim.Seed, last, int64(math.MaxInt64))
	}
	if tg.note != "" && !*quiet {
		fmt.Fprintln(e.stderr, tg.note)
	}

	bar := newProgress(e, *quiet || *runs == 1, *runs, "running "+tg.prog.Name)
	start := time.Now()
	results, err := sim.RunBatch(sim.Batch{
		Config:   tg.cfg,
		Program:  tg.prog,
		BaseSeed: tg.cfg.Sim.Seed,
		Runs:     *runs,
		Workers:  *workers,
		OnDone:   bar.done,
		Options:  runOptions(det.runOptions(tg.prog), *groups),
	})
	bar.finish()
	if err != nil {
		return err
	}
	host := time.Since(start)

	lines, err := jsonLines(results)
	if err != nil {
		return err
	}
	if *out != "" {
		if err := writeOutDir(*out, tg.cfg, tg.prog, lines); err != nil {
			return err
		}
	}
	if *asJSON {
		_, err := e.stdout.Write(lines)
		return err
	}
	if len(results) == 1 {
		printRun(e.stdout, tg, results[0])
		printGroups(e.stdout, results[0].Groups)
	} else {
		printBatch(e.stdout, &t, tg.prog, results)
	}
	if det.set {
		printFindings(e.stdout, det.infos, results)
	}
	printHost(e.stdout, results, host)
	return nil
}

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

// writeOutDir writes the run's record into dir: runs.jsonl, config.toml
// and program.s.
func writeOutDir(dir string, cfg configs.Config, prog *isa.Program, lines []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	files := []struct {
		name string
		data []byte
	}{
		{"runs.jsonl", lines},
		{"config.toml", []byte(configText(cfg, "resolved config of the runs in runs.jsonl"))},
		{"program.s", []byte(isa.Listing(prog))},
	}
	for _, f := range files {
		if err := atomicfile.WriteFile(filepath.Join(dir, f.name), f.data); err != nil {
			return fmt.Errorf("--out: %w", err)
		}
	}
	return nil
}

// configText is cfg as TOML under a comment line giving its hash, the weft
// version and what it is.
func configText(cfg configs.Config, what string) string {
	return fmt.Sprintf("# config hash %s, weft %s: %s\n%s", cfg.Hash(), version.String(), what, cfg.TOML())
}

// printHost prints the host-speed line of a batch.
func printHost(w io.Writer, results []sim.Result, host time.Duration) {
	var instrs, cycles uint64
	for _, r := range results {
		instrs += r.Instructions
		cycles += r.Cycles
	}
	secs := host.Seconds()
	if secs <= 0 {
		secs = 1e-9
	}
	fmt.Fprintf(w, "\nhost: %s, %s simulated instructions/s, %s simulated cycles/s\n",
		host.Round(time.Microsecond), si(float64(instrs)/secs), si(float64(cycles)/secs))
}
