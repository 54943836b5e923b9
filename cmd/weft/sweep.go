package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"weft/core"
	"weft/results"
	"weft/sweep"
)

// cmdSweep is `weft sweep FILE [--out DIR] [--workers N] [--shard I/N] [--quiet]`.
func cmdSweep(e env, args []string) error {
	fs := newFlagSet("sweep", "weft sweep FILE [--out DIR] [--workers N] [--shard I/N] [--quiet]",
		`Runs the sweep in FILE (TOML: base, runs, seed, out, set, [[axis]] key and
values, [[workload]] name and params; see the README): every point of the
cross product of the axes' values and the workloads, seeds SEED..SEED+RUNS-1
each. Every point is checked before anything runs; a bad key or value is an
error naming the file, line and axis.

Runs go in parallel across host cores with a progress bar on stderr (points
done, runs done, ETA). Each finished run is appended to DIR/runs.jsonl as one
JSON line: the run's record as weft run --json prints it, after "point",
"run" and "axes". DIR is --out, else the file's out, else the directory of
FILE when FILE is a sweep directory's own sweep.toml, else
weft-out/sweep-NAME.

Running the same sweep again resumes it: finished runs are kept, a
half-written last line (a killed sweep) is cut and its run redone. A DIR
holding a different sweep is refused. When every run is done, runs.jsonl is
rewritten sorted by point and run (the same bytes whatever --workers or the
order runs finished) and the report is written: sweep.csv/.md/.json (mean
and 95% CI over seeds per point), plots/ and report.md.

--shard I/N runs only the points whose number modulo N is I (0 ≤ I < N),
for spreading a sweep over a batch system; join the shards' directories with
weft merge.

Ctrl-C (or SIGTERM) stops a sweep at once: runs in flight stop within a
moment and are redone on resume; every run written to runs.jsonl is kept.
A second Ctrl-C kills at once. The exit status is 0 when the sweep (or the
shard) is done, 1 for bad input or an internal error, 130 (143 for
SIGTERM) when interrupted: run the same command again to resume.`)
	out := fs.String("out", "", "output `DIR` (default: the sweep's out, else weft-out/sweep-NAME)")
	workers := fs.Int("workers", 0, "runs in flight at once (`N`; 0: one per host CPU); results do not depend on it")
	shardText := fs.String("shard", "", "run only shard `I/N`: the points whose number modulo N is I")
	quiet := fs.Bool("quiet", false, "no progress bar and no notes on stderr")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef(fs, "sweep: want one sweep FILE, got %d arguments", len(pos))
	}
	if *workers < 0 {
		return usagef(fs, "sweep: --workers must be at least 0, got %d", *workers)
	}
	shard, shards := 0, 1
	if *shardText != "" {
		if shard, shards, err = parseShard(*shardText); err != nil {
			return usagef(fs, "sweep: --shard %s: %v", *shardText, err)
		}
	}
	file := pos[0]
	plan, err := sweep.Load(file)
	if err != nil {
		return err
	}
	if err := plan.AttachDetectors(); err != nil {
		return err
	}
	dir := *out
	if dir == "" {
		dir = plan.DefaultDir()
	}
	if !*quiet {
		for _, n := range plan.Notes {
			fmt.Fprintln(e.stderr, n)
		}
	}
	nworkers := *workers
	if nworkers == 0 {
		nworkers = runtime.GOMAXPROCS(0)
	}

	in := catchInterrupts(e.context())
	defer in.stop()
	bar := &sweepBar{e: e, off: *quiet}
	start := time.Now()
	st, err := sweep.Run(in.ctx, plan, sweep.Options{
		Dir: dir, Workers: *workers, Shard: shard, Shards: shards, Progress: bar.update,
	})
	bar.finish()
	if err != nil && in.ctx.Err() != nil && errors.Is(err, context.Canceled) {
		// Its finished runs are in runs.jsonl: the same command resumes.
		return &interruptedError{msg: err.Error(), status: in.status()}
	}
	if err != nil {
		return err
	}
	host := time.Since(start)

	fmt.Fprintf(e.stdout, "sweep %s (%s): %s × %s = %s\n", file, plan.Hash,
		plural(len(plan.Points), "point"), plural(plan.Spec.Runs, "run"), plural(plan.Runs(), "run"))
	what := "ran"
	if shards > 1 {
		what = fmt.Sprintf("shard %d/%d: %s, ran", shard, shards, plural(st.Points, "point"))
	}
	fmt.Fprintf(e.stdout, "%s %s (%d already done", what, plural(st.Computed, "run"), st.Resumed)
	if st.Repaired {
		// The cut line's run, if it was one, is among the runs just run;
		// it may also have been a duplicate of a finished run.
		fmt.Fprint(e.stdout, "; cut a half-written last line left by an interrupted write")
	}
	fmt.Fprintf(e.stdout, ") in %s on %s\n", host.Round(time.Millisecond), plural(min(nworkers, max(st.Computed, 1)), "worker"))
	if !st.Complete {
		fmt.Fprintf(e.stdout, "wrote %s; when every shard is done, join them with: weft merge DIR... --out DIR\n", filepath.Join(dir, sweep.RunsFile))
		return nil
	}
	return sweepReport(e, plan, dir, "weft sweep "+shellArgs(args))
}

// sweepReport writes the report of the finished sweep in dir and prints
// its per-point summary.
func sweepReport(e env, plan *sweep.Plan, dir, command string) error {
	runs, err := sweep.ReadRuns(dir)
	if err != nil {
		return err
	}
	rep, err := sweep.WriteReport(plan, runs, dir, command)
	if err != nil {
		return err
	}
	if err := printSweepTable(e.stdout, plan, rep); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "\nwrote %s: runs.jsonl, sweep.csv/.md/.json, %s in plots/, report.md\n", dir, plural(len(rep.Plots), "plot"))
	return nil
}

// printSweepTable prints the headline columns of the report's per-point
// table: the axis values, the workload, each headline metric's mean (the
// first one's 95% interval too, when a point has more than one run), each
// detector's runs with a finding and distinct findings, and the outcomes.
// Numbers are printed as sweep.md prints them (results.FormatReadable). A
// column the table lacks is an internal error, never a blank column.
func printSweepTable(w io.Writer, plan *sweep.Plan, rep *sweep.Report) error {
	t := rep.Table
	cols := []string{"point"}
	for _, a := range plan.Spec.Axes {
		cols = append(cols, a.Key)
	}
	cols = append(cols, "workload")
	for i, m := range rep.Metrics {
		cols = append(cols, m+"_mean")
		if i == 0 && plan.Spec.Runs > 1 {
			cols = append(cols, m+"_ci95")
		}
	}
	for _, d := range plan.Spec.Detectors {
		cols = append(cols, d+"_runs", d+"_findings")
	}
	idx := make([]int, len(cols))
	head := make([]string, len(cols))
	for k, c := range cols {
		i, ok := t.Column(c)
		if !ok {
			return fmt.Errorf("internal error: the sweep table has no column %q (columns: %s)", c, strings.Join(t.Columns, ", "))
		}
		idx[k] = i
		head[k] = strings.TrimSuffix(c, "_mean")
	}
	head = append(head, "outcomes")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, row := range t.Rows {
		var cells []string
		for k, c := range cols {
			cell := results.FormatCell(row[idx[k]])
			if x, ok := row[idx[k]].(float64); ok {
				cell = results.FormatReadable(x)
			}
			if strings.HasSuffix(c, "_ci95") {
				cell = "±" + cell
			}
			cells = append(cells, cell)
		}
		var outs []string
		for _, o := range core.OutcomeNames() {
			if i, ok := t.Column(o); ok {
				if n, _ := row[i].(float64); n > 0 {
					outs = append(outs, fmt.Sprintf("%d %s", int(n), o))
				}
			}
		}
		cells = append(cells, strings.Join(outs, ", "))
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}

// parseShard parses "I/N" with 0 ≤ I < N.
func parseShard(s string) (int, int, error) {
	is, ns, ok := strings.Cut(s, "/")
	if !ok {
		return 0, 0, fmt.Errorf("want I/N, e.g. 0/4")
	}
	i, err1 := strconv.Atoi(strings.TrimSpace(is))
	n, err2 := strconv.Atoi(strings.TrimSpace(ns))
	switch {
	case err1 != nil || err2 != nil:
		return 0, 0, fmt.Errorf("want I/N with integers I and N, e.g. 0/4")
	case n < 1:
		return 0, 0, fmt.Errorf("the shard count N must be at least 1, got %d", n)
	case i < 0 || i >= n:
		return 0, 0, fmt.Errorf("the shard index I must be from 0 to N-1 = %d, got %d", n-1, i)
	}
	return i, n, nil
}

// shellArgs quotes args for a POSIX shell and joins them with spaces.
func shellArgs(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// sweepBar is the progress bar of a sweep: the runs done of those left to
// do (with the ETA), after the points done and the runs resumed. It appears on the first
// progress report when stderr is a terminal and there is work to do.
type sweepBar struct {
	e       env
	off     bool
	started bool
	bar     *progress // nil: no bar
}

// update is the sweep's progress callback.
func (b *sweepBar) update(p sweep.Progress) {
	if !b.started {
		b.started = true
		b.bar = newProgress(b.e, b.off, p.Runs-p.Resumed, "sweep")
	}
	if b.bar == nil {
		return
	}
	desc := fmt.Sprintf("sweep: points %d/%d, runs", p.PointsDone, p.Points)
	if p.Resumed > 0 {
		desc = fmt.Sprintf("sweep: points %d/%d (%s resumed), runs", p.PointsDone, p.Points, plural(p.Resumed, "run"))
	}
	b.bar.bar.Describe(desc)
	b.bar.done(p.RunsDone - p.Resumed)
}

// finish removes the bar.
func (b *sweepBar) finish() { b.bar.finish() }
