package sim_test

import (
	"fmt"
	"runtime"
	"testing"

	"weft/core"

	"weft/configs"
	"weft/detectors"
	"weft/detectors/conseq"
	psetsw "weft/detectors/pset"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// benchInstrs is the size of one BenchmarkRun iteration (DESIGN.md §9).
const benchInstrs = 10_000_000

func mixedRun(tb testing.TB, cores, instrs int) (configs.Config, *sim.Result, func() sim.Result) {
	tb.Helper()
	return mixedRunOn(tb, configs.Default(), cores, instrs)
}

// mixedRunOn is mixedRun on the machine cfg.
func mixedRunOn(tb testing.TB, cfg configs.Config, cores, instrs int) (configs.Config, *sim.Result, func() sim.Result) {
	tb.Helper()
	p, err := workloads.BenchMixed(cores, instrs).Program()
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Machine.Cores = cores
	run := func() sim.Result {
		r, err := sim.Run(cfg, p, 1)
		if err != nil {
			tb.Fatal(err)
		}
		return r
	}
	r := run()
	return cfg, &r, run
}

// BenchmarkRun is the reference benchmark: a fixed run of at least 10M
// simulated instructions of the mixed synthetic workload per iteration.
func BenchmarkRun(b *testing.B) {
	for _, cores := range []int{2, 8, 32, 64} {
		b.Run(fmt.Sprintf("cores=%d", cores), func(b *testing.B) {
			_, first, run := mixedRun(b, cores, benchInstrs)
			if first.Outcome != core.Pass {
				b.Fatalf("benchmark workload %s: %s", first.Outcome, first.OutcomeMsg)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var instrs, cycles uint64
			for i := 0; i < b.N; i++ {
				r := run()
				instrs += r.Instructions
				cycles += r.Cycles
			}
			secs := b.Elapsed().Seconds()
			b.ReportMetric(float64(instrs)/secs/1e6, "MIPS")
			b.ReportMetric(float64(cycles)/secs/1e6, "Mcycles/s")
		})
	}
}

// BenchmarkRunSplit is BenchmarkRun on the split-transaction bus (a
// separate data bus) with a 1 MiB shared L2: what the timing model's
// optional parts cost when on.
func BenchmarkRunSplit(b *testing.B) {
	cfg := configs.Default()
	cfg.Bus.Kind, cfg.Bus.DataBus = configs.BusSplit, configs.DataBusSeparate
	cfg.Cache.L2.SizeBytes = 1 << 20
	for _, cores := range []int{8, 64} {
		b.Run(fmt.Sprintf("cores=%d", cores), func(b *testing.B) {
			_, first, run := mixedRunOn(b, cfg, cores, benchInstrs)
			if first.Outcome != core.Pass {
				b.Fatalf("benchmark workload %s: %s", first.Outcome, first.OutcomeMsg)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var instrs uint64
			for i := 0; i < b.N; i++ {
				instrs += run().Instructions
			}
			b.ReportMetric(float64(instrs)/b.Elapsed().Seconds()/1e6, "MIPS")
		})
	}
}

// TestBenchmarkWorkloadShape checks that the benchmark workload is what
// DESIGN.md §9 asks for: ≥10M instructions, ≥30% memory operations, some
// shared, an L1 miss rate of at least 2%, and lock-protected critical
// sections, and that it checks itself.
func TestBenchmarkWorkloadShape(t *testing.T) {
	instrs := benchInstrs
	if testing.Short() {
		instrs = 2_000_000
	}
	_, r, _ := mixedRun(t, 8, instrs)
	if r.Outcome != core.Pass {
		t.Fatalf("outcome %s: %s", r.Outcome, r.OutcomeMsg)
	}
	get := func(name string) float64 {
		v, ok := r.Stats.Get(name)
		if !ok {
			t.Fatalf("no stat %s", name)
		}
		return v
	}
	memFrac := get("mem_ops") / float64(r.Instructions)
	t.Logf("instructions %d, cycles %d, mem fraction %.3f, miss rate %.4f, c2c fills %.0f, lock acquires %.0f, bus utilisation %.3f",
		r.Instructions, r.Cycles, memFrac, get("l1_miss_rate"), get("fills_c2c"), get("lock_acquires"), get("bus_utilization"))
	if r.Instructions < uint64(instrs) {
		t.Errorf("%d instructions, want ≥ %d", r.Instructions, instrs)
	}
	if memFrac < 0.30 {
		t.Errorf("memory operations are %.1f%% of instructions, want ≥ 30%%", 100*memFrac)
	}
	if get("l1_miss_rate") < 0.02 {
		t.Errorf("L1 miss rate %.4f, want ≥ 0.02", get("l1_miss_rate"))
	}
	if get("fills_c2c") == 0 || get("invalidations") == 0 {
		t.Error("no sharing: no cache-to-cache fills or invalidations")
	}
	if get("lock_acquires") == 0 {
		t.Error("no critical sections")
	}
}

// TestAllocsIndependentOfLength checks the hot paths allocate nothing per
// instruction or access: running a machine for 10M instructions allocates
// exactly as often as running it for 1M instructions of the same workload.
// Only the run is measured (building the machine and collecting the result
// allocate a fixed amount that fmt's pools make jitter by one).
func TestAllocsIndependentOfLength(t *testing.T) {
	allocs := map[int]uint64{}
	for _, n := range []int{1_000_000, 10_000_000} {
		p, err := workloads.BenchMixed(8, n).Program()
		if err != nil {
			t.Fatal(err)
		}
		// MemStats counts the whole process, and parallel tests and the
		// runtime's own warm-up in a process's first runs allocate too;
		// that noise only adds, so after one discarded run the minimum of
		// a few runs is the run's own count.
		for try := -1; try < 3; try++ {
			m, err := sim.Build(configs.Default(), p, 1, nil)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			m.Start()
			m.Run()
			runtime.ReadMemStats(&after)
			if o := m.Outcome(); o.Kind != core.Pass {
				t.Fatalf("%d-instruction run: %s %s", n, o.Kind, o.Msg)
			}
			if got := after.Mallocs - before.Mallocs; try == 0 || (try > 0 && got < allocs[n]) {
				allocs[n] = got
			}
		}
	}
	t.Logf("allocations while running: 1M instructions %d, 10M instructions %d", allocs[1_000_000], allocs[10_000_000])
	if allocs[1_000_000] != allocs[10_000_000] {
		t.Errorf("allocations grow with run length: %v", allocs)
	}
}

// BenchmarkDetectors is BenchmarkRun's workload at 8 cores with each
// detector attached, or BB-HW on (bbhw; bare: none; conseq: ConSeq's trace
// recorder, static analysis and offline analysis outside the timed run);
// the ratio of bare's MIPS to another's is that mechanism's host cost.
func BenchmarkDetectors(b *testing.B) {
	for _, name := range append([]string{"bare"}, "hb", "lockset", "avio", "bbhw", "bbsw", "pset", "bbhw+pset", "falcon", "conseq", "race", "atom") {
		b.Run(name, func(b *testing.B) {
			p, err := workloads.BenchMixed(8, benchInstrs).Program()
			if err != nil {
				b.Fatal(err)
			}
			cfg := configs.Default()
			cfg.Machine.Cores = 8
			var info detectors.Info
			var psets isa.PSets
			if name == "bbhw" || name == "bbhw+pset" {
				// BB-HW is hardware, not a detector: the paper's machine
				// extension on, S=5, the default 16k-entry tables.
				cfg.Bugaboo.Enabled = true
			}
			if name == "pset" || name == "bbhw+pset" {
				// PSet's hardware with PSets learned from seeds 1..5 of
				// the same machine, logging what it finds.
				cfg.PSet.Enabled = true
				cfg.PSet.Recovery.Mode = "log_only"
				psets = benchPSets(b, cfg, p)
			} else if name == "conseq" {
				// ConSeq's recording alone (the measure); its
				// offline analysis is timed per kernel in Table 6.
			} else if name != "bare" && name != "bbhw" {
				if info, err = detectors.Lookup(name); err != nil {
					b.Fatal(err)
				}
			}
			run := func() sim.Result {
				opts := []sim.Option{sim.WithPSets(psets)}
				if info.New != nil {
					opts = append(opts, sim.WithDetector(info.New(p)))
				}
				if name == "conseq" {
					a, err := conseq.Analyze(p, conseq.Options{})
					if err != nil {
						b.Fatal(err)
					}
					rec := a.NewTraceRecorder(conseq.Config{})
					opts = append(opts, sim.WithObserver(rec.Kinds(), rec))
				}
				r, err := sim.Run(cfg, p, 1, opts...)
				if err != nil {
					b.Fatal(err)
				}
				return r
			}
			if r := run(); r.Outcome != core.Pass {
				b.Fatalf("benchmark workload %s: %s", r.Outcome, r.OutcomeMsg)
			}
			b.ReportAllocs()
			b.ResetTimer()
			var instrs uint64
			for i := 0; i < b.N; i++ {
				instrs += run().Instructions
			}
			b.ReportMetric(float64(instrs)/b.Elapsed().Seconds()/1e6, "MIPS")
		})
	}
}

// benchPSets learns p's PSets from the passing runs of seeds 1..5 on cfg
// (its PSet hardware logging against empty PSets meanwhile).
func benchPSets(b *testing.B, cfg configs.Config, p *isa.Program) isa.PSets {
	b.Helper()
	tr := psetsw.NewTrainer(p, psetsw.Options{})
	for s := uint64(1); s <= 5; s++ {
		rec := tr.NewRun()
		r, err := sim.Run(cfg, p, s, sim.WithPSets(isa.PSets{}), sim.WithDetector(rec))
		if err != nil {
			b.Fatal(err)
		}
		if r.Outcome == core.Pass {
			tr.Add(rec)
		}
	}
	return tr.PSets()
}

// lockstepProgram is the lockstep case of the speed issue: 8 threads whose
// every access, after the warm-up, hits a private hot set in the L1, so
// every memory operation gives way to another core and nothing misses.
func lockstepProgram(tb testing.TB, opsPerThread int) *isa.Program {
	tb.Helper()
	p, err := workloads.Gen{Name: "lockstep", Threads: 8, Phases: 1, OpsPerThread: opsPerThread,
		Slots: 16, HotWords: 1024, HotWriteFrac: 0.3, ALUPerLoad: 1, Seed: 1}.Program()
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// lockstepOps is one BenchmarkLockstep iteration's memory operations per thread.
const lockstepOps = 500_000

// TestLockstepShape checks that the lockstep benchmark is what it says:
// almost every access hits (the misses are the warm-up's).
func TestLockstepShape(t *testing.T) {
	cfg := configs.Default()
	cfg.Machine.Cores = 8
	r, err := sim.Run(cfg, lockstepProgram(t, 50_000), 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != core.Pass {
		t.Fatalf("lockstep workload: %s: %s", r.Outcome, r.OutcomeMsg)
	}
	rate, ok := r.Stats.Get("l1_miss_rate")
	if !ok {
		t.Fatal("no stat l1_miss_rate")
	}
	t.Logf("lockstep: %d instructions, L1 miss rate %.5f", r.Instructions, rate)
	if rate > 0.005 {
		t.Errorf("lockstep L1 miss rate %.4f, want ≤ 0.005 (every access after the warm-up hits)", rate)
	}
}

// BenchmarkLockstep is the lockstep case: 8 cores, every access hits.
func BenchmarkLockstep(b *testing.B) {
	benchProgram(b, "lockstep", 8, lockstepProgram(b, lockstepOps))
}

// BenchmarkProfile64 runs registry profiles as `weft run -w NAME` does on a
// 64-core machine: fft (all-to-all sharing through the bus), freqmine
// (private working-set misses) and dedup (hits in a hot set).
func BenchmarkProfile64(b *testing.B) {
	for _, name := range []string{"fft", "freqmine", "dedup"} {
		b.Run(name, func(b *testing.B) {
			p, err := workloads.ProgramFor(name, 64)
			if err != nil {
				b.Fatal(err)
			}
			benchProgram(b, name, 64, p)
		})
	}
}

// BenchmarkProfiles runs every registry profile (but mixed, which is
// BenchmarkRun's) as `weft run -w NAME` runs it, at 8 and 64 cores: the
// spread of speed over the workloads users run, for changes that help
// some and cost others.
func BenchmarkProfiles(b *testing.B) {
	for _, cores := range []int{8, 64} {
		for _, e := range workloads.List() {
			if e.Kind != workloads.Profile || e.Name == "mixed" {
				continue
			}
			b.Run(fmt.Sprintf("%s/cores=%d", e.Name, cores), func(b *testing.B) {
				p, err := workloads.ProgramFor(e.Name, cores)
				if err != nil {
					b.Fatal(err)
				}
				benchProgram(b, e.Name, cores, p)
			})
		}
	}
}

// BenchmarkKernelBatch runs a small bug kernel (bb-circular-list, a few
// thousand instructions) seed after seed, as a batch does: the cost of
// building and ending a run, which dominates such runs.
func BenchmarkKernelBatch(b *testing.B) {
	p, err := workloads.Program("bb-circular-list")
	if err != nil {
		b.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), p)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := sim.Run(cfg, p, uint64(i)+1); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCollect builds the result of a finished run of
// bb-circular-list on 8 cores, as every run does once at its end: its
// statistics (the registry's groups summed, then the formulas), the cycle
// breakdown and the config hash. Statistics cost a run nothing before.
func BenchmarkCollect(b *testing.B) {
	p, err := workloads.Program("bb-circular-list")
	if err != nil {
		b.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), p)
	m, err := sim.Build(cfg, p, 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	m.Start()
	m.Run()
	b.ReportAllocs()
	for b.Loop() {
		sim.Collect(m, cfg, 1)
	}
}

// benchProgram times runs of p (seed 1) on the default machine with cores
// cores, each of which must pass, and reports MIPS.
func benchProgram(b *testing.B, name string, cores int, p *isa.Program) {
	cfg := configs.Default()
	cfg.Machine.Cores = cores
	b.ReportAllocs()
	b.ResetTimer()
	var instrs uint64
	for i := 0; i < b.N; i++ {
		r, err := sim.Run(cfg, p, 1)
		if err != nil || r.Outcome != core.Pass {
			b.Fatalf("%s: %v %s", name, err, r.OutcomeMsg)
		}
		instrs += r.Instructions
	}
	b.ReportMetric(float64(instrs)/b.Elapsed().Seconds()/1e6, "MIPS")
}
