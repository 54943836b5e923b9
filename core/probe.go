package core

// Probe is one re-run of a program that an active tester asks for
// (ConSeq's tester, interleaving inference's replay): the seed, the
// observers to attach and the park rules that force a schedule. A tester
// hands probes to a runner it was given, an interface declared beside it
// (sim.Runner implements it), so a detector that re-runs the program never
// imports the simulator.
type Probe struct {
	// Seed is the run's seed.
	Seed uint64
	// Watch are the observers to attach, each with the kinds it observes.
	Watch []Watch
	// Parks are the schedule-control rules, each holding its thread
	// before a PC until its wait ends.
	Parks []ParkRule
}

// Watch is one observer of a probe and the kinds it observes.
type Watch struct {
	// Kinds are the event kinds it observes.
	Kinds KindMask
	// Observer receives them.
	Observer Observer
}

// ProbeResult is what became of a probe: how the run ended, its outputs
// and what became of each park rule.
type ProbeResult struct {
	// Outcome is how the run ended.
	Outcome Outcome
	// Outputs are the values written by out, in global order.
	Outputs []int64
	// Instructions is the number of instructions all threads executed.
	Instructions uint64
	// Parks are the park rules' results, in Probe.Parks order.
	Parks []ParkResult
}
