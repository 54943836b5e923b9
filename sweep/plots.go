package sweep

// The plots of a sweep report: each headline metric against each axis.

import (
	"errors"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"weft/configs"
	"weft/results"
)

// series is one line (or bar series) of a plot: a workload and a value of
// every axis but the plotted one, with a point per value of that axis.
type series struct {
	name     string
	workload string
	points   []*pointStats // in axis-value order; nil where the point has no runs
}

// groupPoints splits the points by everything but axis: the workload and the
// other axes' values, in order of first appearance. Each group holds one
// point per value of axis (-1: no axis, one point per group).
func groupPoints(plan *Plan, stats []*pointStats, axis int) []*series {
	var groups []*series
	index := map[string]*series{}
	nvals := 1
	if axis >= 0 {
		nvals = len(plan.Spec.Axes[axis].Values)
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
			g = &series{name: name, workload: pt.Workload, points: make([]*pointStats, nvals)}
			index[name] = g
			groups = append(groups, g)
		}
		slot := 0
		if axis >= 0 {
			slot = valueIndex(plan.Spec.Axes[axis], pt.Axes[axis].Value)
		}
		g.points[slot] = stats[i]
	}
	return groups
}

// valueIndex returns the position of v among the axis's values.
func valueIndex(a Axis, v any) int {
	for i, x := range a.Values {
		if configs.FormatValue(x) == configs.FormatValue(v) {
			return i
		}
	}
	return 0
}

// drawPlots draws every plot of the report into dir/plots and returns
// their paths relative to dir, without extension.
func drawPlots(plan *Plan, stats []*pointStats, metrics []Metric, dir string) ([]string, error) {
	var plots []string
	axes := plan.Spec.Axes
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
			rel := filepath.Join("plots", m.Name+"-by-workload")
			if err := results.Bar(m.Label+" by workload", m.Label, cats, vals, filepath.Join(dir, rel)); err != nil {
				return nil, err
			}
			plots = append(plots, rel)
		}
		for _, dm := range detectionMeasures {
			if len(plan.Spec.Detectors) == 0 {
				break
			}
			rel := filepath.Join("plots", dm.name+"-by-workload")
			err := detectionBars(dm, plan.Spec.Detectors, nil, groups, filepath.Join(dir, rel), "workload")
			if err != nil && !errors.Is(err, errNoData) {
				return nil, err
			}
			if err == nil {
				plots = append(plots, rel)
			}
		}
		return plots, nil
	}
	for ai, a := range axes {
		groups := groupPoints(plan, stats, ai)
		for mi, m := range metrics {
			var rel string
			var err error
			if a.Numeric() {
				rel = filepath.Join("plots", m.Name+"-vs-"+a.Key)
				err = linePlot(a, groups, mi, m, filepath.Join(dir, rel))
			} else {
				rel = filepath.Join("plots", m.Name+"-by-"+a.Key)
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
		for _, dm := range detectionMeasures {
			if len(plan.Spec.Detectors) == 0 {
				break
			}
			var rel string
			var err error
			if a.Numeric() {
				rel = filepath.Join("plots", dm.name+"-vs-"+a.Key)
				err = detectionLines(dm, plan.Spec.Detectors, a, groups, filepath.Join(dir, rel))
			} else {
				rel = filepath.Join("plots", dm.name+"-by-"+a.Key)
				err = detectionBars(dm, plan.Spec.Detectors, &a, groups, filepath.Join(dir, rel), a.Key)
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

// detectionMeasure is what a detection plot shows of a detector's
// findings at a point.
type detectionMeasure struct {
	// name is the plot files' stem, title the title's start, label the y
	// axis's label.
	name, title, label string
	// shares says the values are shares (a 0–1 axis).
	shares bool
	// value is detector k's value at a point.
	value func(ps *pointStats, k int) float64
}

// detectionMeasures are the detection plots: the share of a point's runs
// with a finding (DETECTOR_runs over runs) and the distinct findings over
// them (DETECTOR_findings), which tells detectors apart where every run
// has one.
var detectionMeasures = []detectionMeasure{
	{name: "detection", title: "Detection", label: "share of runs with a finding", shares: true,
		value: func(ps *pointStats, k int) float64 { return float64(ps.flagged[k]) / float64(ps.n) }},
	{name: "findings", title: "Distinct findings", label: "distinct findings over the runs",
		value: func(ps *pointStats, k int) float64 { return float64(ps.distinct[k]) }},
}

// detectionLines draws dm (the share of a point's runs with a finding, or
// the distinct findings) against the numeric axis a: a line per group and
// detector, a group's lines in one colour, a detector's in one style.
func detectionLines(dm detectionMeasure, detectors []string, a Axis, groups []*series, path string) error {
	order := axisOrder(a)
	var lines []results.LineSeries
	for _, g := range sortedByWorkload(groups) {
		for k, d := range detectors {
			ls := results.LineSeries{Name: g.name + ": " + d, Family: g.name}
			for _, i := range order {
				if ps := g.points[i]; ps != nil && ps.n > 0 {
					ls.X = append(ls.X, axisNumber(a.Values[i]))
					ls.Y = append(ls.Y, dm.value(ps, k))
				}
			}
			if len(ls.X) > 0 {
				lines = append(lines, ls)
			}
		}
	}
	if len(lines) == 0 {
		return errNoData
	}
	return results.LineChart{Title: dm.title + " vs " + a.Key, XLabel: a.Key, YLabel: dm.label, Series: lines, Shares: dm.shares}.Draw(path)
}

// detectionBars draws dm per detector: for each value of the categorical
// axis a, a bar per group and detector; with no axis (a nil), for each
// group a bar per detector. by names the x axis in the title.
func detectionBars(dm detectionMeasure, detectors []string, a *Axis, groups []*series, path, by string) error {
	var cats []string
	var bars []results.Series
	if a == nil {
		for k, d := range detectors {
			s := results.Series{Name: d}
			for _, g := range groups {
				if ps := g.points[0]; ps != nil && ps.n > 0 {
					if k == 0 {
						cats = append(cats, g.name)
					}
					s.Values = append(s.Values, dm.value(ps, k))
				}
			}
			bars = append(bars, s)
		}
		if len(cats) == 0 {
			return errNoData
		}
	} else {
		cats = axisCategories(*a)
		for _, g := range groups {
			for k, d := range detectors {
				s := results.Series{Name: g.name + ": " + d, Values: make([]float64, len(cats))}
				has := false
				for i, ps := range g.points {
					if ps != nil && ps.n > 0 {
						s.Values[i] = dm.value(ps, k)
						has = true
					}
				}
				if has {
					bars = append(bars, s)
				}
			}
		}
		if len(bars) == 0 {
			return errNoData
		}
	}
	return results.GroupedBar(dm.title+" by "+by, dm.label, cats, bars, path)
}

// errNoData says a plot had no points to draw and was skipped.
var errNoData = errors.New("no data")

// linePlot draws metric mi against the numeric axis a, a line per group
// with error bars of the 95% interval, points in increasing axis order.
func linePlot(a Axis, groups []*series, mi int, m Metric, path string) error {
	order := axisOrder(a)
	num := axisNumber
	// A workload's lines (one per value of the other axes) share a colour
	// and sit together in the legend.
	var lines []results.LineSeries
	for _, g := range sortedByWorkload(groups) {
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
	return results.Line(m.Label+" vs "+a.Key, a.Key, m.Label, lines, path)
}

// axisOrder returns the indices of the numeric axis a's values in
// increasing order of value.
func axisOrder(a Axis) []int {
	order := make([]int, len(a.Values))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return axisNumber(a.Values[order[i]]) < axisNumber(a.Values[order[j]]) })
	return order
}

// axisNumber is a numeric axis value as a float64 (0 for any other).
func axisNumber(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// sortedByWorkload returns groups with each workload's together, in order
// of the workloads' first appearance.
func sortedByWorkload(groups []*series) []*series {
	first := map[string]int{}
	for _, g := range groups {
		if _, ok := first[g.workload]; !ok {
			first[g.workload] = len(first)
		}
	}
	groups = slices.Clone(groups)
	sort.SliceStable(groups, func(i, j int) bool { return first[groups[i].workload] < first[groups[j].workload] })
	return groups
}

// axisCategories are the categorical axis a's values as labels.
func axisCategories(a Axis) []string {
	cats := make([]string, len(a.Values))
	for i, v := range a.Values {
		cats[i] = configs.FormatValue(v)
		if s, ok := v.(string); ok {
			cats[i] = s
		}
	}
	return cats
}

// barPlot draws metric mi's mean for each value of the categorical axis a,
// a bar per group (0 where a point has no runs).
func barPlot(a Axis, groups []*series, mi int, m Metric, path string) error {
	cats := axisCategories(a)
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
	return results.GroupedBar(m.Label+" by "+a.Key, m.Label, cats, bars, path)
}
