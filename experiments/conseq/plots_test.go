package conseq

import "testing"

// Table 6's overheads span decades (the paper's 21–3846%, weft's a few
// per cent): the plot is on a log axis, so weft's bars show.
func TestTable6PlotLogScale(t *testing.T) {
	c := table6Chart([]string{"Aget1", "FFT"}, []float64{2.5, 4}, []float64{21, 3846})
	if !c.LogY {
		t.Error("Table 6's overhead plot is linear")
	}
	if len(c.Series) != 2 || c.Series[0].Name != "weft" || c.Series[1].Name != "paper" {
		t.Errorf("series %v", c.Series)
	}
}

// The paper's MaxDistance curve is a reference line, drawn over weft's
// where the two coincide; bugs and FPs have plots (and axes) of their own.
func TestMaxDistanceLinesShowThePaper(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	same := []float64{6, 8, 9, 10, 10}
	ls := maxDistanceLines("bugs", xs, same, same)
	if len(ls) != 2 || ls[0].Reference || !ls[1].Reference || ls[1].Name != "bugs (paper)" {
		t.Errorf("lines %+v: want weft's, then the paper's as the reference", ls)
	}
}
