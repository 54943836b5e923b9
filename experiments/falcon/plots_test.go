package falcon

import (
	"strings"
	"testing"
	"weft/results"
	"weft/sim"
)

// Ranks are whole numbers: the rank plot's axis has integer ticks only.
func TestRankChartIntegerTicks(t *testing.T) {
	if c := rankChart([]string{"account", "hedc"}, []float64{1, 2}, []float64{1, 4}); !c.IntegerY {
		t.Error("the rank plot's ticks may be fractional")
	}
}

// Study 3's comparison of the machines follows the numbers: the cycles
// of the subjects' runs and the cycle model's means.
func TestSplitCommentFollowsTheNumbers(t *testing.T) {
	subs := []*falconSubject{{runs: []sim.Result{{Cycles: 600}, {Cycles: 400}}, splitCyc: 900}}
	got := falconSplitComment(results.Summary{Mean: 1.2}, results.Summary{Mean: 1.5, Median: 1.4}, subs)
	for _, want := range []string{"take 10% fewer cycles than on the atomic bus", "mean of 1.50× and a median of 1.40×, above the atomic bus's mean"} {
		if !strings.Contains(got, want) {
			t.Errorf("comment %q lacks %q", got, want)
		}
	}
	subs[0].splitCyc = 1100
	got = falconSplitComment(results.Summary{Mean: 1.2}, results.Summary{Mean: 1.1, Median: 1.1}, subs)
	for _, want := range []string{"take 10% more cycles than", "below the atomic bus's mean"} {
		if !strings.Contains(got, want) {
			t.Errorf("comment %q lacks %q", got, want)
		}
	}
}
