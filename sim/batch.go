package sim

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

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

// RunJobs runs jobs across host cores (workers 0: one per host CPU) and
// returns their results in job order, whatever the worker count. onDone,
// when set, is called once per finished run, from one goroutine at a time,
// with the number done so far. The first error stops the remaining jobs
// from starting and is returned, naming the job.
func RunJobs(jobs []Job, workers int, onDone func(done int)) ([]Result, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(jobs))
	results := make([]Result, len(jobs))
	errs := make([]error, len(jobs))
	var failed atomic.Bool
	next := make(chan int)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if failed.Load() {
					continue
				}
				j := jobs[i]
				var opts []Option
				if j.Options != nil {
					opts = j.Options()
				}
				results[i], errs[i] = Run(j.Config, j.Program, j.Seed, opts...)
				if errs[i] != nil {
					failed.Store(true)
				}
				mu.Lock()
				done++
				if onDone != nil {
					onDone(done)
				}
				mu.Unlock()
			}
		}()
	}
	for i := range jobs {
		if failed.Load() {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("run %d (%s seed %d): %w", i, jobs[i].Program.Name, jobs[i].Seed, err)
		}
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

// RunBatch runs the batch across host cores. Results are in run-index
// order whatever the worker count; the first error stops the batch.
func RunBatch(b Batch) ([]Result, error) {
	if b.Runs < 0 {
		return nil, fmt.Errorf("batch of %d runs", b.Runs)
	}
	jobs := make([]Job, b.Runs)
	for i := range jobs {
		jobs[i] = Job{Config: b.Config, Program: b.Program, Seed: b.BaseSeed + uint64(i), Options: b.Options}
	}
	return RunJobs(jobs, b.Workers, b.OnDone)
}
