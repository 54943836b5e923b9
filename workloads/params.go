package workloads

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"weft/isa"
)

// ProgramWithParams builds the named synthetic profile for a machine of
// cores cores (0: the default), with some of its generator's parameters
// overridden. Parameters are named by the Gen field names in snake_case
// (threads, phases, ops_per_thread, slots, hot_words, hot_write_frac,
// ws_words, …, seed; see ParamNames); integers take TOML integers,
// fractions take numbers, warm_shared takes a boolean. threads defaults to
// the profile's own count or cores, and ops_per_thread to the profile's
// fixed input split among the threads. With no params it is ProgramFor.
// A kernel, the mixed profile, an unknown name or a wrong type is an error
// naming the parameter; a bad value is the generator's error.
func ProgramWithParams(name string, cores int, params map[string]any) (*isa.Program, error) {
	if len(params) == 0 {
		return ProgramFor(name, cores)
	}
	if _, err := find(name); err != nil {
		return nil, err
	}
	var p *profile
	for _, q := range profileTable() {
		if q.name == name {
			p = &q
			break
		}
	}
	if p == nil {
		return nil, fmt.Errorf("workloads: %s takes no params: only the phased synthetic profiles have generator parameters", name)
	}
	g := p.gen
	g.Name = p.name
	g.Desc = p.suite + " " + p.name + "-like synthetic profile: " + p.resembles
	v := reflect.ValueOf(&g).Elem()
	fields := genParams()
	for _, k := range sortedParamKeys(params) {
		i, ok := fields[k]
		if !ok {
			return nil, fmt.Errorf("workloads: %s: unknown param %q (params: %s)", name, k, strings.Join(ParamNames(), ", "))
		}
		if err := setParam(v.Field(i), params[k]); err != nil {
			return nil, fmt.Errorf("workloads: %s: param %s: %w", name, k, err)
		}
	}
	if _, ok := params["threads"]; !ok {
		g.Threads = p.threads
		if g.Threads == 0 {
			g.Threads = cores
		}
		if g.Threads == 0 {
			g.Threads = DefaultProfileThreads
		}
	}
	if _, ok := params["ops_per_thread"]; !ok && g.Threads > 0 {
		g.OpsPerThread = profileOps / g.Threads
	}
	prog, err := g.Program()
	if err != nil {
		return nil, fmt.Errorf("workloads: params: %w", err)
	}
	return prog, nil
}

// ParamNames lists the parameters ProgramWithParams accepts, sorted.
func ParamNames() []string {
	var names []string
	for k := range genParams() {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// genParams maps each parameter name to its Gen field index: every
// exported field but Name and Desc, in snake_case.
func genParams() map[string]int {
	t := reflect.TypeFor[Gen]()
	m := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() || f.Name == "Name" || f.Name == "Desc" {
			continue
		}
		m[snakeCase(f.Name)] = i
	}
	return m
}

// snakeCase converts a Go field name to snake_case, keeping initialisms
// together: OpsPerThread → ops_per_thread, WSWords → ws_words, ALUPerLoad →
// alu_per_load.
func snakeCase(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prevLower := unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1])
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if prevLower || (unicode.IsUpper(r[i-1]) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// setParam stores the TOML value val (int64, float64 or bool) in the Gen
// field f, checking its type and range.
func setParam(f reflect.Value, val any) error {
	switch k := f.Kind(); {
	case k == reflect.Int:
		n, ok := val.(int64)
		if !ok {
			return fmt.Errorf("want an integer, found %v (%T)", val, val)
		}
		if f.OverflowInt(n) {
			return fmt.Errorf("%d is out of range", n)
		}
		f.SetInt(n)
	case k == reflect.Uint64:
		n, ok := val.(int64)
		if !ok || n < 0 {
			return fmt.Errorf("want a non-negative integer, found %v (%T)", val, val)
		}
		f.SetUint(uint64(n))
	case k == reflect.Float64:
		switch x := val.(type) {
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("want a finite number, found %v", x)
			}
			f.SetFloat(x)
		case int64:
			f.SetFloat(float64(x))
		default:
			return fmt.Errorf("want a number, found %v (%T)", val, val)
		}
	case k == reflect.Bool:
		b, ok := val.(bool)
		if !ok {
			return fmt.Errorf("want true or false, found %v (%T)", val, val)
		}
		f.SetBool(b)
	default:
		return fmt.Errorf("unsupported parameter type %s", f.Type())
	}
	return nil
}

// sortedParamKeys returns the keys of params, sorted, so the first error
// reported does not depend on map order.
func sortedParamKeys(params map[string]any) []string {
	keys := make([]string, 0, len(params))
	for k := range params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
