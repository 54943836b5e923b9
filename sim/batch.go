package sim

import (
	"context"
	"fmt"
	"slices"

	"weft/configs"
	"weft/isa"
)

// MaxRuns is the most runs one batch (weft run --runs, weft pset) or one
// sweep point (a sweep's runs) may have. Memory does not limit it (a
// batch streams its runs), time and disk do: 10^8 runs of the smallest
// program take hours on a workstation (about 20,000 runs a second on two
// host CPUs), and their JSON lines (1–10 KB a run) fill hundreds of GB, so
// a larger count is a typing mistake; a bigger study is several batches.
const MaxRuns = 100_000_000

// Job is one run: a program on a config with a seed.
type Job struct {
	// Config is the machine to run on.
	Config configs.Config
	// Program is the program to run.
	Program *isa.Program
	// Seed is the run's seed.
	Seed uint64
	// Options, when set, builds the run's options (its detectors and
	// observers, fresh for each run).
	Options func() []Option
}

// StreamJobs runs jobs across host cores (workers 0: one per host CPU) and
// calls deliver(i, r) for each in job order, as soon as job i and every
// job before it have finished. It holds at most ReorderWindow results per
// worker, however many jobs there are. deliver is called from the calling
// goroutine, one run at a time; onDone, when set, is called from the same
// goroutine once per finished run, in completion order, with the number
// finished so far (for progress bars).
//
// The first error, of a run or of deliver, stops the jobs not yet started
// and is returned once the runs in flight have finished; no run after it
// is delivered. When ctx is cancelled no further job starts, the runs in
// flight stop within cpu.StopCycles simulated cycles (WithContext) and
// have no result, every job finished in an unbroken prefix is delivered,
// and StreamJobs returns an error that wraps ctx's (errors.Is(err,
// context.Canceled)) unless every job was delivered.
func StreamJobs(ctx context.Context, jobs []Job, workers int, onDone func(done int), deliver func(i int, r Result) error) error {
	return stream(ctx, len(jobs), func(i int) Job { return jobs[i] }, workers, onDone, deliver)
}

// RunJobs runs jobs across host cores (workers 0: one per host CPU) and
// returns their results in job order, whatever the worker count. onDone,
// when set, is called once per finished run, from one goroutine at a time,
// with the number done so far. The first error stops the remaining jobs
// from starting and is returned (Run's errors name the program and seed).
// It holds every result;
// StreamJobs delivers them one at a time instead.
func RunJobs(jobs []Job, workers int, onDone func(done int)) ([]Result, error) {
	results := make([]Result, len(jobs))
	err := StreamJobs(context.Background(), jobs, workers, onDone, func(i int, r Result) error {
		results[i] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// Batch describes n runs of one program: run i uses seed BaseSeed + i.
type Batch struct {
	// Config is the machine every run uses.
	Config configs.Config
	// Program is the program every run runs.
	Program *isa.Program
	// BaseSeed is the seed of run 0.
	BaseSeed uint64
	// Runs is the number of runs.
	Runs int
	// Workers is the number of runs in flight (0: one per host CPU).
	Workers int
	// OnDone, when set, is called once per finished run, from one goroutine
	// at a time, in completion order (for progress bars).
	OnDone func(done int)
	// Options, when set, builds each run's options (fresh detectors).
	Options func() []Option
}

// job returns run i of the batch.
func (b *Batch) job(i int) Job {
	return Job{Config: b.Config, Program: b.Program, Seed: b.BaseSeed + uint64(i), Options: b.Options}
}

// StreamBatch runs the batch across host cores and calls deliver(i, r) for
// each run in run-index order as soon as it and every run before it have
// finished, so its memory stays flat however many runs there are. It
// stops as StreamJobs does: on the first error, or when ctx is cancelled
// (after delivering every run finished in an unbroken prefix).
func StreamBatch(ctx context.Context, b Batch, deliver func(i int, r Result) error) error {
	if b.Runs < 0 {
		return fmt.Errorf("batch of %d runs", b.Runs)
	}
	return stream(ctx, b.Runs, b.job, b.Workers, b.OnDone, deliver)
}

// RunBatch runs the batch across host cores. Results are in run-index
// order whatever the worker count; the first error stops the batch. It
// holds every result; StreamBatch delivers them one at a time instead.
func RunBatch(b Batch) ([]Result, error) {
	if b.Runs < 0 {
		return nil, fmt.Errorf("batch of %d runs", b.Runs)
	}
	results := make([]Result, b.Runs)
	err := StreamBatch(context.Background(), b, func(i int, r Result) error {
		results[i] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// stream runs the n jobs job(0..n-1) across host cores and delivers
// their results in index order (see Stream).
func stream(ctx context.Context, n int, job func(i int) Job, workers int, onDone func(int), deliver func(int, Result) error) error {
	return Stream(ctx, n, workers, func(i int) (Result, error) {
		j := job(i)
		var opts []Option
		if j.Options != nil {
			opts = j.Options()
		}
		return Run(j.Config, j.Program, j.Seed, append(slices.Clip(opts), WithContext(ctx))...)
	}, onDone, deliver)
}
