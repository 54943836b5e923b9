package experiments

import (
	"fmt"

	"weft/configs"
)

// TimingMachine is a memory system a cycle-based result is measured on:
// the config an experiment runs with, changed by Set.
type TimingMachine struct {
	// Label names the machine in tables, captions and comments.
	Label string
	// Suffix ends the names of its plots and columns ("" for the default
	// machine, whose names stay what they were).
	Suffix string
	// Set lists the "key=value" overrides that make the machine.
	Set []string
}

// Apply returns cfg changed into the machine.
func (m TimingMachine) Apply(cfg configs.Config) (configs.Config, error) {
	for _, s := range m.Set {
		if err := cfg.Set(s); err != nil {
			return cfg, fmt.Errorf("machine %s: %w", m.Label, err)
		}
	}
	return cfg, nil
}

// SplitMachine is the second of TimingMachines: the split-transaction
// bus with a 1 MiB shared L2, beside the default machine.
func SplitMachine() TimingMachine { return TimingMachines()[1] }

// TimingMachines are the machines every cycle-based result is reported
// on (issue 23): the default machine's atomic bus, held through memory's
// latency, and beside it the split-transaction bus with a 1 MiB shared
// L2, so that a reader sees what the bus model changes.
func TimingMachines() []TimingMachine {
	return []TimingMachine{
		{Label: "atomic bus"},
		{Label: "split bus + 1 MiB L2", Suffix: "-split", Set: []string{`bus.kind="split"`, "cache.l2.size_bytes=1048576"}},
	}
}
