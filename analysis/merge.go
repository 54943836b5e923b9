package analysis

import (
	"slices"
	"strings"

	"weft/core"
)

// Merged is one finding merged over the runs of a batch: the first run's
// finding with the number of runs that reported the same key.
type Merged struct {
	// Finding is the finding as its first run reported it.
	core.Finding
	// Runs is the number of runs that reported it.
	Runs int `json:"runs"`
	// FirstRun is the batch index of the first run that reported it.
	FirstRun int `json:"first_run"`
	// FirstSeed is that run's seed.
	FirstSeed uint64 `json:"first_seed"`
}

// Merger merges findings over runs by key (detector, kind, PCs).
type Merger struct {
	index map[string]int
	out   []Merged
}

// Add adds the findings of one run; a key reported twice by one run counts
// once.
func (m *Merger) Add(run int, seed uint64, fs []core.Finding) {
	if m.index == nil {
		m.index = map[string]int{}
	}
	seen := map[string]bool{}
	for _, f := range fs {
		k := f.Key()
		if seen[k] {
			continue
		}
		seen[k] = true
		if i, ok := m.index[k]; ok {
			m.out[i].Runs++
			if run < m.out[i].FirstRun {
				m.out[i].Finding, m.out[i].FirstRun, m.out[i].FirstSeed = f, run, seed
			}
			continue
		}
		m.index[k] = len(m.out)
		m.out = append(m.out, Merged{Finding: f, Runs: 1, FirstRun: run, FirstSeed: seed})
	}
}

// Merged returns the merged findings, by detector and then as
// core.CompareFindings orders them.
func (m *Merger) Merged() []Merged {
	out := append([]Merged{}, m.out...)
	slices.SortFunc(out, func(a, b Merged) int {
		if c := strings.Compare(a.Detector, b.Detector); c != 0 {
			return c
		}
		return core.CompareFindings(a.Finding, b.Finding)
	})
	return out
}

// Of returns the findings of detector name among fs.
func Of(name string, fs []core.Finding) []core.Finding {
	var out []core.Finding
	for _, f := range fs {
		if f.Detector == name {
			out = append(out, f)
		}
	}
	return out
}
