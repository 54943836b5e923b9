package results

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// referenceFS holds the papers' tables (reference/<paper>/<table>.csv) and
// their index, reference/README.md.
//
//go:embed reference
var referenceFS embed.FS

// ReferenceNames lists the embedded reference tables ("bugaboo/table5",
// "pset/table1", ...), sorted.
func ReferenceNames() []string {
	files, err := fs.Glob(referenceFS, "reference/*/*.csv")
	if err != nil {
		panic(err) // the pattern is constant and valid
	}
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = strings.TrimSuffix(strings.TrimPrefix(f, "reference/"), ".csv")
	}
	sort.Strings(names)
	return names
}

// referenceInfo is one entry of the index in reference/README.md.
type referenceInfo struct{ title, source string }

// referenceIndex reads the index table of reference/README.md: columns
// name, title and source.
func referenceIndex() (map[string]referenceInfo, error) {
	raw, err := referenceFS.ReadFile("reference/README.md")
	if err != nil {
		return nil, fmt.Errorf("reference index: %w", err)
	}
	t, err := readMarkdown("reference/README.md", bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("reference index: %w", err)
	}
	cols := make([]int, 3)
	for i, c := range []string{"name", "title", "source"} {
		j, ok := t.Column(c)
		if !ok {
			return nil, fmt.Errorf("reference index: no column %q", c)
		}
		cols[i] = j
	}
	idx := map[string]referenceInfo{}
	for _, row := range t.Rows {
		name := strings.Trim(FormatCell(row[cols[0]]), "`")
		if _, dup := idx[name]; dup {
			return nil, fmt.Errorf("reference index: %q listed twice", name)
		}
		idx[name] = referenceInfo{title: FormatCell(row[cols[1]]), source: FormatCell(row[cols[2]])}
	}
	return idx, nil
}

// Reference loads one of the papers' tables, named as ReferenceNames lists
// it ("bugaboo/table5"). Numeric cells are float64; cells the paper prints as
// text ("Yes", "—", "n/a") are strings. The table's Name is the name with
// "/" replaced by "-" ("bugaboo-table5"), its Title is the paper's table
// title and its one note cites the paper it was transcribed from;
// results/reference/README.md records every transcription decision.
func Reference(name string) (*Table, error) {
	file := "reference/" + name + ".csv"
	if name == "" || path.Clean(name) != name || strings.Count(name, "/") != 1 {
		return nil, fmt.Errorf("reference table %q: want PAPER/TABLE, one of %s", name, strings.Join(ReferenceNames(), ", "))
	}
	raw, err := referenceFS.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reference table %q: no such table; have %s", name, strings.Join(ReferenceNames(), ", "))
	}
	t, err := ReadCSV(strings.ReplaceAll(name, "/", "-"), bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("reference table %q: %w", name, err)
	}
	idx, err := referenceIndex()
	if err != nil {
		return nil, err
	}
	info, ok := idx[name]
	if !ok {
		return nil, fmt.Errorf("reference table %q: not listed in reference/README.md", name)
	}
	t.Title = info.title
	t.Notes = []string{"Paper values from " + info.source + " (transcription notes: results/reference/README.md)."}
	return t, nil
}

// SideBySide joins a reproduced table with the paper's on column key and,
// for each col, gives "<col> (weft)", "<col> (paper)" and "<col> ratio"
// (weft ÷ paper). Rows follow the paper's order; rows only ours has come
// after, and a missing side is an empty cell. Keys match on their printed
// form (FormatCell), so 4 matches "4". A ratio is empty unless both values
// are finite numbers and the paper's is not zero. With no cols, every column
// of paper other than key that ours also has is compared. A missing column
// or a key that occurs twice in one table is an error.
func SideBySide(ours, paper *Table, key string, cols ...string) (*Table, error) {
	fail := func(format string, args ...any) (*Table, error) {
		return nil, fmt.Errorf("side by side %q and %q: %s", ours.Name, paper.Name, fmt.Sprintf(format, args...))
	}
	if len(cols) == 0 {
		for _, c := range paper.Columns {
			if _, ok := ours.Column(c); ok && c != key {
				cols = append(cols, c)
			}
		}
		if len(cols) == 0 {
			return fail("no columns in common besides %q", key)
		}
	}
	type side struct {
		t    *Table
		who  string
		rows [][]any
		key  int
		cols []int
		at   map[string]int
	}
	sides := [2]*side{{t: ours, who: "weft"}, {t: paper, who: "paper"}}
	for _, s := range sides {
		var err error
		if s.rows, err = s.t.normRows(); err != nil {
			return nil, fmt.Errorf("side by side: %w", err)
		}
		var ok bool
		if s.key, ok = s.t.Column(key); !ok {
			return fail("%s table %q has no key column %q", s.who, s.t.Name, key)
		}
		for _, c := range cols {
			j, ok := s.t.Column(c)
			if !ok {
				return fail("%s table %q has no column %q", s.who, s.t.Name, c)
			}
			s.cols = append(s.cols, j)
		}
		s.at = map[string]int{}
		for r, row := range s.rows {
			k := FormatCell(row[s.key])
			if prev, dup := s.at[k]; dup {
				return fail("%s table %q has key %s=%q in rows %d and %d", s.who, s.t.Name, key, k, prev+1, r+1)
			}
			s.at[k] = r
		}
	}
	we, pa := sides[0], sides[1]

	columns := []string{key}
	for _, c := range cols {
		columns = append(columns, c+" (weft)", c+" (paper)", c+" ratio")
	}
	out := NewTable(ours.Name+"-vs-paper", ours.title()+" beside "+paper.title(), columns...)
	addRow := func(keyCell any) {
		k := FormatCell(keyCell)
		row := []any{keyCell}
		var w, p []any
		if r, ok := we.at[k]; ok {
			w = we.rows[r]
		}
		if r, ok := pa.at[k]; ok {
			p = pa.rows[r]
		}
		for i := range cols {
			var wv, pv any = "", ""
			if w != nil {
				wv = w[we.cols[i]]
			}
			if p != nil {
				pv = p[pa.cols[i]]
			}
			row = append(row, wv, pv, ratioCell(wv, pv))
		}
		out.Rows = append(out.Rows, row)
	}
	for _, row := range pa.rows {
		addRow(row[pa.key])
	}
	for _, row := range we.rows {
		if _, ok := pa.at[FormatCell(row[we.key])]; !ok {
			addRow(row[we.key])
		}
	}
	out.Notes = append([]string{"ratio = weft ÷ paper; empty where a value is missing or not a number, or the paper's is 0."}, paper.Notes...)
	return out, nil
}
