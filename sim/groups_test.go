package sim_test

import (
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
// bus, region of interest included; and counters are really per core.
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
				case len(g.Name) > 5 && g.Name[:5] == "core[":
					sum[st.Name] += st.Value
					if st.Name == "instructions" && st.Value > 0 {
						active++
					}
				case len(g.Name) > 3 && g.Name[:3] == "l1[":
					sum["l1_"+st.Name] += st.Value
				case g.Name == "bus":
					sum["bus_"+st.Name] += st.Value
				}
			}
		}
		for i := cpu.Stat(0); i < cpu.NumStats; i++ {
			want, _ := r.Stats.Get(i.String())
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
			if sum[key] != want {
				t.Errorf("%s: groups sum %s to %v, total %v", name, i, sum[key], want)
			}
		}
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
