package sim_test

import (
	"slices"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/cpu"
	"weft/sim"
)

// irritated returns base with Falcon's irritators on.
func irritated(base configs.Config, prob float64, maxCycles uint64) configs.Config {
	base.Sim.IrritatorProb, base.Sim.IrritatorMaxCycles = prob, maxCycles
	return base
}

// groupStat returns counter name of the statistics group g of r.
func groupStat(t *testing.T, r sim.Result, g, name string) uint64 {
	t.Helper()
	grp, ok := r.Groups.Get(g)
	if !ok {
		t.Fatalf("no statistics group %s", g)
	}
	v, ok := grp.Stats.Get(name)
	if !ok {
		t.Fatalf("group %s has no counter %s", g, name)
	}
	return uint64(v)
}

// With irritators on a run is still a function of (config, program,
// seed): equal runs give equal results, traces and counters, whatever the
// number of batch workers.
func TestIrritatorsDeterministic(t *testing.T) {
	for _, name := range []string{"counter-race", "prodcons", "mysql-binlog", "falcon-shop", "pbzip2-uaf"} {
		p := kernel(t, name)
		base, _ := sim.FitCores(configs.Default(), p)
		cfg := irritated(base, 0.1, 100)
		a, ra := traceBytes(t, cfg, p, 11)
		b, rb := traceBytes(t, cfg, p, 11)
		if string(a) != string(b) || jsonOf(t, ra) != jsonOf(t, rb) {
			t.Errorf("%s: two runs with seed 11 and irritators on differ", name)
		}
		g1, err := sim.Run(cfg, p, 11, sim.WithStatGroups())
		if err != nil {
			t.Fatal(err)
		}
		g2, err := sim.Run(cfg, p, 11, sim.WithStatGroups())
		if err != nil {
			t.Fatal(err)
		}
		if jsonOf(t, g1) != jsonOf(t, g2) {
			t.Errorf("%s: two runs with statistics groups differ", name)
		}
		n, cycles := groupStat(t, g1, "irritators", "delays"), groupStat(t, g1, "irritators", "delay_cycles")
		if n == 0 || cycles < n || cycles > 100*n {
			t.Errorf("%s: %d irritators of %d cycles, want some, each of 1..100 cycles", name, n, cycles)
		}
		off, err := sim.Run(base, p, 11)
		if err != nil {
			t.Fatal(err)
		}
		if off.Cycles == ra.Cycles && slices.Equal(off.ThreadInstructions, ra.ThreadInstructions) {
			t.Errorf("%s: irritators did not change the run (%d cycles both)", name, off.Cycles)
		}

		var outs [][]sim.Result
		for _, w := range []int{1, 4} {
			rs, err := sim.RunBatch(sim.Batch{Config: cfg, Program: p, BaseSeed: 40, Runs: 8, Workers: w})
			if err != nil {
				t.Fatal(err)
			}
			outs = append(outs, rs)
		}
		for i := range outs[0] {
			if jsonOf(t, outs[0][i]) != jsonOf(t, outs[1][i]) {
				t.Errorf("%s: run %d differs between 1 and 4 workers", name, i)
			}
		}
	}
}

// Irritators that are off leave no trace: sim.irritator_max_cycles alone
// changes nothing but the config hash, and no "irritators" group appears.
// (TestGolden pins the bytes of every default run.)
func TestIrritatorsOff(t *testing.T) {
	for _, name := range []string{"counter-race", "mysql-binlog"} {
		p := kernel(t, name)
		cfg, _ := sim.FitCores(configs.Default(), p)
		def, err := sim.Run(cfg, p, 4, sim.WithStatGroups())
		if err != nil {
			t.Fatal(err)
		}
		maxOnly, err := sim.Run(irritated(cfg, 0, 1000), p, 4, sim.WithStatGroups())
		if err != nil {
			t.Fatal(err)
		}
		if def.ConfigHash == maxOnly.ConfigHash {
			t.Errorf("%s: sim.irritator_max_cycles does not change the config hash", name)
		}
		def.ConfigHash, maxOnly.ConfigHash = "", ""
		if jsonOf(t, def) != jsonOf(t, maxOnly) {
			t.Errorf("%s: sim.irritator_max_cycles with sim.irritator_prob 0 changed the run", name)
		}
		if _, ok := def.Groups.Get("irritators"); ok {
			t.Errorf("%s: an irritators group with irritators off", name)
		}
	}
}

// Every memory instruction (Op.TouchesMemory) draws one irritator when it
// issues, however many accesses it makes: with probability 1 and delays of
// exactly 1 cycle, a single thread's run grows by one cycle per memory
// instruction, counted as memory stall, and a lock that spins is delayed
// once.
func TestIrritatorsEveryMemoryInstruction(t *testing.T) {
	p := assemble(t, `
.data
x: .word 0
m: .word 0
.text
main:   li r1, 3
        st r1, x
        ld r2, x
        fadd r3, x, 2
        cas r4, x, r1, r2
        xchg r5, x, r1
        lock m
        unlock m
        alloc r6, 2
        free [r6], 2
        work 10
        out r2
        exit
`)
	const memInstrs = 8 // st ld fadd cas xchg lock unlock free
	base := configs.Default()
	base.Sim.JitterCycles = 0
	off, err := sim.Run(base, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	on, err := sim.Run(irritated(base, 1, 1), p, 1, sim.WithStatGroups())
	if err != nil {
		t.Fatal(err)
	}
	if on.Outcome != core.Pass || off.Outcome != core.Pass {
		t.Fatalf("outcomes %s and %s: %s %s", off.Outcome, on.Outcome, off.OutcomeMsg, on.OutcomeMsg)
	}
	if on.Cycles != off.Cycles+memInstrs {
		t.Errorf("%d cycles with irritators of 1 cycle, %d without; want %d more", on.Cycles, off.Cycles, memInstrs)
	}
	if n, c := groupStat(t, on, "irritators", "delays"), groupStat(t, on, "irritators", "delay_cycles"); n != memInstrs || c != memInstrs {
		t.Errorf("%d irritators of %d cycles, want %d of %d", n, c, memInstrs, memInstrs)
	}
	if d := on.Breakdown[0].MemStall - off.Breakdown[0].MemStall; d != memInstrs || on.Breakdown[0].Busy != off.Breakdown[0].Busy {
		t.Errorf("memory stall grew by %d (want %d), busy %d → %d (want unchanged)", d, memInstrs, off.Breakdown[0].Busy, on.Breakdown[0].Busy)
	}

	// The child's lock waits while main holds it and tests the word again
	// when it is released: 4 memory instructions, more accesses.
	q := assemble(t, `
.data
m: .word 0
.text
main:   lock m
        spawn r2, child, r0
        work 3000
        unlock m
        join r2
        exit
child:  lock m
        unlock m
        exit
`)
	r, err := sim.Run(irritated(base, 1, 5), q, 1, sim.WithStatGroups())
	if err != nil {
		t.Fatal(err)
	}
	if spins, _ := r.Stats.Get("lock_spins"); spins == 0 {
		t.Fatalf("the child's lock did not wait")
	}
	memOps, _ := r.Stats.Get("mem_ops")
	if n := groupStat(t, r, "irritators", "delays"); n != 4 || memOps <= 4 {
		t.Errorf("%d irritators over %v accesses, want 4 (one per memory instruction) over more", n, memOps)
	}
}

// Irritators diversify the interleavings of racy kernels: over 100 seeds,
// the outcomes differ from those with irritators off. The failure rates
// are logged (go test -v -run Spread), not pinned: they are measurements.
func TestIrritatorsChangeOutcomeSpread(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 runs")
	}
	const runs = 100
	failures := func(cfg configs.Config, name string) []bool {
		p := kernel(t, name)
		cfg, _ = sim.FitCores(cfg, p)
		rs, err := sim.RunBatch(sim.Batch{Config: cfg, Program: p, BaseSeed: 1, Runs: runs})
		if err != nil {
			t.Fatal(err)
		}
		out := make([]bool, len(rs))
		for i, r := range rs {
			out[i] = r.Outcome != core.Pass
		}
		return out
	}
	count := func(f []bool) (n int) {
		for _, b := range f {
			if b {
				n++
			}
		}
		return n
	}
	for _, name := range []string{"counter-race", "falcon-airlinestickets"} {
		off := failures(configs.Default(), name)
		changed := 0
		for _, pm := range []struct {
			prob float64
			max  uint64
		}{{0.05, 100}, {0.05, 1000}, {0.1, 100}, {0.1, 1000}} {
			on := failures(irritated(configs.Default(), pm.prob, pm.max), name)
			flipped := 0
			for i := range on {
				if on[i] != off[i] {
					flipped++
				}
			}
			t.Logf("%s: %d/%d failing with irritators off, %d/%d with prob %v max %d (%d seeds changed pass/fail)",
				name, count(off), runs, count(on), runs, pm.prob, pm.max, flipped)
			if flipped > 0 {
				changed++
			}
		}
		if changed == 0 {
			t.Errorf("%s: irritators changed no seed's outcome", name)
		}
	}
	// The strongest setting moves counter-race's failure rate itself.
	off, on := failures(configs.Default(), "counter-race"), failures(irritated(configs.Default(), 0.1, 1000), "counter-race")
	if count(off) == count(on) {
		t.Errorf("counter-race fails %d/%d times with irritators (0.1, 1000) and without", count(on), runs)
	}
}

// The processor checks its irritator spec itself, for callers that build
// a machine without a validated config.
func TestIrritatorSpecChecked(t *testing.T) {
	p := kernel(t, "counter-race")
	cs, ms := sim.Specs(configs.Default())
	for _, tc := range []struct {
		prob float64
		max  uint64
		want string
	}{{1.5, 10, "irritator probability 1.5 is not from 0 to 1"}, {-0.1, 10, "not from 0 to 1"}, {0.5, 0, "largest irritator of 0 cycles"}} {
		spec := cs
		spec.IrritatorProb, spec.IrritatorMaxCycles = tc.prob, tc.max
		if _, err := cpu.New(spec, ms, p, 1, nil); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("cpu.New(prob %v, max %d) = %v, want an error saying %q", tc.prob, tc.max, err, tc.want)
		}
	}
	// The configuration names the key.
	cfg := irritated(configs.Default(), 0.5, 0)
	if _, err := sim.Run(cfg, p, 1); err == nil || !strings.Contains(err.Error(), "sim.irritator_max_cycles: ") ||
		!strings.Contains(err.Error(), "cannot be honoured") {
		t.Errorf("Run(prob 0.5, max 0) = %v, want an error naming sim.irritator_max_cycles", err)
	}
}

// An irritator is charged as memory stall when it is drawn; a run that
// ends inside it gives back the cycles past the end, so the breakdown
// still sums to the run's cycles.
func TestIrritatorPastTheEnd(t *testing.T) {
	p := assemble(t, `
.data
x: .word 0
.text
main:   spawn r2, child, r0
        work 100
        assert r0, "the end"
        exit
child:  ld r1, x
        exit
`)
	cfg := irritated(configs.Default(), 1, 1_000_000)
	cfg.Sim.JitterCycles = 0
	for seed := uint64(1); seed <= 20; seed++ {
		r, err := sim.Run(cfg, p, seed, sim.WithStatGroups())
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != core.Assert || groupStat(t, r, "irritators", "delay_cycles") <= r.Cycles {
			t.Fatalf("seed %d: %s after %d cycles, irritator of %d cycles; want the assert inside the child's irritator",
				seed, r.Outcome, r.Cycles, groupStat(t, r, "irritators", "delay_cycles"))
		}
		for i, c := range r.Breakdown {
			if sum := c.Busy + c.MemStall + c.LockWait + c.BarrierWait + c.CondWait + c.JoinWait + c.Idle; sum != r.Cycles {
				t.Errorf("seed %d core %d: breakdown %+v sums to %d, run took %d cycles", seed, i, c, sum, r.Cycles)
			}
		}
		// The child runs on core 1 from its start to the end, all of it
		// inside its first instruction's irritator.
		if c := r.Breakdown[1]; c.Busy != 0 || c.MemStall == 0 || c.Idle+c.MemStall != r.Cycles {
			t.Errorf("seed %d: the child's core has %+v, want only idle then memory stall", seed, c)
		}
	}
}
