package results

import (
	"bytes"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
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

// Power-of-two (and doubling) x values get a log2 axis with a tick at
// every value; others stay linear.
func TestLineLog2Axis(t *testing.T) {
	for _, c := range []struct {
		name   string
		xs     []float64
		log    bool
		labels []string
	}{
		{"cores", []float64{2, 4, 8, 16, 32}, true, []string{"2", "4", "8", "16", "32"}},
		{"cache sizes", []float64{8192, 16384, 32768, 65536, 131072}, true, []string{"8K", "16K", "32K", "64K", "128K"}},
		{"doubling latencies", []float64{5, 10, 20, 40}, true, []string{"5", "10", "20", "40"}},
		{"linear latencies", []float64{100, 200}, false, nil},
		{"two powers", []float64{2, 4}, false, nil},
		{"not doubling", []float64{2, 4, 6, 8}, false, nil},
		{"fractions", []float64{0.5, 1, 2, 4}, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ys := make([]float64, len(c.xs))
			for i := range ys {
				ys[i] = float64(i + 1)
			}
			p, _, err := linePlot("T", "x", "y", []LineSeries{{Name: "s", X: c.xs, Y: ys}})
			if err != nil {
				t.Fatal(err)
			}
			_, isLog := p.X.Scale.(plot.LogScale)
			if isLog != c.log {
				t.Fatalf("log scale %v, want %v", isLog, c.log)
			}
			if !c.log {
				return
			}
			var labels []string
			for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
				labels = append(labels, tk.Label)
			}
			if strings.Join(labels, " ") != strings.Join(c.labels, " ") {
				t.Errorf("ticks %q, want %q", labels, c.labels)
			}
			if !strings.HasSuffix(p.X.Label.Text, "log2 scale") {
				t.Errorf("x label %q does not say log2", p.X.Label.Text)
			}
		})
	}
}

// Shares stack to exactly 1 on the axis; the legend lists the series top
// down as they stack, beside the plot (the image is wider than the plot).
func TestStackedBarSharesAndLegend(t *testing.T) {
	p, _, w, err := stackedPlot("T", "share", []string{"a", "b"}, []Series{{"pass", []float64{0.7, 0.25}}, {"crash", []float64{0.3, 0.75}}})
	if err != nil {
		t.Fatal(err)
	}
	if p.Y.Min != 0 || p.Y.Max != 1 {
		t.Errorf("share axis from %v to %v, want 0 to 1", p.Y.Min, p.Y.Max)
	}
	base := filepath.Join(t.TempDir(), "s")
	if err := StackedBar("T", "share", []string{"a", "b"}, []Series{{"pass", []float64{0.7, 0.25}}, {"crash", []float64{0.3, 0.75}}}, base); err != nil {
		t.Fatal(err)
	}
	svg := string(fileBytes(t, base+".svg"))
	if c, p := strings.Index(svg, ">crash<"), strings.Index(svg, ">pass<"); c < 0 || p < 0 || c > p {
		t.Errorf("legend order: crash at %d, pass at %d; want crash (the top of the stack) first", c, p)
	}
	img, err := png.Decode(bytes.NewReader(fileBytes(t, base+".png")))
	if err != nil {
		t.Fatal(err)
	}
	if px := img.Bounds().Dx(); float64(px) <= w.Dots(96)+10 {
		t.Errorf("image %d px wide, plot %v px: the legend is not beside the plot", px, w.Dots(96))
	}
	if p, _, _, _ := stackedPlot("T", "runs", []string{"a"}, []Series{{"pass", []float64{3}}, {"crash", []float64{2}}}); p.Y.Max != 5 {
		t.Errorf("counts stack to 5, axis ends at %v", p.Y.Max)
	}
}

// Outcome colours mean something: pass green, failures warm; idle grey.
// Line styles tell 14 lines apart.
func TestPlotColours(t *testing.T) {
	rgb := func(name string) (r, g, b float64) {
		c, ok := SemanticColor(name)
		if !ok {
			t.Fatalf("no colour for %s", name)
		}
		R, G, B, _ := c.RGBA()
		return float64(R), float64(G), float64(B)
	}
	if r, g, b := rgb("pass"); !(g > r && g > b) {
		t.Errorf("pass is not green: %v %v %v", r, g, b)
	}
	for _, o := range []string{"wrong_output", "hang", "error", "assert", "crash"} {
		if r, g, b := rgb(o); !(r > b && r >= g) {
			t.Errorf("%s is not warm: %v %v %v", o, r, g, b)
		}
	}
	if r, g, b := rgb("idle"); r != g || g != b {
		t.Errorf("idle is not grey")
	}
	if _, ok := SemanticColor("fft"); ok {
		t.Error("a workload has a semantic colour")
	}
	series := make([]LineSeries, 14)
	for i := range series {
		series[i].Name = fmt.Sprint("w", i)
	}
	colors, dashes, shapes := lineStyles(series)
	seen := map[string]int{}
	for i := range series {
		r, g, b, _ := colors[i].RGBA()
		key := fmt.Sprint(r, g, b, dashes[i], shapes[i])
		if j, dup := seen[key]; dup {
			t.Errorf("lines %d and %d look alike", j, i)
		}
		seen[key] = i
	}
	// Lines of one family share a colour and differ in style.
	fam := []LineSeries{{Name: "a1", Family: "a"}, {Name: "b1", Family: "b"}, {Name: "a2", Family: "a"}}
	colors, dashes, _ = lineStyles(fam)
	if colors[0] != colors[2] || colors[0] == colors[1] || fmt.Sprint(dashes[0]) == fmt.Sprint(dashes[2]) {
		t.Errorf("families: colours %v, dashes %v", colors, dashes)
	}
	// The palette's colours are far apart.
	for i := range palette {
		for j := i + 1; j < len(palette); j++ {
			r1, g1, b1, _ := palette[i].RGBA()
			r2, g2, b2, _ := palette[j].RGBA()
			d := math.Abs(float64(r1)-float64(r2)) + math.Abs(float64(g1)-float64(g2)) + math.Abs(float64(b1)-float64(b2))
			if d < 0.25*3*65535/2 {
				t.Errorf("palette colours %d and %d are close", i, j)
			}
		}
	}
}

// fileBytes returns the contents of path.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Degenerate data is an error or a plot, never a panic: one point at 2^62.
func TestLineHugeSinglePoint(t *testing.T) {
	base := filepath.Join(t.TempDir(), "p")
	if err := Line("T", "x", "y", []LineSeries{{Name: "s", X: []float64{1 << 62}, Y: []float64{1 << 62}, YErr: []float64{0}}}, base); err != nil {
		t.Fatal(err)
	}
}
