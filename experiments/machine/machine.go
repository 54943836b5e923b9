// Package machine holds weft's machine studies: the synthetic profiles
// swept over one machine parameter (core count, L1 size), with no paper
// table to compare with. They are the baseline the hardware extensions'
// overheads are measured against.
package machine

import (
	"fmt"

	"weft/core"
	"weft/experiments"
	"weft/results"
	"weft/sim"
	"weft/sweep"
	"weft/workloads"
)

// profileNames returns the synthetic profiles an experiment covers.
func profileNames(quick bool) []string {
	if quick {
		return []string{"blackscholes", "canneal", "fft"}
	}
	var names []string
	for _, e := range workloads.List() {
		if e.Kind == workloads.Profile && e.Name != "mixed" {
			names = append(names, e.Name)
		}
	}
	return names
}

// sweepStudy runs every profile at every value of one config key and
// reports each metric's mean and 95% CI over seeds, as a table and as one
// line plot per metric. It is a one-axis sweep: the sweep planner expands
// the points and builds each profile for its point's core count.
type sweepStudy struct {
	name, title, key, axisLabel string
	values                      []int64
	quickValues                 []int64
	// base is a preset name; its config is what the report records.
	base           string
	seeds          int
	intro, comment string
}

func (s sweepStudy) run(env experiments.Env) (*experiments.Report, error) {
	values := s.values
	if env.Quick {
		values = s.quickValues
	}
	names := profileNames(env.Quick)
	seeds := env.SeedsOr(s.seeds)
	axis := sweep.Axis{Key: s.key}
	for _, v := range values {
		axis.Values = append(axis.Values, v)
	}
	sw := sweep.Spec{Name: s.name, Base: s.base, Runs: seeds, Seed: 1, Axes: []sweep.Axis{axis}}
	for _, n := range names {
		sw.Workloads = append(sw.Workloads, sweep.Workload{Name: n})
	}
	plan, err := sweep.NewPlan(sw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	// The plan's points run the first axis slowest and the workload
	// fastest; the report lists each workload's values together.
	type point struct {
		workload string
		value    int64
	}
	var points []point
	var jobs []sim.Job
	for w, name := range names {
		for i, v := range values {
			pt := plan.Points[i*len(names)+w]
			points = append(points, point{name, v})
			for r := 0; r < seeds; r++ {
				jobs = append(jobs, sim.Job{Config: pt.Config, Program: pt.Program, Seed: sw.Seed + uint64(r)})
			}
		}
	}
	runs, err := experiments.RunJobs(env, jobs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.name, err)
	}
	metrics := sweep.Metrics()
	cols := []string{"workload", s.key}
	for _, m := range metrics {
		cols = append(cols, m.Name, m.Name+" ci95")
	}
	cols = append(cols, "runs passed")
	t := results.NewTable(s.name, s.title, cols...)
	// lines[m][workload] accumulates the plot series.
	lines := make([]map[string]*results.LineSeries, len(metrics))
	for i := range lines {
		lines[i] = map[string]*results.LineSeries{}
	}
	for p, pt := range points {
		rs := runs[p*seeds : (p+1)*seeds]
		row := []any{pt.workload, pt.value}
		passed := 0
		for _, r := range rs {
			if r.Outcome == core.Pass {
				passed++
			}
		}
		for i, m := range metrics {
			xs := make([]float64, len(rs))
			for k := range rs {
				xs[k] = m.Value(&rs[k])
			}
			sum := results.Summarize(xs)
			row = append(row, sum.Mean, sum.CI95)
			ls := lines[i][pt.workload]
			if ls == nil {
				ls = &results.LineSeries{Name: pt.workload}
				lines[i][pt.workload] = ls
			}
			ls.X = append(ls.X, float64(pt.value))
			ls.Y = append(ls.Y, sum.Mean)
			ls.YErr = append(ls.YErr, sum.CI95)
		}
		row = append(row, fmt.Sprintf("%d/%d", passed, len(rs)))
		t.AddRow(row...)
	}
	t.Notes = append(t.Notes, fmt.Sprintf("Means over %d seeds; ci95 is the half-width of the 95%% confidence interval (t distribution).", seeds))
	sec := experiments.Section{Tables: []*results.Table{t}, Comment: s.comment}
	for i, m := range metrics {
		var series []results.LineSeries
		for _, name := range names {
			series = append(series, *lines[i][name])
		}
		mi := i
		title := fmt.Sprintf("%s vs %s", m.LabelInStudy(), s.axisLabel)
		data := results.NewTable(s.name+"-"+m.Name, title, "workload", s.key, m.Name, m.Name+" ci95")
		for _, ls := range series {
			for k := range ls.X {
				data.AddRow(ls.Name, ls.X[k], ls.Y[k], ls.YErr[k])
			}
		}
		sec.Plots = append(sec.Plots, experiments.Plot{
			Name:    s.name + "-" + m.Name,
			Caption: title + " (one line per profile, error bars: 95% CI over seeds)",
			Data:    data,
			Draw: func(path string) error {
				return results.Line(title, s.axisLabel, metrics[mi].LabelInStudy(), series, path)
			},
		})
	}
	return &experiments.Report{
		Name:         s.name,
		Title:        s.title,
		Intro:        s.intro,
		Sections:     []experiments.Section{sec},
		Configs:      []experiments.NamedConfig{{Name: s.base + fmt.Sprintf(" with %s swept over %v", s.key, values), Config: plan.Base}},
		Seeds:        fmt.Sprintf("%d..%d at every point", sw.Seed, sw.Seed+uint64(seeds)-1),
		Command:      "weft reproduce " + s.name,
		Summary:      fmt.Sprintf("%d profiles × %d values of %s × %d seeds", len(names), len(values), s.key, seeds),
		Instructions: experiments.TotalInstructions(runs),
	}, nil
}

// Scaling is `weft reproduce machine-scaling`.
func Scaling() experiments.Experiment {
	s := sweepStudy{
		name: "machine-scaling", title: "Synthetic profiles across core counts",
		key: "machine.cores", axisLabel: "cores",
		values: []int64{2, 4, 8, 16, 32}, quickValues: []int64{2, 8},
		base: "default", seeds: 3,
		intro: `The machine-overhead study that needs only the simulator core: the 14
named synthetic profiles (PARSEC- and SPLASH-2-like, one thread per core, a fixed
amount of work split among the threads) on the default machine with 2 to 32
cores. It reports cycles of the region of interest, IPC summed over cores,
the L1 miss rate, bus utilisation, bus transactions and coherence misses per
10k memory operations. No paper reports this table for weft's machine; it is
the baseline against which the hardware extensions' overheads will be
measured.`,
		comment: `There is no paper table to compare with. What to expect from a snooping bus: profiles without sharing
(blackscholes, canneal) scale until the single atomic bus saturates; sharing-heavy ones (fft, lu, the
barrier-phased SPLASH-2 profiles) see coherence misses and bus transactions per operation grow with the
core count, and their cycles stop falling early.`,
	}
	return experiments.Experiment{Name: s.name, Title: s.title, Run: s.run}
}

// Cache is `weft reproduce machine-cache`.
func Cache() experiments.Experiment {
	s := sweepStudy{
		name: "machine-cache", title: "Synthetic profiles across L1 sizes",
		key: "cache.l1.size_bytes", axisLabel: "L1 size (bytes)",
		values: []int64{8192, 16384, 32768, 65536, 131072}, quickValues: []int64{8192, 32768},
		base: "default", seeds: 3,
		intro: `The 14 named synthetic profiles on the default 8-core machine with a private L1 of
8 KB to 128 KB (8-way, 64-byte lines). Capacity misses fall as the working
set fits; coherence misses do not depend on the size.`,
		comment: `No paper table to compare with. The profiles' private working sets were sized against the 32 KB L1 of
the Bugaboo machine, so the knee of the miss-rate curves sits near 32–64 KB by construction.`,
	}
	return experiments.Experiment{Name: s.name, Title: s.title, Run: s.run}
}
