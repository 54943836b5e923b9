package sim_test

import (
	"strings"
	"testing"

	"weft/coherence"
	"weft/configs"
	"weft/core"
	"weft/cpu"
	"weft/sim"
	"weft/workloads"
)

// The statistics groups add up to the run's totals: every processor
// counter summed over core[i], every memory counter over l1[i] and the
// bus, region of interest included; the derived rates are those computed
// here from the sums; and counters are really per core.
func TestStatGroupsSumToTotals(t *testing.T) {
	for _, name := range []string{"prodcons", "counter-race", "stencil", "fft", "water", "mysql-binlog"} {
		prog, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), prog)
		r, err := sim.Run(cfg, prog, 3, sim.WithStatGroups())
		if err != nil {
			t.Fatal(err)
		}
		sum := map[string]float64{}
		active := 0
		for _, g := range r.Groups {
			for _, st := range g.Stats {
				switch {
				case strings.HasPrefix(g.Name, "core["):
					sum[st.Name] += st.Value
					if st.Name == "instructions" && st.Value > 0 {
						active++
					}
				case strings.HasPrefix(g.Name, "l1["):
					sum["l1_"+st.Name] += st.Value
				case g.Name == "bus":
					sum["bus_"+st.Name] += st.Value
				}
			}
		}
		// totals are the sums by run-JSON name.
		totals := map[string]float64{}
		for i := cpu.Stat(0); i < cpu.NumStats; i++ {
			want, _ := r.Stats.Get(i.String())
			totals[i.String()] = sum[i.String()]
			if sum[i.String()] != want {
				t.Errorf("%s: core groups sum %s to %v, total %v", name, i, sum[i.String()], want)
			}
		}
		for i := coherence.Stat(0); i < coherence.NumStats; i++ {
			key := i.String()
			if _, ok := sum[key]; !ok {
				key = "l1_" + i.GroupName()
				if _, ok := sum[key]; !ok {
					key = "bus_" + i.GroupName()
				}
			}
			want, _ := r.Stats.Get(i.String())
			totals[i.String()] = sum[key]
			if sum[key] != want {
				t.Errorf("%s: groups sum %s to %v, total %v", name, i, sum[key], want)
			}
		}
		checkDerived(t, name, r.Stats, totals)
		if active < 2 {
			t.Errorf("%s: %d cores with instructions in their group", name, active)
		}
		if len(r.Groups) != 2*r.Cores+1 {
			t.Errorf("%s: %d groups for %d cores", name, len(r.Groups), r.Cores)
		}
		bare, err := sim.Run(cfg, prog, 3)
		if err != nil {
			t.Fatal(err)
		}
		r.Groups = nil
		if jsonOf(t, r) != jsonOf(t, bare) {
			t.Errorf("%s: WithStatGroups changed the run", name)
		}
	}
}

// A detector attached with WithStatGroups has the group det.NAME: the
// events it saw and its findings.
func TestDetectorStatGroup(t *testing.T) {
	prog, err := workloads.Program("counter-race")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), prog)
	d := &countingDetector{}
	r, err := sim.Run(cfg, prog, 3, sim.WithDetector(d), sim.WithStatGroups())
	if err != nil {
		t.Fatal(err)
	}
	g, ok := r.Groups.Get("det.reads")
	ev, _ := g.Stats.Get("events")
	fi, _ := g.Stats.Get("findings")
	loads, _ := r.Stats.Get("loads")
	if !ok || ev == 0 || uint64(ev) != d.n || fi != 1 || ev < loads {
		t.Errorf("group det.reads %v; the detector saw %d events, the run %v loads", g, d.n, loads)
	}
}

// countingDetector observes reads and reports one finding.
type countingDetector struct{ n uint64 }

func (c *countingDetector) Observe(*core.Event)  { c.n++ }
func (c *countingDetector) Name() string         { return "reads" }
func (c *countingDetector) Kinds() core.KindMask { return core.MaskOf(core.KindRead) }
func (c *countingDetector) Findings() []core.Finding {
	return []core.Finding{{Detector: "reads", Kind: "count"}}
}

// checkDerived checks a run's statistics against an independent
// computation from sum (the counters by run-JSON name): the
// keys in run JSON's order, the rates per 10k memory operations, the L1
// miss rate, the bus utilisation and IPC, written out one by one as run
// JSON defines them.
func checkDerived(t *testing.T, name string, stats sim.Stats, sum map[string]float64) {
	t.Helper()
	roi, _ := stats.Get("roi_cycles")
	memOps := sum["mem_ops"]
	want := sim.Stats{{Name: "roi_cycles", Value: roi}}
	for i := cpu.Stat(0); i < cpu.NumStats; i++ {
		want = append(want, sim.Stat{Name: i.String(), Value: sum[i.String()]})
	}
	for i := coherence.Stat(0); i < coherence.NumStats; i++ {
		want = append(want, sim.Stat{Name: i.String(), Value: sum[i.String()]})
	}
	for _, s := range []string{"l1_read_misses", "l1_write_misses", "l1_upgrade_misses", "l1_coherence_misses",
		"fills_c2c", "fills_memory", "bus_busrd", "bus_busrdx", "bus_busupgr", "invalidations", "writebacks", "evictions"} {
		v := 0.0
		if memOps != 0 {
			v = sum[s] * 10000 / memOps
		}
		want = append(want, sim.Stat{Name: s + "_per_10k", Value: v})
	}
	accesses := uint64(sum["l1_reads"] + sum["l1_writes"])
	misses := uint64(sum["l1_read_misses"] + sum["l1_write_misses"] + sum["l1_upgrade_misses"])
	rate, util, ipc := 0.0, 0.0, 0.0
	if accesses > 0 {
		rate = float64(misses) / float64(accesses)
	}
	if roi > 0 {
		util = min(sum["bus_busy_cycles"]/roi, 1)
		ipc = sum["instructions"] / roi
	}
	want = append(want, sim.Stat{Name: "l1_miss_rate", Value: rate}, sim.Stat{Name: "bus_utilization", Value: util}, sim.Stat{Name: "ipc", Value: ipc})
	if len(stats) != len(want) {
		t.Errorf("%s: %d statistics, want %d", name, len(stats), len(want))
		return
	}
	for i := range want {
		if stats[i] != want[i] {
			t.Errorf("%s: statistic %d is %s = %v, want %s = %v", name, i, stats[i].Name, stats[i].Value, want[i].Name, want[i].Value)
		}
	}
}
