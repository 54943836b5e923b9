package coherence_test

import (
	"testing"

	"weft/coherence"
	"weft/core"
)

// Each of the memory system's formulas on hand-checked totals, with the
// edge cases: no memory operations, no L1 accesses, an empty region, a bus
// busy longer than the region (a transaction that began before it).
func TestFormulas(t *testing.T) {
	const memOps = "ops"
	fs := coherence.Formulas(memOps)
	byName := map[string]core.Formula{}
	for _, f := range fs {
		byName[f.Name] = f
	}
	// The rates per 10k memory operations are of these counters, in order,
	// then the miss rate and the bus utilisation.
	per10k := []coherence.Stat{coherence.StatReadMisses, coherence.StatWriteMisses, coherence.StatUpgradeMisses,
		coherence.StatCoherenceMisses, coherence.StatFillsC2C, coherence.StatFillsMemory, coherence.StatBusRd,
		coherence.StatBusRdX, coherence.StatBusUpgr, coherence.StatInvalidations, coherence.StatWritebacks, coherence.StatEvictions}
	var order []string
	for _, s := range per10k {
		order = append(order, s.Per10k())
	}
	order = append(order, coherence.L1MissRate, coherence.BusUtilization)
	if len(fs) != len(order) {
		t.Fatalf("%d formulas, want %d", len(fs), len(order))
	}
	for i, f := range fs {
		if f.Name != order[i] {
			t.Errorf("formula %d is %s, want %s", i, f.Name, order[i])
		}
	}
	if got := coherence.StatReadMisses.Per10k(); got != "l1_read_misses_per_10k" {
		t.Errorf("Per10k of read misses = %q", got)
	}

	type vals map[string]float64
	eval := func(name string, v vals) float64 {
		t.Helper()
		f, ok := byName[name]
		if !ok {
			t.Fatalf("no formula %s", name)
		}
		return f.Eval(func(n string) float64 { return v[n] })
	}
	for _, c := range []struct {
		formula string
		in      vals
		want    float64
	}{
		{"l1_read_misses_per_10k", vals{"l1_read_misses": 3, memOps: 4}, 7500},
		{"fills_memory_per_10k", vals{"fills_memory": 1, memOps: 8}, 1250},
		{"bus_busupgr_per_10k", vals{"bus_busupgr": 2, memOps: 20000}, 1},
		{"evictions_per_10k", vals{"evictions": 5, memOps: 0}, 0},
		{"l1_miss_rate", vals{"l1_read_misses": 1, "l1_write_misses": 2, "l1_upgrade_misses": 3, "l1_reads": 10, "l1_writes": 2}, 0.5},
		{"l1_miss_rate", vals{"l1_read_misses": 0, "l1_reads": 0, "l1_writes": 0}, 0},
		{"bus_utilization", vals{"bus_busy_cycles": 30, "roi_cycles": 120}, 0.25},
		{"bus_utilization", vals{"bus_busy_cycles": 130, "roi_cycles": 120}, 1},
		{"bus_utilization", vals{"bus_busy_cycles": 0, "roi_cycles": 0}, 0},
	} {
		if got := eval(c.formula, c.in); got != c.want {
			t.Errorf("%s over %v = %v, want %v", c.formula, c.in, got, c.want)
		}
	}
}

// Totals names every counter once, in Stat order, with the group that
// keeps it.
func TestTotals(t *testing.T) {
	ts := coherence.Totals()
	if len(ts) != int(coherence.NumStats) {
		t.Fatalf("%d totals for %d counters", len(ts), coherence.NumStats)
	}
	for s := range coherence.NumStats {
		want := core.Total{Name: s.String(), Family: coherence.BusGroup, Counter: s.GroupName()}
		for _, l := range coherence.L1Stats {
			if l == s {
				want.Family = coherence.L1Family
			}
		}
		if ts[s] != want {
			t.Errorf("total %d = %+v, want %+v", s, ts[s], want)
		}
	}
	if ts[coherence.StatMetaBytes].Family != "bus" || ts[coherence.StatFillsC2C].Counter != "fills_c2c" || ts[coherence.StatReads].Counter != "reads" {
		t.Errorf("totals %+v", ts)
	}
	if coherence.L1Group(5) != "l1[5]" {
		t.Errorf("L1Group(5) = %q", coherence.L1Group(5))
	}
}
