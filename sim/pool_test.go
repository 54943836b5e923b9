package sim_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"weft/sim"
)

// Stream delivers any job's result in index order whatever the worker
// count and the order jobs finish, and stops at the first error, of a job
// or of deliver.
func TestStreamOrderAndErrors(t *testing.T) {
	const n = 50
	work := func(i int) (string, error) {
		time.Sleep(time.Duration((i*7)%5) * 100 * time.Microsecond) // finish out of order
		return fmt.Sprint(i), nil
	}
	for _, workers := range []int{1, 3, 8} {
		var got []string
		finished := 0
		err := sim.Stream(context.Background(), n, workers, work, func(done int) { finished = done },
			func(i int, v string) error {
				if v != fmt.Sprint(i) || i != len(got) {
					t.Errorf("workers %d: delivered %q as job %d after %d", workers, v, i, len(got))
				}
				got = append(got, v)
				return nil
			})
		if err != nil || len(got) != n || finished != n {
			t.Errorf("workers %d: %d delivered, %d finished, %v", workers, len(got), finished, err)
		}
	}

	bad := errors.New("job 7 failed")
	delivered := 0
	err := sim.Stream(context.Background(), n, 4, func(i int) (int, error) {
		if i == 7 {
			return 0, bad
		}
		return i, nil
	}, nil, func(i, v int) error { delivered++; return nil })
	if !errors.Is(err, bad) || delivered > 7 {
		t.Errorf("a job's error: %v after %d delivered", err, delivered)
	}
	stop := errors.New("enough")
	delivered = 0
	err = sim.Stream(context.Background(), n, 4, func(i int) (int, error) { return i, nil }, nil,
		func(i, v int) error {
			if i == 3 {
				return stop
			}
			delivered++
			return nil
		})
	if !errors.Is(err, stop) || delivered != 3 {
		t.Errorf("deliver's error: %v after %d delivered", err, delivered)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sim.Stream(ctx, n, 2, func(i int) (int, error) { return i, nil }, nil, func(int, int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before the start: %v", err)
	}
}
