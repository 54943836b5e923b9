package configs

import (
	"fmt"
	"strings"
)

// ConSeq is the `[conseq]` table: the settings of the ConSeq detector
// (`weft run --detectors conseq`, `weft conseq`).
type ConSeq struct {
	// MaxDistance bounds the backward slice, in dependence steps, 1 to
	// MaxConSeqDistance (the paper's default: 4).
	MaxDistance int `toml:"max_distance"`
	// Model is the distance model: "statement" (the paper's: a load and
	// the instructions consuming it in its block are one step) or
	// "instruction" (every dependence edge is a step).
	Model string `toml:"model"`
	// Sites are the failure-site kinds looked for, comma-separated: "OUT",
	// "ASS", "ERR", "LOOP" and "INV" (INV needs invariant_runs > 0).
	Sites string `toml:"sites"`
	// AdHocSync recognises spin-flag loops as synchronisation.
	AdHocSync bool `toml:"adhoc_sync"`
	// AssertRoutines names routines (code labels, comma-separated) whose
	// call sites are ASS sites, as the paper's per-application lists of
	// custom assertion functions.
	AssertRoutines string `toml:"assert_routines"`
	// ErrorRoutines names routines whose call sites are ERR sites.
	ErrorRoutines string `toml:"error_routines"`
	// OutputRoutines names routines whose call sites are OUT sites.
	OutputRoutines string `toml:"output_routines"`
	// InvariantRuns is the number of passing training runs equality
	// invariants are learned from for INV sites (0: none; `weft conseq`).
	InvariantRuns int `toml:"invariant_runs"`
	// TestTimeoutCycles is the tester's park timeout.
	TestTimeoutCycles uint64 `toml:"test_timeout_cycles"`
}

// MaxConSeqDistance is the largest conseq.max_distance.
const MaxConSeqDistance = 64

// MaxInvariantRuns is the largest conseq.invariant_runs.
const MaxInvariantRuns = 10000

// ConSeqSiteKinds are the values conseq.sites may hold.
var conseqSiteKinds = []string{"OUT", "ASS", "ERR", "LOOP", "INV"}

// defaultConSeq is the paper's configuration.
func defaultConSeq() ConSeq {
	return ConSeq{MaxDistance: 4, Model: "statement", Sites: "OUT,ASS,ERR,LOOP,INV", AdHocSync: true, TestTimeoutCycles: 50000}
}

// conseqProblems checks the [conseq] keys.
func (c *Config) conseqProblems(bad func(key, format string, args ...any)) {
	q := c.ConSeq
	if q.MaxDistance < 1 || q.MaxDistance > MaxConSeqDistance {
		bad("conseq.max_distance", "must be from 1 to %d, got %d", MaxConSeqDistance, q.MaxDistance)
	}
	checkOneOf(bad, "conseq.model", q.Model, []string{"statement", "instruction"})
	seen := map[string]bool{}
	for _, s := range SplitList(q.Sites) {
		checkOneOf(bad, "conseq.sites", s, conseqSiteKinds)
		if seen[s] {
			bad("conseq.sites", "must list each kind once, got %q twice", s)
		}
		seen[s] = true
	}
	for _, k := range []struct{ key, v string }{{"conseq.assert_routines", q.AssertRoutines},
		{"conseq.error_routines", q.ErrorRoutines}, {"conseq.output_routines", q.OutputRoutines}} {
		for _, n := range strings.Split(k.v, ",") {
			if strings.TrimSpace(n) == "" && strings.TrimSpace(k.v) != "" {
				bad(k.key, "must name no empty routine, got %q", k.v)
			}
		}
	}
	if q.InvariantRuns < 0 || q.InvariantRuns > MaxInvariantRuns {
		bad("conseq.invariant_runs", "must be from 0 to %d, got %d", MaxInvariantRuns, q.InvariantRuns)
	}
	if q.InvariantRuns > 0 && !seen["INV"] {
		bad("conseq.invariant_runs", "must be 0 when conseq.sites leaves INV out, got %d", q.InvariantRuns)
	}
	if q.TestTimeoutCycles == 0 {
		bad("conseq.test_timeout_cycles", "must be at least 1, got 0")
	}
}

// SplitList splits a comma-separated list, trimming spaces and dropping
// empty items.
func SplitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// String spells the table's settings in one line.
func (q ConSeq) String() string {
	return fmt.Sprintf("max_distance %d, %s model, sites %s", q.MaxDistance, q.Model, q.Sites)
}
