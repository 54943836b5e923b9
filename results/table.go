package results

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"weft/internal/numfmt"
)

// A Table is one result table. Cells are strings or float64 (ints are
// stored as float64 and printed without a decimal point when integral).
type Table struct {
	// Name is the file stem: "table5", "sweep-cycles".
	Name string
	// Title is the heading in Markdown; Name when empty.
	Title string
	// Columns are the column headers.
	Columns []string
	// Rows each hold len(Columns) cells, each a string or float64.
	Rows [][]any
	// Notes are free text printed under the table in Markdown.
	Notes []string
}

// NewTable returns an empty table with the given columns.
func NewTable(name, title string, columns ...string) *Table {
	return &Table{Name: name, Title: title, Columns: append([]string(nil), columns...)}
}

// AddRow appends one row. Cells may be string, int, int64, uint64, float64
// (and the other sized ints and float32); numbers are stored as float64. A
// wrong cell count or type is a programming error and panics.
func (t *Table) AddRow(cells ...any) {
	if len(cells) != len(t.Columns) {
		panic(fmt.Sprintf("results: table %q: row has %d cells for %d columns", t.Name, len(cells), len(t.Columns)))
	}
	row := make([]any, len(cells))
	for i, c := range cells {
		v, err := normCell(c)
		if err != nil {
			panic(fmt.Sprintf("results: table %q: column %q: %v", t.Name, t.Columns[i], err))
		}
		row[i] = v
	}
	t.Rows = append(t.Rows, row)
}

// Column returns the index of the first column with this name.
func (t *Table) Column(name string) (int, bool) {
	for i, c := range t.Columns {
		if c == name {
			return i, true
		}
	}
	return 0, false
}

// Rename changes the name of column from to to.
func (t *Table) Rename(from, to string) error {
	i, ok := t.Column(from)
	if !ok {
		return fmt.Errorf("table %q: no column %q", t.Name, from)
	}
	t.Columns[i] = to
	return nil
}

// Floats returns the numeric values of column col, one per row; a row whose
// cell is not a number is an error naming the row.
func (t *Table) Floats(col string) ([]float64, error) {
	i, ok := t.Column(col)
	if !ok {
		return nil, fmt.Errorf("table %q: no column %q", t.Name, col)
	}
	xs := make([]float64, len(t.Rows))
	for r, row := range t.Rows {
		if i >= len(row) {
			return nil, fmt.Errorf("table %q: row %d has %d cells for %d columns", t.Name, r+1, len(row), len(t.Columns))
		}
		x, ok := row[i].(float64)
		if !ok {
			v, err := normCell(row[i])
			if err != nil {
				return nil, fmt.Errorf("table %q: row %d, column %q: %v", t.Name, r+1, col, err)
			}
			if x, ok = v.(float64); !ok {
				return nil, fmt.Errorf("table %q: row %d, column %q: %q is not a number", t.Name, r+1, col, v)
			}
		}
		xs[r] = x
	}
	return xs, nil
}

// Clone returns a deep copy of t.
func (t *Table) Clone() *Table {
	c := &Table{
		Name:    t.Name,
		Title:   t.Title,
		Columns: append([]string(nil), t.Columns...),
		Notes:   append([]string(nil), t.Notes...),
		Rows:    make([][]any, len(t.Rows)),
	}
	for i, r := range t.Rows {
		c.Rows[i] = append([]any(nil), r...)
	}
	return c
}

// FormatCell prints a cell as the CSV writer does: strings as they are,
// integral numbers without a decimal point, other numbers in the shortest
// form that reads back to the same float64, and NaN, +Inf and -Inf by name.
func FormatCell(v any) string {
	v, err := normCell(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return formatFloat(v)
	}
	return ""
}

// normCell converts an accepted cell value to string or float64.
func normCell(c any) (any, error) {
	switch v := c.(type) {
	case string:
		return v, nil
	case float64:
		return v, nil
	case float32:
		return float64(v), nil
	case int:
		return float64(v), nil
	case int8:
		return float64(v), nil
	case int16:
		return float64(v), nil
	case int32:
		return float64(v), nil
	case int64:
		return float64(v), nil
	case uint:
		return float64(v), nil
	case uint8:
		return float64(v), nil
	case uint16:
		return float64(v), nil
	case uint32:
		return float64(v), nil
	case uint64:
		return float64(v), nil
	}
	return nil, fmt.Errorf("cell %v has type %T, want string or number", c, c)
}

// normRows checks every row's length and converts its cells.
func (t *Table) normRows() ([][]any, error) {
	rows := make([][]any, len(t.Rows))
	for r, row := range t.Rows {
		if len(row) != len(t.Columns) {
			return nil, fmt.Errorf("table %q: row %d has %d cells for %d columns", t.Name, r+1, len(row), len(t.Columns))
		}
		rows[r] = make([]any, len(row))
		for i, c := range row {
			v, err := normCell(c)
			if err != nil {
				return nil, fmt.Errorf("table %q: row %d, column %q: %v", t.Name, r+1, t.Columns[i], err)
			}
			rows[r][i] = v
		}
	}
	return rows, nil
}

// formatFloat prints x exactly (it parses back to the same float64), by
// the rule encoding/json uses for numbers, so a table's CSV and JSON files
// spell every number alike: integral values below 1e21 as integers, other
// values in plain decimal, and only magnitudes below 1e-6 or from 1e21 up
// in exponent form (1e-7, 1e+21). NaN, +Inf and -Inf are spelled by name.
func formatFloat(x float64) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "+Inf"
	case math.IsInf(x, -1):
		return "-Inf"
	}
	return string(AppendNumber(nil, x))
}

// AppendNumber appends the finite number x as encoding/json writes a
// float64: integral values below 1e21 as integers, other values in the
// shortest plain decimal that reads back exactly, magnitudes below 1e-6 or
// from 1e21 up in exponent form ("1e-7", "1e+21"). Counters therefore
// never appear in exponent form.
func AppendNumber(b []byte, x float64) []byte { return numfmt.Append(b, x) }

// FormatReadable prints a number for people, the one rule weft uses for
// means and other measured values on the console and in Markdown tables:
// integral values whole; a value whose exact decimal has at most 6
// significant digits as it is (a paper's 137.59 stays 137.59); any other
// to 4 significant digits but never fewer than its integer part's
// (696620.333… → 696620, 1.39920… → 1.399, 0.00712675… → 0.007127).
// Trailing zeros are dropped, exponent form is never used, and magnitudes
// below 5e-13 print as 0. NaN, +Inf and -Inf are spelled by name. CSV and
// JSON files keep every digit (FormatCell).
func FormatReadable(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == math.Trunc(x) {
		return formatFloat(x)
	}
	if math.Abs(x) < 5e-13 {
		return "0"
	}
	if exact := strconv.FormatFloat(x, 'f', -1, 64); significantDigits(exact) <= 6 {
		return exact
	}
	decimals := 0
	if abs := math.Abs(x); abs < 1000 {
		decimals = min(12, 3-int(math.Floor(math.Log10(abs))))
	}
	s := strconv.FormatFloat(x, 'f', decimals, 64)
	if strings.ContainsRune(s, '.') {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// significantDigits counts the significant digits of a plain decimal.
func significantDigits(s string) int {
	n, lead := 0, true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' || lead && c == '0' {
			continue
		}
		lead = false
		n++
	}
	return n
}

// numberRE matches the decimal numbers a reader turns back into float64.
var numberRE = regexp.MustCompile(`^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$`)

// parseCell turns text that looks like a number (decimal, or NaN, +Inf,
// -Inf) into float64 and leaves anything else a string.
func parseCell(s string) any {
	switch s {
	case "NaN":
		return math.NaN()
	case "+Inf":
		return math.Inf(1)
	case "-Inf":
		return math.Inf(-1)
	}
	if numberRE.MatchString(s) {
		if x, err := strconv.ParseFloat(s, 64); err == nil {
			return x
		}
	}
	return s
}

// title is the heading a table prints under.
func (t *Table) title() string {
	if strings.TrimSpace(t.Title) != "" {
		return t.Title
	}
	return t.Name
}
