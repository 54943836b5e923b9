package configs

import (
	"cmp"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

//go:embed presets/*.toml
var presetFS embed.FS

// Error is a problem with a config, located by file, line and key as far as
// they are known.
type Error struct {
	// File is the file or preset the config came from ("" if none).
	File string
	// Line is the 1-based line in File (0 if unknown).
	Line int
	// Key is the dotted key, e.g. "cache.l1.size_bytes" ("" if none).
	Key string
	// Msg says what is wrong.
	Msg string
	// Err is the decoder's error, if any.
	Err error
}

// Error formats e as "file:line: key: message", leaving out what is unknown.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	} else if e.Line > 0 {
		b.WriteString("line " + strconv.Itoa(e.Line) + ": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Unwrap returns the decoder's error, if any.
func (e *Error) Unwrap() error { return e.Err }

// PresetNames lists the embedded presets, sorted.
func PresetNames() []string {
	entries, err := presetFS.ReadDir("presets")
	if err != nil {
		panic(fmt.Sprintf("configs: embedded presets: %v", err)) // cannot happen: embedded at build time
	}
	var names []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".toml"); ok && !e.IsDir() {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// Preset returns the validated embedded preset called name (see PresetNames).
func Preset(name string) (Config, error) {
	file := "presets/" + name + ".toml"
	data, err := presetFS.ReadFile(file)
	if err != nil || strings.ContainsAny(name, `/\`) {
		return Config{}, fmt.Errorf("unknown preset %q (presets: %s)", name, strings.Join(PresetNames(), ", "))
	}
	return parseValid(file, data)
}

// Load returns the validated config named by nameOrPath: a file if it ends in
// ".toml" or contains a path separator, otherwise a preset, otherwise a file
// of that name. A file sets only the keys it wants; the rest keep their
// defaults.
func Load(nameOrPath string) (Config, error) {
	if nameOrPath == "" {
		return Config{}, errors.New("load config: empty preset name or file path")
	}
	if !looksLikePath(nameOrPath) {
		if _, err := fs.Stat(presetFS, "presets/"+nameOrPath+".toml"); err == nil {
			return Preset(nameOrPath)
		}
		if _, err := os.Stat(nameOrPath); err != nil {
			return Config{}, fmt.Errorf("load config: %q is neither a preset (%s) nor a readable file",
				nameOrPath, strings.Join(PresetNames(), ", "))
		}
	}
	data, err := os.ReadFile(nameOrPath)
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	return parseValid(nameOrPath, data)
}

// looksLikePath reports whether s can only be a file path, not a preset name.
func looksLikePath(s string) bool {
	return strings.HasSuffix(s, ".toml") || strings.ContainsRune(s, '/') ||
		strings.ContainsRune(s, os.PathSeparator)
}

// parseValid is Parse followed by Validate, with the file, and the line of
// every key the file sets, named in every validation error.
func parseValid(file string, data []byte) (Config, error) {
	c, doc, err := parse(file, data)
	if err != nil {
		return Config{}, err
	}
	if errs := c.problems(); len(errs) > 0 {
		joined := make([]error, len(errs))
		for i, e := range errs {
			e.File, e.Line = file, doc.line(e.Key)
			joined[i] = e
		}
		return Config{}, errors.Join(joined...)
	}
	return c, nil
}

// Parse decodes the TOML document data, read from the file called name, on
// top of Default. Unknown keys, syntax errors and wrong types are errors
// (*Error) naming name, the line and the key. Parse does not range-check: call
// Validate once any overrides are applied (Load does both).
func Parse(name string, data []byte) (Config, error) {
	c, _, err := parse(name, data)
	return c, err
}

// parse is Parse, also returning the decoded document.
func parse(name string, data []byte) (Config, *document, error) {
	c := Default()
	doc, err := parseDoc(name, string(data))
	if err != nil {
		return Config{}, nil, err
	}
	if err := doc.apply(&c); err != nil {
		return Config{}, nil, err
	}
	return c, doc, nil
}

// document is a syntactically valid TOML document, not yet checked against
// the schema.
type document struct {
	file  string
	md    toml.MetaData
	top   map[string]toml.Primitive
	order map[string]int // key (or key prefix) → index of its first appearance
	root  reflect.Type   // the table type being decoded into, for suggestions
	// values holds the raw value of every value key stored by apply, by
	// dotted key, so that line can find where the document sets it.
	values map[string]toml.Primitive
}

// parseDoc parses text, reporting syntax errors with their line.
func parseDoc(file, text string) (*document, error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(text, &top)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			line, key, msg := SyntaxProblem(text, pe)
			return nil, &Error{File: file, Line: line, Key: key, Msg: msg, Err: err}
		}
		return nil, &Error{File: file, Msg: "invalid TOML: " + err.Error(), Err: err}
	}
	return &document{file: file, md: md, top: top}, nil
}

// SyntaxProblem describes a TOML syntax error in text: its line, the
// dotted key assigned on that line ("" when the line assigns none) and the
// message. An integer too large for TOML (a seed of 2^64−1) says what the
// limit is; the key names what it was for. Sweep files report their
// syntax errors with it too.
func SyntaxProblem(text string, pe toml.ParseError) (line int, key, msg string) {
	line = syntaxLine(text, pe.Position)
	msg = "invalid TOML: " + strings.ReplaceAll(pe.Message, `'\n'`, "end of line")
	if num, ok := strings.CutSuffix(pe.Message, " is out of range for int64"); ok {
		msg = fmt.Sprintf("%s is out of range: a TOML integer must be from %d to %d", num, int64(math.MinInt64), int64(math.MaxInt64))
	}
	return line, keyOnLine(text, line), msg
}

// keyOnLine returns the dotted key that line n (1-based) of text assigns,
// with the table of the last header before it as prefix ("sim.seed" for
// "seed = …" under [sim], "axis.values" under [[axis]]), or "" when the
// line is no key = value line. Quoted key parts are unquoted.
func keyOnLine(text string, n int) string {
	lines := strings.Split(text, "\n")
	if n < 1 || n > len(lines) {
		return ""
	}
	prefix := ""
	for _, raw := range lines[:n-1] {
		if l := strings.TrimSpace(raw); strings.HasPrefix(l, "[") {
			if c := strings.IndexByte(l, '#'); c >= 0 {
				l = strings.TrimSpace(l[:c])
			}
			l = strings.TrimSuffix(strings.TrimSuffix(l, "]"), "]")
			l = strings.TrimPrefix(strings.TrimPrefix(l, "["), "[")
			prefix = dottedKey(l)
		}
	}
	lhs, _, ok := strings.Cut(lines[n-1], "=")
	if !ok {
		return ""
	}
	k := dottedKey(lhs)
	if k == "" {
		return ""
	}
	if prefix != "" {
		k = prefix + "." + k
	}
	return k
}

// dottedKey normalises a TOML key (bare or quoted parts joined by dots) to
// its dotted form, or returns "" when s is not a plain key.
func dottedKey(s string) string {
	var parts []string
	for _, part := range strings.Split(s, ".") {
		part = strings.TrimSpace(part)
		if len(part) >= 2 && (part[0] == '"' || part[0] == '\'') && part[len(part)-1] == part[0] {
			part = part[1 : len(part)-1]
		} else if part == "" || strings.Trim(part, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != "" {
			return ""
		}
		parts = append(parts, part)
	}
	return strings.Join(parts, ".")
}

// syntaxLine is the line of a syntax error: the line holding the offending
// text. The decoder counts an unexpected newline as the start of the next
// line, so the line is recomputed from the byte offset when there is one.
func syntaxLine(text string, pos toml.Position) int {
	if pos.Len > 0 && pos.Start >= 0 && pos.Start < len(text) {
		return 1 + strings.Count(text[:pos.Start], "\n")
	}
	return pos.Line
}

// apply checks every key of d against the schema of *dst (a pointer to a
// config table) and stores the values. On error *dst may be partly written.
func (d *document) apply(dst any) error {
	v := reflect.ValueOf(dst).Elem()
	d.root = v.Type()
	// The walk stops at the first key deeper than the schema, so only
	// prefixes that short need an order (and a long key costs linear time).
	maxDepth := depth(d.root) + 1
	d.order = map[string]int{}
	d.values = map[string]toml.Primitive{}
	for i, k := range d.md.Keys() {
		for j := 1; j <= min(len(k), maxDepth); j++ {
			p := k[:j].String()
			if _, seen := d.order[p]; !seen {
				d.order[p] = i
			}
		}
	}
	if err := d.table(nil, d.top, v); err != nil {
		return err
	}
	// Every key was either stored or reported by the walk above; this catches
	// any the walk did not visit.
	if u := d.md.Undecoded(); len(u) > 0 {
		return &Error{File: d.file, Key: u[0].String(), Msg: "unknown key"}
	}
	return nil
}

// table stores the entries m of the table at path into the struct v, in
// document order, so the first error reported is the first in the file.
func (d *document) table(path toml.Key, m map[string]toml.Primitive, v reflect.Value) error {
	at := func(name string) string { return append(path[:len(path):len(path)], name).String() }
	names := slices.SortedFunc(maps.Keys(m), func(a, b string) int {
		return cmp.Or(cmp.Compare(d.order[at(a)], d.order[at(b)]), strings.Compare(a, b))
	})
	for _, name := range names {
		key := append(path[:len(path):len(path)], name)
		prim := m[name]
		f, ok := fieldNamed(v.Type(), name)
		if !ok {
			return d.errAt(prim, func(data any) string {
				if _, isTable := data.(map[string]any); isTable {
					return unknownMsg(d.root, key.String(), "table")
				}
				return unknownMsg(d.root, key.String(), "key")
			})
		}
		fv := v.Field(f.index)
		if fv.Kind() == reflect.Struct {
			if t := d.md.Type(key...); t != "" && t != "Hash" {
				return d.errAt(prim, func(data any) string {
					return fmt.Sprintf("wrong type: expected a table ([%s]), found %s", key, Describe(data))
				})
			}
			var sub map[string]toml.Primitive
			if err := d.md.PrimitiveDecode(prim, &sub); err != nil {
				return d.wrap(err)
			}
			if err := d.table(key, sub, fv); err != nil {
				return err
			}
			continue
		}
		val := scalar{typ: fv.Type()}
		if err := d.md.PrimitiveDecode(prim, &val); err != nil {
			return d.wrap(err)
		}
		fv.Set(val.v)
		d.values[key.String()] = prim
	}
	return nil
}

// line returns the line where d sets the value key (dotted, as in Keys),
// as the decoder knows it, or 0 when d does not set it. Values checked
// after decoding (ranges) are located this way, by the same mechanism as
// unknown keys and wrong types.
func (d *document) line(key string) int {
	prim, ok := d.values[key]
	if !ok {
		return 0
	}
	var e *Error
	if errors.As(d.errAt(prim, func(any) string { return "" }), &e) {
		return e.Line
	}
	return 0
}

// errAt reports the problem msg(value) at the key of prim, with the line the
// decoder knows for that key.
func (d *document) errAt(prim toml.Primitive, msg func(data any) string) error {
	return d.wrap(d.md.PrimitiveDecode(prim, &failer{msg: msg}))
}

// wrap turns a decoder error into an *Error naming the file, line and key.
func (d *document) wrap(err error) error {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		return &Error{File: d.file, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message, Err: err}
	}
	return &Error{File: d.file, Msg: err.Error(), Err: err}
}

// failer is a decoding target that always fails with msg(value); the decoder
// turns that into a ParseError carrying the key and its position.
type failer struct{ msg func(data any) string }

// UnmarshalTOML fails with the message for data.
func (f *failer) UnmarshalTOML(data any) error { return errors.New(f.msg(data)) }

// scalar is a decoding target for one config value of type typ. Decoding
// through it (rather than straight into the field) checks the TOML type and
// range exactly, and lets the decoder attach the key and line to any error.
type scalar struct {
	typ reflect.Type
	v   reflect.Value
}

// UnmarshalTOML converts the TOML value data to s.typ.
func (s *scalar) UnmarshalTOML(data any) error {
	v := reflect.New(s.typ).Elem()
	switch k := s.typ.Kind(); {
	case k >= reflect.Int && k <= reflect.Int64:
		n, ok := data.(int64)
		if !ok {
			return mismatch("an integer", data)
		}
		if v.OverflowInt(n) {
			return fmt.Errorf("%d is out of range for a %d-bit integer", n, s.typ.Bits())
		}
		v.SetInt(n)
	case k >= reflect.Uint && k <= reflect.Uint64:
		n, ok := data.(int64)
		if !ok {
			return mismatch("a non-negative integer", data)
		}
		if n < 0 {
			return fmt.Errorf("must not be negative, found %d", n)
		}
		if v.OverflowUint(uint64(n)) {
			return fmt.Errorf("%d is out of range for an unsigned %d-bit integer", n, s.typ.Bits())
		}
		v.SetUint(uint64(n))
	case k == reflect.Float32 || k == reflect.Float64:
		switch n := data.(type) {
		case float64:
			v.SetFloat(n)
		case int64:
			v.SetFloat(float64(n))
		default:
			return mismatch("a number", data)
		}
	case k == reflect.Bool:
		b, ok := data.(bool)
		if !ok {
			return mismatch("true or false", data)
		}
		v.SetBool(b)
	case k == reflect.String:
		str, ok := data.(string)
		if !ok {
			return mismatch("a string", data)
		}
		v.SetString(str)
	default:
		return fmt.Errorf("unsupported config field type %s", s.typ)
	}
	s.v = v
	return nil
}

// mismatch says a value of the wrong TOML type was found.
func mismatch(want string, data any) error {
	return fmt.Errorf("wrong type: expected %s, found %s", want, Describe(data))
}

// Describe names the TOML type of a decoded value, with the value itself
// when it is short ("the string \"a/b\"", "an array"), for error messages
// about config and sweep files.
func Describe(data any) string {
	switch v := data.(type) {
	case string:
		if len(v) > 40 {
			return "a string"
		}
		return "the string " + strconv.Quote(v)
	case int64:
		return "the integer " + strconv.FormatInt(v, 10)
	case float64:
		return "the float " + strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return "the boolean " + strconv.FormatBool(v)
	case map[string]any:
		return "a table"
	case []map[string]any:
		return "an array of tables"
	case []any:
		return "an array"
	case time.Time:
		return "a date/time"
	}
	return fmt.Sprintf("a value of type %T", data)
}
