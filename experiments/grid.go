package experiments

import (
	"fmt"
	"runtime"
	"sync"

	"weft/configs"
	"weft/isa"
	"weft/sim"
)

// job is one run of a grid: a program on a config with a seed.
type job struct {
	cfg  configs.Config
	prog *isa.Program
	seed uint64
}

// runJobs runs every job across host cores and returns the results in job
// order, whatever the worker count.
func runJobs(env Env, jobs []job) ([]sim.Result, error) {
	workers := env.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]sim.Result, len(jobs))
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i], errs[i] = sim.Run(jobs[i].cfg, jobs[i].prog, jobs[i].seed)
				if env.Progress != nil {
					mu.Lock()
					done++
					env.Progress(done, len(jobs))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range jobs {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s seed %d: %w", jobs[i].prog.Name, jobs[i].seed, err)
		}
	}
	return out, nil
}

// stat returns a named statistic of a run (0 when absent).
func stat(r sim.Result, name string) float64 {
	switch name {
	case "cycles":
		return float64(r.Cycles)
	case "instructions":
		return float64(r.Instructions)
	}
	v, _ := r.Stats.Get(name)
	return v
}

// totalInstructions sums the simulated instructions of runs.
func totalInstructions(rs []sim.Result) uint64 {
	var n uint64
	for _, r := range rs {
		n += r.Instructions
	}
	return n
}
