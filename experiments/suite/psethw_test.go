package suite

import (
	"strings"
	"testing"

	"weft/experiments"
	"weft/results"
)

// The default experiment (quick) has the PSet hardware's columns: the
// matrix's detection and avoidance, the false violations on correct
// kernels, and per workload its overhead with check, stall and rollback
// cycles, which are never negative; on the profiles the checks cost
// cycles and the hardware costs some overall.
func TestDefaultPSetColumns(t *testing.T) {
	r, err := runDefault(experiments.Env{Quick: true, Seeds: 2})
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

// tableNamed returns the report's table of the given name.
func tableNamed(t *testing.T, r *experiments.Report, name string) *results.Table {
	t.Helper()
	tb := r.Table(name)
	if tb == nil {
		t.Fatalf("report %s has no table %q", r.Name, name)
	}
	return tb
}
