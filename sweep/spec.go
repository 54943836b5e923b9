package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"weft/configs"
)

// Spec is a parsed sweep file: a base config, axes to vary, workloads to
// run at every point, runs per point and a base seed.
type Spec struct {
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
	Workloads []Workload
	// Detectors names the software detectors attached to every run, in
	// file order (`weft list --detectors`); NewPlan checks the names.
	Detectors []string
	// DetectorsLine is the line of the detectors key in File (0 if unknown).
	DetectorsLine int
}

// Axis is one varied config key and the values it takes.
type Axis struct {
	// Key is a dotted config key (see configs.Keys).
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

// Workload is one workload of a sweep: a registry name and, for a
// synthetic profile, generator parameters.
type Workload struct {
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
func (w Workload) Label() string {
	if len(w.Params) == 0 {
		return w.Name
	}
	keys := slices.Sorted(maps.Keys(w.Params))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + configs.FormatValue(w.Params[k])
	}
	return w.Name + "(" + strings.Join(parts, ",") + ")"
}

// Error is a problem with a sweep file, located by file, line and the
// key, axis or workload it concerns.
type Error struct {
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
func (e *Error) Error() string {
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
func (e *Error) Unwrap() error { return e.Err }

// TOML returns the sweep in canonical form: every key it sets (out, base
// and set only when not empty), axes and workloads in order, parameters
// sorted, no comments. ParseSpec reads it back to an equal Spec (but for
// File and lines).
func (s Spec) TOML() string {
	var b strings.Builder
	if s.Name != "" {
		fmt.Fprintf(&b, "name = %s\n", configs.FormatValue(s.Name))
	}
	if s.Base != "" {
		fmt.Fprintf(&b, "base = %s\n", configs.FormatValue(s.Base))
	}
	fmt.Fprintf(&b, "runs = %d\nseed = %d\n", s.Runs, s.Seed)
	if s.Out != "" {
		fmt.Fprintf(&b, "out = %s\n", configs.FormatValue(s.Out))
	}
	if len(s.Set) > 0 {
		q := make([]string, len(s.Set))
		for i, v := range s.Set {
			q[i] = configs.FormatValue(v)
		}
		fmt.Fprintf(&b, "set = [%s]\n", strings.Join(q, ", "))
	}
	if len(s.Detectors) > 0 {
		q := make([]string, len(s.Detectors))
		for i, v := range s.Detectors {
			q[i] = configs.FormatValue(v)
		}
		fmt.Fprintf(&b, "detectors = [%s]\n", strings.Join(q, ", "))
	}
	for _, a := range s.Axes {
		vals := make([]string, len(a.Values))
		for i, v := range a.Values {
			vals[i] = configs.FormatValue(v)
		}
		fmt.Fprintf(&b, "\n[[axis]]\nkey = %s\nvalues = [%s]\n", configs.FormatValue(a.Key), strings.Join(vals, ", "))
	}
	for _, w := range s.Workloads {
		fmt.Fprintf(&b, "\n[[workload]]\nname = %s\n", configs.FormatValue(w.Name))
		if len(w.Params) > 0 {
			keys := slices.Sorted(maps.Keys(w.Params))
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = tomlKey(k) + " = " + configs.FormatValue(w.Params[k])
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
	return configs.FormatValue(k)
}

// BaseConfig loads the sweep's base config (a preset, or a file relative to
// the sweep file's directory), applies Set in order, sets sim.seed to Seed
// and validates the result.
func (s Spec) BaseConfig() (configs.Config, error) {
	name := s.Base
	if name == "" {
		name = "default"
	}
	if !isPreset(name) && !filepath.IsAbs(name) {
		name = filepath.Join(filepath.Dir(s.File), name)
	}
	c, err := configs.Load(name)
	if err != nil {
		return configs.Config{}, &Error{File: s.File, Where: fmt.Sprintf("base %q", s.Base), Err: err}
	}
	for i, set := range s.Set {
		if err := c.Set(set); err != nil {
			return configs.Config{}, &Error{File: s.File, Where: fmt.Sprintf("set[%d] %q", i, set), Err: trimSet(err, set)}
		}
	}
	c.Sim.Seed = s.Seed
	if err := c.Validate(); err != nil {
		where := fmt.Sprintf("base %q", s.Base)
		if len(s.Set) > 0 {
			where += " with set " + strings.Join(s.Set, ", ")
		}
		return configs.Config{}, &Error{File: s.File, Where: where, Err: err}
	}
	return c, nil
}

// isPreset reports whether name is an embedded preset.
func isPreset(name string) bool { return slices.Contains(configs.PresetNames(), name) }

// Hash identifies the sweep run on the resolved base config base (from
// BaseConfig): the first 16 hex digits of the SHA-256 of its canonical form
// without name, base, out and set, followed by base's TOML. Two sweeps with equal
// hashes run the same points with the same seeds, wherever their files
// live and whatever their output directories.
func (s Spec) Hash(base configs.Config) string {
	c := s
	c.Name, c.Base, c.Out, c.Set = "", "", "", nil
	sum := sha256.Sum256([]byte(c.TOML() + "\n# base config\n" + base.TOML()))
	return hex.EncodeToString(sum[:])[:16]
}

// NumPoints is the number of points: the product of the axes' value
// counts times the number of workloads.
func (s Spec) NumPoints() int {
	n := len(s.Workloads)
	for _, a := range s.Axes {
		n *= len(a.Values)
	}
	return n
}

// PointConfig is one point of a sweep as the spec alone gives it: a value
// of every axis, a workload and the config (NewPlan then builds the
// workload for it: Point).
type PointConfig struct {
	// Index is the point's number, from 0, in expansion order.
	Index int
	// Values holds a value of every axis: Values[i] belongs to Axes[i].
	Values []any
	// Workload is an index into Spec.Workloads.
	Workload int
	// Config is the base config with every axis value set.
	Config configs.Config
}

// PointConfigs expands the sweep on the resolved base config base (from
// BaseConfig) and validates every point's config. The order is fixed: the
// first axis varies slowest, then each later axis, and the workload
// fastest, so point p of a sweep with workloads W has workload p % len(W).
// An invalid point is a *Error naming the axis and value (and the
// other axes' values when there are several), e.g.
// `sweep cores.toml:6: axis "machine.cores" value 100: machine.cores: must be from 1 to 64, got 100`.
func (s Spec) PointConfigs(base configs.Config) ([]PointConfig, error) {
	if len(s.Workloads) == 0 {
		return nil, &Error{File: s.File, Where: "workload", Err: errors.New("no workloads")}
	}
	combos := 1
	for _, a := range s.Axes {
		combos *= len(a.Values)
	}
	points := make([]PointConfig, 0, combos*len(s.Workloads))
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
			assignment := a.Key + "=" + configs.FormatValue(values[i])
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
			points = append(points, PointConfig{Index: c*len(s.Workloads) + w, Values: values, Workload: w, Config: cfg})
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
func (s Spec) blame(err error) int {
	var ce *configs.Error
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
func (s Spec) pointError(axis int, values []any, err error) error {
	var others []string
	for i, a := range s.Axes {
		if i != axis {
			others = append(others, a.Key+"="+configs.FormatValue(values[i]))
		}
	}
	if axis < 0 {
		line := 0
		if len(s.Axes) > 0 {
			line = s.Axes[0].Line
		}
		return &Error{File: s.File, Line: line, Where: "point (" + strings.Join(others, ", ") + ")", Err: err}
	}
	where := fmt.Sprintf("axis %q value %s", s.Axes[axis].Key, configs.FormatValue(values[axis]))
	if len(others) > 0 {
		where += " (with " + strings.Join(others, ", ") + ")"
	}
	return &Error{File: s.File, Line: s.Axes[axis].Line, Where: where, Err: err}
}
