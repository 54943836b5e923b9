package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tricky is a table whose strings stress every format.
func tricky() *Table {
	t := NewTable("tricky", "Tricky | table", "name", "count", "ratio", "text")
	t.AddRow("plain", 3, 0.25, "")
	t.AddRow("comma, inside", int64(-7), 1e-7, `say "hi", then leave`)
	t.AddRow("pipe | and \\ backslash", uint64(1)<<40, 123456.789, "line one\nline two\nthree")
	t.AddRow("<br> & &amp; literal", 0, -3.5, "tab\tand ünïcödé — dash")
	t.AddRow("trailing \\", 1e21, 1.0/3, "`code | span`")
	t.Notes = []string{"First note.", "Second note with | pipe."}
	return t
}

// sameCells reports whether two cells are equal, NaN equal to NaN.
func sameCells(a, b any) bool {
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	if ok1 && ok2 {
		return x == y || (math.IsNaN(x) && math.IsNaN(y))
	}
	return a == b
}

// checkSame fails unless got has want's columns and cells; tol > 0 lets
// numbers differ by that much.
func checkSame(t *testing.T, got, want *Table, tol float64) {
	t.Helper()
	if strings.Join(got.Columns, "\x00") != strings.Join(want.Columns, "\x00") {
		t.Fatalf("columns %q, want %q", got.Columns, want.Columns)
	}
	if len(got.Rows) != len(want.Rows) {
		t.Fatalf("%d rows, want %d", len(got.Rows), len(want.Rows))
	}
	for r := range want.Rows {
		for c := range want.Rows[r] {
			g, w := got.Rows[r][c], want.Rows[r][c]
			if x, ok := g.(float64); ok && tol > 0 {
				if y, ok := w.(float64); ok && math.Abs(x-y) <= tol*math.Max(1, math.Abs(y)) {
					continue
				}
			}
			if !sameCells(g, w) {
				t.Errorf("row %d column %q: got %#v, want %#v", r+1, want.Columns[c], g, w)
			}
		}
	}
}

func TestAddRowStoresNumbersAsFloat64(t *testing.T) {
	tb := NewTable("n", "", "a", "b", "c", "d", "e")
	tb.AddRow(1, int64(2), uint64(3), 4.5, "x")
	want := []any{1.0, 2.0, 3.0, 4.5, "x"}
	for i, w := range want {
		if tb.Rows[0][i] != w {
			t.Errorf("cell %d = %#v, want %#v", i, tb.Rows[0][i], w)
		}
	}
	for _, bad := range [][]any{{1, 2}, {1, 2, 3, 4, true}, {1, 2, 3, 4, nil}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("AddRow(%v) did not panic", bad)
				}
			}()
			tb.AddRow(bad...)
		}()
	}
}

func TestFormatCell(t *testing.T) {
	tenth := 0.1
	for _, c := range []struct {
		in   any
		want string
	}{
		{3.0, "3"}, {-7, "-7"}, {0.25, "0.25"}, {1e-7, "1e-7"}, {1128181.2, "1128181.2"}, {5754931.0, "5754931"}, {1.3e9, "1300000000"},
		{1e21, "1e+21"}, {math.NaN(), "NaN"}, {math.Inf(1), "+Inf"}, {math.Inf(-1), "-Inf"},
		{"text", "text"}, {tenth + 2*tenth, "0.30000000000000004"},
	} {
		if got := FormatCell(c.in); got != c.want {
			t.Errorf("FormatCell(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestCSVRoundTrip(t *testing.T) {
	want := tricky()
	want.AddRow("special", math.NaN(), math.Inf(1), "x")
	want.AddRow("special2", math.Inf(-1), math.Copysign(0, -1), "y")
	want.AddRow("carriage", 1, 2, "a\r\nb")
	var b bytes.Buffer
	if err := want.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV("tricky", &b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "tricky" {
		t.Errorf("name %q", got.Name)
	}
	want.Rows[len(want.Rows)-1][3] = "a\nb" // encoding/csv reads a quoted CR LF as LF
	checkSame(t, got, want, 0)
}

func TestCSVOutput(t *testing.T) {
	tb := NewTable("t", "T", "k", "v")
	tb.AddRow("a,b", 2)
	tb.AddRow(`q"q`, 2.5)
	var b bytes.Buffer
	if err := tb.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	if want := "k,v\n\"a,b\",2\n\"q\"\"q\",2.5\n"; b.String() != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestReadCSVParsesOnlyNumbers(t *testing.T) {
	in := "\ufeffa,b,c,d,e,f,g\n12,1.0,-3e2,.5,1.1K,—,0x10\n"
	tb, err := ReadCSV("x", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{12.0, 1.0, -300.0, 0.5, "1.1K", "—", "0x10"}
	if tb.Columns[0] != "a" {
		t.Errorf("byte-order mark kept: %q", tb.Columns[0])
	}
	for i, w := range want {
		if !sameCells(tb.Rows[0][i], w) {
			t.Errorf("cell %d = %#v, want %#v", i, tb.Rows[0][i], w)
		}
	}
}

func TestReadCSVErrors(t *testing.T) {
	for _, in := range []string{"", "a,b\n1\n", "a,b\n\"open,2\n"} {
		if _, err := ReadCSV("broken", strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), `"broken"`) {
			t.Errorf("ReadCSV(%q): %v", in, err)
		}
	}
}

func TestJSONRoundTrip(t *testing.T) {
	want := tricky()
	want.AddRow("numeric-looking string", "12", "NaN", "x")
	want.AddRow("special", math.NaN(), math.Inf(-1), "y")
	want.AddRow("carriage", 1, 2, "a\r\nb\rc")
	var b bytes.Buffer
	if err := want.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !json.Valid(b.Bytes()) {
		t.Fatalf("invalid JSON:\n%s", b.String())
	}
	got, err := ReadJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != want.Name || got.Title != want.Title || strings.Join(got.Notes, "|") != strings.Join(want.Notes, "|") {
		t.Errorf("metadata %q %q %q", got.Name, got.Title, got.Notes)
	}
	// A string "12" stays a string in JSON; "NaN" is the one spelling of NaN.
	want.Rows[len(want.Rows)-3][2] = math.NaN()
	checkSame(t, got, want, 0)
}

func TestJSONOutputIsReadable(t *testing.T) {
	tb := NewTable("t", "a <b>", "k", "v")
	tb.AddRow("x", 1)
	tb.AddRow("y", 0.5)
	var b bytes.Buffer
	if err := tb.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	want := `{
  "name": "t",
  "title": "a <b>",
  "columns": ["k","v"],
  "rows": [
    ["x",1],
    ["y",0.5]
  ]
}
`
	if b.String() != want {
		t.Errorf("JSON:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestReadJSONErrors(t *testing.T) {
	for _, in := range []string{
		``,
		`{"name":"x","columns":["a"],"rows":[[1,2]]}`,
		`{"name":"x","columns":["a"],"rows":[[true]]}`,
		`{"name":"x","columns":["a"],"rows":[[null]]}`,
		`{"name":"x","columns":["a"],"rows":[],"extra":1}`,
		`{"name":"x","columns":["a"],"rows":[]} {}`,
	} {
		if _, err := ReadJSON(strings.NewReader(in)); err == nil {
			t.Errorf("ReadJSON(%s) accepted", in)
		}
	}
}

func TestMarkdownRoundTrip(t *testing.T) {
	want := tricky()
	want.AddRow("carriage", 1, 2, "a\r\nb\rc")
	var b bytes.Buffer
	if err := want.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	// Every table line has exactly one unescaped | per column, plus one.
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		if n := strings.Count(strings.ReplaceAll(strings.ReplaceAll(line, `\\`, ""), `\|`, ""), "|"); n != len(want.Columns)+1 {
			t.Errorf("line has %d cell separators: %s", n, line)
		}
	}
	if !strings.HasPrefix(md, "### Tricky | table\n\n| name | count | ratio | text |\n|---|---:|---:|---|\n") {
		t.Errorf("heading or header:\n%s", md)
	}
	got, err := readMarkdown("tricky", strings.NewReader(md))
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != want.Title || strings.Join(got.Notes, "|") != strings.Join(want.Notes, "|") {
		t.Errorf("title %q notes %q", got.Title, got.Notes)
	}
	checkSame(t, got, want, 1e-4) // Markdown rounds to 4 significant digits
	if !strings.Contains(md, "| 0.3333 |") || !strings.Contains(md, "| 123457 |") || !strings.Contains(md, "| 0.0000001 |") {
		t.Errorf("readable numbers:\n%s", md)
	}
}

func TestWritersRejectBadTables(t *testing.T) {
	for name, tb := range map[string]*Table{
		"no columns": {Name: "x"},
		"short row":  {Name: "x", Columns: []string{"a", "b"}, Rows: [][]any{{1.0}}},
		"bool cell":  {Name: "x", Columns: []string{"a"}, Rows: [][]any{{true}}},
	} {
		for format, write := range map[string]func(*bytes.Buffer) error{
			"csv":  func(b *bytes.Buffer) error { return tb.WriteCSV(b) },
			"md":   func(b *bytes.Buffer) error { return tb.WriteMarkdown(b) },
			"json": func(b *bytes.Buffer) error { return tb.WriteJSON(b) },
		} {
			var b bytes.Buffer
			if err := write(&b); err == nil {
				t.Errorf("%s: %s writer accepted it", name, format)
			}
		}
	}
	// Ints put straight into Rows are accepted like AddRow's.
	tb := &Table{Name: "x", Columns: []string{"a"}, Rows: [][]any{{7}}}
	var b bytes.Buffer
	if err := tb.WriteCSV(&b); err != nil || b.String() != "a\n7\n" {
		t.Errorf("int cell: %q %v", b.String(), err)
	}
}

func TestSave(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	want := tricky()
	if err := want.Save(dir); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "tricky.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := ReadCSV("tricky", f)
	if err != nil {
		t.Fatal(err)
	}
	checkSame(t, got, want, 0)
	raw, err := os.ReadFile(filepath.Join(dir, "tricky.json"))
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ReadJSON(bytes.NewReader(raw)); err != nil {
		t.Error(err)
	} else {
		checkSame(t, got, want, 0)
	}
	md, err := os.ReadFile(filepath.Join(dir, "tricky.md"))
	if err != nil || !strings.HasPrefix(string(md), "### Tricky") {
		t.Errorf("markdown: %v %q", err, md)
	}
	files, _ := os.ReadDir(dir)
	if len(files) != 3 {
		t.Errorf("files: %v", files)
	}

	bad := t.TempDir()
	for _, tb := range []*Table{
		{Name: "", Columns: []string{"a"}},
		{Name: "a/b", Columns: []string{"a"}},
		{Name: "short", Columns: []string{"a", "b"}, Rows: [][]any{{1.0}}},
	} {
		if err := tb.Save(bad); err == nil {
			t.Errorf("Save(%q) accepted", tb.Name)
		}
	}
	if files, _ := os.ReadDir(bad); len(files) != 0 {
		t.Errorf("bad tables left files: %v", files)
	}
}

func TestTableHelpers(t *testing.T) {
	tb := NewTable("h", "", "k", "v")
	tb.AddRow("a", 1)
	tb.AddRow("b", 2.5)
	if i, ok := tb.Column("v"); !ok || i != 1 {
		t.Errorf("Column(v) = %d, %v", i, ok)
	}
	if _, ok := tb.Column("nope"); ok {
		t.Error("Column(nope) found")
	}
	xs, err := tb.Floats("v")
	if err != nil || fmt.Sprint(xs) != "[1 2.5]" {
		t.Errorf("Floats = %v, %v", xs, err)
	}
	if _, err := tb.Floats("k"); err == nil || !strings.Contains(err.Error(), `"a" is not a number`) {
		t.Errorf("Floats(k): %v", err)
	}
	c := tb.Clone()
	c.Rows[0][1] = 9.0
	if err := c.Rename("v", "w"); err != nil || tb.Columns[1] != "v" || tb.Rows[0][1] != 1.0 {
		t.Errorf("Clone shares state: %v %v", tb.Columns, tb.Rows)
	}
	if err := c.Rename("zz", "y"); err == nil {
		t.Error("Rename of a missing column accepted")
	}
}

func TestFormatReadable(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{3, "3"}, {-7, "-7"}, {5754931, "5754931"}, {696620.3333333334, "696620"}, {1683.800754263098, "1684"},
		{1.3992006380284667, "1.399"}, {0.007126754175337496, "0.007127"}, {7.174531658112049e-06, "0.000007175"},
		{137.59, "137.59"}, {0.25, "0.25"}, {1.0 / 3, "0.3333"}, {-2.0 / 3, "-0.6667"}, {9.999996, "10"},
		{1.765e-14, "0"}, {-1e-15, "0"}, {math.NaN(), "NaN"}, {math.Inf(-1), "-Inf"}, {1e21, "1e+21"},
	} {
		got := FormatReadable(c.in)
		if got != c.want {
			t.Errorf("FormatReadable(%v) = %q, want %q", c.in, got, c.want)
		}
		if strings.ContainsAny(got, "eE") && !math.IsInf(c.in, 0) && math.Abs(c.in) < 1e21 {
			t.Errorf("FormatReadable(%v) = %q is in exponent form", c.in, got)
		}
	}
}
