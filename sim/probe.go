package sim

import (
	"weft/configs"
	"weft/core"
	"weft/isa"
)

// Runner runs one program on one machine for the detectors that re-run it
// under schedule control: it is the conseq.Runner of ConSeq's tester and
// the infer.Runner of inference's replay, which declare the interface
// beside them and never import sim.
type Runner struct {
	// Config is the machine (the traced run's config).
	Config configs.Config
	// Program is the program.
	Program *isa.Program
}

// Run runs the program with the probe's seed, observers and park rules.
func (r Runner) Run(p core.Probe) (core.ProbeResult, error) {
	opts := make([]Option, 0, len(p.Watch)+len(p.Parks))
	for _, w := range p.Watch {
		opts = append(opts, WithObserver(w.Kinds, w.Observer))
	}
	parks := make([]core.ParkResult, len(p.Parks))
	for i, rule := range p.Parks {
		opts = append(opts, WithPark(rule, &parks[i]))
	}
	res, err := Run(r.Config, r.Program, p.Seed, opts...)
	if err != nil {
		return core.ProbeResult{}, err
	}
	o := core.Outcome{Kind: res.Outcome, PC: res.OutcomePC, Thread: res.OutcomeThread, Msg: res.OutcomeMsg,
		Cycle: core.Cycle(res.Cycles), Deadlock: res.Deadlock}
	return core.ProbeResult{Outcome: o, Outputs: res.Outputs, Instructions: res.Instructions, Parks: parks}, nil
}
