package experiments

import (
	"weft/sim"
)

// job is one run of an experiment.
type job = sim.Job

// RunJobs runs every job across host cores and returns the results in job
// order, whatever the worker count.
func RunJobs(env Env, jobs []job) ([]sim.Result, error) {
	var progress func(int)
	if env.Progress != nil {
		progress = func(done int) { env.Progress(done, len(jobs)) }
	}
	return sim.RunJobs(jobs, env.Workers, progress)
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
