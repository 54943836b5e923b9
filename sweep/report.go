package sweep

// The report of a sweep (weft sweep, weft merge): a per-point table and plots
// of the headline metrics against each axis.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"weft/analysis"
	"weft/configs"
	"weft/core"
	"weft/internal/atomicfile"
	"weft/internal/version"
	"weft/results"
)

// Report lists what WriteReport wrote.
type Report struct {
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
	pt       *Point
	n        int
	metrics  []results.Summary // one per headline metric
	outcomes map[string]int
	// flagged and distinct are, per detector of the sweep, the runs with
	// a finding and the distinct findings over the point's runs.
	flagged, distinct []int
}

// WriteReport writes the report of a sweep into its directory dir:
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
//   - with detectors, plots/detection-vs-AXIS (or detection-by-AXIS,
//     detection-by-workload): each detector's share of a point's runs with
//     a finding, and plots/findings-vs-AXIS its distinct findings;
//   - report.md linking them, with the command that made them.
//
// runs are the sweep's runs (ReadRuns); points without runs are
// left out of the table and plots and counted in Missing.
func WriteReport(plan *Plan, runs []Record, dir, command string) (*Report, error) {
	metrics := HeadlineMetrics()
	byPoint := make([][]*Record, len(plan.Points))
	for i := range runs {
		r := &runs[i]
		if r.Point < 0 || r.Point >= len(plan.Points) {
			return nil, fmt.Errorf("sweep report: run of point %d, but the sweep has %d points", r.Point, len(plan.Points))
		}
		byPoint[r.Point] = append(byPoint[r.Point], r)
	}
	stats := make([]*pointStats, len(plan.Points)) // nil: no runs
	rep := &Report{}
	for _, m := range metrics {
		rep.Metrics = append(rep.Metrics, m.Name)
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
				xs[j] = m.Value(&r.Result)
			}
			ps.metrics = append(ps.metrics, results.Summarize(xs))
		}
		for _, r := range rs {
			ps.outcomes[r.Outcome.String()]++
		}
		for _, d := range plan.Spec.Detectors {
			var m analysis.Merger
			flagged := 0
			for j, r := range rs {
				fs := analysis.Of(d, r.Findings)
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
	plots, err := drawPlots(plan, stats, metrics, dir)
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
func pointTable(plan *Plan, stats []*pointStats, metrics []Metric) *results.Table {
	cols := []string{"point"}
	for _, a := range plan.Spec.Axes {
		cols = append(cols, a.Key)
	}
	cols = append(cols, "workload", "runs")
	for _, m := range metrics {
		cols = append(cols, m.Name+"_mean", m.Name+"_ci95")
	}
	outcomes := outcomeColumns(stats)
	cols = append(cols, outcomes...)
	for _, d := range plan.Spec.Detectors {
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
		for k := range plan.Spec.Detectors {
			row = append(row, ps.flagged[k], ps.distinct[k])
		}
		t.AddRow(row...)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("%d runs per point, seeds %d..%d; *_ci95 is the half-width of the 95%% interval of the mean (Student's t).",
		plan.Spec.Runs, plan.Spec.Seed, plan.Spec.Seed+uint64(plan.Spec.Runs)-1),
		"Made by weft "+version.String()+".")
	if len(plan.Spec.Detectors) > 0 {
		t.Notes = append(t.Notes, "DETECTOR_runs is the number of the point's runs in which the detector reported a finding; DETECTOR_findings the number of distinct findings (detector, kind, PCs) over them.")
	}
	return t
}

// outcomeColumns lists every outcome, in order of precedence (a runs
// file holds no other: reading one checks each outcome's name).
func outcomeColumns([]*pointStats) []string { return core.OutcomeNames() }

// axisCell converts an axis value to a table cell.
func axisCell(v any) any {
	switch x := v.(type) {
	case int64, float64, string:
		return x
	}
	return configs.FormatValue(v)
}

// reportMarkdown is the text of report.md.
func reportMarkdown(plan *Plan, rep *Report, nruns int, command string) string {
	s := plan.Spec
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
	b.WriteString("Lines are means over seeds with error bars of the 95% confidence interval of the mean.")
	if len(s.Detectors) > 0 {
		b.WriteString(" The detection plots give, per detector, the share of a point's runs in which it reported a finding (`DETECTOR_runs` over `runs` in the table), the findings plots its distinct findings over them (`DETECTOR_findings`).")
	}
	b.WriteString("\n\n")
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
