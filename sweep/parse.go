package sweep

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"weft/configs"
	"weft/internal/suggest"
	"weft/sim"
)

// LoadSpec reads and parses the sweep file at path (see ParseSpec).
func LoadSpec(path string) (Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Spec{}, fmt.Errorf("read sweep: %w", err)
	}
	return ParseSpec(path, data)
}

// ParseSpec parses the sweep file data read from file. It checks
// everything that does not depend on the base config: TOML syntax, unknown
// keys, types, that every axis key is a config key (configs.Keys) and that
// every value sets it (configs.Config.Set), the set overrides, runs, seed
// and workload names being present and distinct. Errors are *Error naming
// the file, line and key or axis. PointConfigs checks each point's config
// against the base, and NewPlan everything else.
func ParseSpec(file string, data []byte) (Spec, error) {
	text := string(data)
	var m map[string]any
	md, err := toml.Decode(text, &m)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line, key, msg := configs.SyntaxProblem(text, pe)
			return Spec{}, &Error{File: file, Line: line, Where: key, Err: errors.New(msg)}
		}
		return Spec{}, &Error{File: file, Err: fmt.Errorf("invalid TOML: %w", err)}
	}
	p := &parser{file: file, loc: locator{lines: strings.Split(text, "\n")}}
	s := Spec{File: file, Base: "default", Runs: 1, Seed: 1,
		Name: strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))}

	// Top-level keys in document order, so the first error is the first in
	// the file.
	var top []string
	seen := map[string]bool{}
	for _, k := range md.Keys() {
		if name := k[0]; !seen[name] {
			seen[name] = true
			top = append(top, name)
		}
	}
	for _, name := range top {
		v := m[name]
		line := p.loc.find("", 0, name)
		switch name {
		case "base":
			str, ok := v.(string)
			if !ok || str == "" {
				return Spec{}, p.errf(line, "base", "want a preset name or a config file, found %s", configs.Describe(v))
			}
			s.Base = str
		case "runs":
			n, ok := v.(int64)
			if !ok || n < 1 || n > sim.MaxRuns {
				return Spec{}, p.errf(line, "runs", "want an integer from 1 to %d (runs per point, as weft run --runs), found %s", sim.MaxRuns, configs.Describe(v))
			}
			s.Runs = int(n)
		case "seed":
			n, ok := v.(int64)
			if !ok || n < 0 {
				return Spec{}, p.errf(line, "seed", "want a non-negative integer, found %s", configs.Describe(v))
			}
			s.Seed = uint64(n)
		case "out":
			str, ok := v.(string)
			if !ok || str == "" {
				return Spec{}, p.errf(line, "out", "want a directory, found %s", configs.Describe(v))
			}
			s.Out = str
		case "name":
			str, ok := v.(string)
			if !ok || str == "" || strings.ContainsAny(str, `/\`) {
				return Spec{}, p.errf(line, "name", "want a name without / or \\ (it names the output directory weft-out/sweep-NAME), found %s", configs.Describe(v))
			}
			s.Name = str
		case "set":
			sets, err := p.sets(line, v)
			if err != nil {
				return Spec{}, err
			}
			s.Set = sets
		case "axis":
			axes, err := p.axes(line, v)
			if err != nil {
				return Spec{}, err
			}
			s.Axes = axes
		case "workload":
			ws, err := p.workloads(line, v)
			if err != nil {
				return Spec{}, err
			}
			s.Workloads = ws
		case "detectors":
			ds, err := p.detectors(line, v)
			if err != nil {
				return Spec{}, err
			}
			s.Detectors, s.DetectorsLine = ds, line
		default:
			msg := "unknown key (sweep keys: name, base, runs, seed, out, set, detectors, [[axis]], [[workload]])"
			if near := suggest.Closest(name, specKeys); len(near) > 0 {
				msg = "unknown key; did you mean " + keyText(near[0]) + "?"
			}
			return Spec{}, &Error{File: file, Line: line, Where: name, Err: errors.New(msg)}
		}
	}
	if len(s.Workloads) == 0 {
		return Spec{}, p.errf(0, "workload", "no workloads: add at least one [[workload]] with a name")
	}
	if s.Seed > math.MaxInt64-uint64(s.Runs) {
		return Spec{}, p.errf(p.loc.find("", 0, "seed"), "seed", "seed + runs must stay below 2^63")
	}
	return s, nil
}

// specKeys are the top-level keys of a sweep file.
var specKeys = []string{"name", "base", "runs", "seed", "out", "set", "detectors", "axis", "workload"}

// detectors checks the detectors key: an array of distinct, non-empty
// names.
func (p *parser) detectors(line int, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, p.errf(line, "detectors", "want a non-empty array of detector names (weft list --detectors), found %s", configs.Describe(v))
	}
	out := make([]string, len(list))
	for i, e := range list {
		name, ok := e.(string)
		if !ok || name == "" || strings.ContainsAny(name, ", \t") {
			return nil, p.errf(line, "detectors", "entry %d: want one detector name (no spaces or commas), found %s", i, configs.Describe(e))
		}
		if slices.Contains(out[:i], name) {
			return nil, p.errf(line, "detectors", "detector %q named twice", name)
		}
		out[i] = name
	}
	return out, nil
}

// keyText writes a top-level sweep key as a file writes it: the
// arrays of tables in double brackets.
func keyText(key string) string {
	if key == "axis" || key == "workload" {
		return "[[" + key + "]]"
	}
	return key
}

// parser holds what the checks of one sweep file need to report.
type parser struct {
	file string
	loc  locator
}

// errf returns a *Error at line about where.
func (p *parser) errf(line int, where, format string, args ...any) error {
	return &Error{File: p.file, Line: line, Where: where, Err: fmt.Errorf(format, args...)}
}

// tables returns v as an array of tables, or an error about key.
func (p *parser) tables(line int, key string, v any) ([]map[string]any, error) {
	switch t := v.(type) {
	case []map[string]any:
		return t, nil
	case []any:
		out := make([]map[string]any, len(t))
		for i, e := range t {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, p.errf(line, key, "want an array of tables ([[%s]]), found %s in it", key, configs.Describe(e))
			}
			out[i] = m
		}
		return out, nil
	}
	return nil, p.errf(line, key, "want an array of tables ([[%s]]), found %s", key, configs.Describe(v))
}

// orderedKeys lists the keys of table number index of the array table
// table, in file order as far as the locator knows it.
func (p *parser) orderedKeys(table string, index int, m map[string]any) []string {
	keys := slices.Sorted(maps.Keys(m))
	slices.SortStableFunc(keys, func(a, b string) int {
		la, lb := p.loc.find(table, index, a), p.loc.find(table, index, b)
		if la == 0 || lb == 0 {
			return 0
		}
		return la - lb
	})
	return keys
}

// sets checks the set overrides: strings that apply to the default config.
func (p *parser) sets(line int, v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, p.errf(line, "set", "want an array of \"key=value\" strings, found %s", configs.Describe(v))
	}
	var sets []string
	for i, e := range arr {
		str, ok := e.(string)
		if !ok {
			return nil, p.errf(line, fmt.Sprintf("set[%d]", i), "want a \"key=value\" string, found %s", configs.Describe(e))
		}
		c := configs.Default()
		if err := c.Set(str); err != nil {
			return nil, &Error{File: p.file, Line: line, Where: fmt.Sprintf("set[%d] %q", i, str), Err: trimSet(err, str)}
		}
		if k, _, _ := strings.Cut(str, "="); strings.TrimSpace(k) == "sim.seed" {
			return nil, p.errf(line, fmt.Sprintf("set[%d] %q", i, str), "use the sweep's seed key: run r of a point uses seed+r")
		}
		sets = append(sets, str)
	}
	return sets, nil
}

// axes checks the [[axis]] tables.
func (p *parser) axes(line int, v any) ([]Axis, error) {
	ts, err := p.tables(line, "axis", v)
	if err != nil {
		return nil, err
	}
	keys := configs.Keys()
	var axes []Axis
	for i, t := range ts {
		head := p.loc.find("axis", i, "")
		if head == 0 {
			head = line
		}
		at := func(k string) int {
			if l := p.loc.find("axis", i, k); l > 0 {
				return l
			}
			return head
		}
		where := fmt.Sprintf("axis %d", i+1)
		for _, k := range p.orderedKeys("axis", i, t) {
			if k != "key" && k != "values" {
				return nil, p.errf(at(k), where, "unknown key %q (an axis has key and values)", k)
			}
		}
		key, ok := t["key"].(string)
		if !ok {
			if _, has := t["key"]; !has {
				return nil, p.errf(head, where, "missing key: name the config key to vary, e.g. key = \"machine.cores\"")
			}
			return nil, p.errf(at("key"), where, "key: want a config key, found %s", configs.Describe(t["key"]))
		}
		where = fmt.Sprintf("axis %q", key)
		if !slices.Contains(keys, key) {
			return nil, p.errf(at("key"), where, "not a config key: %s", keyProblem(key))
		}
		if key == "sim.seed" {
			return nil, p.errf(at("key"), where, "seeds are not an axis: the sweep's seed and runs choose them")
		}
		for _, prev := range axes {
			if prev.Key == key {
				return nil, p.errf(at("key"), where, "the key is already an axis (line %d)", prev.Line)
			}
		}
		raw, has := t["values"]
		if !has {
			return nil, p.errf(head, where, "missing values, e.g. values = [2, 4, 8]")
		}
		vals, ok := raw.([]any)
		if !ok || len(vals) == 0 {
			return nil, p.errf(at("values"), where, "values: want a non-empty array, found %s", configs.Describe(raw))
		}
		ax := Axis{Key: key, Line: at("values")}
		seenVal := map[string]bool{}
		for _, val := range vals {
			text, ok := scalarText(val)
			if !ok {
				return nil, p.errf(ax.Line, where, "values: want numbers, strings or booleans, found %s", configs.Describe(val))
			}
			vwhere := fmt.Sprintf("axis %q value %s", key, text)
			if seenVal[text] {
				return nil, p.errf(ax.Line, vwhere, "repeated value")
			}
			seenVal[text] = true
			c := configs.Default()
			assignment := key + "=" + text
			if err := c.Set(assignment); err != nil {
				return nil, &Error{File: p.file, Line: ax.Line, Where: vwhere, Err: trimSet(err, assignment)}
			}
			ax.Values = append(ax.Values, val)
		}
		axes = append(axes, ax)
	}
	return axes, nil
}

// workloads checks the [[workload]] tables.
func (p *parser) workloads(line int, v any) ([]Workload, error) {
	ts, err := p.tables(line, "workload", v)
	if err != nil {
		return nil, err
	}
	var ws []Workload
	for i, t := range ts {
		head := p.loc.find("workload", i, "")
		if head == 0 {
			head = line
		}
		at := func(k string) int {
			if l := p.loc.find("workload", i, k); l > 0 {
				return l
			}
			return head
		}
		where := fmt.Sprintf("workload %d", i+1)
		for _, k := range p.orderedKeys("workload", i, t) {
			if k != "name" && k != "params" {
				return nil, p.errf(at(k), where, "unknown key %q (a workload has name and params)", k)
			}
		}
		name, ok := t["name"].(string)
		if !ok || name == "" {
			if _, has := t["name"]; !has {
				return nil, p.errf(head, where, "missing name: name a registry workload (weft list)")
			}
			return nil, p.errf(at("name"), where, "name: want a workload name, found %s", configs.Describe(t["name"]))
		}
		w := Workload{Name: name, Line: at("name")}
		where = fmt.Sprintf("workload %q", name)
		if raw, has := t["params"]; has {
			pm, ok := raw.(map[string]any)
			if !ok {
				return nil, p.errf(at("params"), where, "params: want a table, found %s", configs.Describe(raw))
			}
			if len(pm) > 0 {
				w.Params = map[string]any{}
			}
			for _, k := range slices.Sorted(maps.Keys(pm)) {
				switch pv := pm[k].(type) {
				case int64, bool:
					w.Params[k] = pv
				case float64:
					if math.IsNaN(pv) || math.IsInf(pv, 0) {
						return nil, p.errf(p.paramLine(i, k, at("params")), where, "params.%s: want a finite number, found %s", k, configs.Describe(pv))
					}
					w.Params[k] = pv
				default:
					return nil, p.errf(p.paramLine(i, k, at("params")), where, "params.%s: want a number or boolean, found %s", k, configs.Describe(pv))
				}
			}
		}
		for _, prev := range ws {
			if prev.Label() == w.Label() {
				return nil, p.errf(w.Line, where, "the same workload is listed twice (line %d)", prev.Line)
			}
		}
		ws = append(ws, w)
	}
	return ws, nil
}

// paramLine returns the line of parameter k of workload i, written in a
// [workload.params] table or, failing that, at fallback.
func (p *parser) paramLine(i int, k string, fallback int) int {
	if l := p.loc.find("workload.params", i, k); l > 0 {
		return l
	}
	return fallback
}

// keyProblem says why key, not a config value key, cannot be an axis, as
// configs.Get says it ("unknown key; did you mean …?", "is a table, …").
func keyProblem(key string) string {
	_, err := configs.Get(configs.Default(), key)
	var ce *configs.Error
	if errors.As(err, &ce) {
		return ce.Msg
	}
	return "unknown key"
}

// trimSet drops Config.Set's leading `set "assignment": ` from err, since
// the caller names the assignment itself.
func trimSet(err error, assignment string) error {
	var ce *configs.Error
	if errors.As(err, &ce) {
		return ce
	}
	return errors.New(strings.TrimPrefix(err.Error(), fmt.Sprintf("set %q: ", assignment)))
}

// scalarText returns v written as a TOML value, and whether v is a scalar a
// sweep can hold (a finite number, a string or a boolean).
func scalarText(v any) (string, bool) {
	switch x := v.(type) {
	case int64, string, bool:
		return configs.FormatValue(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return configs.FormatValue(x), true
	}
	return "", false
}

// locator finds the lines of keys in a sweep file written the usual way:
// top-level keys first, then [[axis]] and [[workload]] tables, and
// [workload.params] sub-tables. Keys inside inline tables are not found
// (find returns 0 and callers fall back to an enclosing line). Config files
// are located by the decoder instead (document.line), but the decoder keeps
// one position per dotted key, so every [[axis]] table's key shares the
// position of the last one: it cannot tell the tables of an array apart.
type locator struct{ lines []string }

// find returns the 1-based line of key in table number index of the array
// table table ("" for the top level, "workload.params" for the params of
// workload index), or the table's header line when key is "", or 0.
func (l locator) find(table string, index int, key string) int {
	cur, curIdx := "", 0
	count := map[string]int{}
	for i, raw := range l.lines {
		line := strings.TrimSpace(raw)
		if strings.HasPrefix(line, "[") {
			name, array := tableHeader(line)
			if array {
				count[name]++
				cur, curIdx = name, count[name]-1
			} else {
				root, _, _ := strings.Cut(name, ".")
				cur, curIdx = name, max(count[root]-1, 0)
			}
			if key == "" && cur == table && curIdx == index {
				return i + 1
			}
			continue
		}
		if key != "" && cur == table && curIdx == index && keyLine(line, key) {
			return i + 1
		}
	}
	return 0
}

// tableHeader returns the name in a "[name]" or "[[name]]" header line
// and whether it is an array-table header.
func tableHeader(line string) (string, bool) {
	if c := strings.IndexByte(line, '#'); c >= 0 {
		line = strings.TrimSpace(line[:c])
	}
	if strings.HasPrefix(line, "[[") {
		name := strings.TrimSuffix(strings.TrimPrefix(line, "[["), "]]")
		return strings.ReplaceAll(strings.TrimSpace(name), " ", ""), true
	}
	name := strings.TrimSuffix(strings.TrimPrefix(line, "["), "]")
	return strings.ReplaceAll(strings.TrimSpace(name), " ", ""), false
}

// keyLine reports whether line assigns key (bare or quoted).
func keyLine(line, key string) bool {
	for _, k := range []string{key, `"` + key + `"`, "'" + key + "'"} {
		if rest, ok := strings.CutPrefix(line, k); ok && strings.HasPrefix(strings.TrimSpace(rest), "=") {
			return true
		}
	}
	return false
}
