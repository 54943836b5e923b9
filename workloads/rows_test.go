package workloads_test

import (
	"strings"
	"testing"

	"weft/workloads"
)

// TestPaperRowsCovered checks the registry maps every row of the papers'
// tables to a kernel, and every row a kernel names exists.
func TestPaperRowsCovered(t *testing.T) {
	have := workloads.RowKernels()
	known := map[string]bool{}
	for paper, rows := range workloads.PaperRows() {
		for _, r := range rows {
			known[r] = true
			if len(have[r]) == 0 {
				t.Errorf("%s row %s has no kernel", paper, r)
			}
		}
	}
	scenarios := 0
	for r, ks := range have {
		switch {
		case !workloads.KnownPaper(r):
			t.Errorf("%v name row %q of an unknown paper (want one of %v)", ks, r, workloads.Papers())
		case strings.HasPrefix(r, "inference:"):
			scenarios++
		case !known[r]:
			t.Errorf("%v name row %q, which is not in its paper's table", ks, r)
		}
	}
	if scenarios < workloads.MinInferenceScenarios {
		t.Errorf("%d interleaving-inference scenarios, want at least %d", scenarios, workloads.MinInferenceScenarios)
	}
}
