package experiments

import (
	"context"

	"weft/sim"
)

// job is one run of an experiment.
type job = sim.Job

// RunJobs runs every job across host cores and returns the results in job
// order, whatever the worker count. It holds every result (with its
// detectors); an experiment whose runs are many folds them with
// StreamJobs instead.
func RunJobs(env Env, jobs []job) ([]sim.Result, error) {
	return sim.RunJobs(jobs, env.Workers, progressOf(env, len(jobs)))
}

// StreamJobs runs every job across host cores and calls deliver(i, r)
// with each result in job order, whatever the worker count, as soon as
// job i and every job before it have finished (sim.StreamJobs): a report
// built by folding the results as they arrive holds what it keeps of
// them, not the runs themselves.
func StreamJobs(env Env, jobs []job, deliver func(i int, r sim.Result) error) error {
	return sim.StreamJobs(context.Background(), jobs, env.Workers, progressOf(env, len(jobs)), deliver)
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
