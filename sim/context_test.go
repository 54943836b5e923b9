package sim_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// endless is a single thread in a register-only loop: the whole run is
// one engine event of one core.
const endless = ".text\nmain: add r1, r1, 1\n jmp main\n"

// pingPong is two threads adding to one word forever: a coherence miss
// and a bus transaction every few cycles.
const pingPong = ".text\nmain: spawn r2, pong, r0\nping: fadd r1, x, 1\n jmp ping\npong: fadd r1, x, 2\n jmp pong\n.data\nx: .word 0\n"

// A cancelled context stops a run promptly, whether it loops inside one
// core or between cores through the bus, long before sim.max_cycles: Run
// returns an *InterruptedError that wraps the context's cause and names
// the program and seed.
func TestWithContextStopsRun(t *testing.T) {
	for _, c := range []struct{ name, src string }{{"endless", endless}, {"ping-pong", pingPong}} {
		t.Run(c.name, func(t *testing.T) {
			cfg := configs.Default()
			cfg.Machine.Cores = 2
			cfg.Sim.MaxCycles = configs.MaxRunCycles
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(50*time.Millisecond, cancel)
			start := time.Now()
			_, err := sim.Run(cfg, assemble(t, c.src), 4, sim.WithContext(ctx))
			took := time.Since(start)
			var ie *sim.InterruptedError
			if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v, want an *InterruptedError wrapping context.Canceled", err)
			}
			if ie.Cycle == 0 || ie.Cycle >= configs.MaxRunCycles {
				t.Errorf("interrupted at cycle %d", ie.Cycle)
			}
			if !strings.HasPrefix(err.Error(), "run test seed 4: interrupted at cycle ") {
				t.Errorf("error %q", err)
			}
			if took > 5*time.Second {
				t.Errorf("took %v to stop", took)
			}
			t.Logf("stopped after %v at cycle %d", took, ie.Cycle)
		})
	}

	// A batch of such runs stops too: its error wraps the first
	// unfinished run's.
	cfg := configs.Default()
	cfg.Sim.MaxCycles = configs.MaxRunCycles
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := sim.StreamBatch(ctx, sim.Batch{Config: cfg, Program: assemble(t, endless), BaseSeed: 1, Runs: 3, Workers: 2},
		func(int, sim.Result) error { t.Error("a run was delivered"); return nil })
	var ie *sim.InterruptedError
	if !errors.As(err, &ie) || !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "batch interrupted after 0 of 3 runs: run test seed 1: interrupted at cycle ") {
		t.Errorf("batch error %v", err)
	}
}

// A run with a context that is not cancelled is the same as one without,
// byte for byte and event for event: looking at the context changes no
// cycle. The runs are long enough (up to 10^6 cycles) to look many times,
// and one hangs at max_cycles in an endless loop.
func TestWithContextSameRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	check := func(name string, cfg configs.Config, src string, seed uint64) {
		t.Helper()
		var prog *isa.Program
		if src != "" {
			prog = assemble(t, src)
		} else {
			p, err := workloads.ProgramFor(name, cfg.Machine.Cores)
			if err != nil {
				t.Fatal(err)
			}
			prog = p
			cfg, _ = sim.FitCores(cfg, prog)
		}
		var js [2][]byte
		for i, opts := range [][]sim.Option{nil, {sim.WithContext(ctx)}} {
			r, err := sim.Run(cfg, prog, seed, opts...)
			if err != nil {
				t.Fatal(err)
			}
			if js[i], err = json.Marshal(r); err != nil {
				t.Fatal(err)
			}
		}
		if string(js[0]) != string(js[1]) {
			t.Errorf("%s seed %d: with a context\n%s\nwithout\n%s", name, seed, js[1], js[0])
		}
		if with, without := traceHash(t, cfg, prog, seed, sim.WithContext(ctx)), traceHash(t, cfg, prog, seed); with != without {
			t.Errorf("%s seed %d: events with a context %s, without %s", name, seed, with, without)
		}
	}
	for _, name := range []string{"mysql-binlog", "prodcons", "stencil", "pset-moz-timer", "counter-locked", "fft", "lu"} {
		cfg := configs.Default()
		check(name, cfg, "", 3)
		cfg.Sim.IrritatorProb, cfg.Sim.IrritatorMaxCycles = 0.2, 50
		check(name, cfg, "", 5)
	}
	cfg := configs.Default()
	cfg.Machine.Cores = 2
	cfg.Sim.MaxCycles = 1_000_000
	check("endless", cfg, endless, 1)
	check("ping-pong", cfg, pingPong, 1)
	if r, _ := sim.Run(cfg, assemble(t, endless), 1, sim.WithContext(ctx)); r.Outcome != core.Hang || r.Cycles != 1_000_000 {
		t.Errorf("endless loop: %s at cycle %d, want a hang at max_cycles", r.Outcome, r.Cycles)
	}
}

// BenchmarkWithContext is BenchmarkRun/cores=8 with a context that is
// never cancelled (WithContext): the cost of looking at it every
// cpu.StopCycles cycles, as weft run, sweeps and batches now run.
func BenchmarkWithContext(b *testing.B) {
	// As mixedRun: the program built and run once before the timer.
	p, err := workloads.BenchMixed(8, benchInstrs).Program()
	if err != nil {
		b.Fatal(err)
	}
	cfg := configs.Default()
	cfg.Machine.Cores = 8
	first, err := sim.Run(cfg, p, 1)
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	b.ResetTimer()
	var instrs uint64
	for i := 0; i < b.N; i++ {
		r, err := sim.Run(cfg, p, 1, sim.WithContext(ctx))
		if err != nil {
			b.Fatal(err)
		}
		if r.Cycles != first.Cycles {
			b.Fatalf("%d cycles with a context, %d without", r.Cycles, first.Cycles)
		}
		instrs += r.Instructions
	}
	b.ReportMetric(float64(instrs)/b.Elapsed().Seconds()/1e6, "MIPS")
}
