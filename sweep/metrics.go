package sweep

import (
	"weft/coherence"
	"weft/core"
	"weft/cpu"
	"weft/sim"
)

// Metric is one per-run quantity that sweep reports and the machine
// studies (weft reproduce machine-scaling, machine-cache) tabulate and
// plot as its mean and 95% interval over seeds.
type Metric struct {
	// Name is the column stem and the plot files' name part ("roi_cycles").
	Name string
	// Label is the axis label of its plots.
	Label string
	// StudyLabel, when set, is the label the machine studies give it
	// instead of Label (LabelInStudy).
	StudyLabel string
	// Headline marks the metrics every sweep report tabulates and plots.
	Headline bool
	// Value reads the metric from a run's statistics.
	Value func(r *sim.Result) float64
}

// LabelInStudy is the metric's label in the machine studies: StudyLabel,
// or Label when it has none.
func (m Metric) LabelInStudy() string {
	if m.StudyLabel != "" {
		return m.StudyLabel
	}
	return m.Label
}

// Metrics lists the metrics sweeps and the machine studies report, in
// table order: the headline ones (cycles, IPC, L1 miss rate and bus
// utilisation, all over the region of interest, the whole run for a
// program without roi, so cycles × IPC is the instructions counted), then
// bus transactions and coherence misses per 10k memory operations, which
// only the machine studies show.
func Metrics() []Metric {
	return []Metric{
		{Name: core.ROICycles, Label: "cycles (region of interest)", Headline: true, Value: stat(core.ROICycles)},
		{Name: cpu.IPC, Label: "IPC (instructions per ROI cycle)", StudyLabel: "IPC (all cores)", Headline: true, Value: stat(cpu.IPC)},
		{Name: coherence.L1MissRate, Label: "L1 miss rate", Headline: true, Value: stat(coherence.L1MissRate)},
		{Name: coherence.BusUtilization, Label: "bus utilisation", Headline: true, Value: stat(coherence.BusUtilization)},
		{Name: "bus_txns_per_10k", Label: "bus transactions per 10k memory ops", Value: per10k(coherence.StatBusRd, coherence.StatBusRdX, coherence.StatBusUpgr)},
		{Name: "coherence_misses_per_10k", Label: "coherence misses per 10k memory ops", Value: per10k(coherence.StatCoherenceMisses)},
	}
}

// HeadlineMetrics returns the metrics of Metrics every sweep report
// tabulates and plots, in order.
func HeadlineMetrics() []Metric {
	var hs []Metric
	for _, m := range Metrics() {
		if m.Headline {
			hs = append(hs, m)
		}
	}
	return hs
}

// stat reads the named statistic of a run (0 when absent).
func stat(name string) func(*sim.Result) float64 {
	return func(r *sim.Result) float64 {
		v, _ := r.Stats.Get(name)
		return v
	}
}

// per10k sums the per-10k rates of the memory system's statistics.
func per10k(stats ...coherence.Stat) func(*sim.Result) float64 {
	return func(r *sim.Result) float64 {
		var v float64
		for _, st := range stats {
			x, _ := r.Stats.Get(st.Per10k())
			v += x
		}
		return v
	}
}
