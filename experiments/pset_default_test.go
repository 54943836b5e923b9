package experiments

import (
	"slices"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/results"
	"weft/sim"
)

// scorePSetHW counts a run as a hit only for a pair with an @bug
// instruction, and avoids says Yes only when every failure went away, —
// when nothing failed either way.
func TestPSetHWScoring(t *testing.T) {
	prog, _, err := programFor("mysql-binlog", configs.Default())
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
	v := func(pairs ...[2]int32) *psetViolations {
		out := &psetViolations{}
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
		viols   []*psetViolations
		hits    int
		flagged int
		avoids  string
	}{
		{"avoided", []sim.Result{fail, pass}, []sim.Result{pass, pass}, []*psetViolations{v([2]int32{other, bug[0]}), v()}, 1, 1, "Yes"},
		{"kept", []sim.Result{fail, pass}, []sim.Result{pass, fail}, []*psetViolations{v([2]int32{other, other}), nil}, 0, 1, "No"},
		{"new failure", []sim.Result{pass, pass}, []sim.Result{pass, fail}, nil, 0, 0, "No"},
		{"nothing failed", []sim.Result{pass}, []sim.Result{pass}, []*psetViolations{v([2]int32{bug[0], other}, [2]int32{other, other})}, 1, 1, "—"},
	} {
		p := scorePSetHW(prog, c.off, c.on, c.viols)
		if p.hits != c.hits || p.flagged != c.flagged || p.avoids() != c.avoids {
			t.Errorf("%s: hits %d flagged %d avoids %s; want %d %d %s", c.name, p.hits, p.flagged, p.avoids(), c.hits, c.flagged, c.avoids)
		}
	}
}

// The default experiment (quick) has the PSet hardware's columns: the
// matrix's detection and avoidance, the false violations on correct
// kernels, and per workload its overhead with check, stall and rollback
// cycles, which are never negative; on the profiles the checks cost
// cycles and the hardware costs some overall.
func TestDefaultPSetColumns(t *testing.T) {
	r, err := runDefault(Env{Quick: true, Seeds: 2})
	if err != nil {
		t.Fatal(err)
	}
	det := tableNamed(t, r, "detection")
	for _, col := range []string{"pset-hw", "pset-hw buggy runs", "pset-hw avoids"} {
		if _, ok := det.Column(col); !ok {
			t.Errorf("detection lacks %q: %v", col, det.Columns)
		}
	}
	hits, _ := det.Floats("pset-hw")
	buggy, _ := det.Floats("buggy runs")
	buggyOn, _ := det.Floats("pset-hw buggy runs")
	av, _ := det.Column("pset-hw avoids")
	for i, row := range det.Rows {
		if hits[i] < 0 || hits[i] > 2 || buggyOn[i] < 0 || buggyOn[i] > 2 {
			t.Errorf("%v: pset-hw %v, buggy runs %v (of 2)", row[0], hits[i], buggyOn[i])
		}
		want := "No"
		switch {
		case buggy[i] == 0 && buggyOn[i] == 0:
			want = "—"
		case buggyOn[i] == 0:
			want = "Yes"
		}
		if got := results.FormatCell(row[av]); got != want {
			t.Errorf("%v: pset-hw avoids %q with %v buggy runs off, %v on; want %q", row[0], got, buggy[i], buggyOn[i], want)
		}
	}
	fp := tableNamed(t, r, "false_positives")
	for _, col := range []string{"pset-hw runs", "pset-hw violations", "pset-hw failing runs"} {
		if _, ok := fp.Column(col); !ok {
			t.Errorf("false_positives lacks %q: %v", col, fp.Columns)
		}
	}

	over := tableNamed(t, r, "hw_overhead")
	kind, _ := over.Column("kind")
	pct := map[string][]float64{}
	for _, col := range []string{"cycles PSet", "PSet overhead %", "PSet check cycles %", "PSet stall cycles %", "PSet rollback cycles %", "PSet rollbacks"} {
		xs, err := over.Floats(col)
		if err != nil {
			t.Fatalf("hw_overhead %q: %v", col, err)
		}
		pct[col] = xs
	}
	profiles, checked := 0, 0
	for i, row := range over.Rows {
		for _, col := range []string{"cycles PSet", "PSet check cycles %", "PSet stall cycles %", "PSet rollback cycles %", "PSet rollbacks"} {
			if x := pct[col][i]; x < 0 {
				t.Errorf("%v: %s %v", row[0], col, x)
			}
		}
		if results.FormatCell(row[kind]) != "profile" {
			continue
		}
		profiles++
		if pct["PSet check cycles %"][i] > 0 && pct["PSet overhead %"][i] > 0 {
			checked++
		}
	}
	if profiles == 0 || checked == 0 {
		t.Errorf("%d profiles, %d with check cycles and a positive PSet overhead", profiles, checked)
	}
	for _, want := range []string{"pset-hw  found", "pset-hw  avoids", "PSet hardware overhead"} {
		if !strings.Contains(r.Summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, r.Summary)
		}
	}
}
