package bugaboo

import (
	"testing"

	"weft/experiments"
)

func TestBugabooTable5Beside(t *testing.T) {
	r, err := runBugabooTable5(experiments.Env{Quick: true, Seeds: 1})
	if err != nil {
		t.Fatal(err)
	}
	side := r.Sections[0].Tables[0]
	for _, col := range []string{"Rd.Ms (weft)", "Rd.Ms (paper)", "Rd.Ms ratio", "Wr.Ms ratio"} {
		if _, ok := side.Column(col); !ok {
			t.Fatalf("side-by-side table lacks %q: %v", col, side.Columns)
		}
	}
	ratios, err := side.Floats("Rd.Ms ratio")
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range ratios {
		if x < 0.7 || x > 1.3 {
			t.Errorf("%v: read-miss ratio %.2f outside ±30%%", side.Rows[i][0], x)
		}
	}
}
