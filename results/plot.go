package results

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"weft/core"
	"weft/internal/atomicfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Every plot function checks its whole input before drawing, so bad data
// (mismatched lengths, no data, NaN or infinite values) is an error naming
// the plot kind, its title and the series, and leaves no file. Both images
// are rendered before either is written; each file appears whole or not at
// all.

// Series is one named set of values, one per category.
type Series struct {
	// Name is the series' legend label.
	Name string
	// Values holds one value per category, in category order.
	Values []float64
}

// LineSeries is one line of a Line plot: points (X[i], Y[i]) with error bars
// of ±YErr[i] when YErr is not nil.
type LineSeries struct {
	// Name is the line's legend label.
	Name string
	// X and Y are the points' coordinates, of equal length.
	X, Y []float64
	// YErr holds the error bars' half-heights, one per point (nil: none).
	YErr []float64
	// Family groups lines that share a colour and differ in line style
	// and marker (a workload at several values of another axis). "" makes
	// the line a family of its own.
	Family string
	// Reference marks reference values (a paper's): the line is drawn
	// after the others, dashed and darker, with hollow markers larger than
	// the others' filled ones, so it stays visible where it coincides with
	// a measured line.
	Reference bool
}

// BoxSeries is one box of a Box plot: the sample it summarises.
type BoxSeries struct {
	// Name is the box's label on the x axis.
	Name string
	// Values is the sample.
	Values []float64
}

// plotError prefixes an error with the plot kind and title.
func plotError(kind, title string, format string, args ...any) error {
	return fmt.Errorf("%s %q: %s", kind, title, fmt.Sprintf(format, args...))
}

// checkFinite reports the first value of vs that is NaN or infinite; what
// names the series (or category list) it belongs to.
func checkFinite(kind, title, what string, vs []float64, labels []string) error {
	for i, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			at := fmt.Sprintf("value %d", i+1)
			if i < len(labels) {
				at = fmt.Sprintf("value for %q", labels[i])
			}
			return plotError(kind, title, "%s: %s is %v", what, at, v)
		}
	}
	return nil
}

// checkSeries checks series of one value per category.
func checkSeries(kind, title string, categories []string, series []Series) error {
	if len(categories) == 0 || len(series) == 0 {
		return plotError(kind, title, "no data (%d categories, %d series)", len(categories), len(series))
	}
	for _, s := range series {
		if len(s.Values) != len(categories) {
			return plotError(kind, title, "series %q has %d values for %d categories", s.Name, len(s.Values), len(categories))
		}
		if err := checkFinite(kind, title, fmt.Sprintf("series %q", s.Name), s.Values, categories); err != nil {
			return err
		}
	}
	return nil
}

// Colours and styles. The palette is Tableau 10: ten hues that stay apart
// on screen and on paper. Line series cycle through it solid, then dashed,
// dotted and dash-dotted, with a marker shape per series, so even a
// 14-line plot has no two look-alike lines. Series named after an outcome
// or a cycle-breakdown bucket get a colour that means something: pass
// green, failures warm (from amber for wrong_output to dark red for
// crash), idle grey.
var palette = []color.Color{
	color.NRGBA{0x1f, 0x77, 0xb4, 0xff}, // blue
	color.NRGBA{0xff, 0x7f, 0x0e, 0xff}, // orange
	color.NRGBA{0x2c, 0xa0, 0x2c, 0xff}, // green
	color.NRGBA{0xd6, 0x27, 0x28, 0xff}, // red
	color.NRGBA{0x94, 0x67, 0xbd, 0xff}, // purple
	color.NRGBA{0x8c, 0x56, 0x4b, 0xff}, // brown
	color.NRGBA{0xe3, 0x77, 0xc2, 0xff}, // pink
	color.NRGBA{0x7f, 0x7f, 0x7f, 0xff}, // grey
	color.NRGBA{0xbc, 0xbd, 0x22, 0xff}, // olive
	color.NRGBA{0x17, 0xbe, 0xcf, 0xff}, // cyan
}

// dashPatterns are the line styles, one per round of the palette.
var dashPatterns = [][]vg.Length{
	nil,                              // solid
	{vg.Points(6), vg.Points(3)},     // dashed
	{vg.Points(1.5), vg.Points(2.5)}, // dotted
	{vg.Points(6), vg.Points(2), vg.Points(1.5), vg.Points(2)}, // dash-dot
}

// semanticColors are the colours of series whose names mean something.
var semanticColors = map[string]color.Color{
	// Outcomes: pass green, failures warm by severity.
	core.Pass.String():        color.NRGBA{0x2c, 0xa0, 0x2c, 0xff},
	core.WrongOutput.String(): color.NRGBA{0xf2, 0xc1, 0x2e, 0xff}, // amber
	core.Hang.String():        color.NRGBA{0xff, 0x7f, 0x0e, 0xff}, // orange
	core.Error.String():       color.NRGBA{0xe8, 0x4a, 0x1c, 0xff}, // vermilion
	core.Assert.String():      color.NRGBA{0xc4, 0x16, 0x1c, 0xff}, // red
	core.Crash.String():       color.NRGBA{0x7a, 0x0b, 0x10, 0xff}, // dark red
	// Cycle breakdown: work blue, memory cyan, waits warm, idle grey.
	"busy":         color.NRGBA{0x1f, 0x77, 0xb4, 0xff},
	"mem_stall":    color.NRGBA{0x17, 0xbe, 0xcf, 0xff},
	"lock_wait":    color.NRGBA{0xd6, 0x27, 0x28, 0xff},
	"barrier_wait": color.NRGBA{0x94, 0x67, 0xbd, 0xff},
	"cond_wait":    color.NRGBA{0xe3, 0x77, 0xc2, 0xff},
	"join_wait":    color.NRGBA{0xff, 0x7f, 0x0e, 0xff},
	"idle":         color.NRGBA{0xc7, 0xc7, 0xc7, 0xff},
}

// SemanticColor returns the colour every plot gives a series named after
// an outcome (pass, wrong_output, hang, error, assert, crash) or a cycle
// breakdown bucket (busy, mem_stall, lock_wait, barrier_wait, cond_wait,
// join_wait, idle), and false for any other name.
func SemanticColor(name string) (color.Color, bool) {
	c, ok := semanticColors[name]
	return c, ok
}

// seriesColor is series i's colour: its semantic colour, else the
// palette's.
func seriesColor(name string, i int) color.Color {
	if c, ok := semanticColors[name]; ok {
		return c
	}
	return palette[i%len(palette)]
}

// drawOrder is the order line series are drawn in: as given, reference
// lines last, on top.
func drawOrder(series []LineSeries) []int {
	order := make([]int, 0, len(series))
	for _, ref := range []bool{false, true} {
		for i, s := range series {
			if s.Reference == ref {
				order = append(order, i)
			}
		}
	}
	return order
}

// lineLook is the line and marker style of series s given its colour,
// dashes and marker: 1.5-point lines with 3-point markers, and for a
// reference line a darker shade, dashes and hollow 5.5-point rings.
func lineLook(s LineSeries, c color.Color, dashes []vg.Length, shape draw.GlyphDrawer) (draw.LineStyle, draw.GlyphStyle) {
	line := draw.LineStyle{Color: c, Width: vg.Points(1.5), Dashes: dashes}
	glyph := draw.GlyphStyle{Color: c, Shape: shape, Radius: vg.Points(3)}
	if s.Reference {
		c = darken(c)
		line.Color, glyph.Color = c, c
		line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		glyph.Shape = draw.RingGlyph{}
		glyph.Radius = vg.Points(5.5)
	}
	return line, glyph
}

// darken returns c at 60% of its brightness.
func darken(c color.Color) color.Color {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return color.NRGBA{uint8(float64(n.R) * 0.6), uint8(float64(n.G) * 0.6), uint8(float64(n.B) * 0.6), n.A}
}

// markers are the point shapes of line plots.
var markers = []draw.GlyphDrawer{draw.CircleGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
	draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.RingGlyph{}, draw.BoxGlyph{}}

// lineStyles gives each line series its colour, dashes and marker. Lines
// of one family share a colour and take the line styles in turn; lines
// without a family each take the next colour, solid for the first round of
// the palette, then dashed, dotted and dash-dotted. Markers differ from
// line to line either way.
func lineStyles(series []LineSeries) (colors []color.Color, dashes [][]vg.Length, shapes []draw.GlyphDrawer) {
	family := map[string]int{}  // family → colour slot
	members := map[string]int{} // family → lines so far
	slots := 0
	for i, s := range series {
		slot, variant := slots, 0
		if s.Family != "" {
			if f, ok := family[s.Family]; ok {
				slot = f
			} else {
				family[s.Family] = slots
				slots++
			}
			variant = members[s.Family]
			members[s.Family]++
		} else {
			slots++
			variant = slot / len(palette)
		}
		colors = append(colors, seriesColor(s.Name, slot))
		dashes = append(dashes, dashPatterns[variant%len(dashPatterns)])
		shapes = append(shapes, markers[i%len(markers)])
	}
	return colors, dashes, shapes
}

// newPlot starts a plot with a title and y label, readable tick labels on
// both axes, and a legend (drawn beside the plot by render, never on the
// data).
func newPlot(title, ylabel string) (*plot.Plot, *plot.Legend) {
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(8)
	p.Y.Label.Text = ylabel
	p.Y.Tick.Marker = readableTicks{}
	p.X.Tick.Marker = readableTicks{}
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	leg.TextStyle.Font.Size = vg.Points(11)
	leg.Padding = vg.Points(2)
	return p, &leg
}

// readableTicks put 4 to 10 labelled ticks at round values (steps of 1,
// 2, 2.5 or 5 times a power of ten) with an unlabelled tick between each
// pair, labelled as people read numbers: no trailing zeros (250, not
// 250.00) and k, M or G for thousands, millions and billions (2.5M). With
// integer set, every tick is a whole number (a step of at least 1, no
// tick between two a step of 1 or 5 apart).
type readableTicks struct{ integer bool }

// Ticks returns the ticks between min and max.
func (rt readableTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) || math.IsInf(max-min, 0) {
		return []plot.Tick{{Value: min, Label: tickLabel(min, 1, tickUnit(min))}}
	}
	raw := (max - min) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 2.5, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	if rt.integer {
		step = math.Max(1, math.Round(step))
		if step == 2.5 || step == 3 {
			step = 2
		}
	}
	halves := !rt.integer || math.Mod(step, 2) == 0
	unit := tickUnit(math.Max(math.Abs(min), math.Abs(max)))
	var ticks []plot.Tick
	for k := math.Ceil(min / step); k*step <= max*(1+1e-12)+1e-300; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: tickLabel(v, step, unit)})
		if half := v + step/2; half <= max && halves {
			ticks = append(ticks, plot.Tick{Value: half})
		}
	}
	if first := math.Ceil(min/step)*step - step/2; first >= min && halves {
		ticks = append(ticks, plot.Tick{Value: first})
	}
	return ticks
}

// tickUnit is the unit an axis reaching magnitude a is labelled in: 1,
// or 1e3, 1e6 or 1e9 (k, M, G) from 10,000 up.
func tickUnit(a float64) float64 {
	switch {
	case a >= 1e9:
		return 1e9
	case a >= 1e6:
		return 1e6
	case a >= 1e4:
		return 1e3
	}
	return 1
}

// tickLabel spells an axis value in unit with the decimals its tick step
// needs: 2.5M, 40k, 1500, 0.25, 0.0025.
func tickLabel(v, step, unit float64) string {
	suffix := map[float64]string{1: "", 1e3: "k", 1e6: "M", 1e9: "G"}[unit]
	decimals := max(0, -int(math.Floor(math.Log10(step/unit)+1e-9)))
	if r := step / unit / math.Pow(10, -float64(decimals)); math.Abs(r-math.Round(r)) > 1e-9 {
		decimals++ // 2.5 × 10^k
	}
	s := strconv.FormatFloat(v/unit, 'f', decimals, 64)
	if s == "-0" || strings.Trim(s, "-0.") == "" {
		return "0"
	}
	return s + suffix
}

// pow2Ticks marks each of a power-of-two axis's values, labelled with
// binary prefixes where they are multiples of 1024 (8K, 1M).
type pow2Ticks struct{ values []float64 }

// Ticks returns a tick at every value in [min, max].
func (t pow2Ticks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, v := range t.values {
		if v >= min && v <= max {
			ticks = append(ticks, plot.Tick{Value: v, Label: pow2Label(v)})
		}
	}
	return ticks
}

// pow2Label spells a value of a log2 axis: 32, 8K, 128K, 4M, 2G for
// multiples of 1024 (binary prefixes, as sizes are), others as they are.
func pow2Label(v float64) string {
	for _, u := range []struct {
		size   float64
		suffix string
	}{{1 << 30, "G"}, {1 << 20, "M"}, {1 << 10, "K"}} {
		if v >= u.size && v/u.size == math.Trunc(v/u.size) {
			return strconv.FormatFloat(v/u.size, 'f', -1, 64) + u.suffix
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// log2Axis returns the distinct x values, sorted, when an axis of them is
// best drawn log2: at least three positive integers spanning a ratio of 4
// or more that are all powers of two (cores 2–32, cache sizes 8K–128K) or
// double from each to the next (latencies 5, 10, 20, 40).
func log2Axis(series []LineSeries) ([]float64, bool) {
	seen := map[float64]bool{}
	var xs []float64
	pow2 := true
	for _, s := range series {
		for _, x := range s.X {
			if !(x >= 1) || x != math.Trunc(x) || x > 1<<62 {
				return nil, false
			}
			pow2 = pow2 && uint64(x)&(uint64(x)-1) == 0
			if !seen[x] {
				seen[x] = true
				xs = append(xs, x)
			}
		}
	}
	sort.Float64s(xs)
	if len(xs) < 3 || xs[len(xs)-1]/xs[0] < 4 {
		return nil, false
	}
	doubling := true
	for i := 1; i < len(xs); i++ {
		doubling = doubling && xs[i] == 2*xs[i-1]
	}
	return xs, pow2 || doubling
}

// nominalX labels the x axis with categories, slanted when there are many,
// leaving half a slot on either side so no bar or box is cut off.
func nominalX(p *plot.Plot, categories []string) {
	p.NominalX(categories...)
	p.X.Min, p.X.Max = -0.5, float64(len(categories))-0.5
	if len(categories) > 6 {
		p.X.Tick.Label.Rotation = 0.6
		p.X.Tick.Label.XAlign = -0.9
	}
}

// Bar draws one bar per category and writes path.png and path.svg.
func Bar(title, ylabel string, categories []string, values []float64, path string) error {
	const kind = "bar"
	if len(categories) == 0 {
		return plotError(kind, title, "no data")
	}
	if len(values) != len(categories) {
		return plotError(kind, title, "%d values for %d categories", len(values), len(categories))
	}
	if err := checkFinite(kind, title, "values", values, categories); err != nil {
		return err
	}
	p, _ := newPlot(title, ylabel)
	w := plotWidth(len(categories), 1)
	bars, err := plotter.NewBarChart(plotter.Values(values), barWidth(w, len(categories), 1))
	if err != nil {
		return plotError(kind, title, "%v", err)
	}
	bars.LineStyle.Width = 0
	bars.Color = palette[0]
	p.Add(bars)
	nominalX(p, categories)
	zeroBase(p, values)
	return render(kind, title, p, nil, w, 4.5*vg.Inch, path)
}

// zeroBase starts the y axis of a bar plot at 0 (or ends it there when
// every value is negative), so bar heights compare honestly.
func zeroBase(p *plot.Plot, values []float64) {
	lo, hi := 0.0, 0.0
	for _, v := range values {
		lo, hi = min(lo, v), max(hi, v)
	}
	if hi == lo {
		hi = lo + 1
	}
	pad := 0.04 * (hi - lo) // room above the tallest bar
	if hi > 0 {
		hi += pad
	}
	if lo < 0 {
		lo -= pad
	}
	p.Y.Min, p.Y.Max = lo, hi
}

// GroupedBar draws, for each category, one bar per series side by side, with
// a legend of the series beside the plot, and writes path.png and path.svg.
func GroupedBar(title, ylabel string, categories []string, series []Series, path string) error {
	return BarChart{Title: title, YLabel: ylabel, Categories: categories, Series: series}.Draw(path)
}

// BarChart is a grouped bar plot: for each category one bar per series,
// side by side, with a legend of the series beside the plot.
type BarChart struct {
	// Title and YLabel are the plot's title and its y axis's label.
	Title, YLabel string
	// Categories label the x axis.
	Categories []string
	// Series hold one value per category each.
	Series []Series
	// LogY draws the y axis on a log10 scale, from the power of ten at or
	// below the smallest positive value, for values that span decades; a
	// value at or below 0 draws no bar (its data table keeps it).
	LogY bool
	// IntegerY puts the y axis's ticks on whole numbers only (ranks,
	// counts).
	IntegerY bool
}

// Draw draws the chart and writes path.png and path.svg.
func (c BarChart) Draw(path string) error {
	p, leg, w, err := c.plot()
	if err != nil {
		return err
	}
	return render("grouped bar", c.Title, p, leg, w, 4.5*vg.Inch, path)
}

// plot checks the series and builds the chart's plot, legend and width.
func (c BarChart) plot() (*plot.Plot, *plot.Legend, vg.Length, error) {
	const kind = "grouped bar"
	title := c.Title
	if err := checkSeries(kind, title, c.Categories, c.Series); err != nil {
		return nil, nil, 0, err
	}
	p, leg := newPlot(title, c.YLabel)
	if c.IntegerY {
		p.Y.Tick.Marker = readableTicks{integer: true}
	}
	var toY func(float64) float64 // a value's height on the axis
	if c.LogY {
		toY = logAxis(p, c.Series)
	}
	w := plotWidth(len(c.Categories), len(c.Series))
	bw := barWidth(w, len(c.Categories), len(c.Series))
	var all []float64
	for i, s := range c.Series {
		vs := heights(s.Values, toY)
		bars, err := plotter.NewBarChart(plotter.Values(vs), bw)
		if err != nil {
			return nil, nil, 0, plotError(kind, title, "series %q: %v", s.Name, err)
		}
		bars.LineStyle.Width = 0
		bars.Color = seriesColor(s.Name, i)
		bars.Offset = vg.Length(float64(i)-float64(len(c.Series)-1)/2) * bw
		p.Add(bars)
		leg.Add(s.Name, bars)
		all = append(all, vs...)
	}
	nominalX(p, c.Categories)
	if toY == nil {
		zeroBase(p, all)
	}
	return p, leg, w, nil
}

// heights returns the bars' heights for values: toY of each (nil: the
// values themselves).
func heights(values []float64, toY func(float64) float64) []float64 {
	if toY == nil {
		return values
	}
	vs := make([]float64, len(values))
	for j, v := range values {
		vs[j] = toY(v)
	}
	return vs
}

// logAxis sets p's y axis up as a log10 axis for the series' values and
// returns the height of a value on it: decades above the axis's floor (a
// power of ten at or below the smallest positive value), 0 for a value at
// or below 0. The ticks are labelled with the values at each power of ten,
// unlabelled at 2–9 times it.
func logAxis(p *plot.Plot, series []Series) func(float64) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range series {
		for _, v := range s.Values {
			if v > 0 {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1, 10
	}
	floor := math.Floor(math.Log10(lo))
	top := max(math.Ceil(math.Log10(hi)), floor+1)
	p.Y.Min, p.Y.Max = 0, top-floor
	p.Y.Tick.Marker = logTicks{floor: floor}
	if p.Y.Label.Text != "" {
		p.Y.Label.Text += ", log scale"
	}
	return func(v float64) float64 {
		if !(v > 0) {
			return 0
		}
		return math.Log10(v) - floor
	}
}

// logTicks are the ticks of a log10 axis drawn as decades above floor (a
// power of ten's exponent): a labelled tick at each power of ten, with
// the value there (0.1, 1, 10, 100, 1000, 10k), and unlabelled ticks at 2–9
// times it.
type logTicks struct{ floor float64 }

// Ticks returns the ticks between min and max, in decades above floor.
func (t logTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for k := math.Floor(min); k <= max+1e-9; k++ {
		v := math.Pow(10, k+t.floor)
		if k >= min-1e-9 {
			ticks = append(ticks, plot.Tick{Value: k, Label: tickLabel(v, v, tickUnit(v))})
		}
		for m := 2.0; m < 10; m++ {
			if x := k + math.Log10(m); x >= min && x <= max {
				ticks = append(ticks, plot.Tick{Value: x})
			}
		}
	}
	return ticks
}

// StackedBar draws the series stacked on one bar per category, the first
// series at the bottom, with a legend beside the plot listing them top
// down as they stack, and writes path.png and path.svg. When every stack
// sums to 1 (shares) the y axis ends at 1.
func StackedBar(title, ylabel string, categories []string, series []Series, path string) error {
	p, leg, w, err := stackedPlot(title, ylabel, categories, series)
	if err != nil {
		return err
	}
	return render("stacked bar", title, p, leg, w, 4.5*vg.Inch, path)
}

// stackedPlot checks the series and builds StackedBar's plot, legend and
// width.
func stackedPlot(title, ylabel string, categories []string, series []Series) (*plot.Plot, *plot.Legend, vg.Length, error) {
	const kind = "stacked bar"
	if err := checkSeries(kind, title, categories, series); err != nil {
		return nil, nil, 0, err
	}
	p, leg := newPlot(title, ylabel)
	w := vg.Length(max(6, 0.9*float64(len(categories)))) * vg.Inch
	width := vg.Points(float64(max(10, 300/len(categories))))
	var below *plotter.BarChart
	top := 0.0
	shares := true
	for c := range categories {
		sum := 0.0
		for _, s := range series {
			sum += s.Values[c]
		}
		top = max(top, sum)
		shares = shares && math.Abs(sum-1) < 1e-9
	}
	bars := make([]*plotter.BarChart, len(series))
	for i, s := range series {
		b, err := plotter.NewBarChart(plotter.Values(s.Values), width)
		if err != nil {
			return nil, nil, 0, plotError(kind, title, "series %q: %v", s.Name, err)
		}
		b.LineStyle.Width = 0
		b.Color = seriesColor(s.Name, i)
		if below != nil {
			b.StackOn(below)
		}
		below = b
		bars[i] = b
		p.Add(b)
	}
	for i := len(series) - 1; i >= 0; i-- {
		leg.Add(series[i].Name, bars[i])
	}
	nominalX(p, categories)
	p.Y.Min = 0
	p.Y.Max = top
	if shares || top == 0 {
		p.Y.Max = 1
	}
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = -0.9
	return p, leg, w, nil
}

// errorPoints feeds a line series to plotter.YErrorBars.
type errorPoints struct{ x, y, e []float64 }

func (e errorPoints) Len() int                        { return len(e.x) }
func (e errorPoints) XY(i int) (float64, float64)     { return e.x[i], e.y[i] }
func (e errorPoints) YError(i int) (float64, float64) { return e.e[i], e.e[i] }

// Line draws each series as a line with point markers, in the order of its
// points, with vertical error bars of ±YErr where YErr is given, a legend
// of the series, and writes path.png and path.svg.
func Line(title, xlabel, ylabel string, series []LineSeries, path string) error {
	return LineChart{Title: title, XLabel: xlabel, YLabel: ylabel, Series: series}.Draw(path)
}

// LineChart is a line plot: Line's arguments and how its y axis is
// drawn.
type LineChart struct {
	// Title, XLabel and YLabel are the plot's title and axis labels.
	Title, XLabel, YLabel string
	// Series are the lines.
	Series []LineSeries
	// Shares fixes the y axis from 0 to 1 (values are shares), however
	// close together the values are.
	Shares bool
}

// Draw draws the chart and writes path.png and path.svg.
func (c LineChart) Draw(path string) error {
	p, leg, err := linePlot(c.Title, c.XLabel, c.YLabel, c.Series)
	if err != nil {
		return err
	}
	if c.Shares {
		p.Y.Min, p.Y.Max = -0.02, 1.02
	}
	return render("line plot", c.Title, p, leg, 7*vg.Inch, 4.5*vg.Inch, path)
}

// linePlot checks the series and builds Line's plot and legend. A numeric
// x axis whose values double (log2Axis) is drawn on a log scale with a
// tick at every value.
func linePlot(title, xlabel, ylabel string, series []LineSeries) (*plot.Plot, *plot.Legend, error) {
	const kind = "line plot"
	if len(series) == 0 {
		return nil, nil, plotError(kind, title, "no series")
	}
	for _, s := range series {
		what := fmt.Sprintf("series %q", s.Name)
		if len(s.X) == 0 {
			return nil, nil, plotError(kind, title, "%s has no points", what)
		}
		if len(s.Y) != len(s.X) {
			return nil, nil, plotError(kind, title, "%s has %d x values and %d y values", what, len(s.X), len(s.Y))
		}
		if s.YErr != nil && len(s.YErr) != len(s.Y) {
			return nil, nil, plotError(kind, title, "%s has %d error values for %d points", what, len(s.YErr), len(s.Y))
		}
		for _, c := range []struct {
			axis string
			vs   []float64
		}{{"x", s.X}, {"y", s.Y}, {"error", s.YErr}} {
			if err := checkFinite(kind, title, what+" "+c.axis, c.vs, nil); err != nil {
				return nil, nil, err
			}
		}
		for i, e := range s.YErr {
			if e < 0 {
				return nil, nil, plotError(kind, title, "%s error %d is negative (%v)", what, i+1, e)
			}
		}
	}
	p, leg := newPlot(title, ylabel)
	p.X.Label.Text = xlabel
	colors, dashes, shapes := lineStyles(series)
	for _, i := range drawOrder(series) {
		s := series[i]
		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xys[j].X, xys[j].Y = s.X[j], s.Y[j]
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, nil, plotError(kind, title, "series %q: %v", s.Name, err)
		}
		line.LineStyle, points.GlyphStyle = lineLook(s, colors[i], dashes[i], shapes[i])
		c := line.Color
		p.Add(line, points)
		if s.YErr != nil {
			bars, err := plotter.NewYErrorBars(errorPoints{s.X, s.Y, s.YErr})
			if err != nil {
				return nil, nil, plotError(kind, title, "series %q: %v", s.Name, err)
			}
			bars.Color = c
			p.Add(bars)
		}
		leg.Add(s.Name, line, points)
	}
	xmin, xmax, ymin, ymax := plotter.XYRange(allPoints(series))
	if pows, ok := log2Axis(series); ok {
		// Cores, cache and line sizes double from point to point: a log2
		// axis spaces them evenly.
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = pow2Ticks{values: pows}
		p.X.Min, p.X.Max = xmin/math.Pow(2, 0.3), xmax*math.Pow(2, 0.3)
		if xl := p.X.Label.Text; xl != "" {
			p.X.Label.Text = xl + ", log2 scale"
		}
	} else {
		p.X.Min, p.X.Max = padRange(xmin, xmax)
	}
	lo, hi := padRange(ymin, ymax)
	if ymin >= 0 {
		lo = max(lo, 0) // no negative range for counts, rates and shares
	}
	if ymin >= 0 && ymax <= 1 {
		hi = min(hi, 1) // a share never runs past 1
	}
	p.Y.Min, p.Y.Max = lo, hi
	return p, leg, nil
}

// padRange widens [lo, hi] by 5% on each side, and an empty range (one
// value) by 5% of its magnitude or 0.5, so that no point sits on the frame
// and the range is never empty, however large the values.
func padRange(lo, hi float64) (float64, float64) {
	pad := 0.05 * (hi - lo)
	if pad == 0 {
		pad = max(0.05*math.Abs(lo), 0.5)
	}
	lo, hi = lo-pad, hi+pad
	if !(hi > lo) {
		hi = math.Nextafter(lo, math.Inf(1))
	}
	return lo, hi
}

// allPoints gathers every point and both error-bar ends of series.
func allPoints(series []LineSeries) plotter.XYs {
	var xys plotter.XYs
	for _, s := range series {
		for j := range s.X {
			xys = append(xys, plotter.XY{X: s.X[j], Y: s.Y[j]})
			if s.YErr != nil {
				xys = append(xys, plotter.XY{X: s.X[j], Y: s.Y[j] + s.YErr[j]}, plotter.XY{X: s.X[j], Y: s.Y[j] - s.YErr[j]})
			}
		}
	}
	return xys
}

// Box draws one Tukey box plot per sample (median, quartiles, whiskers to
// the furthest value within 1.5 IQR, points beyond), labelled by name on
// the x axis, and writes path.png and path.svg.
func Box(title, ylabel string, boxes []BoxSeries, path string) error {
	const kind = "box plot"
	if len(boxes) == 0 {
		return plotError(kind, title, "no boxes")
	}
	names := make([]string, len(boxes))
	for i, b := range boxes {
		if len(b.Values) == 0 {
			return plotError(kind, title, "series %q has no values", b.Name)
		}
		if err := checkFinite(kind, title, fmt.Sprintf("series %q", b.Name), b.Values, nil); err != nil {
			return err
		}
		names[i] = b.Name
	}
	p, _ := newPlot(title, ylabel)
	w := plotWidth(len(boxes), 1)
	bw := barWidth(w, len(boxes), 1)
	for i, b := range boxes {
		box, err := plotter.NewBoxPlot(bw, float64(i), plotter.Values(b.Values))
		if err != nil {
			return plotError(kind, title, "series %q: %v", b.Name, err)
		}
		c := color.NRGBAModel.Convert(seriesColor(b.Name, i)).(color.NRGBA)
		c.A = 0x60
		box.FillColor = c
		p.Add(box)
	}
	nominalX(p, names)
	return render(kind, title, p, nil, w, 4.5*vg.Inch, path)
}

// plotWidth is the canvas width for n categories of k bars each.
func plotWidth(n, k int) vg.Length {
	w := 1.5 + 0.3*float64(n*k)
	return vg.Length(min(24, max(6, w))) * vg.Inch
}

// barWidth is the width of one bar when n categories of k bars share a
// canvas of width w: a category's slot is 80% bars.
func barWidth(w vg.Length, n, k int) vg.Length {
	slot := (w - 1.2*vg.Inch) / vg.Length(n)
	return min(slot*0.8/vg.Length(k), 0.6*vg.Inch)
}

// render draws p, with leg (nil or empty for none) to the right of the
// plot area, as PNG and SVG in memory, then writes path.png and path.svg.
// w × h is the plot's own size; the legend widens the image, and a legend
// taller than the plot heightens it. If the second write fails the first
// file is removed again. gonum/plot panics on some degenerate input; such
// a panic is returned as an error naming the plot.
func render(kind, title string, p *plot.Plot, leg *plot.Legend, w, h vg.Length, path string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = plotError(kind, title, "cannot draw: %v", r)
		}
	}()
	var legW, legH vg.Length
	const gap = 12 // points between plot and legend, and around it
	if leg != nil {
		r := leg.Rectangle(draw.Canvas{})
		legW, legH = r.Size().X+2*vg.Points(gap), r.Size().Y+2*vg.Points(gap)
		if r.Size().X == 0 {
			leg = nil
			legW, legH = 0, 0
		}
	}
	totalW, totalH := w+legW, max(h, legH+vg.Points(40))
	return renderWith(kind, title, totalW, totalH, path, func(dc draw.Canvas) {
		area := draw.Crop(dc, 0, -legW, 0, 0)
		p.Draw(area)
		if leg != nil {
			top := p.DataCanvas(area).Max.Y
			leg.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
				Min: vg.Point{X: w + vg.Points(gap), Y: dc.Min.Y},
				Max: vg.Point{X: totalW - vg.Points(gap), Y: top},
			}})
		}
	})
}

// renderWith draws an image of w × h with drawFn, as PNG and SVG in
// memory, then writes path.png and path.svg; if the second write fails
// the first file is removed again. A panic in drawing (gonum/plot panics
// on some degenerate input) is returned as an error naming the plot.
func renderWith(kind, title string, w, h vg.Length, path string, drawFn func(draw.Canvas)) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = plotError(kind, title, "cannot draw: %v", r)
		}
	}()
	var imgs [2]bytes.Buffer
	exts := [2]string{"png", "svg"}
	for i, ext := range exts {
		c, err := draw.NewFormattedCanvas(w, h, ext)
		if err != nil {
			return plotError(kind, title, "render %s: %v", ext, err)
		}
		drawFn(draw.New(c))
		if _, err := c.WriteTo(&imgs[i]); err != nil {
			return plotError(kind, title, "render %s: %v", ext, err)
		}
	}
	for i, ext := range exts {
		if err := atomicfile.WriteFile(path+"."+ext, imgs[i].Bytes()); err != nil {
			if i > 0 {
				os.Remove(path + "." + exts[0])
			}
			return plotError(kind, title, "%v", err)
		}
	}
	return nil
}
