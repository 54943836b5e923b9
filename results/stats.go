package results

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// A Summary describes a sample, typically one metric over the seeds of a
// sweep point.
type Summary struct {
	// N is the number of values.
	N int
	// Mean, Median, Min and Max are the sample's mean, median, minimum and
	// maximum.
	Mean, Median, Min, Max float64
	// Std is the sample standard deviation (n−1).
	Std float64
	// CI95 is the half-width of the 95% confidence interval of the mean,
	// Student's t.
	CI95 float64
}

// Summarize describes xs. Std is the sample standard deviation and CI95 the
// half-width t(0.975, n−1)·Std/√n, so the mean's 95% interval is
// Mean ± CI95. With one value Std and CI95 are 0 (no spread can be
// measured), and so are they when the spread is below 1e-12 of the
// values' magnitude (float rounding, not spread); with none the zero
// Summary is returned. If any value is NaN,
// every statistic is NaN.
func Summarize(xs []float64) Summary {
	n := len(xs)
	if n == 0 {
		return Summary{}
	}
	s := Summary{N: n}
	if slices.ContainsFunc(xs, math.IsNaN) {
		nan := math.NaN()
		s.Mean, s.Median, s.Min, s.Max, s.Std, s.CI95 = nan, nan, nan, nan, nan, nan
		return s
	}
	sorted := slices.Clone(xs)
	sort.Float64s(sorted)
	s.Min, s.Max = sorted[0], sorted[n-1]
	if n%2 == 1 {
		s.Median = sorted[n/2]
	} else {
		s.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(n)
	if n == 1 || s.Min == s.Max {
		// Equal values have no spread; summing their rounded deviations
		// would report float noise (1e-17) instead of 0.
		return s
	}
	ss := 0.0
	for _, x := range xs {
		d := x - s.Mean
		ss += d * d
	}
	s.Std = math.Sqrt(ss / float64(n-1))
	if s.Std <= 1e-12*math.Max(math.Abs(s.Mean), math.Max(math.Abs(s.Min), math.Abs(s.Max))) {
		// Values that differ only in their last bits (ratios computed
		// two ways) have no spread worth reporting: 1e-14 is rounding.
		s.Std = 0
		return s
	}
	s.CI95 = TQuantile975(n-1) * s.Std / math.Sqrt(float64(n))
	return s
}

// TQuantile975 returns the 97.5th percentile of Student's t distribution
// with df degrees of freedom (12.706 for 1, 1.96 as df grows), the factor
// of a two-sided 95% interval. It returns NaN for df < 1.
func TQuantile975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
}

// GeoMean returns the geometric mean of xs, the usual average of ratios
// across workloads. Empty input and values that are not positive and
// finite are errors.
func GeoMean(xs []float64) (float64, error) {
	if len(xs) == 0 {
		return 0, fmt.Errorf("geometric mean of no values")
	}
	logs := 0.0
	for i, x := range xs {
		if !(x > 0) || math.IsInf(x, 1) {
			return 0, fmt.Errorf("geometric mean: value %d is %v, want a positive finite number", i+1, x)
		}
		logs += math.Log(x)
	}
	return math.Exp(logs / float64(len(xs))), nil
}

// Normalize returns a copy of t in which each column in cols is divided by
// the same column of the row's baseline. Rows are grouped by the columns in
// keys (with no keys the whole table is one group), and the baseline of a
// group is its one row whose cells equal every value in baseline (numbers
// compare as float64, so 2 matches 2.0; strings compare exactly). For
// example, with one row per (workload, machine.cores):
//
//	Normalize(t, []string{"workload"}, map[string]any{"machine.cores": 2}, "cycles")
//
// gives each workload's cycles relative to its own 2-core run. A group
// without a baseline row, or with more than one, is an error naming it. A
// cell becomes "" when it or its baseline cell is not a finite number or the
// baseline cell is zero. A note saying what was divided by what is added.
func Normalize(t *Table, keys []string, baseline map[string]any, cols ...string) (*Table, error) {
	fail := func(format string, args ...any) (*Table, error) {
		return nil, fmt.Errorf("normalize table %q: %s", t.Name, fmt.Sprintf(format, args...))
	}
	if len(baseline) == 0 {
		return fail("no baseline columns")
	}
	if len(cols) == 0 {
		return fail("no value columns")
	}
	rows, err := t.normRows()
	if err != nil {
		return nil, fmt.Errorf("normalize: %w", err)
	}
	index := func(names []string) ([]int, error) {
		idx := make([]int, len(names))
		for i, n := range names {
			j, ok := t.Column(n)
			if !ok {
				return nil, fmt.Errorf("normalize table %q: no column %q", t.Name, n)
			}
			idx[i] = j
		}
		return idx, nil
	}
	keyIdx, err := index(keys)
	if err != nil {
		return nil, err
	}
	colIdx, err := index(cols)
	if err != nil {
		return nil, err
	}
	baseNames := make([]string, 0, len(baseline))
	for n := range baseline {
		baseNames = append(baseNames, n)
	}
	sort.Strings(baseNames)
	baseIdx, err := index(baseNames)
	if err != nil {
		return nil, err
	}
	baseVals := make([]any, len(baseNames))
	var where []string
	for i, n := range baseNames {
		v, err := normCell(baseline[n])
		if err != nil {
			return fail("baseline %q: %v", n, err)
		}
		baseVals[i] = v
		where = append(where, n+"="+FormatCell(v))
	}

	group := func(row []any) string {
		var parts []string
		for i, j := range keyIdx {
			parts = append(parts, keys[i]+"="+FormatCell(row[j]))
		}
		return strings.Join(parts, ", ")
	}
	base := map[string]int{}
	var order []string
	for r, row := range rows {
		g := group(row)
		if _, ok := base[g]; !ok {
			base[g] = -1
			order = append(order, g)
		}
		match := true
		for i, j := range baseIdx {
			if !sameCell(row[j], baseVals[i]) {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		if base[g] >= 0 {
			return fail("rows %d and %d are both baselines (%s)%s", base[g]+1, r+1, strings.Join(where, ", "), groupSuffix(g))
		}
		base[g] = r
	}
	for _, g := range order {
		if base[g] < 0 {
			return fail("no baseline row (%s)%s", strings.Join(where, ", "), groupSuffix(g))
		}
	}

	out := t.Clone()
	out.Rows = make([][]any, len(rows))
	for r, row := range rows {
		b := rows[base[group(row)]]
		nr := slices.Clone(row)
		for _, j := range colIdx {
			nr[j] = ratioCell(row[j], b[j])
		}
		out.Rows[r] = nr
	}
	note := fmt.Sprintf("%s: divided by the row with %s", strings.Join(cols, ", "), strings.Join(where, ", "))
	if len(keys) > 0 {
		note += " of the same " + strings.Join(keys, ", ")
	}
	out.Notes = append(out.Notes, note+".")
	return out, nil
}

// groupSuffix names a group in an error message.
func groupSuffix(g string) string {
	if g == "" {
		return ""
	}
	return " for " + g
}

// sameCell compares two normalised cells.
func sameCell(a, b any) bool {
	switch a := a.(type) {
	case float64:
		b, ok := b.(float64)
		return ok && a == b
	case string:
		b, ok := b.(string)
		return ok && a == b
	}
	return false
}

// ratioCell returns num/den, or "" when either is not a finite number or
// den is zero.
func ratioCell(num, den any) any {
	n, ok1 := num.(float64)
	d, ok2 := den.(float64)
	if !ok1 || !ok2 || d == 0 || math.IsNaN(n) || math.IsInf(n, 0) || math.IsNaN(d) || math.IsInf(d, 0) {
		return ""
	}
	return n / d
}
