package sim

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"weft/configs"
	"weft/isa"
)

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

// ReorderWindow is how many runs per worker a stream may have started but
// not yet delivered: the bound on the results it holds while it waits for
// an earlier, slower run, so that its memory does not grow with the
// number of runs. A worker that would start a run further ahead waits.
const ReorderWindow = 16

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
// flight finish, every job finished in an unbroken prefix is delivered, and
// StreamJobs returns an error that wraps ctx's (errors.Is(err,
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

// heapFloor is the heap a stream keeps reserved while it runs. A stream
// holds little live memory while every run allocates its machine afresh,
// so with Go's pacing (collect when the heap has doubled, from 4 MB) the
// collector would run every few runs and cost more host time than the
// runs (three times the CPU time of a batch of a small kernel). The
// reserve raises the collector's goal by twice its size; it is never
// written, so the operating system does not back it with memory.
const heapFloor = 32 << 20

// stream runs the n jobs job(0..n-1) on workers goroutines and delivers
// their results in index order through a reorder buffer of at most
// ReorderWindow results per worker (see StreamJobs).
func stream(ctx context.Context, n int, job func(i int) Job, workers int, onDone func(int), deliver func(int, Result) error) error {
	if n == 0 {
		return nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, n)
	window := min(ReorderWindow*workers, n)
	if n > 1 {
		floor := make([]byte, heapFloor)
		defer runtime.KeepAlive(floor)
	}

	parent := ctx
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	type finished struct {
		i   int
		r   Result
		err error
	}
	// A token is taken before run i starts and given back when it is
	// delivered, so runs next .. next+window-1 are the only ones started
	// and not delivered: their results fit the ring buf.
	tokens := make(chan struct{}, window)
	next := make(chan int)
	out := make(chan finished, workers)
	go func() {
		defer close(next)
		for i := 0; i < n; i++ {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if ctx.Err() != nil {
					continue // stopped: start nothing more
				}
				j := job(i)
				var opts []Option
				if j.Options != nil {
					opts = j.Options()
				}
				r, err := Run(j.Config, j.Program, j.Seed, opts...)
				out <- finished{i, r, err}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(out)
	}()

	buf := make([]finished, window)
	have := make([]bool, window)
	delivered, done := 0, 0
	var first error
	for f := range out {
		done++
		if onDone != nil {
			onDone(done)
		}
		if first != nil {
			continue
		}
		if f.err != nil {
			first = f.err
			cancel()
			continue
		}
		buf[f.i%window], have[f.i%window] = f, true
		for have[delivered%window] {
			k := delivered % window
			r := buf[k].r
			buf[k], have[k] = finished{}, false
			if err := deliver(delivered, r); err != nil {
				first = err
				cancel()
				break
			}
			delivered++
			<-tokens
		}
	}
	if first != nil {
		return first
	}
	if delivered < n {
		return fmt.Errorf("batch interrupted after %d of %d runs: %w", delivered, n, context.Cause(parent))
	}
	return nil
}
