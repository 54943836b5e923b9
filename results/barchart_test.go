package results

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg/draw"
)

// yTickLabels returns the labelled ticks of c's y axis.
func yTickLabels(c BarChart) ([]string, error) {
	p, _, _, err := c.plot()
	if err != nil {
		return nil, err
	}
	var out []string
	for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		if tk.Label != "" {
			out = append(out, tk.Label)
		}
	}
	return out, nil
}

// A log axis spans the decades of the values, labelled with the values at
// each power of ten; bars are drawn at their decades above the floor, and
// a value at or below 0 draws none.
func TestBarChartLogY(t *testing.T) {
	c := BarChart{Title: "T", YLabel: "overhead (%)", Categories: []string{"a", "b", "c"},
		Series: []Series{{"weft", []float64{0.5, 3, -2}}, {"paper", []float64{21, 3846, 0}}}, LogY: true}
	labels, err := yTickLabels(c)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(labels, " "); got != "0.1 1 10 100 1000 10k" {
		t.Errorf("ticks %q", got)
	}
	p, _, _, _ := c.plot()
	if !strings.HasSuffix(p.Y.Label.Text, "log scale") {
		t.Errorf("y label %q does not say log", p.Y.Label.Text)
	}
	toY := logAxis(plot.New(), c.Series)
	heights := append(heights(c.Series[0].Values, toY), heights(c.Series[1].Values, toY)...)
	want := []float64{math.Log10(5), math.Log10(30), 0, math.Log10(210), math.Log10(38460), 0}
	for i := range want {
		if math.Abs(heights[i]-want[i]) > 1e-9 {
			t.Errorf("bar heights %v, want %v", heights, want)
			break
		}
	}
	if err := c.Draw(filepath.Join(t.TempDir(), "log")); err != nil {
		t.Fatal(err)
	}
}

// Ranks get whole-number ticks only.
func TestBarChartIntegerY(t *testing.T) {
	for _, top := range []float64{1, 2, 3, 5, 7, 12, 40} {
		c := BarChart{Title: "T", YLabel: "rank", Categories: []string{"a", "b"},
			Series: []Series{{"weft", []float64{1, top}}, {"paper", []float64{0, 1}}}, IntegerY: true}
		p, _, _, err := c.plot()
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
			if tk.Value != math.Trunc(tk.Value) {
				t.Errorf("top %v: tick at %v", top, tk.Value)
			}
		}
	}
	// Without IntegerY a rank axis of 0..2 has fractional ticks.
	p, _, _, _ := BarChart{Title: "T", Categories: []string{"a"}, Series: []Series{{"s", []float64{2}}}}.plot()
	frac := false
	for _, tk := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		frac = frac || tk.Value != math.Trunc(tk.Value)
	}
	if !frac {
		t.Error("the default ticks of 0..2 have no fraction: the test shows nothing")
	}
}

// A reference line (the paper's) is drawn after the measured ones, dashed,
// with larger hollow markers, so it shows where the two coincide.
func TestLineReferenceOnTop(t *testing.T) {
	xs := []float64{1, 2, 3}
	series := []LineSeries{
		{Name: "paper", X: xs, Y: []float64{6, 8, 9}, Reference: true},
		{Name: "weft", X: xs, Y: []float64{6, 8, 9}},
	}
	if order := drawOrder(series); order[0] != 1 || order[1] != 0 {
		t.Errorf("draw order %v: the reference is not last", order)
	}
	colors, dashes, shapes := lineStyles(series)
	var lines []draw.LineStyle
	var points []draw.GlyphStyle
	for _, i := range []int{1, 0} {
		l, g := lineLook(series[i], colors[i], dashes[i], shapes[i])
		lines, points = append(lines, l), append(points, g)
	}
	weft, paper := points[0], points[1]
	if _, ok := paper.Shape.(draw.RingGlyph); !ok || paper.Radius <= weft.Radius {
		t.Errorf("the reference's markers are %T of radius %v beside %v: not hollow and larger", paper.Shape, paper.Radius, weft.Radius)
	}
	if len(lines[1].Dashes) == 0 || lines[1].Color == lines[0].Color {
		t.Error("the reference line is not dashed in its own shade")
	}
}
