package pset

import (
	"slices"
	"strconv"
	"testing"

	"weft/experiments"
	"weft/results"
)

// tableNamed returns the report's table of the given name.
func tableNamed(t *testing.T, r *experiments.Report, name string) *results.Table {
	t.Helper()
	tb := r.Table(name)
	if tb == nil {
		t.Fatalf("report %s has no table %q", r.Name, name)
	}
	return tb
}

// TestPSetReproduction checks `weft reproduce pset` at its default seeds
// (100 training, 200 held-out per kernel, Table 2 on 80 of those with the
// hardware; the whole run takes a few seconds): Table 1's hb, avio and pset columns are the paper's in every
// row (12/17, 6/17, 15/17: only PSet catches #3 and #15, AVIO misses #10,
// nothing catches #16 and #17); the monitor flags every held-out failing
// run of rows 1–15; Figure 9's histogram counts every tested memory
// instruction; Table 4's encoding costs 4 to 5 bytes per pair.
func TestPSetReproduction(t *testing.T) {
	r, err := runPSet(experiments.Env{})
	if err != nil {
		t.Fatal(err)
	}
	checkPSetTable1(t, r)
	sum := checkPSetTable4(t, r)
	checkPSetTable2(t, r)
	checkPSetTable3(t, r)
	checkPSetSettings(t, r)
	checkPSetFigure9(t, r, sum)
}

// checkPSetTable1 checks Table 1's detector columns against the paper's.
func checkPSetTable1(t *testing.T, r *experiments.Report) {
	t1 := tableNamed(t, r, "table1")
	col := func(name string) int {
		i, ok := t1.Column(name)
		if !ok {
			t.Fatalf("table1 has no column %q", name)
		}
		return i
	}
	found := map[string]int{}
	for _, row := range t1.Rows {
		n := results.FormatCell(row[0])
		for _, pair := range [][2]string{{"DRD (paper)", "hb (weft)"}, {"AVIO (paper)", "avio (weft)"}, {"PSet (paper)", "pset (weft)"}} {
			paper, ours := results.FormatCell(row[col(pair[0])]), results.FormatCell(row[col(pair[1])])
			if paper != ours {
				t.Errorf("row %s: %s %s, %s %s", n, pair[0], paper, pair[1], ours)
			}
			if ours == "Yes" {
				found[pair[1]]++
			}
		}
		failing := results.FormatCell(row[col("held-out failing")])
		if failing == "0" {
			t.Errorf("row %s: no held-out failing run", n)
		}
		if det := results.FormatCell(row[col("pset failing runs detected")]); (row[col("pset (weft)")] == "Yes") != (det == failing+" of "+failing) {
			t.Errorf("row %s: pset detected %s of the %s failing runs", n, det, failing)
		}
	}
	if found["hb (weft)"] != 12 || found["avio (weft)"] != 6 || found["pset (weft)"] != 15 {
		t.Errorf("found %v; the paper: hb 12, avio 6, pset 15", found)
	}
}

// checkPSetTable4 checks Table 4's bytes per pair and returns the tested
// memory instructions over the kernels.
func checkPSetTable4(t *testing.T, r *experiments.Report) float64 {
	t4 := tableNamed(t, r, "table4")
	tested, _ := t4.Floats("tested")
	bpp, _ := t4.Floats("bytes per pair")
	sum := 0.0
	for i := range tested {
		sum += tested[i]
		if bpp[i] != 0 && (bpp[i] < 4 || bpp[i] > 5) {
			t.Errorf("row %d: %v bytes per pair", i+1, bpp[i])
		}
	}
	return sum
}

// checkPSetTable2 checks Table 2's stall and rollback columns and the
// rollbacks' windows.
func checkPSetTable2(t *testing.T, r *experiments.Report) {
	// Table 2's stall column: avoided exactly on rows 5, 10, 11, 12 and
	// 14 (the paper also avoids row 1, a use after free the caches never
	// see); row 2 does not fail with the hardware on (the report says why).
	t2 := tableNamed(t, r, "table2")
	c2, _ := t2.Column("stall avoids (weft)")
	for _, row := range t2.Rows {
		n := results.FormatCell(row[0])
		want := map[string]string{"2": "—", "5": "Yes", "10": "Yes", "11": "Yes", "12": "Yes", "14": "Yes"}[n]
		if want == "" {
			want = "No"
		}
		if got := results.FormatCell(row[c2]); got != want {
			t.Errorf("Table 2 row %s: stall avoids %s, want %s", n, got, want)
		}
	}
	// Rolling back (holding the predecessor) never leaves more failing
	// runs than logging only, and avoids rows 3, 5, 6, 8 and 10–15 on
	// these seeds (the paper: all 15).
	cl, _ := t2.Column("failing (log_only)")
	cr, _ := t2.Column("failing (rollback)")
	crb, _ := t2.Column("rollback avoids (weft)")
	for _, row := range t2.Rows {
		n := results.FormatCell(row[0])
		lo, _ := strconv.Atoi(results.FormatCell(row[cl]))
		rb, _ := strconv.Atoi(results.FormatCell(row[cr]))
		if rb > lo {
			t.Errorf("Table 2 row %s: rollback fails %d runs, logging only %d", n, rb, lo)
		}
		want := map[string]string{"2": "—", "3": "Yes", "5": "Yes", "6": "Yes", "8": "Yes", "10": "Yes", "11": "Yes", "12": "Yes", "13": "Yes", "14": "Yes", "15": "Yes"}[n]
		if want == "" {
			want = "No"
		}
		if got := results.FormatCell(row[crb]); got != want {
			t.Errorf("Table 2 row %s: rollback avoids %s, want %s", n, got, want)
		}
	}
	// Every row that rolled back reports its windows (required: since the
	// predecessor's access; actual: the Rollback events' discarded
	// instructions), median at most max; the widest required window is
	// row 6's, the read long before the write, as in the paper.
	crbs, _ := t2.Column("rollbacks")
	widest, widestRow := 0.0, ""
	for _, w := range []string{"required", "actual"} {
		cmed, _ := t2.Column(w + " window, median (weft)")
		cmax, _ := t2.Column(w + " window, max (weft)")
		for _, row := range t2.Rows {
			if results.FormatCell(row[crbs]) == "0" {
				continue
			}
			med, ok1 := row[cmed].(float64)
			mx, ok2 := row[cmax].(float64)
			if !ok1 || !ok2 || med > mx || mx <= 0 {
				t.Errorf("Table 2 row %v: %v rollbacks, %s windows median %v max %v", row[0], row[crbs], w, row[cmed], row[cmax])
			}
			if w == "required" && med > widest {
				widest, widestRow = med, results.FormatCell(row[0])
			}
		}
	}
	if widestRow != "6" {
		t.Errorf("Table 2: the widest median required window is row %s's (%v instructions), want row 6's", widestRow, widest)
	}
}

// checkPSetTable3 checks Table 3 and pset-bmove's training windows.
func checkPSetTable3(t *testing.T, r *experiments.Report) {
	// Table 3: every program of the paper's list has a row; total is
	// stall + rollback + cannot resolve; the profiles have no false
	// violation after 10 training seeds; pset-bmove's unseen seeds exceed
	// some training window's fill (cannot resolve > 0 in some window), no
	// run fails, and an online update stops every pair from being
	// unresolved twice in a run.
	t3 := tableNamed(t, r, "table3")
	if len(t3.Rows) != 12 {
		t.Errorf("Table 3 has %d rows, want the paper's 11 programs and pset-bmove", len(t3.Rows))
	}
	for _, row := range t3.Rows {
		var v [4]float64
		for i, name := range []string{"resolved by stall", "resolved by rollback", "cannot resolve", "total"} {
			c, _ := t3.Column(name)
			v[i], _ = strconv.ParseFloat(results.FormatCell(row[c]), 64)
		}
		if v[0]+v[1]+v[2] != v[3] {
			t.Errorf("Table 3 %v: %v + %v + %v != total %v", row[1], v[0], v[1], v[2], v[3])
		}
		if p := results.FormatCell(row[1]); (p == "fft" || p == "lu" || p == "radix" || p == "blackscholes" || p == "canneal" || p == "barnes") && v[3] != 0 {
			t.Errorf("Table 3 %s: %v false violations after 10 training seeds", p, v[3])
		}
	}
	bm := tableNamed(t, r, "table3_bmove")
	cannot, _ := bm.Floats("cannot resolve")
	twice, _ := bm.Floats("pairs unresolved twice in a run")
	failing, _ := bm.Floats("failing runs")
	if slices.Max(cannot) == 0 || slices.Max(twice) != 0 || slices.Max(failing) != 0 {
		t.Errorf("pset-bmove windows: cannot resolve %v, pairs unresolved twice %v, failing %v", cannot, twice, failing)
	}
}

// checkPSetSettings checks the sensitivity, recovery, storage and
// overhead tables.
func checkPSetSettings(t *testing.T, r *experiments.Report) {
	// Sensitivity: line granularity flags more false pairs than word
	// granularity, at every reader-slot count.
	sens := tableNamed(t, r, "sensitivity")
	fvs, _ := sens.Floats("false violations")
	if len(fvs) != 6 {
		t.Fatalf("sensitivity rows %d", len(fvs))
	}
	for i := range 3 {
		if fvs[3+i] <= fvs[i] {
			t.Errorf("reader slots %v: line granularity %v false violations, word %v", sens.Rows[i][1], fvs[3+i], fvs[i])
		}
	}
	// Recovery settings: stalling and rolling back both leave fewer
	// failing runs than logging only, and more rollbacks never more.
	rf, _ := tableNamed(t, r, "recovery").Floats("failing runs")
	if len(rf) != 7 || rf[1] >= rf[0] || rf[4] >= rf[0] || rf[5] > rf[4] || rf[6] > rf[5] {
		t.Errorf("recovery failing runs %v: want log_only, 3 stall timeouts, rollback ×1, ×3, ×10", rf)
	}
	// The storage table comes from the hardware's own layout: word
	// granularity with 4 readers is 8 × (48 + 4 × 80) bits.
	st := tableNamed(t, r, "storage")
	for _, row := range st.Rows {
		if row[0] == "word" && results.FormatCell(row[1]) == "4" && results.FormatCell(row[2]) != "2944" {
			t.Errorf("word, 4 readers: %v bits per line, want 2944", row[2])
		}
	}
	checks, _ := tableNamed(t, r, "overhead").Floats("checks per 10k mem ops")
	if len(checks) < 15 {
		t.Errorf("overhead table has %d rows", len(checks))
	}
	for i, c := range checks {
		if c <= 0 {
			t.Errorf("overhead row %d: %v checks per 10k memory operations", i, c)
		}
	}
}

// checkPSetFigure9 checks that Figure 9 counts the sum tested memory
// instructions of Table 4.
func checkPSetFigure9(t *testing.T, r *experiments.Report, sum float64) {
	hist, _ := tableNamed(t, r, "figure9").Floats("instructions")
	h := 0.0
	for _, x := range hist {
		h += x
	}
	if h != sum || h == 0 {
		t.Errorf("Figure 9 counts %v instructions, Table 4 %v tested", h, sum)
	}
}
