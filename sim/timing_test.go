package sim_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// splitL2 returns cfg on the split-transaction bus with a 1 MiB shared L2.
func splitL2(cfg configs.Config, dataBus string) configs.Config {
	cfg.Bus.Kind, cfg.Bus.DataBus = configs.BusSplit, dataBus
	cfg.Cache.L2.SizeBytes = 1 << 20
	return cfg
}

// On the split bus with an L2 a run is still a function of (config,
// program, seed), whatever the number of batch workers, with every
// extension on (PSet rollbacks restore checkpoints taken with
// transactions in flight); the protocol never reaches an undefined pair (a
// run would crash with the line's history); and, without PSets, no run
// hangs that does not hang on the atomic bus.
func TestSplitBusDeterministic(t *testing.T) {
	for _, ext := range append([]extCase{{"plain", func(*configs.Config) {}, false}}, extCases...) {
		for _, name := range []string{"fft", "prodcons", "mysql-binlog", "pbzip2-uaf"} {
			prog, err := workloads.ProgramFor(name, 8)
			if err != nil {
				t.Fatal(err)
			}
			base := configs.Default()
			ext.set(&base)
			if base.PSet.Enabled && name == "fft" {
				continue // stalls every remote access: long, and no new state
			}
			base, _ = sim.FitCores(base, prog)
			// Empty PSets stall fft's every remote access until the
			// timeout, on either bus: a bound keeps such runs short.
			base.Sim.MaxCycles = 5_000_000
			cfg := splitL2(base, configs.DataBusSeparate)
			if ext.name == "pset-rollback" {
				cfg = splitL2(base, configs.DataBusShared)
			}
			var opts func() []sim.Option
			if cfg.PSet.Enabled {
				// Empty PSets: every remote predecessor violates, so the
				// stalls and rollbacks are many.
				opts = func() []sim.Option { return []sim.Option{sim.WithPSets(isa.PSets{})} }
			}
			atomic, err := sim.RunBatch(sim.Batch{Config: base, Program: prog, BaseSeed: 5, Runs: 3, Options: opts})
			if err != nil {
				t.Fatal(err)
			}
			var outs [][]sim.Result
			for _, w := range []int{1, 3} {
				rs, err := sim.RunBatch(sim.Batch{Config: cfg, Program: prog, BaseSeed: 5, Runs: 3, Workers: w, Options: opts})
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, rs)
			}
			for i := range outs[0] {
				if jsonOf(t, outs[0][i]) != jsonOf(t, outs[1][i]) {
					t.Errorf("%s/%s: run %d differs between 1 and 3 workers", ext.name, name, i)
				}
				r := outs[0][i]
				// Under empty PSets every remote predecessor violates, and
				// threads spinning on one line can stall one another
				// round after round (pbzip2-uaf with stall_then_rollback
				// does on the split bus's timing): a hang of the PSet
				// recovery, not of the bus, so only the other machines
				// must not hang where the atomic bus does not.
				hangOK := cfg.PSet.Enabled || atomic[i].Outcome == core.Hang
				if r.Outcome == core.Hang && !hangOK || strings.Contains(r.OutcomeMsg, "coherence") {
					t.Errorf("%s/%s: run %d ended %s: %s", ext.name, name, i, r.Outcome, r.OutcomeMsg)
				}
			}
		}
	}
}

// The split bus overlaps misses: on a profile that misses often, it
// takes fewer cycles than the atomic bus and its bus is far from
// saturated; the L2 serves refills of lines evicted from an L1.
func TestSplitBusOverlapsMisses(t *testing.T) {
	prog, err := workloads.ProgramFor("canneal", 8)
	if err != nil {
		t.Fatal(err)
	}
	atomic, _ := sim.FitCores(configs.Default(), prog)
	a, err := sim.Run(atomic, prog, 1)
	if err != nil {
		t.Fatal(err)
	}
	s, err := sim.Run(splitL2(atomic, configs.DataBusSeparate), prog, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := func(r sim.Result, name string) float64 {
		v, ok := r.Stats.Get(name)
		if !ok {
			t.Fatalf("run has no statistic %s", name)
		}
		return v
	}
	if s.Cycles >= a.Cycles {
		t.Errorf("split bus: %d cycles, atomic %d: want fewer", s.Cycles, a.Cycles)
	}
	if u := st(s, "bus_utilization"); u > 0.5 || st(a, "bus_utilization") < 0.9 {
		t.Errorf("bus utilisation split %.2f, atomic %.2f: want the split bus far from saturated, the atomic one saturated", u, st(a, "bus_utilization"))
	}
	if st(s, sim.StatL2Hits) == 0 || st(s, sim.StatL2Misses) == 0 {
		t.Errorf("L2 hits %v, misses %v: want both", st(s, sim.StatL2Hits), st(s, sim.StatL2Misses))
	}
	for _, name := range []string{sim.StatL2Hits, sim.StatDataBusUtil} {
		if _, ok := a.Stats.Get(name); ok {
			t.Errorf("the atomic bus without an L2 records %s", name)
		}
	}
}

// TestGoldenSplit pins the bytes of every registry workload's run at 8
// cores (or its .cores), seed 1, on the split bus with a 1 MiB L2 (a
// separate data bus, and one bus for a few workloads), and the event
// streams of a few: the split bus's regression file, as golden.txt is the
// atomic bus's. Rewrite it with -update-golden only for a change meant to
// alter the split bus's results, and say why in the commit.
func TestGoldenSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("golden runs take a few seconds")
	}
	hash := func(r sim.Result) string {
		r.WeftVersion, r.ConfigHash = "", ""
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:8])
	}
	var lines []string
	shared := map[string]bool{"fft": true, "canneal": true, "prodcons": true, "mysql-binlog": true, "counter-locked": true}
	for _, e := range workloads.List() {
		prog, err := workloads.ProgramFor(e.Name, 8)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), prog)
		buses := []string{configs.DataBusSeparate}
		if shared[e.Name] {
			buses = append(buses, configs.DataBusShared)
		}
		for _, db := range buses {
			r, err := sim.Run(splitL2(cfg, db), prog, 1)
			if err != nil {
				t.Fatalf("%s: %v", e.Name, err)
			}
			lines = append(lines, fmt.Sprintf("run %s data_bus=%s %s", e.Name, db, hash(r)))
		}
	}
	for _, name := range []string{"mysql-binlog", "prodcons", "stencil", "counter-locked"} {
		prog, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), prog)
		lines = append(lines, fmt.Sprintf("trace %s seed=3 %s", name, traceHash(t, splitL2(cfg, configs.DataBusSeparate), prog, 3)))
	}
	checkGolden(t, "golden_split.txt", lines)
}
