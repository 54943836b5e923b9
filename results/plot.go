package results

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"

	"weft/internal/atomicfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
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

// newPlot starts a plot with a title and y label.
func newPlot(title, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	return p
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

// headroom raises the y range so a legend of n entries at the top does not
// cover the tallest bar.
func headroom(p *plot.Plot, top float64, n int) {
	if top > 0 {
		p.Y.Max = max(p.Y.Max, top*(1+0.07*float64(n+1)))
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
	p := newPlot(title, ylabel)
	w := plotWidth(len(categories), 1)
	bars, err := plotter.NewBarChart(plotter.Values(values), barWidth(w, len(categories), 1))
	if err != nil {
		return plotError(kind, title, "%v", err)
	}
	bars.LineStyle.Width = 0
	bars.Color = plotutil.Color(0)
	p.Add(bars)
	nominalX(p, categories)
	return render(kind, title, p, w, 4.5*vg.Inch, path)
}

// GroupedBar draws, for each category, one bar per series side by side, with
// a legend of the series, and writes path.png and path.svg.
func GroupedBar(title, ylabel string, categories []string, series []Series, path string) error {
	const kind = "grouped bar"
	if err := checkSeries(kind, title, categories, series); err != nil {
		return err
	}
	p := newPlot(title, ylabel)
	p.Legend.Top = true
	w := plotWidth(len(categories), len(series))
	bw := barWidth(w, len(categories), len(series))
	top := 0.0
	for i, s := range series {
		bars, err := plotter.NewBarChart(plotter.Values(s.Values), bw)
		if err != nil {
			return plotError(kind, title, "series %q: %v", s.Name, err)
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(i)
		bars.Offset = vg.Length(float64(i)-float64(len(series)-1)/2) * bw
		p.Add(bars)
		p.Legend.Add(s.Name, bars)
		for _, v := range s.Values {
			top = max(top, v)
		}
	}
	nominalX(p, categories)
	headroom(p, top, len(series))
	return render(kind, title, p, w, 4.5*vg.Inch, path)
}

// StackedBar draws the series stacked on one bar per category and writes
// path.png and path.svg.
func StackedBar(title, ylabel string, categories []string, series []Series, path string) error {
	const kind = "stacked bar"
	if err := checkSeries(kind, title, categories, series); err != nil {
		return err
	}
	p := newPlot(title, ylabel)
	p.Legend.Top = true
	w := vg.Length(max(6, 0.9*float64(len(categories)))) * vg.Inch
	width := vg.Points(float64(max(10, 300/len(categories))))
	var below *plotter.BarChart
	top := 0.0
	for c := range categories {
		sum := 0.0
		for _, s := range series {
			sum += s.Values[c]
		}
		top = max(top, sum)
	}
	for i, s := range series {
		bars, err := plotter.NewBarChart(plotter.Values(s.Values), width)
		if err != nil {
			return plotError(kind, title, "series %q: %v", s.Name, err)
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(i)
		if below != nil {
			bars.StackOn(below)
		}
		below = bars
		p.Add(bars)
		p.Legend.Add(s.Name, bars)
	}
	nominalX(p, categories)
	// Room above the tallest stack for the legend (about one line a series).
	p.Y.Min = 0
	p.Y.Max = top * (1 + 0.07*float64(len(series)+1))
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = -0.9
	return render(kind, title, p, w, 4.5*vg.Inch, path)
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
	const kind = "line plot"
	if len(series) == 0 {
		return plotError(kind, title, "no series")
	}
	for _, s := range series {
		what := fmt.Sprintf("series %q", s.Name)
		if len(s.X) == 0 {
			return plotError(kind, title, "%s has no points", what)
		}
		if len(s.Y) != len(s.X) {
			return plotError(kind, title, "%s has %d x values and %d y values", what, len(s.X), len(s.Y))
		}
		if s.YErr != nil && len(s.YErr) != len(s.Y) {
			return plotError(kind, title, "%s has %d error values for %d points", what, len(s.YErr), len(s.Y))
		}
		for _, c := range []struct {
			axis string
			vs   []float64
		}{{"x", s.X}, {"y", s.Y}, {"error", s.YErr}} {
			if err := checkFinite(kind, title, what+" "+c.axis, c.vs, nil); err != nil {
				return err
			}
		}
		for i, e := range s.YErr {
			if e < 0 {
				return plotError(kind, title, "%s error %d is negative (%v)", what, i+1, e)
			}
		}
	}
	p := newPlot(title, ylabel)
	p.X.Label.Text = xlabel
	p.Legend.Top = true
	p.Legend.Left = true
	for i, s := range series {
		xys := make(plotter.XYs, len(s.X))
		for j := range s.X {
			xys[j].X, xys[j].Y = s.X[j], s.Y[j]
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return plotError(kind, title, "series %q: %v", s.Name, err)
		}
		c := plotutil.Color(i)
		line.Color = c
		line.Dashes = plotutil.Dashes(i)
		points.Color = c
		points.Shape = plotutil.Shape(i)
		p.Add(line, points)
		if s.YErr != nil {
			bars, err := plotter.NewYErrorBars(errorPoints{s.X, s.Y, s.YErr})
			if err != nil {
				return plotError(kind, title, "series %q: %v", s.Name, err)
			}
			bars.Color = c
			p.Add(bars)
		}
		p.Legend.Add(s.Name, line, points)
	}
	xmin, xmax, _, ymax := plotter.XYRange(allPoints(series))
	pad := 0.05 * (xmax - xmin)
	if pad == 0 {
		pad = 0.5
	}
	p.X.Min, p.X.Max = xmin-pad, xmax+pad
	headroom(p, ymax, len(series))
	return render(kind, title, p, 7*vg.Inch, 4.5*vg.Inch, path)
}

// allPoints gathers every point and error-bar end of series.
func allPoints(series []LineSeries) plotter.XYs {
	var xys plotter.XYs
	for _, s := range series {
		for j := range s.X {
			y := s.Y[j]
			if s.YErr != nil {
				y += s.YErr[j]
			}
			xys = append(xys, plotter.XY{X: s.X[j], Y: y})
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
	p := newPlot(title, ylabel)
	w := plotWidth(len(boxes), 1)
	bw := barWidth(w, len(boxes), 1)
	for i, b := range boxes {
		box, err := plotter.NewBoxPlot(bw, float64(i), plotter.Values(b.Values))
		if err != nil {
			return plotError(kind, title, "series %q: %v", b.Name, err)
		}
		c := color.NRGBAModel.Convert(plotutil.Color(i)).(color.NRGBA)
		c.A = 0x60
		box.FillColor = c
		p.Add(box)
	}
	nominalX(p, names)
	return render(kind, title, p, w, 4.5*vg.Inch, path)
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

// render draws p as PNG and SVG in memory, then writes path.png and
// path.svg. If the second write fails the first file is removed again.
func render(kind, title string, p *plot.Plot, w, h vg.Length, path string) error {
	var imgs [2]bytes.Buffer
	exts := [2]string{"png", "svg"}
	for i, ext := range exts {
		wt, err := p.WriterTo(w, h, ext)
		if err != nil {
			return plotError(kind, title, "render %s: %v", ext, err)
		}
		if _, err := wt.WriteTo(&imgs[i]); err != nil {
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
