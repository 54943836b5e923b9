package suggest

import (
	"slices"
	"testing"
)

func TestDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"seed", "seed", 0},
		{"sed", "seed", 1},   // insertion
		{"seeed", "seed", 1}, // deletion
		{"sead", "seed", 1},  // substitution
		{"kitten", "sitting", 3},
		{"Seed", "seed", 1}, // case counts
	}
	for _, tt := range tests {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := Distance(tt.b, tt.a); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	keys := []string{"sim.seed", "sim.max_cycles", "machine.cores", "cache.l1", "cache.l1.size_bytes"}
	workloads := []string{"counter-locked", "counter-race", "fft", "lu", "mysql-binlog"}
	tests := []struct {
		name       string
		candidates []string
		want       []string
	}{
		{"sim.sed", keys, []string{"sim.seed"}},
		{"SIM.SEED", keys, []string{"sim.seed"}}, // case is ignored
		{"cache.l2", keys, []string{"cache.l1"}},
		{"cache.l1.sise_bytes", keys, []string{"cache.l1.size_bytes", "cache.l1"}}, // fewest edits first
		{"cache.l1.size", keys, []string{"cache.l1.size_bytes", "cache.l1"}},       // completions first
		{"cores", keys, []string{"machine.cores"}},
		{"x", keys, nil}, // too short to count as part of a key
		{"counter", workloads, []string{"counter-race", "counter-locked"}},
		{"counter-lockd", workloads, []string{"counter-locked", "counter-race"}},
		{"mysql-binlg", workloads, []string{"mysql-binlog"}},
		{"no-such-kernel-at-all", workloads, nil},
		{"", workloads, nil},
		{"fft", nil, nil},
	}
	for _, tt := range tests {
		if got := Closest(tt.name, tt.candidates); !slices.Equal(got, tt.want) {
			t.Errorf("Closest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}
