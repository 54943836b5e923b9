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

// A run's statistics, summed from the registry's groups, equal what the
// machine counts by other means: the memory system's own totals
// (coherence.System.Stats adds the L1s' and the bus's counter arrays), the
// machine's instruction count and the run's cycles. Kernels without a
// region of interest, so the region is the whole run.
func TestRunStatsMatchMachine(t *testing.T) {
	for _, name := range []string{"counter-race", "prodcons", "mysql-binlog", "bb-circular-list"} {
		prog, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), prog)
		m, err := sim.Build(cfg, prog, 4, nil)
		if err != nil {
			t.Fatal(err)
		}
		m.Start()
		m.Run()
		r := sim.Collect(m, cfg, 4)
		get := func(n string) float64 {
			v, ok := r.Stats.Get(n)
			if !ok {
				t.Fatalf("%s: no statistic %s", name, n)
			}
			return v
		}
		if roi := get(core.ROICycles); roi != float64(r.Cycles) {
			t.Fatalf("%s: roi_cycles %v for a run of %d cycles: the kernel has a region of interest", name, roi, r.Cycles)
		}
		ms := m.Memory().Stats()
		for s := range coherence.NumStats {
			if got := get(s.String()); got != float64(ms[s]) {
				t.Errorf("%s: %s = %v, the memory system counts %d", name, s, got, ms[s])
			}
		}
		if got := get(cpu.StatInstructions.String()); got != float64(m.Instructions()) || got != float64(r.Instructions) {
			t.Errorf("%s: instructions %v, the machine counts %d, the threads %d", name, got, m.Instructions(), r.Instructions)
		}
		if got, want := get(cpu.IPC), float64(r.Instructions)/float64(r.Cycles); got != want {
			t.Errorf("%s: ipc %v, want %v", name, got, want)
		}
	}
}

// smallSrc is a hand-checkable program: one thread loads x (a read miss
// filled from memory: BusRd), stores to y on another line (a write miss:
// BusRdX), loads x again (a hit) and exits: 4 instructions, 3 memory
// operations.
const smallSrc = `
.data
x:      .word 5
        .align 64
y:      .word 0
.text
main:   ld    r1, x
        st    r1, y
        ld    r2, x
        exit
`

// smallROISrc is smallSrc with a region of interest around the store and
// the second load, and a load of y (a hit) after it. The region counts the
// store, the load and roi end (an instruction counts as it issues, before
// roi begin opens the region or roi end closes it).
const smallROISrc = `
.data
x:      .word 5
        .align 64
y:      .word 0
.text
main:   ld    r1, x
        roi   begin
        st    r1, y
        ld    r2, x
        roi   end
        ld    r3, y
        exit
`

// Every formula of the run summary, on the small runs, against values
// worked out by hand: each counter the program must produce, each rate
// from those counts. The bus utilisation and IPC divide by the region's
// cycles, which the test reads.
func TestSummaryFormulasSmallRun(t *testing.T) {
	for _, c := range []struct {
		name     string
		src      string
		counts   map[string]float64 // every other counter but bus_busy_cycles is 0
		formulas map[string]float64 // by hand; -1: per cycle, filled below
	}{
		{"whole run", smallSrc,
			map[string]float64{"instructions": 4, "mem_ops": 3, "loads": 2, "stores": 1,
				"l1_reads": 2, "l1_writes": 1, "l1_read_hits": 1, "l1_read_misses": 1, "l1_write_misses": 1,
				"fills_memory": 2, "bus_busrd": 1, "bus_busrdx": 1},
			map[string]float64{"l1_read_misses_per_10k": 10000.0 / 3, "l1_write_misses_per_10k": 10000.0 / 3,
				"fills_memory_per_10k": 20000.0 / 3, "bus_busrd_per_10k": 10000.0 / 3, "bus_busrdx_per_10k": 10000.0 / 3,
				"l1_miss_rate": 2.0 / 3}},
		{"region of interest", smallROISrc,
			map[string]float64{"instructions": 3, "mem_ops": 2, "loads": 1, "stores": 1,
				"l1_reads": 1, "l1_writes": 1, "l1_read_hits": 1, "l1_write_misses": 1,
				"fills_memory": 1, "bus_busrdx": 1},
			map[string]float64{"l1_write_misses_per_10k": 5000, "fills_memory_per_10k": 5000, "bus_busrdx_per_10k": 5000,
				"l1_miss_rate": 0.5}},
	} {
		prog := assemble(t, c.src)
		r, err := sim.Run(configs.Default(), prog, 1)
		if err != nil {
			t.Fatal(err)
		}
		get := func(n string) float64 { v, _ := r.Stats.Get(n); return v }
		roi, busy := get(core.ROICycles), get(coherence.StatBusBusyCycles.String())
		if roi <= 0 || busy <= 0 || busy > roi || (c.src == smallROISrc) != (roi < float64(r.Cycles)) {
			t.Fatalf("%s: %v ROI cycles of %d, bus busy %v", c.name, roi, r.Cycles, busy)
		}
		c.formulas[coherence.BusUtilization] = busy / roi
		c.formulas[cpu.IPC] = c.counts["instructions"] / roi
		counters := map[string]bool{core.ROICycles: true, coherence.StatBusBusyCycles.String(): true}
		for s := range cpu.NumStats {
			counters[s.String()] = true
		}
		for s := range coherence.NumStats {
			counters[s.String()] = true
		}
		formulas := 0
		for _, st := range r.Stats {
			switch {
			case st.Name == core.ROICycles || st.Name == coherence.StatBusBusyCycles.String():
			case counters[st.Name]:
				if st.Value != c.counts[st.Name] {
					t.Errorf("%s: counter %s = %v, want %v", c.name, st.Name, st.Value, c.counts[st.Name])
				}
			default:
				formulas++
				if st.Value != c.formulas[st.Name] {
					t.Errorf("%s: formula %s = %v, want %v", c.name, st.Name, st.Value, c.formulas[st.Name])
				}
			}
		}
		if want := 12 + 3; formulas != want {
			t.Errorf("%s: %d formulas, want %d (12 rates per 10k, miss rate, bus utilisation, IPC)", c.name, formulas, want)
		}
		for n := range c.formulas {
			if _, ok := r.Stats.Get(n); !ok {
				t.Errorf("%s: no formula %s", c.name, n)
			}
		}
	}
}
