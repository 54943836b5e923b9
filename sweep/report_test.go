package sweep_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/results"
	"weft/sim"
	"weft/sweep"
)

// fakePlan is a plan with a categorical axis ("mode", not a config key: the
// report needs only the axes and points), a numeric axis and two workloads,
// and three runs per point with known metrics.
func fakePlan() (*sweep.Plan, []sweep.Record) {
	s := sweep.Spec{File: "fake.toml", Runs: 3, Seed: 1,
		Axes: []sweep.Axis{
			{Key: "mode", Values: []any{"slow", "fast"}},
			{Key: "machine.cores", Values: []any{int64(4), int64(2)}},
		},
		Workloads: []sweep.Workload{{Name: "fft"}, {Name: "lu"}},
	}
	plan := &sweep.Plan{Spec: s, Base: configs.Default(), Hash: "0123456789abcdef"}
	var runs []sweep.Record
	for p := range 8 {
		mode := s.Axes[0].Values[p/4]
		cores := s.Axes[1].Values[p/2%2]
		w := s.Workloads[p%2].Name
		axes := sweep.AxisValues{{Key: "mode", Value: mode}, {Key: "machine.cores", Value: cores}}
		plan.Points = append(plan.Points, sweep.Point{Index: p, Axes: axes, Workload: w, WorkloadIndex: p % 2, Config: configs.Default()})
		for r := range 3 {
			outcome := core.Pass
			if p == 3 && r == 2 {
				outcome = core.Hang
			}
			runs = append(runs, sweep.Record{Point: p, Run: r, Axes: axes, Result: sim.Result{
				Workload: w, Seed: uint64(1 + r), Outcome: outcome,
				Cycles: uint64(1000*(p+1) + 10*r),
				Stats: sim.Stats{{Name: "roi_cycles", Value: float64(1000*(p+1) + 10*r)},
					{Name: "ipc", Value: 1 + 0.1*float64(r)}, {Name: "l1_miss_rate", Value: 0.01 * float64(p+1)},
					{Name: "bus_utilization", Value: 0.5}},
			}})
		}
	}
	return plan, runs
}

// nonEmpty fails unless path exists and is not empty.
func nonEmpty(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Error(err)
		return
	}
	if fi.Size() == 0 {
		t.Errorf("%s is empty", path)
	}
}

func TestSweepReport(t *testing.T) {
	plan, runs := fakePlan()
	dir := t.TempDir()
	rep, err := sweep.WriteReport(plan, runs, dir, "weft sweep fake.toml --out x")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Missing != 0 || len(rep.Table.Rows) != 8 {
		t.Fatalf("missing %d, %d rows", rep.Missing, len(rep.Table.Rows))
	}

	// The table, in all three formats; CSV reads back to the same numbers.
	for _, ext := range []string{"csv", "md", "json"} {
		nonEmpty(t, filepath.Join(dir, "sweep."+ext))
	}
	f, err := os.Open(filepath.Join(dir, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tab, err := results.ReadCSV("sweep", f)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := "point,mode,machine.cores,workload,runs,roi_cycles_mean,roi_cycles_ci95,ipc_mean,ipc_ci95,l1_miss_rate_mean,l1_miss_rate_ci95,bus_utilization_mean,bus_utilization_ci95,pass,wrong_output,hang,error,assert,crash"
	if got := strings.Join(tab.Columns, ","); got != wantCols {
		t.Errorf("columns\n%s\nwant\n%s", got, wantCols)
	}
	col := func(name string) int {
		i, ok := tab.Column(name)
		if !ok {
			t.Fatalf("no column %s", name)
		}
		return i
	}
	row := tab.Rows[3] // point 3: slow, cores 2, lu; cycles 4000, 4010, 4020
	if row[col("mode")] != "slow" || row[col("machine.cores")] != 2.0 || row[col("workload")] != "lu" || row[col("runs")] != 3.0 {
		t.Errorf("row 3: %v", row)
	}
	if m := row[col("roi_cycles_mean")].(float64); m != 4010 {
		t.Errorf("roi_cycles_mean %v, want 4010", m)
	}
	// 95% CI of {4000, 4010, 4020}: t(0.975, 2) · 10 / √3.
	if ci := row[col("roi_cycles_ci95")].(float64); math.Abs(ci-4.302652729911275*10/math.Sqrt(3)) > 1e-6 {
		t.Errorf("roi_cycles_ci95 %v", ci)
	}
	if row[col("pass")] != 2.0 || row[col("hang")] != 1.0 || row[col("crash")] != 0.0 {
		t.Errorf("outcome counts: pass %v hang %v crash %v", row[col("pass")], row[col("hang")], row[col("crash")])
	}

	// A line plot per metric against the numeric axis, a grouped bar plot
	// per metric for the categorical one; every file non-empty.
	want := map[string]bool{}
	for _, m := range []string{"roi_cycles", "ipc", "l1_miss_rate", "bus_utilization"} {
		want[filepath.Join("plots", m+"-vs-machine.cores")] = true
		want[filepath.Join("plots", m+"-by-mode")] = true
	}
	if len(rep.Plots) != len(want) {
		t.Errorf("plots %v", rep.Plots)
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range rep.Plots {
		if !want[p] {
			t.Errorf("unexpected plot %s", p)
		}
		nonEmpty(t, filepath.Join(dir, p+".png"))
		nonEmpty(t, filepath.Join(dir, p+".svg"))
		if !strings.Contains(string(report), "("+filepath.ToSlash(p)+".png)") {
			t.Errorf("report.md does not link %s.png", p)
		}
	}
	for _, s := range []string{"weft sweep fake.toml --out x", "8 points × 3 runs", "`mode` = \"slow\", \"fast\"", "| lu |"} {
		if !strings.Contains(string(report), s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
}

func TestSweepReportPartialAndNoAxes(t *testing.T) {
	plan, runs := fakePlan()
	// Drop the runs of point 5: the table and plots leave it out.
	var kept []sweep.Record
	for _, r := range runs {
		if r.Point != 5 {
			kept = append(kept, r)
		}
	}
	dir := t.TempDir()
	rep, err := sweep.WriteReport(plan, kept, dir, "weft merge a b --out c --partial")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Missing != 1 || len(rep.Table.Rows) != 7 {
		t.Errorf("partial: missing %d, %d rows", rep.Missing, len(rep.Table.Rows))
	}
	report, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if !strings.Contains(string(report), "**Partial:** 1 of 8 points") {
		t.Error("report.md does not say it is partial")
	}

	// No axes: a bar plot per metric across the workloads.
	plan.Spec.Axes = nil
	plan.Points = plan.Points[:2]
	for i := range plan.Points {
		plan.Points[i].Axes = nil
	}
	dir = t.TempDir()
	rep, err = sweep.WriteReport(plan, runs[:6], dir, "weft sweep w.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Plots) != 4 || rep.Plots[0] != filepath.Join("plots", "roi_cycles-by-workload") {
		t.Errorf("no axes: plots %v", rep.Plots)
	}
	for _, p := range rep.Plots {
		nonEmpty(t, filepath.Join(dir, p+".png"))
		nonEmpty(t, filepath.Join(dir, p+".svg"))
	}
}

// TestSweepReportOfARun reports a real (tiny) sweep end to end.
func TestSweepReportOfARun(t *testing.T) {
	src := filepath.Join(t.TempDir(), "tiny.toml")
	text := "runs = 2\n[[axis]]\nkey = \"cache.l1.size_bytes\"\nvalues = [4096, 32768]\n" +
		"[[workload]]\nname = \"canneal\"\nparams = { ops_per_thread = 300 }\n[[workload]]\nname = \"counter-locked\"\n"
	if err := os.WriteFile(src, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := sweep.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	runs, err := sweep.ReadRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sweep.WriteReport(plan, runs, dir, "weft sweep tiny.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Table.Rows) != 4 || len(rep.Plots) != 4 {
		t.Fatalf("%d rows, plots %v", len(rep.Table.Rows), rep.Plots)
	}
	i, _ := rep.Table.Column("roi_cycles_mean")
	c0, _ := runs[0].Stats.Get("roi_cycles")
	c1, _ := runs[1].Stats.Get("roi_cycles")
	if got, want := rep.Table.Rows[0][i].(float64), (c0+c1)/2; got != want {
		t.Errorf("point 0 roi_cycles_mean %v, want %v", got, want)
	}
}

// A sweep with detectors draws their detection: the share of each point's
// runs with a finding, against the numeric axis and by the categorical
// one (issue 25: detect-jitter.toml drew none); without axes, by workload.
func TestSweepReportDetectionPlots(t *testing.T) {
	plan, runs := fakePlan()
	plan.Spec.Detectors = []string{"hb", "lockset"}
	for i := range runs {
		if runs[i].Run == 0 {
			runs[i].Result.Findings = sim.Findings{{Detector: "hb", Kind: "race", PCs: []int32{1, 2}}}
		}
	}
	dir := t.TempDir()
	rep, err := sweep.WriteReport(plan, runs, dir, "weft sweep fake.toml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"detection-vs-machine.cores", "detection-by-mode", "findings-vs-machine.cores", "findings-by-mode"} {
		rel := filepath.Join("plots", p)
		found := false
		for _, q := range rep.Plots {
			found = found || q == rel
		}
		if !found {
			t.Errorf("no %s among %v", p, rep.Plots)
			continue
		}
		svg, err := os.ReadFile(filepath.Join(dir, rel+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		label := "share of runs with a finding"
		if strings.HasPrefix(p, "findings") {
			label = "distinct findings over the runs"
		}
		for _, s := range []string{label, "fft", "lockset"} {
			if !strings.Contains(string(svg), s) {
				t.Errorf("%s.svg lacks %q", p, s)
			}
		}
	}

	plan.Spec.Axes = nil
	plan.Points = plan.Points[:2] // fft and lu
	for i := range plan.Points {
		plan.Points[i].Axes = nil
	}
	rep, err = sweep.WriteReport(plan, runs[:6], t.TempDir(), "weft sweep fake.toml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(rep.Plots, " "), filepath.Join("plots", "detection-by-workload")) {
		t.Errorf("no detection-by-workload among %v", rep.Plots)
	}
}
