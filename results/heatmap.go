package results

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// HeatMapSpec describes a heat map: a grid of cells coloured by value,
// rows labelled top to bottom and columns left to right, with a colour
// scale beside it.
type HeatMapSpec struct {
	// Title is the plot's title.
	Title string
	// Rows and Cols label the rows (top down) and the columns.
	Rows, Cols []string
	// Values holds Values[row][col], each from Lo to Hi; NaN is a cell
	// without a value, drawn grey.
	Values [][]float64
	// Labels, when not nil, holds the text written in each cell (a count
	// of runs, "Yes"), Labels[row][col]; "" writes none.
	Labels [][]string
	// Lo and Hi are the values of the scale's ends.
	Lo, Hi float64
	// Scale names the values on the colour scale ("share of runs").
	Scale string
}

// Cell colours: Lo is white, any value above it at least minTint of the
// way from white to dark blue, so that 1 run of 20 is a visible light
// blue and never looks like none; Hi is dark blue. NaN (no value) is
// grey.
var (
	heatLo    = [3]float64{255, 255, 255}
	heatHi    = [3]float64{8, 48, 107}
	heatNaN   = color.NRGBA{0xd0, 0xd0, 0xd0, 0xff}
	heatLines = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

// minTint is the share of the white-to-dark-blue way of the smallest value
// above Lo.
const minTint = 0.2

// HeatColor returns the colour a heat map gives v on a scale from lo to
// hi: white for lo (or below), from a light blue (minTint of the way) for
// the smallest value above it to dark blue for hi, grey for NaN.
func HeatColor(v, lo, hi float64) color.Color {
	if math.IsNaN(v) {
		return heatNaN
	}
	if v <= lo {
		return color.NRGBA{uint8(heatLo[0]), uint8(heatLo[1]), uint8(heatLo[2]), 0xff}
	}
	t := minTint + (1-minTint)*min(1, (v-lo)/(hi-lo))
	var c [3]uint8
	for k := range c {
		c[k] = uint8(heatLo[k] + t*(heatHi[k]-heatLo[k]) + 0.5)
	}
	return color.NRGBA{c[0], c[1], c[2], 0xff}
}

// dark reports whether c needs white text.
func dark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return 0.299*float64(r)+0.587*float64(g)+0.114*float64(b) < 0.5*0xffff
}

// cells draws a heat map's cells, row 0 at the top, with their labels.
type cells struct {
	spec  *HeatMapSpec
	style text.Style
}

// Plot draws the cells on the data canvas.
func (g cells) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	s := g.spec
	rows := len(s.Rows)
	for r, row := range s.Values {
		y := float64(rows - 1 - r)
		for col, v := range row {
			x := float64(col)
			rect := vg.Rectangle{
				Min: vg.Point{X: trX(x - 0.5), Y: trY(y - 0.5)},
				Max: vg.Point{X: trX(x + 0.5), Y: trY(y + 0.5)},
			}
			fill := HeatColor(v, s.Lo, s.Hi)
			c.FillPolygon(fill, c.ClipPolygonXY(corners(rect)))
			c.StrokeLines(draw.LineStyle{Color: heatLines, Width: vg.Points(0.5)}, c.ClipLinesXY(corners(rect))...)
			if s.Labels == nil || s.Labels[r][col] == "" {
				continue
			}
			st := g.style
			st.Color = color.Black
			if dark(fill) {
				st.Color = color.White
			}
			c.FillText(st, vg.Point{X: trX(x), Y: trY(y)}, s.Labels[r][col])
		}
	}
}

// DataRange is the grid's extent: half a cell around the cells' centres.
func (g cells) DataRange() (xmin, xmax, ymin, ymax float64) {
	return -0.5, float64(len(g.spec.Cols)) - 0.5, -0.5, float64(len(g.spec.Rows)) - 0.5
}

// HeatMap draws s, with a colour scale to the right of the cells, and
// writes path.png and path.svg.
func HeatMap(s HeatMapSpec, path string) error {
	const kind = "heat map"
	title := s.Title
	if len(s.Rows) == 0 || len(s.Cols) == 0 {
		return plotError(kind, title, "no rows or no columns")
	}
	if len(s.Values) != len(s.Rows) {
		return plotError(kind, title, "%d rows of values for %d row labels", len(s.Values), len(s.Rows))
	}
	if s.Labels != nil && len(s.Labels) != len(s.Rows) {
		return plotError(kind, title, "%d rows of labels for %d row labels", len(s.Labels), len(s.Rows))
	}
	hasNaN := false
	for i, r := range s.Values {
		if len(r) != len(s.Cols) {
			return plotError(kind, title, "row %q has %d values for %d columns", s.Rows[i], len(r), len(s.Cols))
		}
		if s.Labels != nil && len(s.Labels[i]) != len(s.Cols) {
			return plotError(kind, title, "row %q has %d labels for %d columns", s.Rows[i], len(s.Labels[i]), len(s.Cols))
		}
		for j, v := range r {
			if math.IsInf(v, 0) {
				return plotError(kind, title, "row %q column %q is infinite", s.Rows[i], s.Cols[j])
			}
			hasNaN = hasNaN || math.IsNaN(v)
		}
	}
	if !(s.Lo < s.Hi) {
		return plotError(kind, title, "empty value range [%g, %g]", s.Lo, s.Hi)
	}
	p := plot.New()
	p.Title.Text = title
	p.Title.Padding = vg.Points(8)
	style := text.Style{
		Font:    font.From(plot.DefaultFont, vg.Points(7.5)),
		XAlign:  draw.XCenter,
		YAlign:  draw.YCenter,
		Handler: plot.DefaultTextHandler,
	}
	p.Add(cells{spec: &s, style: style})
	p.NominalX(s.Cols...)
	if len(s.Cols) > 6 {
		p.X.Tick.Label.Rotation = 0.6
		p.X.Tick.Label.XAlign = -0.9
	}
	top := make([]string, len(s.Rows))
	for r := range s.Rows {
		top[r] = s.Rows[len(s.Rows)-1-r]
	}
	p.NominalY(top...)
	p.X.Min, p.X.Max = -0.5, float64(len(s.Cols))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(s.Rows))-0.5
	w := vg.Length(3+1.1*float64(len(s.Cols))) * vg.Inch
	ht := vg.Length(1.5+0.18*float64(len(s.Rows))) * vg.Inch
	barW := 1.6 * vg.Inch
	return renderWith(kind, title, w+barW, max(ht, 3.5*vg.Inch), path, func(dc draw.Canvas) {
		area := draw.Crop(dc, 0, -barW, 0, 0)
		p.Draw(area)
		data := p.DataCanvas(area)
		colourBar(dc, s, hasNaN, vg.Rectangle{
			Min: vg.Point{X: w + vg.Points(10), Y: data.Min.Y},
			Max: vg.Point{X: dc.Max.X, Y: data.Max.Y},
		})
	})
}

// colourBar draws the heat map's colour scale into r: a gradient from
// the smallest value above Lo to Hi with readable ticks, and below it a
// swatch for Lo itself (white) and, when the map has one, for NaN.
func colourBar(dc draw.Canvas, s HeatMapSpec, hasNaN bool, r vg.Rectangle) {
	txt := text.Style{
		Font:    font.From(plot.DefaultFont, vg.Points(10)),
		XAlign:  draw.XLeft,
		YAlign:  draw.YCenter,
		Color:   color.Black,
		Handler: plot.DefaultTextHandler,
	}
	barW := vg.Points(14)
	x0 := r.Min.X
	// The scale's name at the top, then the gradient, at most 3 inches;
	// the swatches sit below it.
	label := txt
	label.XAlign, label.YAlign = draw.XLeft, draw.YTop
	dc.FillText(label, vg.Point{X: x0, Y: r.Max.Y}, s.Scale)
	top := r.Max.Y - label.Height(s.Scale) - vg.Points(8)
	height := min(3*vg.Inch, top-r.Min.Y-vg.Points(50))
	if height < vg.Points(40) {
		height = vg.Points(40)
	}
	bottom := top - height
	const steps = 64
	for k := range steps {
		v := s.Lo + (s.Hi-s.Lo)*(float64(k)+0.5)/steps
		y0 := bottom + height*vg.Length(k)/steps
		y1 := bottom + height*vg.Length(k+1)/steps
		rect := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x0 + barW, Y: y1 + vg.Points(0.3)}}
		dc.FillPolygon(HeatColor(v, s.Lo, s.Hi), corners(rect))
	}
	outline := draw.LineStyle{Color: color.Gray{0x60}, Width: vg.Points(0.5)}
	box := vg.Rectangle{Min: vg.Point{X: x0, Y: bottom}, Max: vg.Point{X: x0 + barW, Y: top}}
	dc.StrokeLines(outline, corners(box))
	for _, tk := range (readableTicks{}).Ticks(s.Lo, s.Hi) {
		if tk.Label == "" || tk.Value <= s.Lo {
			continue
		}
		y := bottom + height*vg.Length((tk.Value-s.Lo)/(s.Hi-s.Lo))
		dc.StrokeLine2(outline, x0+barW, y, x0+barW+vg.Points(4), y)
		dc.FillText(txt, vg.Point{X: x0 + barW + vg.Points(6), Y: y}, tk.Label)
	}
	// Swatches: Lo exactly (none), and no value.
	y := bottom - vg.Points(18)
	swatch := func(c color.Color, name string) {
		rect := vg.Rectangle{Min: vg.Point{X: x0, Y: y - vg.Points(6)}, Max: vg.Point{X: x0 + barW, Y: y + vg.Points(6)}}
		dc.FillPolygon(c, corners(rect))
		dc.StrokeLines(outline, corners(rect))
		dc.FillText(txt, vg.Point{X: x0 + barW + vg.Points(6), Y: y}, name)
		y -= vg.Points(18)
	}
	swatch(HeatColor(s.Lo, s.Lo, s.Hi), FormatReadable(s.Lo)+" (none)")
	if hasNaN {
		swatch(heatNaN, "no value")
	}
}

// corners returns r's corners as a closed polygon, counter-clockwise from
// the bottom left.
func corners(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min}
}
