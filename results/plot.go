// Package results turns runs into tables and plots: stacked bars today,
// with tables, aggregation and the papers' reference data to come.
package results

import (
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// Series is one named set of values, one per category.
type Series struct {
	Name   string
	Values []float64
}

// StackedBar draws the series stacked on one bar per category and writes
// path.png and path.svg. Files appear whole or not at all.
func StackedBar(title, ylabel string, categories []string, series []Series, path string) error {
	if len(categories) == 0 || len(series) == 0 {
		return fmt.Errorf("stacked bar %q: no data", title)
	}
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	width := vg.Points(float64(max(10, 300/len(categories))))
	var below *plotter.BarChart
	top := 0.0
	for c := range categories {
		sum := 0.0
		for _, s := range series {
			if c < len(s.Values) {
				sum += s.Values[c]
			}
		}
		top = max(top, sum)
	}
	for i, s := range series {
		if len(s.Values) != len(categories) {
			return fmt.Errorf("stacked bar %q: series %q has %d values for %d categories", title, s.Name, len(s.Values), len(categories))
		}
		bars, err := plotter.NewBarChart(plotter.Values(s.Values), width)
		if err != nil {
			return fmt.Errorf("stacked bar %q: series %q: %w", title, s.Name, err)
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
	p.NominalX(categories...)
	// Room above the tallest stack for the legend (about one line a series).
	p.Y.Min = 0
	p.Y.Max = top * (1 + 0.07*float64(len(series)+1))
	p.X.Tick.Label.Rotation = 0.6
	p.X.Tick.Label.XAlign = -0.9
	w := vg.Length(max(6, 0.9*float64(len(categories)))) * vg.Inch
	for _, ext := range []string{"png", "svg"} {
		if err := save(p, w, 4.5*vg.Inch, path+"."+ext, ext); err != nil {
			return fmt.Errorf("stacked bar %q: %w", title, err)
		}
	}
	return nil
}

// save renders p and writes it to path whole or not at all.
func save(p *plot.Plot, w, h vg.Length, path, format string) error {
	wt, err := p.WriterTo(w, h, format)
	if err != nil {
		return err
	}
	return WriteAtomic(path, func(out io.Writer) error {
		_, err := wt.WriteTo(out)
		return err
	})
}
