package results

import (
	"math"
	"strings"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		name string
		xs   []float64
		want Summary
	}{
		{"empty", nil, Summary{}},
		{"one", []float64{5}, Summary{N: 1, Mean: 5, Median: 5, Min: 5, Max: 5}},
		{"two", []float64{1, 3}, Summary{N: 2, Mean: 2, Median: 2, Min: 1, Max: 3, Std: math.Sqrt2, CI95: 12.706204736 * math.Sqrt2 / math.Sqrt2}},
		{"four", []float64{4, 1, 3, 2}, Summary{N: 4, Mean: 2.5, Median: 2.5, Min: 1, Max: 4, Std: 1.2909944487, CI95: 3.1824463053 * 1.2909944487 / 2}},
		{"odd", []float64{10, 10, 40}, Summary{N: 3, Mean: 20, Median: 10, Min: 10, Max: 40, Std: 17.3205080757, CI95: 4.3026527297 * 17.3205080757 / math.Sqrt(3)}},
		{"constant", []float64{7, 7, 7, 7, 7}, Summary{N: 5, Mean: 7, Median: 7, Min: 7, Max: 7}},
	} {
		got := Summarize(c.xs)
		w := c.want
		if got.N != w.N || !near(got.Mean, w.Mean, 1e-9) || !near(got.Median, w.Median, 1e-9) || got.Min != w.Min ||
			got.Max != w.Max || !near(got.Std, w.Std, 1e-9) || !near(got.CI95, w.CI95, 1e-8) {
			t.Errorf("%s: Summarize(%v) = %+v, want %+v", c.name, c.xs, got, w)
		}
	}
	s := Summarize([]float64{1, math.NaN(), 3})
	if s.N != 3 || !math.IsNaN(s.Mean) || !math.IsNaN(s.Median) || !math.IsNaN(s.CI95) {
		t.Errorf("NaN input: %+v", s)
	}
	xs := []float64{3, 1, 2}
	Summarize(xs)
	if xs[0] != 3 || xs[1] != 1 {
		t.Errorf("Summarize reordered its input: %v", xs)
	}
}

func TestTQuantile975(t *testing.T) {
	for _, c := range []struct {
		df   int
		want float64
	}{{1, 12.7062}, {2, 4.3027}, {4, 2.7764}, {9, 2.2622}, {30, 2.0423}, {1000000, 1.9600}} {
		if got := TQuantile975(c.df); !near(got, c.want, 5e-5) {
			t.Errorf("TQuantile975(%d) = %v, want %v", c.df, got, c.want)
		}
	}
	if !math.IsNaN(TQuantile975(0)) {
		t.Error("TQuantile975(0) is a number")
	}
}

func TestGeoMean(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want float64
	}{{[]float64{1, 4}, 2}, {[]float64{2, 8, 4}, 4}, {[]float64{0.5}, 0.5}, {[]float64{1e300, 1e300}, 1e300}} {
		got, err := GeoMean(c.xs)
		if err != nil || !near(got, c.want, 1e-12*c.want) {
			t.Errorf("GeoMean(%v) = %v, %v; want %v", c.xs, got, err, c.want)
		}
	}
	for _, xs := range [][]float64{nil, {1, 0}, {2, -1}, {math.NaN()}, {math.Inf(1)}} {
		if _, err := GeoMean(xs); err == nil {
			t.Errorf("GeoMean(%v) accepted", xs)
		}
	}
}

// sweepTable is a small sweep result: one row per (workload, cores).
func sweepTable() *Table {
	t := NewTable("sweep", "Sweep", "workload", "cores", "cycles", "ipc", "note")
	t.AddRow("fft", 2, 1000, 0.5, "a")
	t.AddRow("fft", 4, 600, 0.8, "b")
	t.AddRow("lu", 2, 2000, 0, "c")
	t.AddRow("lu", 4, 1000, 0.25, "d")
	t.AddRow("lu", 8, "—", 0.5, "e")
	return t
}

func TestNormalize(t *testing.T) {
	in := sweepTable()
	got, err := Normalize(in, []string{"workload"}, map[string]any{"cores": 2}, "cycles", "ipc")
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{
		{"fft", 2.0, 1.0, 1.0, "a"},
		{"fft", 4.0, 0.6, 1.6, "b"},
		{"lu", 2.0, 1.0, "", "c"}, // the baseline ipc is 0
		{"lu", 4.0, 0.5, "", "d"},
		{"lu", 8.0, "", "", "e"}, // not a number
	}
	for r := range want {
		for c := range want[r] {
			g, w := got.Rows[r][c], want[r][c]
			if x, ok := g.(float64); ok {
				if y, ok := w.(float64); ok && near(x, y, 1e-12) {
					continue
				}
			}
			if g != w {
				t.Errorf("row %d col %d = %#v, want %#v", r+1, c, g, w)
			}
		}
	}
	if len(got.Notes) != 1 || got.Notes[0] != "cycles, ipc: divided by the row with cores=2 of the same workload." {
		t.Errorf("notes %q", got.Notes)
	}
	if in.Rows[1][2] != 600.0 {
		t.Error("Normalize changed its input")
	}

	// No keys: one group, one baseline.
	one := NewTable("one", "", "config", "cycles")
	one.AddRow("base", 200)
	one.AddRow("fast", 100)
	got, err = Normalize(one, nil, map[string]any{"config": "base"}, "cycles")
	if err != nil || got.Rows[1][1] != 0.5 {
		t.Errorf("no keys: %v %v", got, err)
	}
}

func TestNormalizeErrors(t *testing.T) {
	in := sweepTable()
	for _, c := range []struct {
		keys []string
		base map[string]any
		cols []string
		want string
	}{
		{[]string{"workload"}, map[string]any{"cores": 8}, []string{"cycles"}, `no baseline row (cores=8) for workload=fft`},
		{nil, map[string]any{"cores": 2}, []string{"cycles"}, `rows 1 and 3 are both baselines (cores=2)`},
		{[]string{"workload"}, map[string]any{"cores": 2}, []string{"nope"}, `no column "nope"`},
		{[]string{"nope"}, map[string]any{"cores": 2}, []string{"cycles"}, `no column "nope"`},
		{[]string{"workload"}, map[string]any{"nope": 2}, []string{"cycles"}, `no column "nope"`},
		{[]string{"workload"}, nil, []string{"cycles"}, `no baseline columns`},
		{[]string{"workload"}, map[string]any{"cores": 2}, nil, `no value columns`},
		{[]string{"workload"}, map[string]any{"cores": true}, []string{"cycles"}, `baseline "cores"`},
	} {
		_, err := Normalize(in, c.keys, c.base, c.cols...)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), `"sweep"`) {
			t.Errorf("Normalize(%v, %v, %v): %v, want %q", c.keys, c.base, c.cols, err, c.want)
		}
	}
}

// Values equal but for their last bits have no spread: the interval is 0,
// not float noise such as 1.765e-14.
func TestSummarizeRoundingIsNoSpread(t *testing.T) {
	x := 0.1 + 0.2 // 0.30000000000000004
	s := Summarize([]float64{0.3, x, 0.3})
	if s.Std != 0 || s.CI95 != 0 {
		t.Errorf("Std %v CI95 %v, want 0 and 0", s.Std, s.CI95)
	}
	if s := Summarize([]float64{1, 1.001, 1}); s.CI95 == 0 {
		t.Error("a real spread of 0.1% gave no interval")
	}
}
