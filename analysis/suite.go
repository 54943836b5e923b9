package analysis

import (
	"fmt"

	"weft/core"
	"weft/detectors"
	"weft/isa"
	"weft/sim"
)

// Suite is the detectors attached to every run of a batch, in the order
// they were named.
type Suite []detectors.Info

// Parse reads a comma-separated list of registry names ("hb,lockset").
func Parse(list string) (Suite, error) {
	infos, err := detectors.Parse(list)
	return Suite(infos), err
}

// Lookup returns the suite of the named registry detectors.
func Lookup(names ...string) (Suite, error) {
	s := make(Suite, len(names))
	for i, n := range names {
		d, err := detectors.Lookup(n)
		if err != nil {
			return nil, err
		}
		s[i] = d
	}
	return s, nil
}

// MustLookup is Lookup for names a program spells as constants; an
// unknown name is a programming error and panics.
func MustLookup(names ...string) Suite {
	s, err := Lookup(names...)
	if err != nil {
		panic(fmt.Sprintf("analysis: %v", err))
	}
	return s
}

// Names returns the detectors' names.
func (s Suite) Names() []string {
	out := make([]string, len(s))
	for i, d := range s {
		out[i] = d.Name
	}
	return out
}

// Options returns the options that attach fresh instances of the suite's
// detectors to one run of prog: call it once per run.
func (s Suite) Options(prog *isa.Program) func() []sim.Option {
	return func() []sim.Option {
		opts := make([]sim.Option, len(s))
		for i, d := range s {
			opts[i] = sim.WithDetector(d.New(prog))
		}
		return opts
	}
}

// Named returns the detector named name that was attached to run r (nil
// when none was).
func Named(r sim.Result, name string) core.Detector {
	for _, d := range r.Detectors {
		if d.Name() == name {
			return d
		}
	}
	return nil
}

// DetectorOf returns the first detector of type T attached to run r (a
// registry variant such as bbsw-line counts as what it renames), and
// whether there was one.
func DetectorOf[T core.Detector](r sim.Result) (T, bool) {
	for _, d := range r.Detectors {
		if t, ok := detectors.Unwrap(d).(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}
