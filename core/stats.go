package core

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// StatGroup is one part's named counters: "core[3]", "l1[3]", "bus",
// "ext.pset". A counter's full name is the group's and its own joined by a
// dot ("l1[3].read_misses").
type StatGroup struct {
	// Name names the part.
	Name string
	// Counters name the group's counters.
	Counters []string
	// Read fills dst (len(Counters) values) with the counters' current
	// values. It runs only when statistics are read (region-of-interest
	// marks, the end of the run), never on the hot path.
	Read func(dst []uint64)
}

// StatRegistry holds a run's statistics groups in registration order.
type StatRegistry struct {
	groups []StatGroup
	n      int
}

// Family returns the family of the group named name: "core" for
// "core[3]", the name itself for a group that is one of a kind ("bus",
// "ext.pset").
func Family(name string) string {
	if i := strings.IndexByte(name, '['); i > 0 && name[len(name)-1] == ']' {
		return name[:i]
	}
	return name
}

// IndexedGroup returns the name of member i of a family of groups, one per
// core: "core[3]".
func IndexedGroup(family string, i int) string {
	return family + "[" + strconv.Itoa(i) + "]"
}

// Register adds a group. Names must be unique, and the groups of one
// family (Family) have the same counters.
func (r *StatRegistry) Register(g StatGroup) error {
	if g.Name == "" || g.Read == nil {
		return fmt.Errorf("stats: a group needs a name and a reader")
	}
	fam, kin := Family(g.Name), false
	for _, o := range r.groups {
		if o.Name == g.Name {
			return fmt.Errorf("stats: group %s registered twice", g.Name)
		}
		if !kin && Family(o.Name) == fam {
			// The first of the family: the others have its counters.
			if !slices.Equal(o.Counters, g.Counters) {
				return fmt.Errorf("stats: group %s has other counters than %s, of its family", g.Name, o.Name)
			}
			kin = true
		}
	}
	r.groups = append(r.groups, g)
	r.n += len(g.Counters)
	return nil
}

// Groups returns the registered groups.
func (r *StatRegistry) Groups() []StatGroup { return r.groups }

// Len returns the number of counters over every group.
func (r *StatRegistry) Len() int { return r.n }

// Read fills dst with every group's counters, group after group, and
// returns it (grown to Len when needed).
func (r *StatRegistry) Read(dst []uint64) []uint64 {
	if cap(dst) < r.n {
		dst = make([]uint64, r.n)
	}
	dst = dst[:r.n]
	off := 0
	for _, g := range r.groups {
		g.Read(dst[off : off+len(g.Counters)])
		off += len(g.Counters)
	}
	return dst
}

// Offset returns the index in Read's values of the named group's first
// counter, or -1.
func (r *StatRegistry) Offset(group string) int {
	off := 0
	for _, g := range r.groups {
		if g.Name == group {
			return off
		}
		off += len(g.Counters)
	}
	return -1
}

// Named is one counter with its full name.
type Named struct {
	// Name is "group.counter".
	Name string
	// Value is its value.
	Value uint64
}

// List pairs values (as Read returned them, or differences of two reads)
// with the counters' full names, group by group.
func (r *StatRegistry) List(values []uint64) []Named {
	out := make([]Named, 0, r.n)
	off := 0
	for _, g := range r.groups {
		for i, c := range g.Counters {
			out = append(out, Named{Name: g.Name + "." + c, Value: values[off+i]})
		}
		off += len(g.Counters)
	}
	return out
}

// GroupOf splits a full counter name into its group and counter.
func GroupOf(full string) (group, counter string) {
	i := strings.LastIndexByte(full, '.')
	if i < 0 {
		return "", full
	}
	return full[:i], full[i+1:]
}

// ROICycles names a summary's first statistic: the cycles of the region
// of interest (the whole run when the program has none).
const ROICycles = "roi_cycles"

// Total declares a machine-wide counter of a summary: one counter summed
// over every group of a family ("core" sums core[0], core[1], …; "bus" is
// the group bus alone).
type Total struct {
	// Name is the total's name in the summary: "l1_read_misses".
	Name string
	// Family is the family of the groups it sums: "l1".
	Family string
	// Counter is the counter's name in each of them: "read_misses".
	Counter string
}

// Formula declares a statistic that a summary derives, when it is read,
// from the statistics declared before it, as gem5's Formula does: Eval
// computes it from their values, which get returns by name. Eval reads
// every input whatever their values (a guard such as Ratio's comes after
// the reads), so that NewSummary can check the names it reads.
type Formula struct {
	// Name is the statistic's name: "ipc".
	Name string
	// Eval computes its value.
	Eval func(get func(name string) float64) float64
}

// Ratio returns a/b, or 0 when b is 0 (a formula over an empty region).
func Ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// Summary declares machine-wide statistics over a registry's groups: the
// region's cycles (ROICycles), then the totals, then the formulas, in
// that order. It is immutable, and concurrent runs may share it.
type Summary struct {
	names    []string
	totals   []Total
	formulas []Formula
	index    map[string]int
	// families are the totals' families, each with the indices of its
	// totals, in order of first appearance.
	families []family
}

// family is a family of groups and the totals that sum over it.
type family struct {
	name   string
	totals []int
}

// NewSummary declares a summary of totals and formulas. Names are unique,
// and a formula reads only statistics declared before it: NewSummary
// evaluates every formula once, over zeros, to check the names it reads.
func NewSummary(totals []Total, formulas []Formula) (*Summary, error) {
	s := &Summary{totals: slices.Clone(totals), formulas: slices.Clone(formulas), index: map[string]int{}}
	add := func(name string) error {
		if name == "" {
			return fmt.Errorf("stats: a summary statistic without a name (after %s)", s.names[len(s.names)-1])
		}
		if _, dup := s.index[name]; dup {
			return fmt.Errorf("stats: summary statistic %s declared twice", name)
		}
		s.index[name] = len(s.names)
		s.names = append(s.names, name)
		return nil
	}
	if err := add(ROICycles); err != nil {
		return nil, err
	}
	for i, t := range s.totals {
		if t.Family == "" || t.Counter == "" {
			return nil, fmt.Errorf("stats: total %s needs a family and a counter", t.Name)
		}
		if err := add(t.Name); err != nil {
			return nil, err
		}
		f := s.family(t.Family)
		if f == nil {
			s.families = append(s.families, family{name: t.Family})
			f = &s.families[len(s.families)-1]
		}
		f.totals = append(f.totals, i)
	}
	for _, f := range s.formulas {
		if f.Eval == nil {
			return nil, fmt.Errorf("stats: formula %s has no Eval", f.Name)
		}
		if err := add(f.Name); err != nil {
			return nil, err
		}
	}
	var bad error
	for i, f := range s.formulas {
		at := 1 + len(s.totals) + i
		f.Eval(func(name string) float64 {
			if j, ok := s.index[name]; (!ok || j >= at) && bad == nil {
				bad = fmt.Errorf("stats: formula %s reads %s, which is not declared before it", f.Name, name)
			}
			return 0
		})
		if bad != nil {
			return nil, bad
		}
	}
	return s, nil
}

// family returns the family named name, or nil.
func (s *Summary) family(name string) *family {
	for i := range s.families {
		if s.families[i].name == name {
			return &s.families[i]
		}
	}
	return nil
}

// Len returns the number of the summary's statistics.
func (s *Summary) Len() int { return len(s.names) }

// Name returns the name of statistic i: ROICycles, then the totals', then
// the formulas', in declaration order.
func (s *Summary) Name(i int) string { return s.names[i] }

// Eval computes the summary of a region from values (as r's Read returns
// them, or the differences of two reads) and the region's cycles: each
// total sums its counter over the groups of its family, then each formula
// is evaluated in turn. It fills dst, grown to Len when needed, and
// returns it. It runs when statistics are read, never on the hot path. A
// total whose family's groups lack its counter, or a formula that reads a
// name NewSummary could not check, is a bug in the declaration: Eval
// panics.
func (s *Summary) Eval(r *StatRegistry, values []uint64, cycles Cycle, dst []float64) []float64 {
	n := len(s.names)
	if cap(dst) < n {
		dst = make([]float64, n)
	}
	dst = dst[:n]
	dst[0] = float64(cycles)
	// acc is each total's sum and its counter's index in its family's
	// groups (0: not looked up yet, else the index plus 1). Every group of
	// a family has the same counters (Register), so the index is looked up
	// in the first.
	acc := make([]struct {
		sum uint64
		at  int
	}, len(s.totals))
	off := 0
	for _, g := range r.groups {
		if f := s.family(Family(g.Name)); f != nil {
			for _, i := range f.totals {
				a := &acc[i]
				if a.at == 0 {
					t := &s.totals[i]
					j := slices.Index(g.Counters, t.Counter)
					if j < 0 {
						panic(fmt.Sprintf("stats: total %s: group %s has no counter %s", t.Name, g.Name, t.Counter))
					}
					a.at = j + 1
				}
				a.sum += values[off+a.at-1]
			}
		}
		off += len(g.Counters)
	}
	for i, a := range acc {
		dst[1+i] = float64(a.sum)
	}
	at := 1 + len(s.totals)
	get := func(name string) float64 {
		j, ok := s.index[name]
		if !ok || j >= at {
			panic(fmt.Sprintf("stats: formula %s reads %s, which is not declared before it", s.names[at], name))
		}
		return dst[j]
	}
	for _, f := range s.formulas {
		dst[at] = f.Eval(get)
		at++
	}
	return dst
}
