package cpu

import (
	"fmt"

	"weft/coherence"
	"weft/core"
)

// The processors' statistics groups: core i's counters (Stat) are the
// group CoreGroup(i), of the family CoreFamily; with irritators on, their
// counters are the group IrritatorsGroup; an extension's are ExtGroup of
// its name.
const (
	CoreFamily      = "core"
	IrritatorsGroup = "irritators"
	// ExtGroupPrefix begins the name of every extension's group.
	ExtGroupPrefix = "ext."
)

// CoreGroup returns the name of core i's statistics group: "core[i]".
func CoreGroup(i int) string { return core.IndexedGroup(CoreFamily, i) }

// ExtGroup returns the name of the statistics group of the extension
// named name: "ext.pset".
func ExtGroup(name string) string { return ExtGroupPrefix + name }

// IPC names the run summary's instructions per cycle of the region of
// interest, over all cores.
const IPC = "ipc"

// summary is the run summary (Summary). It is never modified.
var summary = newSummary()

// newSummary declares the run summary: each processor counter summed over
// the core groups, the memory system's totals, the memory system's
// formulas (per 10k of the processors' memory operations), then IPC.
func newSummary() *core.Summary {
	totals := make([]core.Total, 0, int(NumStats)+int(coherence.NumStats))
	for s := range NumStats {
		totals = append(totals, core.Total{Name: s.String(), Family: CoreFamily, Counter: s.String()})
	}
	totals = append(totals, coherence.Totals()...)
	formulas := append(coherence.Formulas(StatMemOps.String()), core.Formula{Name: IPC,
		Eval: func(get func(string) float64) float64 {
			return core.Ratio(get(StatInstructions.String()), get(core.ROICycles))
		}})
	s, err := core.NewSummary(totals, formulas)
	if err != nil {
		panic(fmt.Sprintf("cpu: the run summary: %v", err))
	}
	return s
}

// Summary returns the run summary's declaration, the statistics of run
// JSON: the region of interest's cycles (core.ROICycles); every processor
// counter (Stat) summed over the core groups; every memory counter
// (coherence.Stat) summed over the L1 groups, or the bus's; then the
// derived statistics (coherence.Formulas, then IPC). Machine.ROISummary
// computes its values. It is shared: callers must not modify it.
func Summary() *core.Summary { return summary }

// ROISummary computes the run summary (Summary) over the region of
// interest (the whole run when the program has no roi) into dst, grown
// when needed, and returns it: value i is that of Summary().Name(i).
func (m *Machine) ROISummary(dst []float64) []float64 {
	vals, cycles := m.ROIGroups()
	return summary.Eval(&m.stats, vals, cycles, dst)
}
