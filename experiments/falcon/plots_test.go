package falcon

import "testing"

// Ranks are whole numbers: the rank plot's axis has integer ticks only.
func TestRankChartIntegerTicks(t *testing.T) {
	if c := rankChart([]string{"account", "hedc"}, []float64{1, 2}, []float64{1, 4}); !c.IntegerY {
		t.Error("the rank plot's ticks may be fractional")
	}
}
