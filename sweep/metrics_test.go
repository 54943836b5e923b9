package sweep_test

import (
	"testing"

	"weft/sim"
	"weft/sweep"
)

// One list: the headline metrics lead it, every name is distinct, and each
// reads its run's statistics (the per-10k ones summed over their counters).
func TestMetrics(t *testing.T) {
	r := &sim.Result{Stats: sim.Stats{{Name: "roi_cycles", Value: 1000}, {Name: "ipc", Value: 1.5},
		{Name: "l1_miss_rate", Value: 0.25}, {Name: "bus_utilization", Value: 0.5},
		{Name: "bus_busrd_per_10k", Value: 3}, {Name: "bus_busrdx_per_10k", Value: 4}, {Name: "bus_busupgr_per_10k", Value: 5},
		{Name: "l1_coherence_misses_per_10k", Value: 7}}}
	want := map[string]float64{"roi_cycles": 1000, "ipc": 1.5, "l1_miss_rate": 0.25, "bus_utilization": 0.5,
		"bus_txns_per_10k": 12, "coherence_misses_per_10k": 7}
	all := sweep.Metrics()
	if len(all) != len(want) {
		t.Fatalf("%d metrics, want %d", len(all), len(want))
	}
	seen := map[string]bool{}
	for _, m := range all {
		if seen[m.Name] || m.Label == "" || m.LabelInStudy() == "" {
			t.Errorf("metric %q: repeated or unlabelled", m.Name)
		}
		seen[m.Name] = true
		if got := m.Value(r); got != want[m.Name] {
			t.Errorf("%s = %v, want %v", m.Name, got, want[m.Name])
		}
	}
	heads := sweep.HeadlineMetrics()
	if len(heads) != 4 {
		t.Fatalf("%d headline metrics, want 4", len(heads))
	}
	for i, m := range heads {
		if m.Name != all[i].Name {
			t.Errorf("headline metric %d is %s, want %s (they lead the list)", i, m.Name, all[i].Name)
		}
	}
	if ipc := all[1]; ipc.LabelInStudy() != "IPC (all cores)" || ipc.Label != "IPC (instructions per ROI cycle)" {
		t.Errorf("ipc labels %q, %q", ipc.Label, ipc.LabelInStudy())
	}
}
