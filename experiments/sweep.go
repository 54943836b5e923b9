package experiments

// The report of a sweep (weft sweep, weft merge): a per-point table and plots
// of the headline metrics against each axis.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"weft/internal/atomicfile"
	"weft/internal/version"

	"weft/coherence"
	"weft/configs"
	"weft/core"
	"weft/cpu"
	"weft/detectors"
	"weft/results"
	"weft/sim"
)

// sweepMetric is a headline metric of a sweep report.
type sweepMetric struct {
	name  string // column stem and file-name part: "cycles"
	label string // axis label: "cycles"
	value func(r *sim.SweepRun) float64
}

// headlineMetrics are the metrics every sweep report tabulates and plots:
// cycles, IPC, L1 miss rate and bus utilisation, all over the region of
// interest (the whole run when the program has no roi), so cycles × IPC is
// the instructions counted.
func headlineMetrics() []sweepMetric {
	statOf := func(name string) func(r *sim.SweepRun) float64 {
		return func(r *sim.SweepRun) float64 {
			v, _ := r.Stats.Get(name)
			return v
		}
	}
	return []sweepMetric{
		{core.ROICycles, "cycles (region of interest)", statOf(core.ROICycles)},
		{cpu.IPC, "IPC (instructions per ROI cycle)", statOf(cpu.IPC)},
		{coherence.L1MissRate, "L1 miss rate", statOf(coherence.L1MissRate)},
		{coherence.BusUtilization, "bus utilisation", statOf(coherence.BusUtilization)},
	}
}

// outcomeNames are the run outcomes in order of precedence (cpu.OutcomeKind).
func outcomeNames() []string {
	return []string{"pass", "wrong_output", "hang", "error", "assert", "crash"}
}

// SweepReport lists what WriteSweepReport wrote.
type SweepReport struct {
	// Table is the per-point table (saved as sweep.csv, .md and .json).
	Table *results.Table
	// Metrics are the headline metrics' column stems, in table order: the
	// table has NAME_mean and NAME_ci95 for each.
	Metrics []string
	// Plots are the plot files without extension (each has .png and
	// .svg), relative to the sweep directory.
	Plots []string
	// Missing is the number of points with no runs (a partial merge).
	Missing int
}

// pointStats is one point's runs summarised.
type pointStats struct {
	pt       *sim.SweepPoint
	n        int
	metrics  []results.Summary // one per headline metric
	outcomes map[string]int
	// flagged and distinct are, per detector of the sweep, the runs with
	// a finding and the distinct findings over the point's runs.
	flagged, distinct []int
}

// WriteSweepReport writes the report of a sweep into its directory dir:
//
//   - sweep.csv, sweep.md, sweep.json: one row per point with its axis
//     values, workload, number of runs, the mean and 95% confidence
//     half-width over seeds of cycles, ipc, l1_miss_rate and
//     bus_utilization, and the count of each outcome;
//   - plots/METRIC-vs-AXIS.{png,svg} for each numeric axis: each headline
//     metric against the axis, one line per workload (and per combination
//     of the other axes' values), error bars the 95% interval over seeds;
//   - plots/METRIC-by-AXIS.{png,svg} for each categorical axis: a grouped
//     bar plot of each metric's mean (plots/METRIC-by-workload with no
//     axes);
//   - report.md linking them, with the command that made them.
//
// runs are the sweep's runs (sim.ReadSweepRuns); points without runs are
// left out of the table and plots and counted in Missing.
func WriteSweepReport(plan *sim.SweepPlan, runs []sim.SweepRun, dir, command string) (*SweepReport, error) {
	metrics := headlineMetrics()
	byPoint := make([][]*sim.SweepRun, len(plan.Points))
	for i := range runs {
		r := &runs[i]
		if r.Point < 0 || r.Point >= len(plan.Points) {
			return nil, fmt.Errorf("sweep report: run of point %d, but the sweep has %d points", r.Point, len(plan.Points))
		}
		byPoint[r.Point] = append(byPoint[r.Point], r)
	}
	stats := make([]*pointStats, len(plan.Points)) // nil: no runs
	rep := &SweepReport{}
	for _, m := range metrics {
		rep.Metrics = append(rep.Metrics, m.name)
	}
	for i := range plan.Points {
		rs := byPoint[i]
		if len(rs) == 0 {
			rep.Missing++
			continue
		}
		ps := &pointStats{pt: &plan.Points[i], n: len(rs), outcomes: map[string]int{}}
		for _, m := range metrics {
			xs := make([]float64, len(rs))
			for j, r := range rs {
				xs[j] = m.value(r)
			}
			ps.metrics = append(ps.metrics, results.Summarize(xs))
		}
		for _, r := range rs {
			ps.outcomes[r.Outcome]++
		}
		for _, d := range plan.Sweep.Detectors {
			var m detectors.Merger
			flagged := 0
			for j, r := range rs {
				fs := detectors.Of(d, r.Findings)
				m.Add(j, r.Seed, fs)
				if len(fs) > 0 {
					flagged++
				}
			}
			ps.flagged = append(ps.flagged, flagged)
			ps.distinct = append(ps.distinct, len(m.Merged()))
		}
		stats[i] = ps
	}

	rep.Table = pointTable(plan, stats, metrics)
	if rep.Missing > 0 {
		rep.Table.Notes = append(rep.Table.Notes, fmt.Sprintf("%d of %d points have no runs (a partial merge) and are left out.", rep.Missing, len(plan.Points)))
	}
	if err := rep.Table.Save(dir); err != nil {
		return nil, fmt.Errorf("sweep report: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "plots"), 0o755); err != nil {
		return nil, fmt.Errorf("sweep report: %w", err)
	}
	plots, err := sweepPlots(plan, stats, metrics, dir)
	if err != nil {
		return nil, fmt.Errorf("sweep report: %w", err)
	}
	rep.Plots = plots
	if err := atomicfile.WriteFile(filepath.Join(dir, "report.md"), []byte(reportMarkdown(plan, rep, len(runs), command))); err != nil {
		return nil, fmt.Errorf("sweep report: %w", err)
	}
	return rep, nil
}

// pointTable builds the per-point table.
func pointTable(plan *sim.SweepPlan, stats []*pointStats, metrics []sweepMetric) *results.Table {
	cols := []string{"point"}
	for _, a := range plan.Sweep.Axes {
		cols = append(cols, a.Key)
	}
	cols = append(cols, "workload", "runs")
	for _, m := range metrics {
		cols = append(cols, m.name+"_mean", m.name+"_ci95")
	}
	outcomes := outcomeColumns(stats)
	cols = append(cols, outcomes...)
	for _, d := range plan.Sweep.Detectors {
		cols = append(cols, d+"_runs", d+"_findings")
	}
	t := results.NewTable("sweep", "Sweep "+plan.Hash+": mean and 95% CI over seeds per point", cols...)
	for _, ps := range stats {
		if ps == nil {
			continue
		}
		row := []any{ps.pt.Index}
		for _, v := range ps.pt.Axes {
			row = append(row, axisCell(v.Value))
		}
		row = append(row, ps.pt.Workload, ps.n)
		for _, s := range ps.metrics {
			row = append(row, s.Mean, s.CI95)
		}
		for _, o := range outcomes {
			row = append(row, ps.outcomes[o])
		}
		for k := range plan.Sweep.Detectors {
			row = append(row, ps.flagged[k], ps.distinct[k])
		}
		t.AddRow(row...)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d runs per point, seeds %d..%d; *_ci95 is the half-width of the 95%% interval of the mean (Student's t).",
		plan.Sweep.Runs, plan.Sweep.Seed, plan.Sweep.Seed+uint64(plan.Sweep.Runs)-1),
		"Made by weft "+version.String()+".")
	if len(plan.Sweep.Detectors) > 0 {
		t.Notes = append(t.Notes, "DETECTOR_runs is the number of the point's runs in which the detector reported a finding; DETECTOR_findings the number of distinct findings (detector, kind, PCs) over them.")
	}
	return t
}

// outcomeColumns lists every known outcome, then any other outcome the runs
// have, sorted.
func outcomeColumns(stats []*pointStats) []string {
	cols := outcomeNames()
	extra := map[string]bool{}
	for _, ps := range stats {
		if ps == nil {
			continue
		}
		for o := range ps.outcomes {
			if !hasString(cols, o) {
				extra[o] = true
			}
		}
	}
	var more []string
	for o := range extra {
		more = append(more, o)
	}
	sort.Strings(more)
	return append(cols, more...)
}

// axisCell converts an axis value to a table cell.
func axisCell(v any) any {
	switch x := v.(type) {
	case int64, float64, string:
		return x
	}
	return configs.FormatValue(v)
}

// sweepSeries is one line (or bar series) of a plot: a workload and a value of
// every axis but the plotted one, with a point per value of that axis.
type sweepSeries struct {
	name     string
	workload string
	points   []*pointStats // in axis-value order; nil where the point has no runs
}

// groupPoints splits the points by everything but axis: the workload and the
// other axes' values, in order of first appearance. Each group holds one
// point per value of axis (-1: no axis, one point per group).
func groupPoints(plan *sim.SweepPlan, stats []*pointStats, axis int) []*sweepSeries {
	var groups []*sweepSeries
	index := map[string]*sweepSeries{}
	nvals := 1
	if axis >= 0 {
		nvals = len(plan.Sweep.Axes[axis].Values)
	}
	for i := range plan.Points {
		pt := &plan.Points[i]
		var parts []string
		for j, v := range pt.Axes {
			if j != axis {
				parts = append(parts, v.Key+"="+configs.FormatValue(v.Value))
			}
		}
		name := pt.Workload
		if len(parts) > 0 {
			name += ", " + strings.Join(parts, ", ")
		}
		g, ok := index[name]
		if !ok {
			g = &sweepSeries{name: name, workload: pt.Workload, points: make([]*pointStats, nvals)}
			index[name] = g
			groups = append(groups, g)
		}
		slot := 0
		if axis >= 0 {
			slot = valueIndex(plan.Sweep.Axes[axis], pt.Axes[axis].Value)
		}
		g.points[slot] = stats[i]
	}
	return groups
}

// valueIndex returns the position of v among the axis's values.
func valueIndex(a configs.Axis, v any) int {
	for i, x := range a.Values {
		if configs.FormatValue(x) == configs.FormatValue(v) {
			return i
		}
	}
	return 0
}

// sweepPlots draws every plot of the report into dir/plots and returns
// their paths relative to dir, without extension.
func sweepPlots(plan *sim.SweepPlan, stats []*pointStats, metrics []sweepMetric, dir string) ([]string, error) {
	var plots []string
	axes := plan.Sweep.Axes
	if len(axes) == 0 {
		groups := groupPoints(plan, stats, -1)
		for mi, m := range metrics {
			var cats []string
			var vals []float64
			for _, g := range groups {
				if ps := g.points[0]; ps != nil {
					cats = append(cats, g.name)
					vals = append(vals, ps.metrics[mi].Mean)
				}
			}
			if len(cats) == 0 {
				continue
			}
			rel := filepath.Join("plots", m.name+"-by-workload")
			if err := results.Bar(m.label+" by workload", m.label, cats, vals, filepath.Join(dir, rel)); err != nil {
				return nil, err
			}
			plots = append(plots, rel)
		}
		return plots, nil
	}
	for ai, a := range axes {
		groups := groupPoints(plan, stats, ai)
		for mi, m := range metrics {
			var rel string
			var err error
			if a.Numeric() {
				rel = filepath.Join("plots", m.name+"-vs-"+a.Key)
				err = linePlot(a, groups, mi, m, filepath.Join(dir, rel))
			} else {
				rel = filepath.Join("plots", m.name+"-by-"+a.Key)
				err = barPlot(a, groups, mi, m, filepath.Join(dir, rel))
			}
			if errors.Is(err, errNoData) {
				continue
			}
			if err != nil {
				return nil, err
			}
			plots = append(plots, rel)
		}
	}
	return plots, nil
}

// errNoData says a plot had no points to draw and was skipped.
var errNoData = errors.New("no data")

// linePlot draws metric mi against the numeric axis a, a line per group
// with error bars of the 95% interval, points in increasing axis order.
func linePlot(a configs.Axis, groups []*sweepSeries, mi int, m sweepMetric, path string) error {
	order := make([]int, len(a.Values))
	for i := range order {
		order[i] = i
	}
	num := func(v any) float64 {
		switch x := v.(type) {
		case int64:
			return float64(x)
		case float64:
			return x
		}
		return 0
	}
	sort.SliceStable(order, func(i, j int) bool { return num(a.Values[order[i]]) < num(a.Values[order[j]]) })
	// A workload's lines (one per value of the other axes) share a colour
	// and sit together in the legend.
	var lines []results.LineSeries
	first := map[string]int{}
	for _, g := range groups {
		if _, ok := first[g.workload]; !ok {
			first[g.workload] = len(first)
		}
	}
	groups = slices.Clone(groups)
	sort.SliceStable(groups, func(i, j int) bool { return first[groups[i].workload] < first[groups[j].workload] })
	for _, g := range groups {
		ls := results.LineSeries{Name: g.name, Family: g.workload}
		for _, i := range order {
			ps := g.points[i]
			if ps == nil {
				continue
			}
			s := ps.metrics[mi]
			ls.X = append(ls.X, num(a.Values[i]))
			ls.Y = append(ls.Y, s.Mean)
			ls.YErr = append(ls.YErr, s.CI95)
		}
		if len(ls.X) > 0 {
			lines = append(lines, ls)
		}
	}
	if len(lines) == 0 {
		return errNoData
	}
	return results.Line(m.label+" vs "+a.Key, a.Key, m.label, lines, path)
}

// barPlot draws metric mi's mean for each value of the categorical axis a,
// a bar per group (0 where a point has no runs).
func barPlot(a configs.Axis, groups []*sweepSeries, mi int, m sweepMetric, path string) error {
	cats := make([]string, len(a.Values))
	for i, v := range a.Values {
		cats[i] = configs.FormatValue(v)
		if s, ok := v.(string); ok {
			cats[i] = s
		}
	}
	var bars []results.Series
	for _, g := range groups {
		s := results.Series{Name: g.name, Values: make([]float64, len(cats))}
		has := false
		for i, ps := range g.points {
			if ps != nil {
				s.Values[i] = ps.metrics[mi].Mean
				has = true
			}
		}
		if has {
			bars = append(bars, s)
		}
	}
	if len(bars) == 0 {
		return errNoData
	}
	return results.GroupedBar(m.label+" by "+a.Key, m.label, cats, bars, path)
}

// reportMarkdown is the text of report.md.
func reportMarkdown(plan *sim.SweepPlan, rep *SweepReport, nruns int, command string) string {
	s := plan.Sweep
	var b strings.Builder
	fmt.Fprintf(&b, "# Sweep %s\n\n", s.Name)
	fmt.Fprintf(&b, "Made by:\n\n```sh\n%s\n```\n\n", command)
	var axes []string
	for _, a := range s.Axes {
		vals := make([]string, len(a.Values))
		for i, v := range a.Values {
			vals[i] = configs.FormatValue(v)
		}
		axes = append(axes, fmt.Sprintf("`%s` = %s", a.Key, strings.Join(vals, ", ")))
	}
	var wls []string
	for _, w := range s.Workloads {
		wls = append(wls, "`"+w.Label()+"`")
	}
	fmt.Fprintf(&b, "Sweep `%s`: %d points × %d runs (seeds %d..%d) = %d runs; %d in `runs.jsonl`.\n\n",
		plan.Hash, len(plan.Points), s.Runs, s.Seed, s.Seed+uint64(s.Runs)-1, plan.Runs(), nruns)
	if len(axes) > 0 {
		fmt.Fprintf(&b, "- Axes: %s.\n", strings.Join(axes, "; "))
	}
	fmt.Fprintf(&b, "- Workloads: %s.\n", strings.Join(wls, ", "))
	fmt.Fprintf(&b, "- Base config: `base.toml` (config hash %s), the base with every `set` override applied.\n", plan.Base.Hash())
	fmt.Fprintf(&b, "- Made by weft %s (`weft version`; each run in `runs.jsonl` records the version that ran it).\n", version.String())
	fmt.Fprintf(&b, "- Files: `sweep.toml` (the spec; `weft sweep DIR/sweep.toml` resumes it), "+
		"`runs.jsonl` (one JSON line per run), `sweep.csv`, `sweep.md`, `sweep.json` (the table below).\n")
	for _, n := range plan.Notes {
		fmt.Fprintf(&b, "- Note: %s\n", n)
	}
	if rep.Missing > 0 {
		fmt.Fprintf(&b, "\n**Partial:** %d of %d points have no runs and are left out of the table and plots.\n", rep.Missing, len(plan.Points))
	}
	b.WriteString("\n## Plots\n\n")
	b.WriteString("Lines are means over seeds with error bars of the 95% confidence interval of the mean.\n\n")
	for _, p := range rep.Plots {
		slash := filepath.ToSlash(p)
		title := strings.TrimPrefix(slash, "plots/")
		fmt.Fprintf(&b, "### %s\n\n![%s](%s.png)\n\n[SVG](%s.svg)\n\n", title, title, slash, slash)
	}
	b.WriteString("## Per-point results\n\n")
	var tb strings.Builder
	if err := rep.Table.WriteMarkdown(&tb); err == nil {
		b.WriteString(tb.String())
	} else {
		b.WriteString("See `sweep.md`.\n")
	}
	return b.String()
}

// hasString reports whether list holds s.
func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
