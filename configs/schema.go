package configs

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"weft/internal/suggest"
)

// The schema is read from the toml tags of Config by reflection, so adding a
// field to a table adds its key everywhere: decoding, Set, Get, Keys, TOML.

// field is one tagged field of a config table.
type field struct {
	name  string // TOML key within its table
	index int    // struct field index
}

// tableFields lists the tagged fields of table type t in declaration order.
// A field without a toml tag, or tagged "-", is not part of the schema.
func tableFields(t reflect.Type) []field {
	var fs []field
	for i := range t.NumField() {
		sf := t.Field(i)
		if !sf.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("toml"), ",")
		if name == "" || name == "-" {
			continue
		}
		if sf.Type.Kind() != reflect.Struct && !scalarKind(sf.Type.Kind()) {
			panic(fmt.Sprintf("configs: %s.%s: unsupported config field type %s", t, sf.Name, sf.Type))
		}
		fs = append(fs, field{name: name, index: i})
	}
	return fs
}

// scalarKind reports whether a field of kind k is a config value (as opposed
// to a table).
func scalarKind(k reflect.Kind) bool {
	switch k {
	case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// fieldNamed returns the field of table type t whose key is exactly name.
func fieldNamed(t reflect.Type, name string) (field, bool) {
	for _, f := range tableFields(t) {
		if f.name == name {
			return f, true
		}
	}
	return field{}, false
}

// Keys lists every dotted config key (values, not tables) in declaration
// order, which is also the order of TOML.
func Keys() []string {
	return keysOf(reflect.TypeFor[Config]())
}

// keysOf lists the dotted value keys of table type t.
func keysOf(t reflect.Type) []string {
	var keys []string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for _, f := range tableFields(t) {
			ft := t.Field(f.index).Type
			if ft.Kind() == reflect.Struct {
				walk(prefix+f.name+".", ft)
				continue
			}
			keys = append(keys, prefix+f.name)
		}
	}
	walk("", t)
	return keys
}

// depth is the number of parts of the longest dotted key of table type t.
func depth(t reflect.Type) int {
	d := 0
	for _, k := range keysOf(t) {
		d = max(d, strings.Count(k, ".")+1)
	}
	return d
}

// tablesOf lists the dotted table keys of table type t.
func tablesOf(t reflect.Type) []string {
	var tables []string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for _, f := range tableFields(t) {
			ft := t.Field(f.index).Type
			if ft.Kind() == reflect.Struct {
				tables = append(tables, prefix+f.name)
				walk(prefix+f.name+".", ft)
			}
		}
	}
	walk("", t)
	return tables
}

// lookup finds the field for a dotted key in the table v. It reports whether
// the key names a value; a key naming a table returns ok false and table true.
func lookup(v reflect.Value, key string) (fv reflect.Value, ok, table bool) {
	for part := range strings.SplitSeq(key, ".") {
		if v.Kind() != reflect.Struct {
			return reflect.Value{}, false, false
		}
		f, found := fieldNamed(v.Type(), part)
		if !found {
			return reflect.Value{}, false, false
		}
		v = v.Field(f.index)
	}
	if v.Kind() == reflect.Struct {
		return reflect.Value{}, false, true
	}
	return v, true, false
}

// Get returns the value of a dotted key as text, as it would appear in a
// results table: numbers and booleans in TOML form, strings unquoted.
func Get(c Config, key string) (string, error) {
	v, ok, table := lookup(reflect.ValueOf(c), key)
	if !ok {
		return "", &Error{Key: key, Msg: keyMsg(reflect.TypeFor[Config](), key, table)}
	}
	if v.Kind() == reflect.String {
		return v.String(), nil
	}
	return formatValue(v), nil
}

// FormatValue writes a config value (int64, float64, string or bool, or
// any other Go integer) as a TOML value: 4, 0.5, 2.0, "name", true. Sweep
// files and records write their axis values with it.
func FormatValue(v any) string {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || !scalarKind(rv.Kind()) {
		return fmt.Sprint(v)
	}
	return formatValue(rv)
}

// formatValue writes a scalar as a TOML value.
func formatValue(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.String:
		return quote(v.String())
	case reflect.Float32, reflect.Float64:
		return formatFloat(v.Float(), v.Type().Bits())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	}
	panic(fmt.Sprintf("configs: cannot format %s", v.Type()))
}

// formatFloat writes f as a TOML float that reads back to the same value.
func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(f, 'g', -1, bits)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

// quote writes s as a TOML basic string.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// unknownMsg says that key, a noun ("key" or "table"), is not in the schema
// of table type root, with a suggestion when a known key is close.
func unknownMsg(root reflect.Type, key, noun string) string {
	if s := closestKey(root, key); s != "" {
		return fmt.Sprintf("unknown %s; did you mean %s?", noun, s)
	}
	return "unknown " + noun
}

// notValueMsg says that the table key was given where a value key was wanted.
func notValueMsg(root reflect.Type, table string) string {
	return fmt.Sprintf("is a table, not a value; name one of its keys (%s)",
		strings.Join(keysUnder(root, table), ", "))
}

// keyMsg explains why key, not a value key of root, cannot be read or set.
func keyMsg(root reflect.Type, key string, table bool) string {
	if table {
		return notValueMsg(root, key)
	}
	return unknownMsg(root, key, "key")
}

// keysUnder lists the value keys inside table key.
func keysUnder(root reflect.Type, table string) []string {
	var under []string
	for _, k := range keysOf(root) {
		if strings.HasPrefix(k, table+".") {
			under = append(under, k)
		}
	}
	return under
}

// closestKey returns the known key (value or table) most likely meant by
// the unknown key, or "" if none is close.
func closestKey(root reflect.Type, key string) string {
	known := append(keysOf(root), tablesOf(root)...)
	// A table holding key is where the user already is, not what they meant.
	others := slices.DeleteFunc(slices.Clone(known), func(k string) bool { return strings.HasPrefix(key, k+".") })
	if near := suggest.Closest(key, others); len(near) > 0 {
		return near[0]
	}
	// A right key in the wrong table: `[sim] cores = 4`.
	last := key[strings.LastIndexByte(key, '.')+1:]
	for _, k := range known {
		if k[strings.LastIndexByte(k, '.')+1:] == last {
			return k
		}
	}
	return ""
}
