package experiments

import (
	"weft/analysis"
	"weft/configs"
	"weft/isa"
	"weft/results"
	"weft/sim"
	"weft/workloads"
)

// DetectorOptions attaches fresh instances of the named detectors to a run
// of prog.
func DetectorOptions(prog *isa.Program, names ...string) func() []sim.Option {
	return analysis.MustLookup(names...).Options(prog)
}

// WithGroups asks a run for its statistics groups (BB-HW's counters).
func WithGroups() []sim.Option { return []sim.Option{sim.WithStatGroups()} }

// GroupStat returns a counter of a run's statistics group (0 when absent).
func GroupStat(r sim.Result, group, name string) float64 {
	g, ok := r.Groups.Get(group)
	if !ok {
		return 0
	}
	v, _ := g.Stats.Get(name)
	return v
}

// paperRow returns the reference table's row for a program (nil: none).
func paperRow(t *results.Table, program string) []any {
	for _, row := range t.Rows {
		if results.FormatCell(row[0]) == program || (len(row) > 1 && results.FormatCell(row[1]) == program) {
			return row
		}
	}
	return nil
}

// PaperCell returns a reference table's cell for a program's row and a
// column, as printed ("" when absent).
func PaperCell(t *results.Table, program, col string) string {
	row := paperRow(t, program)
	c, ok := t.Column(col)
	if row == nil || !ok {
		return ""
	}
	return results.FormatCell(row[c])
}

// Mean returns the mean of xs (0 for none).
func Mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return results.Summarize(xs).Mean
}

// Median returns the median of xs (0 for none).
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	return results.Summarize(xs).Median
}

// ProgramFor builds a named workload for a config's core count.
func ProgramFor(name string, cfg configs.Config) (*isa.Program, configs.Config, error) {
	prog, err := workloads.ProgramFor(name, cfg.Machine.Cores)
	if err != nil {
		return nil, cfg, err
	}
	cfg, _ = sim.FitCores(cfg, prog)
	return prog, cfg, nil
}

// Relation words x against base for a sentence generated from the
// numbers: above when x is larger, below when smaller, same when equal.
func Relation(x, base float64, above, below, same string) string {
	switch {
	case x > base:
		return above
	case x < base:
		return below
	}
	return same
}
