package suite

import (
	"testing"

	"weft/experiments"
	"weft/results"
	"weft/sim"
)

// The cycle breakdown leaves out cores that never ran a thread: on the
// 8-core default machine a 2- or 3-thread kernel would otherwise be mostly
// idle (every group's idle share was over 0.6 with them).
func TestBreakdownLeavesOutIdleCores(t *testing.T) {
	r, err := Experiment().Run(experiments.Env{Quick: true, Seeds: 1})
	if err != nil {
		t.Fatal(err)
	}
	var data *results.Table
	for _, s := range r.Sections {
		for _, p := range s.Plots {
			if p.Name == "breakdown" {
				data = p.Data
			}
		}
	}
	if data == nil {
		t.Fatal("no breakdown figure")
	}
	idle, err := data.Floats("idle")
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range idle {
		if v > 0.5 {
			t.Errorf("group %v: idle share %v", data.Rows[i][0], v)
		}
	}
	if !(sim.CoreTime{Busy: 1, Idle: 100}).RanThread() || (sim.CoreTime{Idle: 100}).RanThread() {
		t.Error("RanThread")
	}
}
