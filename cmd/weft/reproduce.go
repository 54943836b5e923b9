package main

import (
	"fmt"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"weft/experiments"
	"weft/experiments/all"
)

// cmdReproduce is `weft reproduce NAME|all|--list [--out DIR] ...`.
func cmdReproduce(e env, args []string) error {
	fs := newFlagSet("reproduce", "weft reproduce (NAME|all|--list) [--out DIR] [--seeds N] [--workers N] [--quiet]",
		`Runs a reproduction (an experiment that rebuilds a paper's tables and
figures, or one of weft's own machine studies) and writes DIR/NAME.md with
its tables beside the paper's values, its plots, the exact configs and seeds
and a comment on the differences, plus one CSV (and Markdown and JSON) per
table or figure under DIR/NAME/. "all" runs every reproduction; --list names
them.

The default experiment and pset fold each run into their tables as it
completes, so their memory does not grow with --seeds: they peak at
170-275 MB (maximum resident set; default measured at 2 to 40 seeds, pset
at 20 and 100); bugaboo folds each run into its trial (205 MB at its
default 25 seeds, 260 MB at 100, 416 MB at 1000). The others keep their
runs, without the detectors' shadow memory (at most 250 MB at their
default seeds). --seeds is at most 1000, for time: 1000 seeds of the default experiment are 454,000
runs, half an hour to an hour on 2 host CPUs.`)
	list := fs.Bool("list", false, "list the reproductions and exit")
	out := fs.String("out", "weft-out", "output `DIR`")
	seeds := fs.Int("seeds", 0, fmt.Sprintf("runs per point (`N`, at most %d; 0: each experiment's default)", maxSeeds))
	workers := fs.Int("workers", 0, "runs in flight (`N`; 0: one per host CPU)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if *list {
		if len(pos) > 0 {
			return usagef(fs, "reproduce: --list takes no experiment name")
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tPAPER\tTITLE")
		for _, x := range all.List() {
			paper := x.Paper
			if paper == "" {
				paper = "-"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", x.Name, paper, x.Title)
		}
		return tw.Flush()
	}
	if len(pos) != 1 {
		return usagef(fs, "reproduce: give one experiment name, all, or --list")
	}
	if *seeds < 0 || *workers < 0 {
		return usagef(fs, "reproduce: --seeds and --workers must not be negative")
	}
	if *seeds > maxSeeds {
		return usagef(fs, "reproduce: --seeds %d is more than %d, the most an experiment may run per point", *seeds, maxSeeds)
	}
	var todo []experiments.Experiment
	if pos[0] == "all" {
		todo = all.List()
	} else {
		x, err := all.Lookup(pos[0])
		if err != nil {
			return err
		}
		todo = []experiments.Experiment{x}
	}
	for _, x := range todo {
		if _, err := runExperiment(e, x, experiments.Env{Seeds: *seeds, Workers: *workers}, *out, "", *quiet); err != nil {
			return err
		}
	}
	return nil
}

// maxSeeds is the most runs per point `weft reproduce --seeds` takes.
// Time limits it, not memory: the default experiment and pset fold their
// runs as they complete (peaks of 170-275 MB whatever the seeds; bugaboo
// folds its trials' runs; the others keep their runs without the
// detectors' shadow memory), and 1000
// seeds of the default experiment are 454,000 runs, half an hour to an
// hour on 2 host CPUs (BENCHMARKS.md, issue 25).
const maxSeeds = 1000

// runExperiment runs x with a progress bar, writes its report as
// dir/stem.md (stem "" is the experiment's name), and prints where it went
// and the host speed. It returns the report.
func runExperiment(e env, x experiments.Experiment, xenv experiments.Env, dir, stem string, quiet bool) (*experiments.Report, error) {
	var bar *progress
	xenv.Progress = func(done, total int) {
		if bar == nil {
			bar = newProgress(e, quiet, total, x.Name)
		}
		bar.done(done)
	}
	start := time.Now()
	r, err := x.Run(xenv)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return nil, fmt.Errorf("reproduce %s: %w", x.Name, err)
	}
	host := time.Since(start)
	path, err := experiments.Write(r, dir, stem)
	if err != nil {
		return nil, err
	}
	secs := max(host.Seconds(), 1e-9)
	if strings.Contains(r.Summary, "\n") {
		fmt.Fprintf(e.stdout, "%s\n\n%s\n", r.Title, strings.TrimRight(r.Summary, "\n"))
	} else {
		fmt.Fprintf(e.stdout, "%s: %s\n", x.Name, r.Summary)
	}
	fmt.Fprintf(e.stdout, "  report: %s\n  host: %s in %.2f s on %s: %s simulated instructions/s\n",
		path, plural(r.Instructions, "simulated instruction"), secs, plural(runtime.GOMAXPROCS(0), "host CPU"), si(float64(r.Instructions)/secs))
	return r, nil
}
