package sim

import (
	"fmt"
	"runtime"
	"sync"

	"weft/configs"
	"weft/isa"
)

// Batch describes n runs of one program: run i uses seed BaseSeed + i.
type Batch struct {
	Config   configs.Config
	Program  *isa.Program
	BaseSeed uint64
	Runs     int
	// Workers is the number of runs in flight (0: one per host CPU).
	Workers int
	// OnDone, when set, is called once per finished run, from one goroutine
	// at a time, in completion order (for progress bars).
	OnDone func(done int)
}

// RunBatch runs the batch across host cores. Results are in run-index
// order whatever the worker count; the first error stops the batch.
func RunBatch(b Batch) ([]Result, error) {
	if b.Runs < 0 {
		return nil, fmt.Errorf("batch of %d runs", b.Runs)
	}
	workers := b.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if workers > b.Runs {
		workers = b.Runs
	}
	results := make([]Result, b.Runs)
	errs := make([]error, b.Runs)
	next := make(chan int)
	var mu sync.Mutex
	done := 0
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = Run(b.Config, b.Program, b.BaseSeed+uint64(i))
				mu.Lock()
				done++
				if b.OnDone != nil {
					b.OnDone(done)
				}
				mu.Unlock()
			}
		}()
	}
	for i := 0; i < b.Runs; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", i, err)
		}
	}
	return results, nil
}
