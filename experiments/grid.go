package experiments

import (
	"context"

	"weft/detectors"
	"weft/sim"
)

// job is one run of an experiment.
type job = sim.Job

// RunJobs runs every job across host cores and returns the results in job
// order, whatever the worker count. It holds every result, with its
// detectors trimmed (Trim); an experiment whose runs are many folds them
// with StreamJobs instead.
func RunJobs(env Env, jobs []job) ([]sim.Result, error) {
	results := make([]sim.Result, len(jobs))
	err := StreamJobs(env, jobs, func(i int, r sim.Result) error {
		results[i] = r
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

// StreamJobs runs every job across host cores and calls deliver(i, r)
// with each result in job order, whatever the worker count, as soon as
// job i and every job before it have finished (sim.Stream): a report
// built by folding the results as they arrive holds what it keeps of
// them, not the runs themselves. Each run's detectors are trimmed (Trim)
// on its worker, before it waits in the stream's reorder window.
func StreamJobs(env Env, jobs []job, deliver func(i int, r sim.Result) error) error {
	return StreamJobsOf(env, len(jobs), func(i int) job { return jobs[i] }, deliver)
}

// StreamJobsOf is StreamJobs over n jobs that jobAt makes as each starts
// (called from the workers, so it must only read shared state): an
// experiment with many jobs holds its plan of them, not n jobs with their
// configs.
func StreamJobsOf(env Env, n int, jobAt func(i int) job, deliver func(i int, r sim.Result) error) error {
	return sim.Stream(context.Background(), n, env.Workers, func(i int) (sim.Result, error) {
		j := jobAt(i)
		var opts []sim.Option
		if j.Options != nil {
			opts = j.Options()
		}
		r, err := sim.Run(j.Config, j.Program, j.Seed, opts...)
		if err == nil {
			Trim(r)
		}
		return r, err
	}, progressOf(env, n), deliver)
}

// trimmer is a detector whose per-run state (shadow memory, clocks) can
// be dropped once its run has ended, keeping what its findings and
// learners read: hb, lockset, avio, BB-SW and PSet's recorder.
type trimmer interface{ Trim() }

// Trim drops the per-run state of r's detectors that have any, once the
// run has ended: an experiment that holds finished runs holds their
// findings, graphs and pairs, not their shadow memory.
func Trim(r sim.Result) {
	for _, d := range r.Detectors {
		if t, ok := detectors.Unwrap(d).(trimmer); ok {
			t.Trim()
		}
	}
}

// progressOf reports runs done out of n to env.Progress (nil when unset).
func progressOf(env Env, n int) func(int) {
	if env.Progress == nil {
		return nil
	}
	return func(done int) { env.Progress(done, n) }
}

// Stat returns a named statistic of a run (0 when absent).
func Stat(r sim.Result, name string) float64 {
	switch name {
	case "cycles":
		return float64(r.Cycles)
	case "instructions":
		return float64(r.Instructions)
	}
	v, _ := r.Stats.Get(name)
	return v
}

// TotalInstructions sums the simulated instructions of runs.
func TotalInstructions(rs []sim.Result) uint64 {
	var n uint64
	for _, r := range rs {
		n += r.Instructions
	}
	return n
}
