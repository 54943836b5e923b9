package core

import (
	"fmt"
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

// Register adds a group. Names must be unique.
func (r *StatRegistry) Register(g StatGroup) error {
	if g.Name == "" || g.Read == nil {
		return fmt.Errorf("stats: a group needs a name and a reader")
	}
	for _, o := range r.groups {
		if o.Name == g.Name {
			return fmt.Errorf("stats: group %s registered twice", g.Name)
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
