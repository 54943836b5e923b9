package core_test

import (
	"fmt"
	"strings"
	"testing"

	"weft/core"
)

// TestFamily checks group names against their families.
func TestFamily(t *testing.T) {
	for _, c := range []struct{ name, fam string }{
		{"core[3]", "core"}, {"l1[12]", "l1"}, {"bus", "bus"}, {"ext.pset", "ext.pset"},
		{"irritators", "irritators"}, {"[3]", "[3]"}, {"odd[", "odd["},
	} {
		if got := core.Family(c.name); got != c.fam {
			t.Errorf("Family(%q) = %q, want %q", c.name, got, c.fam)
		}
	}
	if got := core.IndexedGroup("l1", 7); got != "l1[7]" || core.Family(got) != "l1" {
		t.Errorf("IndexedGroup(l1, 7) = %q", got)
	}
}

// counters returns a group of fixed counter values.
func counters(name string, names []string, vals ...uint64) core.StatGroup {
	return core.StatGroup{Name: name, Counters: names, Read: func(dst []uint64) { copy(dst, vals) }}
}

// The groups of one family must have the same counters.
func TestRegisterFamilyCounters(t *testing.T) {
	var r core.StatRegistry
	if err := r.Register(counters("core[0]", []string{"a", "b"})); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(counters("core[1]", []string{"a", "b"})); err != nil {
		t.Fatal(err)
	}
	err := r.Register(counters("core[2]", []string{"a"}))
	if err == nil || !strings.Contains(err.Error(), "core[2] has other counters than core[0]") {
		t.Errorf("core[2] with other counters: %v", err)
	}
	if err := r.Register(counters("bus", []string{"x"})); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(counters("bus", []string{"x"})); err == nil {
		t.Error("bus registered twice")
	}
}

// A summary sums each total over its family's groups, whatever order they
// were registered in, and evaluates its formulas over the totals and the
// region's cycles.
func TestSummaryEval(t *testing.T) {
	var r core.StatRegistry
	for _, g := range []core.StatGroup{
		counters("core[0]", []string{"ops", "spins"}, 10, 1),
		counters("l1[0]", []string{"misses"}, 3),
		counters("core[1]", []string{"ops", "spins"}, 30, 2),
		counters("bus", []string{"busy"}, 50),
		counters("l1[1]", []string{"misses"}, 5),
		counters("ext.x", []string{"ops"}, 1000), // another family
	} {
		if err := r.Register(g); err != nil {
			t.Fatal(err)
		}
	}
	s, err := core.NewSummary([]core.Total{
		{Name: "ops", Family: "core", Counter: "ops"},
		{Name: "l1_misses", Family: "l1", Counter: "misses"},
		{Name: "busy", Family: "bus", Counter: "busy"},
		{Name: "absent", Family: "nobody", Counter: "n"},
	}, []core.Formula{
		{Name: "misses_per_op", Eval: func(get func(string) float64) float64 { return core.Ratio(get("l1_misses"), get("ops")) }},
		{Name: "util", Eval: func(get func(string) float64) float64 { return core.Ratio(get("busy"), get(core.ROICycles)) }},
		{Name: "twice", Eval: func(get func(string) float64) float64 { return 2 * get("util") }},
		{Name: "none", Eval: func(get func(string) float64) float64 { return core.Ratio(get("ops"), get("absent")) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Eval(&r, r.Read(nil), 200, nil)
	want := map[string]float64{"roi_cycles": 200, "ops": 40, "l1_misses": 8, "busy": 50, "absent": 0,
		"misses_per_op": 0.2, "util": 0.25, "twice": 0.5, "none": 0}
	if s.Len() != len(want) || len(got) != s.Len() {
		t.Fatalf("%d statistics, %d values, want %d", s.Len(), len(got), len(want))
	}
	order := []string{"roi_cycles", "ops", "l1_misses", "busy", "absent", "misses_per_op", "util", "twice", "none"}
	for i, name := range order {
		if s.Name(i) != name || got[i] != want[name] {
			t.Errorf("statistic %d: %s = %v, want %s = %v", i, s.Name(i), got[i], name, want[name])
		}
	}
	// dst is reused when it is big enough.
	again := s.Eval(&r, r.Read(nil), 100, got)
	if &again[0] != &got[0] || again[0] != 100 || again[6] != 0.5 {
		t.Errorf("second Eval into the first's slice: %v", again)
	}
}

// NewSummary rejects a formula that reads a name not declared before it,
// duplicate names and incomplete totals.
func TestNewSummaryErrors(t *testing.T) {
	get := func(name string) core.Formula {
		return core.Formula{Name: "f", Eval: func(get func(string) float64) float64 { return get(name) }}
	}
	for _, c := range []struct {
		totals   []core.Total
		formulas []core.Formula
		want     string
	}{
		{nil, []core.Formula{get("nope")}, "formula f reads nope"},
		{nil, []core.Formula{get("f")}, "formula f reads f"},
		{nil, []core.Formula{get("g"), {Name: "g", Eval: get("").Eval}}, "formula f reads g"},
		{[]core.Total{{Name: "a", Family: "x", Counter: "a"}, {Name: "a", Family: "y", Counter: "a"}}, nil, "a declared twice"},
		{[]core.Total{{Name: "roi_cycles", Family: "x", Counter: "c"}}, nil, "roi_cycles declared twice"},
		{[]core.Total{{Name: "a", Family: "x"}}, nil, "total a needs a family and a counter"},
		{nil, []core.Formula{{Name: "f"}}, "formula f has no Eval"},
	} {
		_, err := core.NewSummary(c.totals, c.formulas)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %v: error %v, want %q", c.totals, len(c.formulas), err, c.want)
		}
	}
}

// A total whose family's groups lack its counter is a bug in the
// declaration, which Eval reports.
func TestSummaryEvalMissingCounter(t *testing.T) {
	var r core.StatRegistry
	if err := r.Register(counters("core[0]", []string{"ops"}, 1)); err != nil {
		t.Fatal(err)
	}
	s, err := core.NewSummary([]core.Total{{Name: "spins", Family: "core", Counter: "spins"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), "group core[0] has no counter spins") {
			t.Errorf("Eval over a group without the counter: %v", p)
		}
	}()
	s.Eval(&r, r.Read(nil), 1, nil)
}

// A summary of two cores' counters: the total, then a formula over it and
// the region's cycles.
func ExampleSummary() {
	var r core.StatRegistry
	for i, n := range []uint64{300, 500} {
		if err := r.Register(core.StatGroup{Name: core.IndexedGroup("core", i), Counters: []string{"instructions"},
			Read: func(dst []uint64) { dst[0] = n }}); err != nil {
			panic(err)
		}
	}
	s, err := core.NewSummary(
		[]core.Total{{Name: "instructions", Family: "core", Counter: "instructions"}},
		[]core.Formula{{Name: "ipc", Eval: func(get func(string) float64) float64 {
			return core.Ratio(get("instructions"), get(core.ROICycles))
		}}})
	if err != nil {
		panic(err)
	}
	vals := s.Eval(&r, r.Read(nil), 400, nil)
	for i, v := range vals {
		fmt.Printf("%s %v\n", s.Name(i), v)
	}
	// Output:
	// roi_cycles 400
	// instructions 800
	// ipc 2
}
