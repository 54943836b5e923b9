package results

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	gpalette "gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// grid is a row × column matrix as a plotter.GridXYZ: column c at x = c,
// row r at y = rows-1-r, so row 0 is drawn at the top.
type grid struct {
	z          [][]float64
	rows, cols int
}

func (g grid) Dims() (int, int)   { return g.cols, g.rows }
func (g grid) Z(c, r int) float64 { return g.z[g.rows-1-r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// HeatMap draws values[row][col] (each from lo to hi) as a grid of cells
// coloured from white (lo) to dark blue (hi), rows labelled top to bottom and
// columns left to right, and writes path.png and path.svg. NaN cells (no
// value) are drawn in the default line colour.
func HeatMap(title string, rows, cols []string, values [][]float64, lo, hi float64, path string) error {
	const kind = "heat map"
	if len(rows) == 0 || len(cols) == 0 {
		return plotError(kind, title, "no rows or no columns")
	}
	if len(values) != len(rows) {
		return plotError(kind, title, "%d rows of values for %d row labels", len(values), len(rows))
	}
	for i, r := range values {
		if len(r) != len(cols) {
			return plotError(kind, title, "row %q has %d values for %d columns", rows[i], len(r), len(cols))
		}
		for j, v := range r {
			if math.IsInf(v, 0) {
				return plotError(kind, title, "row %q column %q is infinite", rows[i], cols[j])
			}
		}
	}
	if !(lo < hi) {
		return plotError(kind, title, "empty value range [%g, %g]", lo, hi)
	}
	h := plotter.NewHeatMap(grid{z: values, rows: len(rows), cols: len(cols)}, blues(64))
	h.Min, h.Max = lo, hi
	h.NaN = plotter.DefaultLineStyle.Color
	p := plot.New()
	p.Title.Text = title
	p.Add(h)
	p.NominalX(cols...)
	top := make([]string, len(rows))
	for r := range rows {
		top[r] = rows[len(rows)-1-r]
	}
	p.NominalY(top...)
	w := vg.Length(3+1.1*float64(len(cols))) * vg.Inch
	ht := vg.Length(1.5+0.18*float64(len(rows))) * vg.Inch
	return render(kind, title, p, nil, w, ht, path)
}

// blues is a single-hue palette of n colours from white to dark blue, so a
// darker cell always means a larger value.
type bluesPalette []color.Color

func (b bluesPalette) Colors() []color.Color { return b }

func blues(n int) gpalette.Palette {
	lo, hi := [3]float64{255, 255, 255}, [3]float64{8, 48, 107}
	out := make(bluesPalette, n)
	for i := range out {
		t := float64(i) / float64(n-1)
		var c [3]uint8
		for k := range c {
			c[k] = uint8(lo[k] + t*(hi[k]-lo[k]) + 0.5)
		}
		out[i] = color.RGBA{c[0], c[1], c[2], 255}
	}
	return out
}
