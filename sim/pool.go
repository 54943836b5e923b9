package sim

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
)

// ReorderWindow is how many jobs per worker a stream may have started but
// not yet delivered: the bound on the results it holds while it waits for
// an earlier, slower job, so that its memory does not grow with the
// number of jobs. A worker that would start a job further ahead waits.
const ReorderWindow = 16

// heapFloor is the heap a stream keeps reserved while it runs. A stream
// holds little live memory while every run allocates its machine afresh,
// so with Go's pacing (collect when the heap has doubled, from 4 MB) the
// collector would run every few runs and cost more host time than the
// runs (three times the CPU time of a batch of a small kernel). The
// reserve raises the collector's goal by twice its size; it is never
// written, so the operating system does not back it with memory.
const heapFloor = 32 << 20

// Stream is weft's one worker pool: batches, job lists, sweeps and the
// experiments that parallelise other work all run through it. It runs
// work(0), …, work(n-1) on workers goroutines (0: one per host CPU) and
// calls deliver(i, v) with each result in index order, as soon as job i
// and every job before it have finished, so what a caller writes does not
// depend on the worker count. It holds at most ReorderWindow results per
// worker: a worker that would start a job further ahead of the next one
// to deliver waits. deliver is called from the calling goroutine, one job
// at a time; onDone, when set, is called from the same goroutine once per
// finished job, in completion order, with the number finished so far (for
// progress bars).
//
// The first error, of a job or of deliver, stops the jobs not yet started
// and is returned once the jobs in flight have finished; no job after it
// is delivered. When ctx is cancelled no further job starts, the jobs in
// flight finish or stop early (a job that returns an error wrapping
// context.Cause(ctx) once ctx is cancelled, as a run with WithContext(ctx)
// does, counts as not finished, not as an error), every job finished in an
// unbroken prefix is delivered, and Stream returns an error that wraps
// context.Cause(ctx) (errors.Is(err, context.Canceled)) unless every job
// was delivered; when the first job not delivered was stopped part way,
// the error wraps that job's error (a run's *InterruptedError).
func Stream[T any](ctx context.Context, n, workers int, work func(i int) (T, error), onDone func(done int), deliver func(i int, v T) error) error {
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
		v   T
		err error
	}
	// A token is taken before job i starts and given back when it is
	// delivered, so jobs next .. next+window-1 are the only ones started
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
				v, err := work(i)
				out <- finished{i, v, err}
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
	// stopped is the error of the first job (by index, stoppedAt) that
	// ctx stopped before it finished.
	var stopped error
	stoppedAt := n
	for f := range out {
		done++
		if onDone != nil {
			onDone(done)
		}
		if first != nil {
			continue
		}
		if f.err != nil && parent.Err() != nil && errors.Is(f.err, context.Cause(parent)) {
			// Stopped by ctx before it finished (a run with
			// WithContext): not finished, as if it had not started.
			if f.i < stoppedAt {
				stopped, stoppedAt = f.err, f.i
			}
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
			v := buf[k].v
			buf[k], have[k] = finished{}, false
			if err := deliver(delivered, v); err != nil {
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
		if stoppedAt == delivered {
			// The first job not delivered was stopped part way: say where.
			return fmt.Errorf("batch interrupted after %d of %d runs: %w", delivered, n, stopped)
		}
		return fmt.Errorf("batch interrupted after %d of %d runs: %w", delivered, n, context.Cause(parent))
	}
	return nil
}
