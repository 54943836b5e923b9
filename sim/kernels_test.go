package sim_test

import (
	"testing"

	"weft/configs"
	"weft/sim"
	"weft/workloads"
)

// TestKernelSuite runs every embedded kernel over many seeds: correct
// kernels must always pass; bug kernels must show their bug under some
// seeds and run correctly under others.
func TestKernelSuite(t *testing.T) {
	seeds := 100
	if testing.Short() {
		seeds = 30
	}
	for _, e := range workloads.List() {
		if e.Kind != workloads.Kernel {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			p, err := workloads.Program(e.Name)
			if err != nil {
				t.Fatal(err)
			}
			cfg, _ := sim.FitCores(configs.Default(), p)
			rs, err := sim.RunBatch(sim.Batch{Config: cfg, Program: p, BaseSeed: 1, Runs: seeds})
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			for _, r := range rs {
				counts[r.Outcome]++
			}
			t.Logf("%s over %d seeds: %v", e.Name, seeds, counts)
			if !e.Bug {
				if counts["pass"] != seeds {
					t.Errorf("correct kernel failed: %v", counts)
				}
				return
			}
			if counts["pass"] == 0 || counts["pass"] == seeds {
				t.Errorf("bug kernel does not separate seeds: %v", counts)
			}
			if counts["pass"]+counts[oracleOutcome(e.Name)] != seeds {
				t.Errorf("bug kernel fails in an unexpected way: %v (oracle %s)", counts, oracleOutcome(e.Name))
			}
		})
	}
}

// oracleOutcome is how each bug kernel's bug shows.
func oracleOutcome(name string) string {
	switch name {
	case "counter-race":
		return "wrong_output"
	case "mysql-binlog":
		return "error"
	case "pbzip2-uaf":
		return "crash"
	}
	return "?"
}
