package results

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// A cell of 1 run in 20 is visibly coloured, never the white of none;
// darker means more; no value is grey, apart from both ends.
func TestHeatColorSmallValuesVisible(t *testing.T) {
	channels := func(v float64) [3]int {
		r, g, b, _ := HeatColor(v, 0, 1).RGBA()
		return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
	}
	none, one, all := channels(0), channels(1.0/20), channels(1)
	if none != [3]int{255, 255, 255} {
		t.Errorf("0 is %v, want white", none)
	}
	diff := 0
	for k := range none {
		diff = max(diff, none[k]-one[k])
	}
	if diff < 30 {
		t.Errorf("1/20 is %v, within %d of white %v: invisible", one, diff, none)
	}
	prev := -1
	for _, v := range []float64{0, 0.05, 0.25, 0.5, 0.75, 1} {
		c := channels(v)
		if s := 765 - c[0] - c[1] - c[2]; s <= prev {
			t.Errorf("%v is no darker than the value before it", v)
		} else {
			prev = s
		}
	}
	nan := channels(math.NaN())
	if nan == none || nan == all || nan[0] != nan[1] || nan[1] != nan[2] {
		t.Errorf("NaN is %v, want a grey apart from 0 and 1", nan)
	}
}

// A heat map has its colour scale (the scale's name, its ticks and the
// swatch of none) and the cells' labels.
func TestHeatMapScaleAndLabels(t *testing.T) {
	base := filepath.Join(t.TempDir(), "heat")
	err := HeatMap(HeatMapSpec{
		Title:  "T",
		Rows:   []string{"counter-race", "mysql-binlog"},
		Cols:   []string{"hb", "lockset", "avoids"},
		Values: [][]float64{{1, 0.05, 1}, {0, 0.5, math.NaN()}},
		Labels: [][]string{{"20", "1", "Yes"}, {"0", "10", "—"}},
		Lo:     0, Hi: 1, Scale: "share of runs",
	}, base)
	if err != nil {
		t.Fatal(err)
	}
	checkImages(t, base, "share of runs", "0 (none)", "no value", "0.5", "Yes", "—", ">1<", ">10<", "counter-race")
}

func TestHeatMapRejectsBadData(t *testing.T) {
	for _, c := range []struct {
		name string
		spec HeatMapSpec
		want string
	}{
		{"empty", HeatMapSpec{Title: "T"}, "no rows or no columns"},
		{"rows", HeatMapSpec{Title: "T", Rows: []string{"a"}, Cols: []string{"x"}, Lo: 0, Hi: 1}, "0 rows of values for 1 row labels"},
		{"labels", HeatMapSpec{Title: "T", Rows: []string{"a"}, Cols: []string{"x"}, Values: [][]float64{{1}}, Labels: [][]string{{}}, Lo: 0, Hi: 1}, `row "a" has 0 labels for 1 columns`},
		{"inf", HeatMapSpec{Title: "T", Rows: []string{"a"}, Cols: []string{"x"}, Values: [][]float64{{math.Inf(1)}}, Lo: 0, Hi: 1}, "infinite"},
		{"range", HeatMapSpec{Title: "T", Rows: []string{"a"}, Cols: []string{"x"}, Values: [][]float64{{1}}, Lo: 1, Hi: 1}, "empty value range"},
	} {
		err := HeatMap(c.spec, filepath.Join(t.TempDir(), "p"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}
