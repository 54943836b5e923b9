package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/sim"
)

// spawnRace spawns a second thread after a random delay: on two cores it
// finds a free core only when the first thread has already exited, so some
// seeds pass and the others crash at the second spawn.
const spawnRace = `.cores 2
.text
main:
  spawn r2, child, r0
  delay 0, 40
  spawn r3, child, r0
  join r2
  join r3
  exit
child:
  delay 0, 40
  exit
`

// A spawn with no free core is that run's crash, naming machine.cores and
// where it happened; the batch goes on and returns every run.
func TestBatchSpawnWithNoFreeCoreIsACrash(t *testing.T) {
	p := assemble(t, spawnRace)
	cfg := configs.Default()
	cfg.Machine.Cores = 2
	const n = 40
	rs, err := sim.RunBatch(sim.Batch{Config: cfg, Program: p, BaseSeed: 1, Runs: n, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != n {
		t.Fatalf("%d results, want %d", len(rs), n)
	}
	count := map[string]int{}
	for i, r := range rs {
		if r.Seed != uint64(1+i) {
			t.Errorf("result %d has seed %d", i, r.Seed)
		}
		count[r.Outcome.String()]++
		if r.Outcome == core.Crash {
			if !strings.Contains(r.OutcomeMsg, "machine.cores") || !strings.Contains(r.OutcomeMsg, "no free core") ||
				r.OutcomePC != 2 || r.OutcomeThread != 0 {
				t.Errorf("seed %d: crash %q at pc %d thread %d, want the second spawn (pc 2, thread 0) and machine.cores named",
					r.Seed, r.OutcomeMsg, r.OutcomePC, r.OutcomeThread)
			}
		}
	}
	if count["pass"] == 0 || count["crash"] == 0 || count["pass"]+count["crash"] != n {
		t.Errorf("outcomes %v: want some passes and some crashes at the spawn", count)
	}
}

// Run runs the config it is given: a program that declares more cores
// than machine.cores is an error naming both, not a silent raise.
func TestRunRefusesTooFewCores(t *testing.T) {
	p := assemble(t, spawnRace)
	cfg := configs.Default()
	cfg.Machine.Cores = 1
	_, err := sim.Run(cfg, p, 7)
	if err == nil || !strings.Contains(err.Error(), ".cores") || !strings.Contains(err.Error(), "machine.cores is 1") ||
		!strings.Contains(err.Error(), "FitCores") {
		t.Fatalf("error %v", err)
	}
	fit, _ := sim.FitCores(cfg, p)
	if _, err := sim.Run(fit, p, 7); err != nil {
		t.Fatal(err)
	}
}

// The first error stops a batch: the jobs after it are not started, and
// the error names the program and seed once.
func TestStreamStopsAtFirstError(t *testing.T) {
	good := assemble(t, "main: work 10\n exit\n")
	bad := assemble(t, spawnRace) // .cores 2 on one core: bad input
	cfg := configs.Default()
	cfg.Machine.Cores = 1
	jobs := make([]sim.Job, 500)
	for i := range jobs {
		jobs[i] = sim.Job{Config: cfg, Program: good, Seed: uint64(i)}
	}
	jobs[3].Program = bad
	done := 0
	var got []int
	err := sim.StreamJobs(context.Background(), jobs, 2, func(n int) { done = n }, func(i int, r sim.Result) error {
		got = append(got, i)
		return nil
	})
	if err == nil || strings.Count(err.Error(), "seed") != 1 || !strings.Contains(err.Error(), "seed 3") {
		t.Fatalf("error %v: want one naming seed 3", err)
	}
	if len(got) > 3 {
		t.Errorf("delivered %v, past the failing job", got)
	}
	if done > 3+2*sim.ReorderWindow+2 {
		t.Errorf("%d of 500 runs ran after the first failure", done)
	}
	if _, err := sim.RunJobs(jobs, 2, nil); err == nil {
		t.Error("RunJobs: no error")
	}
}

// StreamBatch delivers every run in index order, whatever the worker
// count, and equal to RunBatch's results.
func TestStreamBatchInOrder(t *testing.T) {
	p := assemble(t, spawnRace)
	cfg := configs.Default()
	cfg.Machine.Cores = 2
	b := sim.Batch{Config: cfg, Program: p, BaseSeed: 5, Runs: 300}
	want, err := sim.RunBatch(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{1, 3, 8} {
		b.Workers = w
		i := 0
		err := sim.StreamBatch(context.Background(), b, func(k int, r sim.Result) error {
			if k != i {
				t.Fatalf("workers %d: delivered run %d, want %d", w, k, i)
			}
			if jsonOf(t, r) != jsonOf(t, want[k]) {
				t.Errorf("workers %d: run %d differs from RunBatch's", w, k)
			}
			i++
			return nil
		})
		if err != nil || i != b.Runs {
			t.Fatalf("workers %d: %d runs delivered, %v", w, i, err)
		}
	}
}

// Cancelling the context stops a stream: the finished runs of an unbroken
// prefix are delivered, in order, and the error says it was cancelled.
func TestStreamBatchCancel(t *testing.T) {
	p := assemble(t, spawnRace)
	cfg := configs.Default()
	cfg.Machine.Cores = 2
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const n = 100000
	got := 0
	err := sim.StreamBatch(ctx, sim.Batch{Config: cfg, Program: p, BaseSeed: 1, Runs: n, Workers: 2}, func(i int, r sim.Result) error {
		if i != got || r.Seed != uint64(1+i) {
			t.Fatalf("delivered run %d (seed %d), want run %d", i, r.Seed, got)
		}
		got++
		if got == 10 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "interrupted after") {
		t.Fatalf("error %v", err)
	}
	if got < 10 || got > 10+2*sim.ReorderWindow {
		t.Errorf("%d runs delivered after cancelling at 10", got)
	}
}

// An error from deliver stops the stream and is returned as it is.
func TestStreamBatchDeliverError(t *testing.T) {
	p := assemble(t, "main: exit\n")
	boom := errors.New("boom")
	got := 0
	err := sim.StreamBatch(context.Background(), sim.Batch{Config: configs.Default(), Program: p, Runs: 1000, Workers: 2}, func(i int, r sim.Result) error {
		got++
		if i == 4 {
			return boom
		}
		return nil
	})
	if err != boom || got != 5 {
		t.Fatalf("error %v after %d deliveries", err, got)
	}
}
