package results

import "testing"

// Equal values have no spread: no float noise in Std or CI95.
func TestSummarizeEqualValues(t *testing.T) {
	for _, v := range []float64{0.1, 1.0 / 3, 123456.789, 2.5e-7} {
		s := Summarize([]float64{v, v, v, v, v, v, v})
		if s.Std != 0 || s.CI95 != 0 || s.Min != v || s.Max != v {
			t.Errorf("Summarize of seven %v: %+v", v, s)
		}
	}
}
