package main

import (
	"encoding/json"
	"fmt"

	"weft/analysis"
	"weft/core"
	"weft/internal/version"
)

// batchKeys are batchColumns' keys in summary.json.
var batchKeys = [len(batchColumns)]string{"cycles", "instructions", "ipc", "l1_miss_rate", "bus_utilization", "l1_misses"}

// batchJSON is a batch's summary as `weft run --out DIR` writes it to
// DIR/summary.json: what the readable summary says, and the findings
// report of the detectors (merged over the runs, and what the learners
// concluded).
type batchJSON struct {
	Workload    string           `json:"workload"`
	Runs        int              `json:"runs"`
	Requested   int              `json:"requested"`
	Interrupted bool             `json:"interrupted"`
	FirstSeed   uint64           `json:"first_seed"`
	LastSeed    uint64           `json:"last_seed"`
	Cores       int              `json:"cores"`
	ConfigHash  string           `json:"config_hash"`
	WeftVersion string           `json:"weft_version"`
	Outcomes    []outcomeJSON    `json:"outcomes"`
	Stats       []statJSON       `json:"stats"`
	Findings    *analysis.Report `json:"findings,omitempty"`
}

// outcomeJSON is one outcome's count and its first run.
type outcomeJSON struct {
	Outcome   core.OutcomeKind `json:"outcome"`
	Count     int              `json:"count"`
	FirstSeed uint64           `json:"first_seed"`
	FirstMsg  string           `json:"first_msg,omitempty"`
	FirstPC   int32            `json:"first_pc"`
}

// statJSON is one statistic's mean, minimum and maximum over the runs.
type statJSON struct {
	Name string  `json:"name"`
	Mean float64 `json:"mean"`
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
}

// json returns the batch's summary, with found's report when detectors
// were attached (nil: none).
func (s *batchSummary) json(found *analysis.Summary) ([]byte, error) {
	h := s.head
	b := batchJSON{Workload: h.Workload, Runs: s.runs, Requested: s.total, Interrupted: s.runs < s.total,
		FirstSeed: h.Seed, LastSeed: s.lastSeed, Cores: h.Cores, ConfigHash: h.ConfigHash, WeftVersion: version.String(),
		Outcomes: []outcomeJSON{}}
	for _, g := range s.outcomes.Counts() {
		r := s.firsts[g.Outcome]
		b.Outcomes = append(b.Outcomes, outcomeJSON{Outcome: g.Outcome, Count: g.Count, FirstSeed: r.Seed, FirstMsg: r.OutcomeMsg, FirstPC: r.OutcomePC})
	}
	for k, col := range s.cols {
		b.Stats = append(b.Stats, statJSON{Name: batchKeys[k], Mean: col.sum / float64(max(s.runs, 1)), Min: col.lo, Max: col.hi})
	}
	if found != nil {
		b.Findings = found.Report()
	}
	data, err := json.MarshalIndent(b, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("summary.json: %w", err)
	}
	return append(data, '\n'), nil
}
