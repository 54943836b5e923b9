package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"weft/internal/atomicfile"
)

// WriteCSV writes the table as CSV: a header row of the column names, then
// one record per row, numbers printed by FormatCell. Title and notes are
// not written. A string cell that looks like a number reads back as one,
// and a CR LF inside a cell reads back as LF.
func (t *Table) WriteCSV(w io.Writer) error {
	rows, err := t.checked()
	if err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Columns); err != nil {
		return fmt.Errorf("table %q: %w", t.Name, err)
	}
	rec := make([]string, len(t.Columns))
	for _, row := range rows {
		for i, c := range row {
			rec[i] = FormatCell(c)
		}
		if err := cw.Write(rec); err != nil {
			return fmt.Errorf("table %q: %w", t.Name, err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("table %q: %w", t.Name, err)
	}
	return nil
}

// ReadCSV reads a table written by WriteCSV (or any CSV with a header row)
// and names it name. Cells that are decimal numbers, NaN, +Inf or -Inf
// become float64; every other cell stays a string.
func ReadCSV(name string, r io.Reader) (*Table, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("table %q: no header row", name)
	}
	if err != nil {
		return nil, fmt.Errorf("table %q: %w", name, err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	t := NewTable(name, "", header...)
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("table %q: %w", name, err)
		}
		row := make([]any, len(rec))
		for i, s := range rec {
			row[i] = parseCell(s)
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// WriteMarkdown writes "### Title", a blank line, the table in GitHub
// Markdown (numeric columns right-aligned) and each note as a paragraph
// under it. Numbers are printed by FormatReadable (the CSV and JSON keep
// every digit). In cells, \ and | are escaped with a
// backslash, line breaks become <br>, and & and < become entities, so any
// string survives and none breaks the table.
func (t *Table) WriteMarkdown(w io.Writer) error {
	rows, err := t.checked()
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "### %s\n\n", strings.Join(strings.Fields(t.title()), " "))
	numeric := make([]bool, len(t.Columns))
	for i := range t.Columns {
		numeric[i] = isNumeric(rows, i)
	}
	bw.WriteString("|")
	for _, c := range t.Columns {
		bw.WriteString(" " + escapeMarkdown(c) + " |")
	}
	bw.WriteString("\n|")
	for i := range t.Columns {
		if numeric[i] {
			bw.WriteString("---:|")
		} else {
			bw.WriteString("---|")
		}
	}
	bw.WriteString("\n")
	for _, row := range rows {
		bw.WriteString("|")
		for _, c := range row {
			var s string
			if x, ok := c.(float64); ok {
				s = FormatReadable(x)
			} else {
				s = escapeMarkdown(c.(string))
			}
			bw.WriteString(" " + s + " |")
		}
		bw.WriteString("\n")
	}
	for _, n := range t.Notes {
		bw.WriteString("\n" + strings.TrimSpace(n) + "\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("table %q: %w", t.Name, err)
	}
	return nil
}

// isNumeric reports whether column i holds numbers and, at most, empty
// strings.
func isNumeric(rows [][]any, i int) bool {
	seen := false
	for _, row := range rows {
		switch v := row[i].(type) {
		case float64:
			seen = true
		case string:
			if v != "" {
				return false
			}
		}
	}
	return seen
}

// jsonTable is the JSON form of a Table.
type jsonTable struct {
	Name    string   `json:"name"`
	Title   string   `json:"title"`
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	Notes   []string `json:"notes,omitempty"`
}

// WriteJSON writes the table as one JSON object {"name", "title",
// "columns", "rows", "notes"}, one row per line. Numbers are JSON numbers;
// NaN and the infinities, which JSON lacks, are the strings "NaN", "+Inf"
// and "-Inf".
func (t *Table) WriteJSON(w io.Writer) error {
	rows, err := t.checked()
	if err != nil {
		return err
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"name\": %s,\n  \"title\": %s,\n  \"columns\": %s,\n  \"rows\": [",
		marshal(t.Name), marshal(t.Title), marshal(t.Columns))
	for r, row := range rows {
		cells := make([]any, len(row))
		for i, c := range row {
			if x, ok := c.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
				c = formatFloat(x)
			}
			cells[i] = c
		}
		if r > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n    ")
		b.Write(marshal(cells))
	}
	if len(rows) > 0 {
		b.WriteString("\n  ")
	}
	b.WriteString("]")
	if len(t.Notes) > 0 {
		fmt.Fprintf(&b, ",\n  \"notes\": %s", marshal(t.Notes))
	}
	b.WriteString("\n}\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("table %q: %w", t.Name, err)
	}
	return nil
}

// marshal is json.Marshal without HTML escaping, for values that are
// strings and finite float64s, which always encode.
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(fmt.Sprintf("results: encode %T: %v", v, err)) // unreachable for checked cells
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// ReadJSON reads a table written by WriteJSON. Unknown fields, rows of the
// wrong length and cells that are neither strings nor numbers are errors.
func ReadJSON(r io.Reader) (*Table, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var jt jsonTable
	if err := dec.Decode(&jt); err != nil {
		return nil, fmt.Errorf("read table: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("table %q: data after the table object", jt.Name)
	}
	t := &Table{Name: jt.Name, Title: jt.Title, Columns: jt.Columns, Notes: jt.Notes}
	for r, row := range jt.Rows {
		if len(row) != len(t.Columns) {
			return nil, fmt.Errorf("table %q: row %d has %d cells for %d columns", t.Name, r+1, len(row), len(t.Columns))
		}
		out := make([]any, len(row))
		for i, c := range row {
			switch v := c.(type) {
			case float64:
				out[i] = v
			case string:
				switch v {
				case "NaN", "+Inf", "-Inf":
					out[i] = parseCell(v)
				default:
					out[i] = v
				}
			default:
				return nil, fmt.Errorf("table %q: row %d, column %q: cell %v is not a string or number", t.Name, r+1, t.Columns[i], c)
			}
		}
		t.Rows = append(t.Rows, out)
	}
	return t, nil
}

// Save writes dir/Name.csv, dir/Name.md and dir/Name.json, each whole or
// not at all, creating dir if needed.
func (t *Table) Save(dir string) error {
	if t.Name == "" || t.Name == "." || t.Name == ".." || strings.ContainsAny(t.Name, `/\`) {
		return fmt.Errorf("save table: name %q is not a file stem", t.Name)
	}
	if _, err := t.checked(); err != nil {
		return fmt.Errorf("save table: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("save table %q: %w", t.Name, err)
	}
	for _, f := range []struct {
		ext   string
		write func(io.Writer) error
	}{{"csv", t.WriteCSV}, {"md", t.WriteMarkdown}, {"json", t.WriteJSON}} {
		if err := atomicfile.Write(filepath.Join(dir, t.Name+"."+f.ext), f.write); err != nil {
			return err
		}
	}
	return nil
}

// checked returns the rows with their cells converted, or an error if the
// table cannot be written.
func (t *Table) checked() ([][]any, error) {
	if len(t.Columns) == 0 {
		return nil, fmt.Errorf("table %q has no columns", t.Name)
	}
	return t.normRows()
}

// escapeMarkdown makes s safe inside a Markdown table cell.
func escapeMarkdown(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\':
			b.WriteString(`\\`)
		case '|':
			b.WriteString(`\|`)
		case '\n':
			b.WriteString("<br>")
		case '\r':
			b.WriteString("&#13;")
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// unescapeMarkdown reverses escapeMarkdown.
func unescapeMarkdown(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i += 2
			continue
		case strings.HasPrefix(s[i:], "<br>"):
			b.WriteByte('\n')
			i += len("<br>")
			continue
		case strings.HasPrefix(s[i:], "&#13;"):
			b.WriteByte('\r')
			i += len("&#13;")
			continue
		case strings.HasPrefix(s[i:], "&amp;"):
			b.WriteByte('&')
			i += len("&amp;")
			continue
		case strings.HasPrefix(s[i:], "&lt;"):
			b.WriteByte('<')
			i += len("&lt;")
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// splitMarkdownRow splits "| a | b\|c |" into its unescaped, trimmed cells.
func splitMarkdownRow(line string) ([]string, error) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") || len(line) < 2 {
		return nil, fmt.Errorf("not a table row: %q", line)
	}
	line = line[1:]
	var cells []string
	start := 0
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '|':
			cells = append(cells, unescapeMarkdown(strings.TrimSpace(line[start:i])))
			start = i + 1
		}
	}
	if start != len(line) {
		return nil, fmt.Errorf("table row does not end with |: %q", line)
	}
	return cells, nil
}

// readMarkdown reads back the first table written by WriteMarkdown: the
// "### " heading is the title, paragraphs after the table are notes and
// numeric-looking cells become float64 (rounded as they were printed).
func readMarkdown(name string, r io.Reader) (*Table, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 1<<24)
	t := &Table{Name: name}
	state := 0 // 0 before the table, 1 header read, 2 in rows, 3 notes
	var note []string
	flush := func() {
		if len(note) > 0 {
			t.Notes = append(t.Notes, strings.Join(note, "\n"))
			note = nil
		}
	}
	line := 0
	for sc.Scan() {
		line++
		s := sc.Text()
		isRow := strings.HasPrefix(strings.TrimSpace(s), "|")
		switch {
		case state == 0 && strings.HasPrefix(s, "### ") && t.Title == "" && t.Columns == nil:
			t.Title = strings.TrimSpace(s[4:])
		case state == 0 && isRow:
			cells, err := splitMarkdownRow(s)
			if err != nil {
				return nil, fmt.Errorf("table %q: line %d: %w", name, line, err)
			}
			t.Columns = cells
			state = 1
		case state == 1:
			cells, err := splitMarkdownRow(s)
			if err != nil || len(cells) != len(t.Columns) {
				return nil, fmt.Errorf("table %q: line %d: no delimiter row under the header", name, line)
			}
			state = 2
		case state == 2 && isRow:
			cells, err := splitMarkdownRow(s)
			if err != nil {
				return nil, fmt.Errorf("table %q: line %d: %w", name, line, err)
			}
			if len(cells) != len(t.Columns) {
				return nil, fmt.Errorf("table %q: line %d: %d cells for %d columns", name, line, len(cells), len(t.Columns))
			}
			row := make([]any, len(cells))
			for i, c := range cells {
				row[i] = parseCell(c)
			}
			t.Rows = append(t.Rows, row)
		case state >= 2:
			state = 3
			if strings.TrimSpace(s) == "" {
				flush()
			} else {
				note = append(note, s)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("table %q: %w", name, err)
	}
	flush()
	if t.Columns == nil {
		return nil, errors.New("table " + strconv.Quote(name) + ": no Markdown table")
	}
	return t, nil
}
