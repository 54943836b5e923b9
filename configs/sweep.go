package configs

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"weft/internal/suggest"
)

// A sweep file is TOML (DESIGN.md §7):
//
//	name = "cores"                 # names the sweep (the file's name without extension when not given)
//	base = "default"               # preset name or config file (relative to the sweep file)
//	runs = 5                       # runs per point: seeds seed .. seed+runs-1
//	seed = 1
//	out  = "weft-out/sweep-cores"  # output directory (relative to the working directory; weft-out/sweep-NAME when not given)
//	set  = ["sim.jitter_cycles=4"] # fixed overrides, applied to base in order
//
//	[[axis]]
//	key    = "machine.cores"
//	values = [2, 4, 8, 16]
//
//	[[workload]]
//	name   = "fft"
//	params = { phases = 2 }        # optional: synthetic-profile generator parameters
//
// Its points are the cross product of the axes' values and the workloads.

// Sweep is a parsed sweep file: a base config, axes to vary, workloads to run
// at every point, runs per point and a base seed.
type Sweep struct {
	// File is the file the sweep was read from; a relative Base is resolved
	// against its directory, and errors name it.
	File string
	// Name names the sweep in reports and its default output directory,
	// weft-out/sweep-NAME (the file's name without extension when not
	// given). It holds no path separator.
	Name string
	// Base is the base config: a preset name or a config file ("default"
	// when the file does not say).
	Base string
	// Runs is the number of runs of every point (≥ 1; 1 when not given).
	Runs int
	// Seed is the first seed: run r of a point uses seed Seed+r (1 when not
	// given). It is also the sim.seed of every point's config.
	Seed uint64
	// Out is the output directory, relative to the working directory (""
	// when not given; `weft sweep --out` overrides it).
	Out string
	// Set lists fixed "key=value" overrides applied to the base in order.
	Set []string
	// Axes are the varied keys, in file order.
	Axes []Axis
	// Workloads are run at every combination of axis values, in file order.
	Workloads []SweepWorkload
	// Detectors names the software detectors attached to every run, in
	// file order (`weft list --detectors`); sim checks the names.
	Detectors []string
	// DetectorsLine is the line of the detectors key in File (0 if unknown).
	DetectorsLine int
}

// Axis is one varied config key and the values it takes.
type Axis struct {
	// Key is a dotted config key (see Keys).
	Key string
	// Values are TOML scalars: int64, float64, string or bool.
	Values []any
	// Line is the line of the axis's values in File (0 if unknown).
	Line int
}

// Numeric reports whether every value of the axis is a number.
func (a Axis) Numeric() bool {
	for _, v := range a.Values {
		switch v.(type) {
		case int64, float64:
		default:
			return false
		}
	}
	return len(a.Values) > 0
}

// SweepWorkload is one workload of a sweep: a registry name and, for a
// synthetic profile, generator parameters.
type SweepWorkload struct {
	// Name is a registry workload (a kernel or a profile).
	Name string
	// Params overrides the profile generator's parameters by snake_case
	// name (nil when none); values are int64, float64 or bool.
	Params map[string]any
	// Line is the line of the workload's name in File (0 if unknown).
	Line int
}

// Label names the workload in results: its name, followed by its
// parameters in key order when it has any ("fft(phases=2,slots=8)").
func (w SweepWorkload) Label() string {
	if len(w.Params) == 0 {
		return w.Name
	}
	keys := slices.Sorted(maps.Keys(w.Params))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + FormatValue(w.Params[k])
	}
	return w.Name + "(" + strings.Join(parts, ",") + ")"
}

// SweepError is a problem with a sweep file, located by file, line and the
// key, axis or workload it concerns.
type SweepError struct {
	// File is the sweep file.
	File string
	// Line is the 1-based line in File (0 if unknown).
	Line int
	// Where is the key, axis or workload concerned, e.g.
	// `axis "machine.cores" value 100` ("" if none).
	Where string
	// Err says what is wrong.
	Err error
}

// Error formats e as "sweep file:line: where: problem".
func (e *SweepError) Error() string {
	var b strings.Builder
	b.WriteString("sweep " + e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Where != "" {
		b.WriteString(e.Where + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns the underlying problem.
func (e *SweepError) Unwrap() error { return e.Err }

// LoadSweep reads and parses the sweep file at path (see ParseSweep).
func LoadSweep(path string) (Sweep, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Sweep{}, fmt.Errorf("read sweep: %w", err)
	}
	return ParseSweep(path, data)
}

// ParseSweep parses the sweep file data read from file. It checks
// everything that does not depend on the base config: TOML syntax, unknown
// keys, types, that every axis key is a config key (Keys) and that every
// value sets it (Config.Set), the set overrides, runs, seed and workload
// names being present and distinct. Errors are *SweepError naming the file,
// line and key or axis. Points checks each point's config against the base.
func ParseSweep(file string, data []byte) (Sweep, error) {
	text := string(data)
	var m map[string]any
	md, err := toml.Decode(text, &m)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line, key, msg := syntaxProblem(text, pe)
			return Sweep{}, &SweepError{File: file, Line: line, Where: key, Err: errors.New(msg)}
		}
		return Sweep{}, &SweepError{File: file, Err: fmt.Errorf("invalid TOML: %w", err)}
	}
	p := &sweepParser{file: file, loc: locator{lines: strings.Split(text, "\n")}}
	s := Sweep{File: file, Base: "default", Runs: 1, Seed: 1,
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
				return Sweep{}, p.errf(line, "base", "want a preset name or a config file, found %s", describe(v))
			}
			s.Base = str
		case "runs":
			n, ok := v.(int64)
			if !ok || n < 1 || n > math.MaxInt32 {
				return Sweep{}, p.errf(line, "runs", "want an integer from 1 to %d (runs per point), found %s", math.MaxInt32, describe(v))
			}
			s.Runs = int(n)
		case "seed":
			n, ok := v.(int64)
			if !ok || n < 0 {
				return Sweep{}, p.errf(line, "seed", "want a non-negative integer, found %s", describe(v))
			}
			s.Seed = uint64(n)
		case "out":
			str, ok := v.(string)
			if !ok || str == "" {
				return Sweep{}, p.errf(line, "out", "want a directory, found %s", describe(v))
			}
			s.Out = str
		case "name":
			str, ok := v.(string)
			if !ok || str == "" || strings.ContainsAny(str, `/\`) {
				return Sweep{}, p.errf(line, "name", "want a name without / or \\ (it names the output directory weft-out/sweep-NAME), found %s", describe(v))
			}
			s.Name = str
		case "set":
			sets, err := p.sets(line, v)
			if err != nil {
				return Sweep{}, err
			}
			s.Set = sets
		case "axis":
			axes, err := p.axes(line, v)
			if err != nil {
				return Sweep{}, err
			}
			s.Axes = axes
		case "workload":
			ws, err := p.workloads(line, v)
			if err != nil {
				return Sweep{}, err
			}
			s.Workloads = ws
		case "detectors":
			ds, err := p.detectors(line, v)
			if err != nil {
				return Sweep{}, err
			}
			s.Detectors, s.DetectorsLine = ds, line
		default:
			msg := "unknown key (sweep keys: name, base, runs, seed, out, set, detectors, [[axis]], [[workload]])"
			if near := suggest.Closest(name, sweepKeys); len(near) > 0 {
				msg = "unknown key; did you mean " + sweepKeyText(near[0]) + "?"
			}
			return Sweep{}, &SweepError{File: file, Line: line, Where: name, Err: errors.New(msg)}
		}
	}
	if len(s.Workloads) == 0 {
		return Sweep{}, p.errf(0, "workload", "no workloads: add at least one [[workload]] with a name")
	}
	if s.Seed > math.MaxInt64-uint64(s.Runs) {
		return Sweep{}, p.errf(p.loc.find("", 0, "seed"), "seed", "seed + runs must stay below 2^63")
	}
	return s, nil
}

// sweepKeys are the top-level keys of a sweep file.
var sweepKeys = []string{"name", "base", "runs", "seed", "out", "set", "detectors", "axis", "workload"}

// detectors checks the detectors key: an array of distinct, non-empty
// names.
func (p *sweepParser) detectors(line int, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, p.errf(line, "detectors", "want a non-empty array of detector names (weft list --detectors), found %s", describe(v))
	}
	out := make([]string, len(list))
	for i, e := range list {
		name, ok := e.(string)
		if !ok || name == "" || strings.ContainsAny(name, ", \t") {
			return nil, p.errf(line, "detectors", "entry %d: want one detector name (no spaces or commas), found %s", i, describe(e))
		}
		if slices.Contains(out[:i], name) {
			return nil, p.errf(line, "detectors", "detector %q named twice", name)
		}
		out[i] = name
	}
	return out, nil
}

// sweepKeyText writes a top-level sweep key as a file writes it: the
// arrays of tables in double brackets.
func sweepKeyText(key string) string {
	if key == "axis" || key == "workload" {
		return "[[" + key + "]]"
	}
	return key
}

// sweepParser holds what the checks of one sweep file need to report.
type sweepParser struct {
	file string
	loc  locator
}

// errf returns a *SweepError at line about where.
func (p *sweepParser) errf(line int, where, format string, args ...any) error {
	return &SweepError{File: p.file, Line: line, Where: where, Err: fmt.Errorf(format, args...)}
}

// tables returns v as an array of tables, or an error about key.
func (p *sweepParser) tables(line int, key string, v any) ([]map[string]any, error) {
	switch t := v.(type) {
	case []map[string]any:
		return t, nil
	case []any:
		out := make([]map[string]any, len(t))
		for i, e := range t {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, p.errf(line, key, "want an array of tables ([[%s]]), found %s in it", key, describe(e))
			}
			out[i] = m
		}
		return out, nil
	}
	return nil, p.errf(line, key, "want an array of tables ([[%s]]), found %s", key, describe(v))
}

// orderedKeys lists the keys of table number index of the array table
// table, in file order as far as the locator knows it.
func (p *sweepParser) orderedKeys(table string, index int, m map[string]any) []string {
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
func (p *sweepParser) sets(line int, v any) ([]string, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, p.errf(line, "set", "want an array of \"key=value\" strings, found %s", describe(v))
	}
	var sets []string
	for i, e := range arr {
		str, ok := e.(string)
		if !ok {
			return nil, p.errf(line, fmt.Sprintf("set[%d]", i), "want a \"key=value\" string, found %s", describe(e))
		}
		c := Default()
		if err := c.Set(str); err != nil {
			return nil, &SweepError{File: p.file, Line: line, Where: fmt.Sprintf("set[%d] %q", i, str), Err: trimSet(err, str)}
		}
		if k, _, _ := strings.Cut(str, "="); strings.TrimSpace(k) == "sim.seed" {
			return nil, p.errf(line, fmt.Sprintf("set[%d] %q", i, str), "use the sweep's seed key: run r of a point uses seed+r")
		}
		sets = append(sets, str)
	}
	return sets, nil
}

// axes checks the [[axis]] tables.
func (p *sweepParser) axes(line int, v any) ([]Axis, error) {
	ts, err := p.tables(line, "axis", v)
	if err != nil {
		return nil, err
	}
	keys := Keys()
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
			return nil, p.errf(at("key"), where, "key: want a config key, found %s", describe(t["key"]))
		}
		where = fmt.Sprintf("axis %q", key)
		if !slices.Contains(keys, key) {
			_, _, table := lookup(reflect.ValueOf(Default()), key)
			return nil, p.errf(at("key"), where, "not a config key: %s", keyMsg(reflect.TypeFor[Config](), key, table))
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
			return nil, p.errf(at("values"), where, "values: want a non-empty array, found %s", describe(raw))
		}
		ax := Axis{Key: key, Line: at("values")}
		seenVal := map[string]bool{}
		for _, val := range vals {
			text, ok := scalarText(val)
			if !ok {
				return nil, p.errf(ax.Line, where, "values: want numbers, strings or booleans, found %s", describe(val))
			}
			vwhere := fmt.Sprintf("axis %q value %s", key, text)
			if seenVal[text] {
				return nil, p.errf(ax.Line, vwhere, "repeated value")
			}
			seenVal[text] = true
			c := Default()
			assignment := key + "=" + text
			if err := c.Set(assignment); err != nil {
				return nil, &SweepError{File: p.file, Line: ax.Line, Where: vwhere, Err: trimSet(err, assignment)}
			}
			ax.Values = append(ax.Values, val)
		}
		axes = append(axes, ax)
	}
	return axes, nil
}

// workloads checks the [[workload]] tables.
func (p *sweepParser) workloads(line int, v any) ([]SweepWorkload, error) {
	ts, err := p.tables(line, "workload", v)
	if err != nil {
		return nil, err
	}
	var ws []SweepWorkload
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
			return nil, p.errf(at("name"), where, "name: want a workload name, found %s", describe(t["name"]))
		}
		w := SweepWorkload{Name: name, Line: at("name")}
		where = fmt.Sprintf("workload %q", name)
		if raw, has := t["params"]; has {
			pm, ok := raw.(map[string]any)
			if !ok {
				return nil, p.errf(at("params"), where, "params: want a table, found %s", describe(raw))
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
						return nil, p.errf(p.paramLine(i, k, at("params")), where, "params.%s: want a finite number, found %s", k, describe(pv))
					}
					w.Params[k] = pv
				default:
					return nil, p.errf(p.paramLine(i, k, at("params")), where, "params.%s: want a number or boolean, found %s", k, describe(pv))
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
func (p *sweepParser) paramLine(i int, k string, fallback int) int {
	if l := p.loc.find("workload.params", i, k); l > 0 {
		return l
	}
	return fallback
}

// trimSet drops Config.Set's leading `set "assignment": ` from err, since
// the caller names the assignment itself.
func trimSet(err error, assignment string) error {
	var ce *Error
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
		return FormatValue(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return FormatValue(x), true
	}
	return "", false
}

// FormatValue writes a sweep value (int64, float64, string or bool, or any
// other Go integer) as a TOML value: 4, 0.5, 2.0, "name", true.
func FormatValue(v any) string {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !scalarKind(rv.Kind()) {
		return fmt.Sprint(v)
	}
	return formatValue(rv)
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

// TOML returns the sweep in canonical form: every key it sets (out, base
// and set only when not empty), axes and workloads in order, parameters
// sorted, no comments. ParseSweep reads it back to an equal Sweep (but for
// File and lines).
func (s Sweep) TOML() string {
	var b strings.Builder
	if s.Name != "" {
		fmt.Fprintf(&b, "name = %s\n", quote(s.Name))
	}
	if s.Base != "" {
		fmt.Fprintf(&b, "base = %s\n", quote(s.Base))
	}
	fmt.Fprintf(&b, "runs = %d\nseed = %d\n", s.Runs, s.Seed)
	if s.Out != "" {
		fmt.Fprintf(&b, "out = %s\n", quote(s.Out))
	}
	if len(s.Set) > 0 {
		q := make([]string, len(s.Set))
		for i, v := range s.Set {
			q[i] = quote(v)
		}
		fmt.Fprintf(&b, "set = [%s]\n", strings.Join(q, ", "))
	}
	if len(s.Detectors) > 0 {
		q := make([]string, len(s.Detectors))
		for i, v := range s.Detectors {
			q[i] = quote(v)
		}
		fmt.Fprintf(&b, "detectors = [%s]\n", strings.Join(q, ", "))
	}
	for _, a := range s.Axes {
		vals := make([]string, len(a.Values))
		for i, v := range a.Values {
			vals[i] = FormatValue(v)
		}
		fmt.Fprintf(&b, "\n[[axis]]\nkey = %s\nvalues = [%s]\n", quote(a.Key), strings.Join(vals, ", "))
	}
	for _, w := range s.Workloads {
		fmt.Fprintf(&b, "\n[[workload]]\nname = %s\n", quote(w.Name))
		if len(w.Params) > 0 {
			keys := slices.Sorted(maps.Keys(w.Params))
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = tomlKey(k) + " = " + FormatValue(w.Params[k])
			}
			fmt.Fprintf(&b, "params = { %s }\n", strings.Join(parts, ", "))
		}
	}
	return b.String()
}

// tomlKey writes k as a TOML key: bare when it can be, else quoted.
func tomlKey(k string) string {
	if k != "" && strings.Trim(k, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == "" {
		return k
	}
	return quote(k)
}

// BaseConfig loads the sweep's base config (a preset, or a file relative to
// the sweep file's directory), applies Set in order, sets sim.seed to Seed
// and validates the result.
func (s Sweep) BaseConfig() (Config, error) {
	name := s.Base
	if name == "" {
		name = "default"
	}
	if !isPreset(name) && !filepath.IsAbs(name) {
		name = filepath.Join(filepath.Dir(s.File), name)
	}
	c, err := Load(name)
	if err != nil {
		return Config{}, &SweepError{File: s.File, Where: fmt.Sprintf("base %q", s.Base), Err: err}
	}
	for i, set := range s.Set {
		if err := c.Set(set); err != nil {
			return Config{}, &SweepError{File: s.File, Where: fmt.Sprintf("set[%d] %q", i, set), Err: trimSet(err, set)}
		}
	}
	c.Sim.Seed = s.Seed
	if err := c.Validate(); err != nil {
		where := fmt.Sprintf("base %q", s.Base)
		if len(s.Set) > 0 {
			where += " with set " + strings.Join(s.Set, ", ")
		}
		return Config{}, &SweepError{File: s.File, Where: where, Err: err}
	}
	return c, nil
}

// isPreset reports whether name is an embedded preset.
func isPreset(name string) bool { return slices.Contains(PresetNames(), name) }

// Hash identifies the sweep run on the resolved base config base (from
// BaseConfig): the first 16 hex digits of the SHA-256 of its canonical form
// without name, base, out and set, followed by base's TOML. Two sweeps with equal
// hashes run the same points with the same seeds, wherever their files
// live and whatever their output directories.
func (s Sweep) Hash(base Config) string {
	c := s
	c.Name, c.Base, c.Out, c.Set = "", "", "", nil
	sum := sha256.Sum256([]byte(c.TOML() + "\n# base config\n" + base.TOML()))
	return hex.EncodeToString(sum[:])[:16]
}

// NumPoints is the number of points: the product of the axes' value
// counts times the number of workloads.
func (s Sweep) NumPoints() int {
	n := len(s.Workloads)
	for _, a := range s.Axes {
		n *= len(a.Values)
	}
	return n
}

// Point is one point of a sweep: a value of every axis and a workload.
type Point struct {
	// Index is the point's number, from 0, in expansion order.
	Index int
	// Values holds a value of every axis: Values[i] belongs to Axes[i].
	Values []any
	// Workload is an index into Sweep.Workloads.
	Workload int
	// Config is the base config with every axis value set.
	Config Config
}

// Points expands the sweep on the resolved base config base (from
// BaseConfig) and validates every point's config. The order is fixed: the
// first axis varies slowest, then each later axis, and the workload
// fastest, so point p of a sweep with workloads W has workload p % len(W).
// An invalid point is a *SweepError naming the axis and value (and the
// other axes' values when there are several), e.g.
// `sweep cores.toml:6: axis "machine.cores" value 100: machine.cores: must be from 1 to 64, got 100`.
func (s Sweep) Points(base Config) ([]Point, error) {
	if len(s.Workloads) == 0 {
		return nil, &SweepError{File: s.File, Where: "workload", Err: errors.New("no workloads")}
	}
	combos := 1
	for _, a := range s.Axes {
		combos *= len(a.Values)
	}
	points := make([]Point, 0, combos*len(s.Workloads))
	var errs []error
	seen := map[string]bool{}
	idx := make([]int, len(s.Axes))
	for c := 0; c < combos; c++ {
		rem := c
		for i := len(s.Axes) - 1; i >= 0; i-- {
			idx[i] = rem % len(s.Axes[i].Values)
			rem /= len(s.Axes[i].Values)
		}
		values := make([]any, len(s.Axes))
		cfg := base
		var bad error
		for i, a := range s.Axes {
			values[i] = a.Values[idx[i]]
			assignment := a.Key + "=" + FormatValue(values[i])
			if err := cfg.Set(assignment); err != nil && bad == nil {
				bad = s.pointError(i, values, trimSet(err, assignment))
			}
		}
		if bad == nil {
			if err := cfg.Validate(); err != nil {
				bad = s.pointError(s.blame(err), values, err)
			}
		}
		if bad != nil {
			if msg := bad.Error(); !seen[msg] {
				seen[msg] = true
				errs = append(errs, bad)
			}
			continue
		}
		for w := range s.Workloads {
			points = append(points, Point{Index: c*len(s.Workloads) + w, Values: values, Workload: w, Config: cfg})
		}
	}
	if len(errs) > 0 {
		const most = 10
		if len(errs) > most {
			errs = append(errs[:most], fmt.Errorf("sweep %s: … and %d more invalid points", s.File, len(errs)-most))
		}
		return nil, errors.Join(errs...)
	}
	return points, nil
}

// blame returns the axis whose key a validation error names, or -1.
func (s Sweep) blame(err error) int {
	var ce *Error
	if errors.As(err, &ce) {
		for i, a := range s.Axes {
			if a.Key == ce.Key {
				return i
			}
		}
	}
	return -1
}

// pointError locates the problem err of the point with the given axis
// values, blaming axis (or the whole point when axis is -1).
func (s Sweep) pointError(axis int, values []any, err error) error {
	var others []string
	for i, a := range s.Axes {
		if i != axis {
			others = append(others, a.Key+"="+FormatValue(values[i]))
		}
	}
	if axis < 0 {
		line := 0
		if len(s.Axes) > 0 {
			line = s.Axes[0].Line
		}
		return &SweepError{File: s.File, Line: line, Where: "point (" + strings.Join(others, ", ") + ")", Err: err}
	}
	where := fmt.Sprintf("axis %q value %s", s.Axes[axis].Key, FormatValue(values[axis]))
	if len(others) > 0 {
		where += " (with " + strings.Join(others, ", ") + ")"
	}
	return &SweepError{File: s.File, Line: s.Axes[axis].Line, Where: where, Err: err}
}
