package sim_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"weft/configs"
	psetsw "weft/detectors/pset"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// extCase is one machine of the extensions' golden file: a config change
// and whether the run gets PSets learned from another seed (else empty
// PSets, under which every remote predecessor violates).
type extCase struct {
	name    string
	set     func(*configs.Config)
	learned bool
}

var extCases = []extCase{
	{"bbhw", func(c *configs.Config) { c.Bugaboo.Enabled = true }, false},
	{"pset-stall", func(c *configs.Config) { c.PSet.Enabled = true }, false},
	{"pset-learned", func(c *configs.Config) { c.PSet.Enabled = true }, true},
	{"pset-rollback", func(c *configs.Config) {
		c.PSet.Enabled = true
		c.PSet.Recovery.Mode = "rollback"
		c.PSet.Recovery.CheckpointIntervalInstrs = 5000
	}, false},
	{"pset-str", func(c *configs.Config) {
		c.PSet.Enabled = true
		c.PSet.Recovery.Mode = "stall_then_rollback"
		c.PSet.Recovery.StallTimeoutCycles = 3000
	}, false},
	{"bbhw+pset-log", func(c *configs.Config) {
		c.Bugaboo.Enabled = true
		c.Bugaboo.Metadata.UpdateOn = "every_write"
		c.PSet.Enabled = true
		c.PSet.Recovery.Mode = "log_only"
		c.PSet.Granularity = "line"
		c.PSet.MaxReadersTracked = 1
	}, true},
	{"irritators", func(c *configs.Config) {
		c.Sim.IrritatorProb = 0.2
		c.Sim.IrritatorMaxCycles = 50
	}, false},
}

// goldenExtCases lists the runs whose result bytes the extensions' golden
// file pins: every registry workload at 8 cores (or its .cores), seed 1,
// on each machine of extCases; and the hash of every event of a few runs
// with BB-HW and PSet on.
func goldenExtCases(t *testing.T) []string {
	t.Helper()
	var lines []string
	hash := func(r sim.Result) string {
		r.WeftVersion, r.ConfigHash = "", ""
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		return hex.EncodeToString(sum[:8])
	}
	for _, e := range workloads.List() {
		prog, err := workloads.ProgramFor(e.Name, 8)
		if err != nil {
			t.Fatal(err)
		}
		var learned isa.PSets
		for _, x := range extCases {
			cfg := configs.Default()
			x.set(&cfg)
			cfg, _ = sim.FitCores(cfg, prog)
			var opts []sim.Option
			if cfg.PSet.Enabled {
				ps := isa.PSets{}
				if x.learned {
					if learned == nil {
						tr := psetsw.NewTrainer(prog, psetsw.Options{})
						rec := tr.NewRun()
						base := configs.Default()
						base, _ = sim.FitCores(base, prog)
						if _, err := sim.Run(base, prog, 2, sim.WithDetector(rec)); err != nil {
							t.Fatal(err)
						}
						tr.Add(rec)
						learned = tr.PSets()
					}
					ps = learned
				}
				opts = append(opts, sim.WithPSets(ps))
			}
			r, err := sim.Run(cfg, prog, 1, opts...)
			if err != nil {
				t.Fatalf("%s %s: %v", e.Name, x.name, err)
			}
			lines = append(lines, fmt.Sprintf("run %s %s %s", e.Name, x.name, hash(r)))
		}
	}
	for _, name := range []string{"mysql-binlog", "prodcons", "counter-locked", "pset-moz-timer", "bb-moz-jsstr"} {
		prog, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := configs.Default()
		cfg.Bugaboo.Enabled = true
		cfg.PSet.Enabled = true
		cfg, _ = sim.FitCores(cfg, prog)
		lines = append(lines, fmt.Sprintf("trace %s bbhw+pset seed=3 %s", name, traceHash(t, cfg, prog, 3, sim.WithPSets(isa.PSets{}))))
	}
	return lines
}

// TestGoldenExtensions is TestGolden for machines with the hardware
// extensions (BB-HW, PSet in every recovery mode) and irritators on: the
// paths speed work changes (check and perform phases, stalls, rollbacks)
// must leave every line unchanged. -update-golden rewrites its file too.
func TestGoldenExtensions(t *testing.T) {
	if testing.Short() {
		t.Skip("golden runs take a few seconds")
	}
	checkGolden(t, "golden_ext.txt", goldenExtCases(t))
}
