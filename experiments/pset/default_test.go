package pset

import (
	"slices"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/experiments"
	"weft/sim"
)

// ScoreHW counts a run as a hit only for a pair with an @bug
// instruction, and avoids says Yes only when every failure went away, —
// when nothing failed either way.
func TestPSetHWScoring(t *testing.T) {
	prog, _, err := experiments.ProgramFor("mysql-binlog", configs.Default())
	if err != nil {
		t.Fatal(err)
	}
	bug := prog.BugPCs()
	if len(bug) == 0 {
		t.Fatal("mysql-binlog has no @bug instruction")
	}
	other := int32(0)
	for slices.Contains(bug, other) {
		other++
	}
	v := func(pairs ...[2]int32) *Violations {
		out := &Violations{}
		for _, p := range pairs {
			e := core.Event{Kind: core.KindPSetViolation, PC: p[1]}
			e.Words[0] = uint64(p[0])
			out.Observe(&e)
		}
		return out
	}
	pass, fail := sim.Result{Outcome: core.Pass}, sim.Result{Outcome: core.WrongOutput}
	for _, c := range []struct {
		name    string
		off, on []sim.Result
		viols   []*Violations
		hits    int
		flagged int
		avoids  string
	}{
		{"avoided", []sim.Result{fail, pass}, []sim.Result{pass, pass}, []*Violations{v([2]int32{other, bug[0]}), v()}, 1, 1, "Yes"},
		{"kept", []sim.Result{fail, pass}, []sim.Result{pass, fail}, []*Violations{v([2]int32{other, other}), nil}, 0, 1, "No"},
		{"new failure", []sim.Result{pass, pass}, []sim.Result{pass, fail}, nil, 0, 0, "No"},
		{"nothing failed", []sim.Result{pass}, []sim.Result{pass}, []*Violations{v([2]int32{bug[0], other}, [2]int32{other, other})}, 1, 1, "—"},
	} {
		p := ScoreHW(prog, c.off, c.on, c.viols)
		if p.Hits != c.hits || p.Flagged != c.flagged || p.Avoids() != c.avoids {
			t.Errorf("%s: hits %d flagged %d avoids %s; want %d %d %s", c.name, p.Hits, p.Flagged, p.Avoids(), c.hits, c.flagged, c.avoids)
		}
	}
}
