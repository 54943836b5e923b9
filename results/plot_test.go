package results

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStackedBarWritesPNGAndSVG(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "outcomes")
	err := StackedBar("outcomes", "share of runs", []string{"a", "b", "c"},
		[]Series{{"pass", []float64{1, 0.5, 0.2}}, {"crash", []float64{0, 0.5, 0.8}}}, base)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() < 300 || b.Dy() < 200 {
		t.Errorf("PNG is %v", b)
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "crash") {
		t.Errorf("SVG lacks the svg element or the legend")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestStackedBarRejectsBadData(t *testing.T) {
	dir := t.TempDir()
	if err := StackedBar("x", "y", []string{"a"}, []Series{{"s", []float64{1, 2}}}, filepath.Join(dir, "p")); err == nil || !strings.Contains(err.Error(), `series "s" has 2 values for 1 categories`) {
		t.Errorf("mismatched series: %v", err)
	}
	if err := StackedBar("x", "y", nil, nil, filepath.Join(dir, "p")); err == nil {
		t.Error("empty plot accepted")
	}
	if files, _ := os.ReadDir(dir); len(files) != 0 {
		t.Errorf("bad data left files: %v", files)
	}
	if err := StackedBar("x", "y", []string{"a"}, []Series{{"s", []float64{1}}}, filepath.Join(dir, "missing", "p")); err == nil {
		t.Error("write into a missing directory succeeded")
	}
}

// checkImages fails unless base.png decodes to an image at least minW×minH
// pixels and base.svg is an SVG mentioning every name in legend.
func checkImages(t *testing.T, base string, legend ...string) {
	t.Helper()
	raw, err := os.ReadFile(base + ".png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s.png is not a PNG: %v", base, err)
	}
	if b := img.Bounds(); b.Dx() < 400 || b.Dy() < 300 || b.Dx() > 5000 || b.Dy() > 5000 {
		t.Errorf("%s.png is %v", base, b)
	}
	svg, err := os.ReadFile(base + ".svg")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "<svg") {
		t.Errorf("%s.svg has no svg element", base)
	}
	for _, name := range legend {
		if !strings.Contains(string(svg), name) {
			t.Errorf("%s.svg does not name %q", base, name)
		}
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(base), ".*.tmp"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestPlotsWritePNGAndSVG(t *testing.T) {
	cats := []string{"fft", "lu", "radix"}
	for _, c := range []struct {
		name   string
		draw   func(path string) error
		legend []string
	}{
		{"bar", func(p string) error {
			return Bar("cycles", "cycles", cats, []float64{3e6, 1.5e6, 2e6}, p)
		}, []string{"cycles", "radix"}},
		{"grouped", func(p string) error {
			return GroupedBar("by cores", "IPC", cats, []Series{{"cores=2", []float64{1, 2, 3}}, {"cores=4", []float64{2, 3, -1}}}, p)
		}, []string{"cores=2", "cores=4"}},
		{"stacked", func(p string) error {
			return StackedBar("outcomes", "runs", cats, []Series{{"pass", []float64{1, 2, 3}}, {"crash", []float64{3, 2, 1}}}, p)
		}, []string{"pass", "crash"}},
		{"line", func(p string) error {
			return Line("cycles vs cores", "cores", "cycles", []LineSeries{
				{Name: "fft", X: []float64{2, 4, 8, 16}, Y: []float64{100, 60, 40, 35}, YErr: []float64{5, 4, 3, 0}},
				{Name: "lu", X: []float64{2, 4, 8}, Y: []float64{90, 70, 65}},
			}, p)
		}, []string{"fft", "lu", "cores"}},
		{"box", func(p string) error {
			return Box("cycles over seeds", "cycles", []BoxSeries{{"fft", []float64{1, 2, 3, 4, 10}}, {"lu", []float64{5}}}, p)
		}, []string{"fft", "lu"}},
		{"many categories", func(p string) error {
			many := make([]string, 40)
			vals := make([]float64, 40)
			for i := range many {
				many[i] = "w" + strings.Repeat("x", i%5) + string(rune('a'+i%26))
				vals[i] = float64(i)
			}
			return GroupedBar("wide", "v", many, []Series{{"s1", vals}, {"s2", vals}, {"s3", vals}}, p)
		}, []string{"s3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := filepath.Join(t.TempDir(), "plot")
			if err := c.draw(base); err != nil {
				t.Fatal(err)
			}
			checkImages(t, base, c.legend...)
		})
	}
}

func TestPlotsRejectBadData(t *testing.T) {
	nan := math.NaN()
	cats := []string{"a", "b"}
	for _, c := range []struct {
		name string
		draw func(path string) error
		want string
	}{
		{"bar empty", func(p string) error { return Bar("T", "y", nil, nil, p) }, `bar "T": no data`},
		{"bar lengths", func(p string) error { return Bar("T", "y", cats, []float64{1}, p) }, `bar "T": 1 values for 2 categories`},
		{"bar NaN", func(p string) error { return Bar("T", "y", cats, []float64{1, nan}, p) }, `bar "T": values: value for "b" is NaN`},
		{"grouped empty", func(p string) error { return GroupedBar("T", "y", cats, nil, p) }, `grouped bar "T": no data`},
		{"grouped lengths", func(p string) error {
			return GroupedBar("T", "y", cats, []Series{{"s", []float64{1, 2}}, {"bad", []float64{1}}}, p)
		}, `grouped bar "T": series "bad" has 1 values for 2 categories`},
		{"grouped Inf", func(p string) error {
			return GroupedBar("T", "y", cats, []Series{{"s", []float64{math.Inf(1), 2}}}, p)
		}, `grouped bar "T": series "s": value for "a" is +Inf`},
		{"stacked NaN", func(p string) error {
			return StackedBar("T", "y", cats, []Series{{"s", []float64{1, nan}}}, p)
		}, `stacked bar "T": series "s": value for "b" is NaN`},
		{"line empty", func(p string) error { return Line("T", "x", "y", nil, p) }, `line plot "T": no series`},
		{"line no points", func(p string) error { return Line("T", "x", "y", []LineSeries{{Name: "s"}}, p) }, `line plot "T": series "s" has no points`},
		{"line lengths", func(p string) error {
			return Line("T", "x", "y", []LineSeries{{Name: "s", X: []float64{1, 2}, Y: []float64{1}}}, p)
		}, `line plot "T": series "s" has 2 x values and 1 y values`},
		{"line err lengths", func(p string) error {
			return Line("T", "x", "y", []LineSeries{{Name: "s", X: []float64{1, 2}, Y: []float64{1, 2}, YErr: []float64{1}}}, p)
		}, `line plot "T": series "s" has 1 error values for 2 points`},
		{"line NaN y", func(p string) error {
			return Line("T", "x", "y", []LineSeries{{Name: "s", X: []float64{1, 2}, Y: []float64{1, nan}}}, p)
		}, `line plot "T": series "s" y: value 2 is NaN`},
		{"line NaN err", func(p string) error {
			return Line("T", "x", "y", []LineSeries{{Name: "s", X: []float64{1}, Y: []float64{1}, YErr: []float64{nan}}}, p)
		}, `line plot "T": series "s" error: value 1 is NaN`},
		{"line negative err", func(p string) error {
			return Line("T", "x", "y", []LineSeries{{Name: "s", X: []float64{1}, Y: []float64{1}, YErr: []float64{-1}}}, p)
		}, `line plot "T": series "s" error 1 is negative`},
		{"box empty", func(p string) error { return Box("T", "y", nil, p) }, `box plot "T": no boxes`},
		{"box no values", func(p string) error { return Box("T", "y", []BoxSeries{{"s", nil}}, p) }, `box plot "T": series "s" has no values`},
		{"box NaN", func(p string) error { return Box("T", "y", []BoxSeries{{"s", []float64{1, nan}}}, p) }, `box plot "T": series "s": value 2 is NaN`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			err := c.draw(filepath.Join(dir, "p"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
			if files, _ := os.ReadDir(dir); len(files) != 0 {
				t.Errorf("bad data left files: %v", files)
			}
		})
	}
}

func TestPlotIntoMissingDirectoryFails(t *testing.T) {
	dir := t.TempDir()
	err := Line("T", "x", "y", []LineSeries{{Name: "s", X: []float64{1}, Y: []float64{1}}}, filepath.Join(dir, "missing", "p"))
	if err == nil || !strings.Contains(err.Error(), `line plot "T"`) {
		t.Errorf("got %v", err)
	}
}
