package sim_test

import (
	"fmt"
	"testing"

	"weft/coherence"
	"weft/configs"
	"weft/core"
	"weft/cpu"
	psetsw "weft/detectors/pset"
	"weft/sim"
	"weft/workloads"
)

// contractChecker checks every event against its kind's contract and
// counts the kinds it saw.
type contractChecker struct {
	t    *testing.T
	run  string
	seen [core.NumKinds]int
	bad  int
}

func (c *contractChecker) Observe(e *core.Event) {
	c.seen[e.Kind]++
	if err := core.ContractOf(e.Kind).Check(e); err != nil {
		c.bad++
		if c.bad <= 10 {
			c.t.Errorf("%s: cycle %d: %v", c.run, e.Cycle, err)
		}
	}
}

// stallRollbackExt stalls one access until another thread touches its
// line, takes a checkpoint, and rolls back once: it drives the producers
// of StallBegin/End, Checkpoint and Rollback.
type stallRollbackExt struct {
	n        int
	stalled  bool
	rolled   bool
	fields   []coherence.Field
	checkAll bool
}

func (x *stallRollbackExt) Name() string { return "stall-rollback" }
func (x *stallRollbackExt) Meta() coherence.MetaRequest {
	return coherence.MetaRequest{Gran: coherence.PerWord, Fields: x.fields}
}
func (x *stallRollbackExt) Attach(p *cpu.Port) error {
	p.OnCheck(verdictOf(func(a *cpu.Access) cpu.Verdict {
		x.n++
		switch {
		case x.n == 3:
			p.Machine().RequestCheckpoint()
		case x.n == 40 && !x.stalled:
			x.stalled = true
			return cpu.StallOnLine(a, 500)
		case x.n >= 60 && !x.rolled && p.Machine().HasCheckpoint():
			x.rolled = true
			return cpu.Verdict{Kind: cpu.Rollback, Reseed: 7}
		}
		return cpu.Verdict{}
	}))
	return nil
}

// TestEventContract drives every producer (every workload, a small cache
// for evictions and writebacks, an extension with metadata, a stall, a
// checkpoint and a rollback) and checks each event against the contract
// table; every kind with a declared producer must be seen.
func TestEventContract(t *testing.T) {
	chk := &contractChecker{t: t}
	run := func(name string, cfg configs.Config, seed uint64, opts ...sim.Option) {
		prog, err := workloads.ProgramFor(name, cfg.Machine.Cores)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ = sim.FitCores(cfg, prog)
		chk.run = fmt.Sprintf("%s seed %d", name, seed)
		if _, err := sim.Run(cfg, prog, seed, append(opts, sim.WithObserver(core.AllKinds, chk))...); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range workloads.List() {
		if e.Kind != workloads.Kernel {
			continue
		}
		run(e.Name, configs.Default(), 1)
	}
	small := configs.Default()
	small.Cache.L1.SizeBytes, small.Cache.L1.Assoc = 1024, 2
	run("fft", small, 1)
	for _, name := range []string{"prodcons", "mysql-binlog", "stencil"} {
		run(name, small, 2, sim.WithExtension(&stallRollbackExt{fields: []coherence.Field{{Name: "w", Bits: 9}}}))
	}
	// BB-HW: small tables (per core and central) so traps, drains and
	// drops happen, a spare core so drains overlap the run.
	bb := configs.Default()
	bb.Bugaboo.Enabled = true
	bb.Bugaboo.CT.Entries = 8
	for _, name := range []string{"prodcons", "mysql-binlog", "fft"} {
		run(name, bb, 1)
	}
	bb.Bugaboo.CT.Organization, bb.Bugaboo.CT.SpareCoreDrain = "central", true
	run("prodcons", bb, 2)
	// PSet hardware: PSets learned from a few passing runs of counter-race,
	// so held-out seeds violate (and stall), BB-HW on beside it.
	cr, err := workloads.Program("counter-race")
	if err != nil {
		t.Fatal(err)
	}
	tr := psetsw.NewTrainer(cr, psetsw.Options{})
	for s := uint64(1); s <= 5; s++ {
		rec := tr.NewRun()
		if r, err := sim.Run(configs.Default(), cr, s, sim.WithDetector(rec)); err == nil && r.Outcome == core.Pass {
			tr.Add(rec)
		}
	}
	ps := configs.Default()
	ps.PSet.Enabled = true
	for s := uint64(6); s <= 12; s++ {
		run("counter-race", ps, s, sim.WithPSets(tr.PSets()))
	}
	ps.Bugaboo.Enabled = true
	run("counter-race", ps, 13, sim.WithPSets(tr.PSets()))
	for k := core.Kind(1); k < core.NumKinds; k++ {
		c := core.ContractOf(k)
		switch {
		case c.Producer != "" && chk.seen[k] == 0:
			t.Errorf("no run emitted %s, which the contract says %s emits", k, c.Producer)
		case c.Producer == "" && chk.seen[k] > 0:
			t.Errorf("%d %s events, which the contract says nothing emits", chk.seen[k], k)
		}
	}
}

// verdictOf adapts a check that returns its verdict.
func verdictOf(f func(*cpu.Access) cpu.Verdict) cpu.CheckFunc {
	return func(a *cpu.Access, v *cpu.Verdict) { *v = f(a) }
}
