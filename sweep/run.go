package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"weft/sim"
)

// Options says where and how to run a sweep.
type Options struct {
	// Dir is the sweep directory (created if needed).
	Dir string
	// Workers is the number of runs in flight (0: GOMAXPROCS). Results do
	// not depend on it.
	Workers int
	// Shard and Shards select the points with Index % Shards == Shard
	// (Shards 0 means 1: every point).
	Shard, Shards int
	// Progress, when set, is called once before the first run and after
	// every finished run, from one goroutine at a time.
	Progress func(Progress)
}

// Progress counts a sweep's (or shard's) points and runs.
type Progress struct {
	// Points and Runs are the points and runs of the shard.
	Points, Runs int
	// PointsDone and RunsDone count those complete, resumed ones included.
	PointsDone, RunsDone int
	// Resumed is the runs found complete in runs.jsonl at the start; the
	// runs computed by this call are RunsDone - Resumed.
	Resumed int
}

// Status is how a call to Run ended.
type Status struct {
	// Progress counts the shard's points and runs as the call ended.
	Progress
	// Computed is the number of runs this call ran.
	Computed int
	// Repaired reports whether a half-written last line was cut from
	// runs.jsonl (its run was redone).
	Repaired bool
	// Complete reports whether the directory holds every run of the whole
	// sweep (not only of the shard).
	Complete bool
}

// runKey names one run of a sweep.
type runKey struct{ point, run int }

// Run runs the plan's points (of one shard) into opt.Dir and returns
// when they are all done, on the first error, or when ctx is cancelled.
//
// Each finished run is appended to DIR/runs.jsonl as one JSON line
// (Record), written with one write call, in run order as soon as it and
// every run before it have finished (sim.Stream). On start, Run checks that
// DIR holds this sweep (DIR/sweep.toml; a different sweep is refused) or
// none, reads DIR/runs.jsonl, cuts a half-written last line (one without a
// newline, or that does not parse) so its run is redone, and skips every
// run already there. When every run of the shard is done it rewrites
// runs.jsonl sorted by (point, run), atomically, so its bytes do not
// depend on the worker count or the order runs finished.
func Run(ctx context.Context, plan *Plan, opt Options) (Status, error) {
	shards := opt.Shards
	if shards == 0 {
		shards = 1
	}
	if shards < 0 || opt.Shard < 0 || opt.Shard >= shards {
		return Status{}, fmt.Errorf("shard %d/%d: want 0 ≤ I < N", opt.Shard, opt.Shards)
	}
	if opt.Dir == "" {
		return Status{}, errors.New("sweep: no output directory")
	}
	if len(plan.Spec.Detectors) > 0 && plan.Detectors == nil {
		return Status{}, fmt.Errorf("sweep %s names detectors %s, but they were not resolved (Plan.AttachDetectors)", plan.Spec.File, strings.Join(plan.Spec.Detectors, ", "))
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return Status{}, fmt.Errorf("sweep directory: %w", err)
	}
	unlock, err := lockDir(opt.Dir)
	if err != nil {
		return Status{}, err
	}
	defer unlock()
	if err := prepareDir(opt.Dir, plan); err != nil {
		return Status{}, err
	}
	path := filepath.Join(opt.Dir, RunsFile)
	log, err := readRunsLog(path, plan, true)
	if err != nil {
		return Status{}, err
	}
	var st Status
	if log.torn {
		if err := os.Truncate(path, log.good); err != nil {
			return Status{}, fmt.Errorf("cut the half-written last line of %s: %w", path, err)
		}
		st.Repaired = true
	}

	// The shard's runs, in point order; those already done count as resumed.
	runs := plan.Spec.Runs
	left := map[int]int{} // point → runs still to do
	var todo []runKey
	for i, pt := range plan.Points {
		if pt.Index%shards != opt.Shard {
			continue
		}
		st.Points++
		st.Runs += runs
		for r := 0; r < runs; r++ {
			if _, ok := log.lines[runKey{i, r}]; ok {
				st.Resumed++
				continue
			}
			todo = append(todo, runKey{i, r})
			left[i]++
		}
		if left[i] == 0 {
			st.PointsDone++
		}
	}
	st.RunsDone = st.Resumed
	report := func() {
		if opt.Progress != nil {
			opt.Progress(st.Progress)
		}
	}
	report()

	if len(todo) > 0 {
		if err := runJobs(ctx, plan, path, todo, opt.Workers, func() {
			st.Computed++
			st.RunsDone++
			report()
		}, func(k runKey) {
			if left[k.point]--; left[k.point] == 0 {
				st.PointsDone++
			}
		}); err != nil {
			return st, err
		}
	}

	// The shard is complete: sort what the directory holds.
	log, err = readRunsLog(path, plan, false)
	if err != nil {
		return st, err
	}
	if err := writeRunsSorted(path, log.lines); err != nil {
		return st, err
	}
	st.Complete = len(log.lines) == plan.Runs()
	return st, nil
}

// runJobs runs the jobs through the worker pool (Stream), appending each
// result to the runs file at path in job order as soon as it and every
// job before it have finished; pointDone and done are called, in that
// order, from this goroutine after each line is written.
func runJobs(ctx context.Context, plan *Plan, path string, todo []runKey, workers int, done func(), pointDone func(runKey)) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	err = sim.Stream(ctx, len(todo), workers, func(i int) ([]byte, error) {
		return runPoint(ctx, plan, todo[i])
	}, nil, func(i int, line []byte) error {
		if _, err := f.Write(line); err != nil {
			return fmt.Errorf("append to %s: %w", path, err)
		}
		pointDone(todo[i])
		done()
		return nil
	})
	interrupted := err != nil && ctx.Err() != nil && errors.Is(err, context.Cause(ctx))
	if cerr := f.Close(); cerr != nil && (err == nil || interrupted) {
		return fmt.Errorf("close %s: %w", path, cerr)
	}
	if interrupted {
		return fmt.Errorf("sweep interrupted (%w): the finished runs are in %s; run the same command again to resume", ctx.Err(), path)
	}
	return err
}

// runPoint runs one run of a point and returns its JSON line. A run still
// going when ctx is cancelled stops early with an error that wraps ctx's
// cause (sim.WithContext).
func runPoint(ctx context.Context, plan *Plan, k runKey) ([]byte, error) {
	pt := &plan.Points[k.point]
	seed := plan.Spec.Seed + uint64(k.run)
	var opts []sim.Option
	if plan.Detectors != nil {
		opts = plan.Detectors(pt.Program)
	}
	res, err := sim.Run(pt.Config, pt.Program, seed, append(slices.Clip(opts), sim.WithContext(ctx))...)
	if err != nil {
		return nil, fmt.Errorf("point %d (%s) run %d: %w", pt.Index, pointName(pt), k.run, err)
	}
	res.Workload = pt.Workload
	return encodeRun(&Record{Point: pt.Index, Run: k.run, Axes: pt.Axes, Result: res})
}

// pointName describes a point: its axis values and workload.
func pointName(pt *Point) string {
	if len(pt.Axes) == 0 {
		return pt.Workload
	}
	return pt.Axes.String() + ", " + pt.Workload
}
