package results

import (
	"bytes"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestReferenceNamesMatchTheIndex(t *testing.T) {
	names := ReferenceNames()
	if len(names) < 20 || !slices.IsSorted(names) {
		t.Fatalf("ReferenceNames() = %v", names)
	}
	for _, must := range []string{"bugaboo/table2", "bugaboo/table3", "bugaboo/table4", "bugaboo/table5",
		"pset/table1", "pset/table2", "pset/table3", "conseq/table2", "conseq/table3", "conseq/maxdistance",
		"falcon/table3", "falcon/table4", "falcon/table5", "inference/table1", "inference/table2"} {
		if !slices.Contains(names, must) {
			t.Errorf("missing %s", must)
		}
	}
	idx, err := referenceIndex()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if _, ok := idx[n]; !ok {
			t.Errorf("%s is not listed in reference/README.md", n)
		}
	}
	for n := range idx {
		if !slices.Contains(names, n) {
			t.Errorf("reference/README.md lists %s, which has no CSV", n)
		}
	}
	names[0] = "changed"
	if ReferenceNames()[0] == "changed" {
		t.Error("ReferenceNames shares its slice")
	}
}

func TestEveryReferenceTableLoads(t *testing.T) {
	for _, name := range ReferenceNames() {
		tb, err := Reference(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if tb.Name != strings.ReplaceAll(name, "/", "-") || tb.Title == "" || len(tb.Notes) != 1 || len(tb.Rows) == 0 {
			t.Errorf("%s: name %q title %q notes %q, %d rows", name, tb.Name, tb.Title, tb.Notes, len(tb.Rows))
		}
		seen := map[string]bool{}
		for _, c := range tb.Columns {
			if c == "" || seen[c] {
				t.Errorf("%s: empty or repeated column %q", name, c)
			}
			seen[c] = true
		}
		for r, row := range tb.Rows {
			if len(row) != len(tb.Columns) {
				t.Errorf("%s row %d: %d cells", name, r+1, len(row))
			}
			for c, v := range row {
				if s, ok := v.(string); ok && (strings.Contains(s, "**") || s != strings.TrimSpace(s)) {
					t.Errorf("%s row %d %s: %q keeps Markdown or spaces", name, r+1, tb.Columns[c], s)
				}
			}
		}
		// Every table survives its own writers.
		var b bytes.Buffer
		if err := tb.WriteCSV(&b); err != nil {
			t.Fatal(err)
		}
		again, err := ReadCSV(tb.Name, &b)
		if err != nil {
			t.Fatal(err)
		}
		checkSame(t, again, tb, 0)
		b.Reset()
		if err := tb.WriteMarkdown(&b); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"", "bugaboo", "bugaboo/table9", "../results/plot", "bugaboo/../pset/table1", "README"} {
		if _, err := Reference(bad); err == nil {
			t.Errorf("Reference(%q) accepted", bad)
		}
	}
}

// cell returns column col of the row whose column key is k.
func cell(t *testing.T, tb *Table, key, k, col string) any {
	t.Helper()
	ki, ok1 := tb.Column(key)
	ci, ok2 := tb.Column(col)
	if !ok1 || !ok2 {
		t.Fatalf("%s: no column %q or %q in %q", tb.Name, key, col, tb.Columns)
	}
	for _, row := range tb.Rows {
		if FormatCell(row[ki]) == k {
			return row[ci]
		}
	}
	t.Fatalf("%s: no row %s=%s", tb.Name, key, k)
	return nil
}

// Values read from the digests; a change in transcription breaks one.
func TestReferenceSpotChecks(t *testing.T) {
	for _, c := range []struct {
		table, key, k, col string
		want               any
	}{
		{"bugaboo/table1", "Name", "MySQL-BinLog", "Source version", "MySQL-4.0.12"},
		{"bugaboo/table1", "Name", "PBZip2-Order", "#", 12.0},
		{"bugaboo/table1", "Name", "Moz-jsStr", "Bug type", "Multi-var atomicity"},
		{"bugaboo/table2", "Benchmark", "MySQL-IdInit", "w/o ctx", "Yes"},
		{"bugaboo/table2", "Benchmark", "BankAcct", "w/o ctx", "No"},
		{"bugaboo/table2", "Benchmark", "MySQL-BinLog", "HW Lab", 34.0},
		{"bugaboo/table2", "Benchmark", "MySQL-BinLog", "HW Lab (fn)", 24.4},
		{"bugaboo/table2", "Benchmark", "Apache-LogSz", "SW-Word Unlab", 142.0},
		{"bugaboo/table2", "Benchmark", "Apache-LogSz", "SW-Line Lab", 8.8},
		{"bugaboo/table2", "Benchmark", "PBZip2-Order", "HW Lab", 14.5},
		{"bugaboo/table2", "Benchmark", "Moz-jsStr", "HW Unlab (fn)", 3.2},
		{"bugaboo/table2", "Benchmark", "Moz-jsInterp", "Uncertain", "SW-Line Lab; SW-Line Unlab"},
		{"bugaboo/table2", "Benchmark", "PBZip2-Order", "Uncertain", "SW-Line Unlab; SW-Word Unlab"},
		{"bugaboo/table2", "Benchmark", "BankAcct", "Uncertain", ""},
		{"bugaboo/table3", "App", "MySQL", "Line aliasing only (BB-SW line) %", 27.43},
		{"bugaboo/table3", "App", "PBZip2", "Aliasing + evictions / c2c-only (BB-HW) %", 59.65},
		{"bugaboo/table4", "Benchmark", "MySQL-BinLog", "2", 522.6},
		{"bugaboo/table4", "Benchmark", "MySQL-BinLog", "5", 34.2},
		{"bugaboo/table4", "Benchmark", "MySQL-BinLog", "None", "—"},
		{"bugaboo/table4", "Benchmark", "MySQL-IdInit", "None", 1.0},
		{"bugaboo/table4", "Benchmark", "PBZip2-Order", "3", "—"},
		{"bugaboo/table4", "Benchmark", "Apache-LogSz", "1", 25.2},
		{"bugaboo/table5", "Benchmark", "freqmine", "Rd.Ms", 137.59},
		{"bugaboo/table5", "Benchmark", "freqmine", "Edges w/ ctx", 85142.0},
		{"bugaboo/table5", "Benchmark", "vips", "M-D Wr", 322.19},
		{"bugaboo/table5", "Benchmark", "canneal", "Traps/10M", 6.2},
		{"bugaboo/table5", "Benchmark", "fluidanimate", "BB-SW slowdown×", 4623.0},
		{"bugaboo/table5", "Benchmark", "AGet-MultVar", "Coh.Ms", 8.39},
		{"bugaboo/table5", "Benchmark", "MySQL-BinLog", "Nodes w/o ctx", 1303.0},
		{"pset/table1", "#", "16", "PSet", "No"},
		{"pset/table1", "#", "3", "Category (as printed)", "Other (injected)"},
		{"pset/table1", "#", "7", "Category (as printed)", "Atom. Vio. (race-free)"},
		{"pset/table1", "#", "17", "Program", "OpenLDAP"},
		{"pset/table2", "bug", "6", "rollback_window_instrs", 4760.0},
		{"pset/table2", "bug", "4", "true_dynamic", 20.0},
		{"pset/table2", "bug", "3", "type", "Injected"},
		{"pset/table3", "program", "mysql", "cannot_resolve", 2.0},
		{"pset/table3", "program", "canneal", "inst_count", 7e9},
		{"pset/table4", "program", "apache", "pset_pairs", 4119.0},
		{"pset/table4", "program", "fmm", "overhead_vs_app_pct", 10.13},
		{"conseq/table1", "Phase", "2 Propagation", "ConSeq stage", "Step 2: identify error-inducing reads (static program slicing)"},
		{"conseq/table2", "Application", "MySQL-4.0.16", "Bug-ID", "MySQL2"},
		{"conseq/table2", "Application", "Mozilla-1.7", "LOC", "1.2M"},
		{"conseq/table3", "Bug", "Moz3", "Race", "X"},
		{"conseq/table3", "Bug", "Moz3", "Atom", "–"},
		{"conseq/table3", "Bug", "Total", "ConSeq", "10/11"},
		{"conseq/table4", "Run", "MySQL3", "ConSeq total", 14.0},
		{"conseq/table4", "Run", "Moz1", "Base", "OM"},
		{"conseq/table4", "Run", "Moz1", "Atom", "n/a"},
		{"conseq/table4", "Run", "Sum", "Atom", 2679.0},
		{"conseq/table4", "Run", "Sum", "ConSeq total", 41.0},
		{"conseq/maxdistance", "MaxDistance", "5", "Total FPs", 61.0},
		{"conseq/maxdistance", "MaxDistance", "4", "Bugs detected (of 11)", 10.0},
		{"conseq/maxdistance", "MaxDistance", "5", "Marginal FPs", 20.0},
		{"conseq/maxdistance", "MaxDistance", "1", "Marginal bugs", "–"},
		{"conseq/table5", "Run", "MySQL1", "# critical reads", 8562.0},
		{"conseq/table5", "Run", "Moz3", "Object file size", "5.7K"},
		{"conseq/table5", "Run", "Sum", "# error sites", 6971.0},
		{"conseq/table6", "Run", "Click", "Run-time overhead (%)", 3846.0},
		{"conseq/table6", "Run", "Cherokee", "Trace size", "115M"},
		{"conseq/table6", "Run", "Aget1", "Base line (s)", 12.45},
		{"conseq/table6", "Run", "FFT", "(1+ovh) + analysis/base (computed, X)", 28.4},
		{"falcon/table1", "#", "3", "Interleaving", "W1-W2"},
		{"falcon/table2", "#", "5", "Interleaving", "W1-W2-W1"},
		{"falcon/figure3", "p", "8", "max", 38.0},
		{"falcon/figure3", "p", "16", "Q3 (75th pct)", "≤ 9"},
		{"falcon/table3", "Program", "Cache4j", "Violation type", "Order"},
		{"falcon/table3", "Program", "Cache4j", "Category", "Miscellaneous"},
		{"falcon/table3", "Program", "MergeSort", "Failure rate (%)", 84.0},
		{"falcon/table3", "Program", "Hedc", "LOC", 29947.0},
		{"falcon/table3", "Program", "TreeSet", "Category", "Java Collection"},
		{"falcon/table4", "Program", "BufWriter", "#Patterns identified", 105.0},
		{"falcon/table4", "Program", "Tsp", "#Shared accesses", 451264.0},
		{"falcon/table4", "Program", "Philo", "Rank of bug", "0 (*)"},
		{"falcon/table4", "Program", "RayTracer", "Slowdown (×)", 58.1},
		{"falcon/table5", "Program", "Cache4j", "CCI A1:Rank", "W1:79"},
		{"falcon/table5", "Program", "BubbleSort2", "Falcon Bug:Rank", "W1-R2-W1:1"},
		{"falcon/table5", "Program", "Hedc", "Falcon Bug:Rank", "–"},
		{"inference/table1", "Scenarios", "48", "TSAN errors", 21.0},
		{"inference/table2", "Application", "lu", "Captured", 59857037.0},
		{"inference/table2", "Application", "fmm", "Found errors", 50.0},
		{"inference/table2", "Application", "water-nsquared", "Sync", 8300.0},
	} {
		tb, err := Reference(c.table)
		if err != nil {
			t.Fatal(err)
		}
		if got := cell(t, tb, c.key, c.k, c.col); !sameCells(got, c.want) {
			t.Errorf("%s %s=%s %q = %#v, want %#v", c.table, c.key, c.k, c.col, got, c.want)
		}
	}
}

// sum adds column col over the rows whose key is not in skip.
func sum(t *testing.T, name, key, col string, skip ...string) float64 {
	t.Helper()
	tb, err := Reference(name)
	if err != nil {
		t.Fatal(err)
	}
	ki, _ := tb.Column(key)
	ci, ok := tb.Column(col)
	if !ok {
		t.Fatalf("%s: no column %q", name, col)
	}
	s := 0.0
	for _, row := range tb.Rows {
		if slices.Contains(skip, FormatCell(row[ki])) {
			continue
		}
		if x, ok := row[ci].(float64); ok {
			s += x
		}
	}
	return s
}

// count counts the rows whose column col is v.
func count(t *testing.T, name, col string, v any) int {
	t.Helper()
	tb, err := Reference(name)
	if err != nil {
		t.Fatal(err)
	}
	ci, ok := tb.Column(col)
	if !ok {
		t.Fatalf("%s: no column %q", name, col)
	}
	n := 0
	for _, row := range tb.Rows {
		if row[ci] == v {
			n++
		}
	}
	return n
}

// Totals and identities the digests state; they catch a mistyped cell
// anywhere in a column.
func TestReferenceTotals(t *testing.T) {
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"pset/table1 DRD detects", float64(count(t, "pset/table1", "DRD", "Yes")), 12},
		{"pset/table1 AVIO detects", float64(count(t, "pset/table1", "AVIO", "Yes")), 6},
		{"pset/table1 PSet detects", float64(count(t, "pset/table1", "PSet", "Yes")), 15},
		{"pset/table2 stall avoids", float64(count(t, "pset/table2", "stall", "Yes")), 6},
		{"pset/table2 true static", sum(t, "pset/table2", "bug", "true_static"), 18},
		{"pset/table2 true dynamic", sum(t, "pset/table2", "bug", "true_dynamic"), 42},
		{"pset/table2 false static", sum(t, "pset/table2", "bug", "false_static"), 14},
		{"pset/table2 false dynamic", sum(t, "pset/table2", "bug", "false_dynamic"), 17},
		{"pset/table3 violations", sum(t, "pset/table3", "program", "total"), 21},
		{"bugaboo/table2 detected w/o ctx", float64(count(t, "bugaboo/table2", "w/o ctx", "Yes")), 1},
		{"bugaboo/table2 detected w/ ctx", float64(count(t, "bugaboo/table2", "w/ ctx", "Yes")), 13},
		{"bugaboo/table4 found with no context", float64(13 - count(t, "bugaboo/table4", "None", "—")), 1},
		{"bugaboo/table4 found with size 1", float64(13 - count(t, "bugaboo/table4", "1", "—")), 6},
		{"bugaboo/table4 found with size 2", float64(13 - count(t, "bugaboo/table4", "2", "—")), 11},
		{"bugaboo/table4 found with size 4", float64(13 - count(t, "bugaboo/table4", "4", "—")), 13},
		{"conseq/table3 ConSeq detects", float64(count(t, "conseq/table3", "ConSeq", "X")), 10},
		{"conseq/table3 Race detects", float64(count(t, "conseq/table3", "Race", "X")), 3},
		{"conseq/table3 Atom detects", float64(count(t, "conseq/table3", "Atom", "X")), 4},
		{"conseq/table4 ConSeq FPs", sum(t, "conseq/table4", "Run", "ConSeq total", "Sum"), 41},
		{"conseq/table4 Race FPs", sum(t, "conseq/table4", "Run", "Race", "Sum"), 1335},
		{"conseq/table4 Atom FPs", sum(t, "conseq/table4", "Run", "Atom", "Sum"), 2679},
		{"conseq/table4 Base FPs", sum(t, "conseq/table4", "Run", "Base", "Sum"), 711},
		{"conseq/table5 error sites", sum(t, "conseq/table5", "Run", "# error sites", "Sum"), 6971},
		{"conseq/table5 critical reads", sum(t, "conseq/table5", "Run", "# critical reads", "Sum"), 18712},
		{"falcon/table4 patterns", sum(t, "falcon/table4", "Program", "#Patterns identified"), 306},
		{"falcon/table4 in a failing run", sum(t, "falcon/table4", "Program", "#In ≥1 failing run"), 194},
		{"falcon/table4 only in failing runs", sum(t, "falcon/table4", "Program", "#Only in failing runs"), 104},
		{"falcon/table4 slowdowns", sum(t, "falcon/table4", "Program", "Slowdown (×)"), 168.9},
		{"inference/table2 candidates", sum(t, "inference/table2", "Application", "Candidates"), 200},
		{"inference/table2 feasible", sum(t, "inference/table2", "Application", "Feasible"), 188},
		{"inference/table2 found", sum(t, "inference/table2", "Application", "Found errors"), 62},
		{"inference/table2 TSAN", sum(t, "inference/table2", "Application", "TSAN errors"), 43},
	} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}

	// Bugaboo Table 5: M-D Wr = Rd.Ms + Wr.Ms + Coh.Ms to rounding, and
	// CT Wr ≥ Rd.Ms, in every row (Bugaboo Table 5).
	tb, err := Reference("bugaboo/table5")
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) []float64 {
		xs, err := tb.Floats(name)
		if err != nil {
			t.Fatal(err)
		}
		return xs
	}
	rd, wr, coh, md, ct := col("Rd.Ms"), col("Wr.Ms"), col("Coh.Ms"), col("M-D Wr"), col("CT Wr")
	for i := range rd {
		if math.Abs(rd[i]+wr[i]+coh[i]-md[i]) > 0.015 {
			t.Errorf("bugaboo/table5 row %d: %v+%v+%v != %v", i+1, rd[i], wr[i], coh[i], md[i])
		}
		if ct[i] < rd[i] {
			t.Errorf("bugaboo/table5 row %d: CT Wr %v < Rd.Ms %v", i+1, ct[i], rd[i])
		}
	}
}

func TestReferenceCSVsAreClean(t *testing.T) {
	for _, name := range ReferenceNames() {
		raw, err := os.ReadFile("reference/" + name + ".csv")
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte("\r")) || !bytes.HasSuffix(raw, []byte("\n")) {
			t.Errorf("%s: CR or no final newline", name)
		}
	}
}

func TestSideBySide(t *testing.T) {
	paper := NewTable("paper", "Paper T5", "bench", "misses", "graph")
	paper.AddRow("a", 100, "—")
	paper.AddRow("b", 0, 10)
	paper.AddRow("c", 50, 20)
	paper.Notes = []string{"Source: digest."}
	ours := NewTable("t5", "Weft T5", "bench", "misses", "graph", "extra")
	ours.AddRow("c", 75, 10, 1)
	ours.AddRow("a", 110, 5, 1)
	ours.AddRow("z", 1, 1, 1)

	got, err := SideBySide(ours, paper, "bench", "misses", "graph")
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"bench", "misses (weft)", "misses (paper)", "misses ratio", "graph (weft)", "graph (paper)", "graph ratio"}
	if strings.Join(got.Columns, "|") != strings.Join(wantCols, "|") {
		t.Fatalf("columns %q", got.Columns)
	}
	want := [][]any{
		{"a", 110.0, 100.0, 1.1, 5.0, "—", ""},
		{"b", "", 0.0, "", "", 10.0, ""},
		{"c", 75.0, 50.0, 1.5, 10.0, 20.0, 0.5},
		{"z", 1.0, "", "", 1.0, "", ""},
	}
	for r := range want {
		for c := range want[r] {
			g, w := got.Rows[r][c], want[r][c]
			if x, ok := g.(float64); ok {
				if y, ok := w.(float64); ok && math.Abs(x-y) < 1e-12 {
					continue
				}
			}
			if g != w {
				t.Errorf("row %d %q = %#v, want %#v", r+1, got.Columns[c], g, w)
			}
		}
	}
	if got.Name != "t5-vs-paper" || !strings.Contains(got.Title, "Weft T5") || got.Notes[len(got.Notes)-1] != "Source: digest." {
		t.Errorf("name %q title %q notes %q", got.Name, got.Title, got.Notes)
	}
	for _, row := range got.Rows {
		for _, v := range row {
			if x, ok := v.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
				t.Errorf("non-finite cell in %v", row)
			}
		}
	}

	// No columns: all the paper's columns ours also has.
	all, err := SideBySide(ours, paper, "bench")
	if err != nil || len(all.Columns) != 7 {
		t.Errorf("default columns: %v %v", all.Columns, err)
	}

	dup := ours.Clone()
	dup.AddRow("a", 1, 1, 1)
	for _, c := range []struct {
		ours  *Table
		key   string
		cols  []string
		error string
	}{
		{ours, "nope", nil, `no key column "nope"`},
		{ours, "bench", []string{"extra"}, `paper table "paper" has no column "extra"`},
		{dup, "bench", []string{"misses"}, `weft table "t5" has key bench="a" in rows 2 and 4`},
		{NewTable("x", "", "bench", "q"), "bench", nil, `no columns in common`},
	} {
		if _, err := SideBySide(c.ours, paper, c.key, c.cols...); err == nil || !strings.Contains(err.Error(), c.error) {
			t.Errorf("SideBySide(%s, %v): %v, want %q", c.key, c.cols, err, c.error)
		}
	}
}

func TestSideBySideWithReference(t *testing.T) {
	paper, err := Reference("bugaboo/table5")
	if err != nil {
		t.Fatal(err)
	}
	ours := NewTable("table5", "BB-HW rates", "Benchmark", "Rd.Ms")
	ours.AddRow("freqmine", 137.59*2)
	got, err := SideBySide(ours, paper, "Benchmark", "Rd.Ms")
	if err != nil {
		t.Fatal(err)
	}
	if r := cell(t, got, "Benchmark", "freqmine", "Rd.Ms ratio"); !sameCells(r, 2.0) {
		t.Errorf("ratio %v", r)
	}
	if r := cell(t, got, "Benchmark", "vips", "Rd.Ms ratio"); r != "" {
		t.Errorf("row without ours has ratio %v", r)
	}
	// PBZip2 Coh.Ms is 0 in the paper: the ratio is empty, not Inf.
	ours = NewTable("table5", "", "Benchmark", "Coh.Ms")
	ours.AddRow("PBZip2-Order", 0.5)
	got, err = SideBySide(ours, paper, "Benchmark")
	if err != nil {
		t.Fatal(err)
	}
	if r := cell(t, got, "Benchmark", "PBZip2-Order", "Coh.Ms ratio"); r != "" {
		t.Errorf("zero paper value gives ratio %v", r)
	}
}
