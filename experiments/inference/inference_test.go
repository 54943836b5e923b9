package inference

import (
	"strings"
	"testing"

	"weft/experiments"
	"weft/results"
)

// TestInferenceShapes runs the inference reproduction at 20 hb seeds and
// checks the shapes the issue asks for.
func TestInferenceShapes(t *testing.T) {
	r, err := runInference(experiments.Env{Seeds: 20, Quick: true})
	if err != nil {
		t.Fatal(err)
	}
	var per, t1, t2 *results.Table
	for _, s := range r.Sections {
		for _, tb := range s.Tables {
			switch tb.Name {
			case "table1_scenarios":
				per = tb
			case "table1":
				t1 = tb
			case "table2":
				t2 = tb
			}
		}
	}
	if per == nil || t1 == nil || t2 == nil {
		t.Fatal("missing tables")
	}
	col := func(tb *results.Table, name string) int {
		c, ok := tb.Column(name)
		if !ok {
			t.Fatalf("%s has no column %q", tb.Name, name)
		}
		return c
	}
	num := func(v any) int { f, _ := v.(float64); return int(f) }
	cls, real, inf, h1, conf := col(per, "class"), col(per, "real errors"), col(per, "inference"), col(per, "hb ×1"), col(per, "confirmed")
	if len(per.Rows) != 44 {
		t.Errorf("%d scenarios, want 44", len(per.Rows))
	}
	missed1 := 0
	for _, row := range per.Rows {
		name, class := row[0].(string), row[cls].(string)
		switch {
		case name == "infer-k10-window":
			if num(row[inf]) != 0 {
				t.Errorf("k10: inference found it, want the windowing false negative")
			}
		case name == "infer-signal-not-broadcast":
			// The documented miss (workloads/README.md): from a passing
			// trace the model cannot know that one csignal wakes only one
			// sleeper.
			if num(row[inf]) != 0 {
				t.Errorf("signal-not-broadcast: inference found it; update the documented miss")
			}
		case name == "infer-k7-path-dependent":
			if num(row[inf]) != 1 || num(row[real]) != 2 {
				t.Errorf("k7: %v, want 1 of 2 (one path)", row)
			}
		case num(row[inf]) != num(row[real]):
			t.Errorf("%s: inference %v of %v real errors", name, row[inf], row[real])
		}
		if class == "none" && num(row[conf]) > 0 && name != "infer-adhoc-flag" {
			t.Errorf("%s: a correct scenario with %v confirmed reports", name, row[conf])
		}
		if class == "deadlock" && num(row[h1]) != 0 {
			t.Errorf("%s: hb found a deadlock", name)
		}
		missed1 += num(row[real]) - num(row[h1])
	}
	row := t1.Rows[0]
	if realN := num(row[col(t1, "Real errors")]); missed1*4 < realN || missed1*3 > realN*2 {
		t.Errorf("hb ×1 misses %d of %d real errors, want about a third", missed1, realN)
	}
	if !strings.Contains(r.Intro, "no lock-order checker") {
		t.Errorf("the intro does not say the baseline has no lock-order checker")
	}
	for _, row := range t2.Rows {
		k := row[0].(string)
		cands := row[col(t2, "Candidates")].(string)
		switch k {
		case "infer-k4-barrier-phases":
			if !strings.HasPrefix(cands, "0 cand., 0 cex") {
				t.Errorf("%s: %s, want none", k, cands)
			}
		case "infer-k3-bounded-buffer":
			// No race candidate; the deadlock search may propose an order
			// the program's wait loops rule out, which replay must not
			// confirm (the wait-loop exits pair with the earliest signal
			// they may have needed: sound, and less precise).
			if f := row[col(t2, "Feasible")].(string); !strings.HasPrefix(cands, "0 cand.") || f != "0" && !strings.HasPrefix(f, "0 ") {
				t.Errorf("%s: %s, feasible %v; want no candidate and nothing feasible", k, cands, row[col(t2, "Feasible")])
			}
		case "infer-k5-false-candidate":
			if !strings.HasPrefix(cands, "1 cand., 1 cex") || row[col(t2, "Feasible")] != "0" {
				t.Errorf("fft-like: %v", row)
			}
		case "infer-k8-segment-races":
			if f := row[col(t2, "Found errors")].(string); f != "6" && !strings.HasPrefix(f, "6 ") {
				t.Errorf("qsort-like: %v locations, want 6", row[col(t2, "Found errors")])
			}
		}
	}
}
