package machine

import (
	"strconv"
	"strings"
	"testing"

	"weft/experiments"
	"weft/results"
)

// The scaling study runs every profile on both machines, and the split
// bus, whose transactions do not hold it through memory's latency, is
// less busy than the atomic bus at every point and never slower.
func TestScalingComparesTheBuses(t *testing.T) {
	r, err := Scaling().Run(experiments.Env{Quick: true, Seeds: 1})
	if err != nil {
		t.Fatal(err)
	}
	tab := r.Sections[0].Tables[0]
	col := func(name string) int {
		for i, c := range tab.Columns {
			if c == name {
				return i
			}
		}
		t.Fatalf("no column %s in %v", name, tab.Columns)
		return -1
	}
	mc, wc, vc, cc, bc := col("machine"), col("workload"), col("machine.cores"), col("roi_cycles"), col("bus_utilization")
	num := func(v any) float64 {
		f, err := strconv.ParseFloat(strings.TrimSpace(results.FormatCell(v)), 64)
		if err != nil {
			t.Fatalf("cell %v: %v", v, err)
		}
		return f
	}
	type key struct{ w, v string }
	atomic := map[key][2]float64{}
	split := map[key][2]float64{}
	for _, row := range tab.Rows {
		k := key{results.FormatCell(row[wc]), results.FormatCell(row[vc])}
		switch results.FormatCell(row[mc]) {
		case studyMachines[0].Label:
			atomic[k] = [2]float64{num(row[cc]), num(row[bc])}
		case studyMachines[1].Label:
			split[k] = [2]float64{num(row[cc]), num(row[bc])}
		default:
			t.Fatalf("row of an unknown machine %v", row[mc])
		}
	}
	if len(atomic) == 0 || len(atomic) != len(split) {
		t.Fatalf("%d atomic-bus points, %d split-bus points", len(atomic), len(split))
	}
	for k, a := range atomic {
		s := split[k]
		if s[0] > a[0] || s[1] >= a[1] {
			t.Errorf("%s at %s cores: split bus %.0f cycles at %.2f busy, atomic %.0f at %.2f", k.w, k.v, s[0], s[1], a[0], a[1])
		}
	}
	if c := r.Sections[0].Comment; !strings.Contains(c, studyMachines[1].Label) {
		t.Errorf("comment does not compare the machines: %s", c)
	}
}
