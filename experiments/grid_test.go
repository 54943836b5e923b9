package experiments_test

import (
	"runtime"
	"slices"
	"testing"

	"weft/analysis"
	"weft/configs"
	"weft/core"
	"weft/detectors"
	"weft/detectors/bugaboo"
	"weft/detectors/pset"
	"weft/experiments"
	"weft/isa"
	"weft/sim"
)

// trimDetectors are the detectors Trim drops the shadow memory of.
var trimDetectors = []string{"hb", "lockset", "avio", "pset", "bbsw"}

// runTrimmable runs a synthetic profile (a large shadow memory) with
// every trimmable detector attached.
func runTrimmable(t *testing.T) (sim.Result, *isa.Program) {
	t.Helper()
	prog, cfg, err := experiments.ProgramFor("dedup", configs.Default())
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(cfg, prog, 1, experiments.DetectorOptions(prog, trimDetectors...)()...)
	if err != nil {
		t.Fatal(err)
	}
	return r, prog
}

// Trim keeps what a finished run is read for (every detector's findings,
// the PSet recorder's pairs and violations, BB-SW's graph) and drops the
// shadow memory: the heap the run holds falls by most of its size.
func TestTrimKeepsFindingsAndDropsShadow(t *testing.T) {
	r, prog := runTrimmable(t)
	findings := func() [][]core.Finding {
		var out [][]core.Finding
		for _, d := range r.Detectors {
			out = append(out, d.Findings())
		}
		return out
	}
	rec, ok := analysis.DetectorOf[*pset.Recorder](r)
	if !ok {
		t.Fatal("no PSet recorder")
	}
	sw, ok := analysis.DetectorOf[*bugaboo.SW](r)
	if !ok {
		t.Fatal("no BB-SW")
	}
	empty := make(isa.PSets, len(prog.Instrs))
	before, pairs, viols, edges := findings(), rec.Pairs(), rec.Violations(empty), sw.Graph().EdgeCount()

	held := func() uint64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	untrimmed := held()
	experiments.Trim(r)
	trimmed := held()
	runtime.KeepAlive(r)
	t.Logf("held %d bytes untrimmed, %d trimmed", untrimmed, trimmed)

	if got := findings(); !slices.EqualFunc(got, before, func(a, b []core.Finding) bool { return slices.EqualFunc(a, b, sameFinding) }) {
		t.Errorf("findings changed by Trim")
	}
	if rec.Pairs() != pairs || !slices.EqualFunc(rec.Violations(empty), viols, sameFinding) {
		t.Errorf("PSet recorder changed by Trim: %d pairs, was %d", rec.Pairs(), pairs)
	}
	if sw.Graph().EdgeCount() != edges {
		t.Errorf("BB-SW graph changed by Trim: %d edges, was %d", sw.Graph().EdgeCount(), edges)
	}
	for _, d := range r.Detectors {
		if _, ok := detectors.Unwrap(d).(interface{ Trim() }); !ok {
			t.Errorf("%s has no Trim", d.Name())
		}
	}
	// The shadow memories of dedup's shared data are megabytes; what the
	// run is read for is kilobytes.
	if untrimmed < trimmed+1<<20 {
		t.Errorf("Trim freed %d bytes of %d held, want at least 1 MB", int64(untrimmed)-int64(trimmed), untrimmed)
	}
}

// sameFinding compares findings by key and message.
func sameFinding(a, b core.Finding) bool { return a.Key() == b.Key() && a.Message == b.Message }

// StreamJobs delivers in job order and RunJobs returns the same runs as
// sim.RunJobs, trimmed, whatever the worker count.
func TestStreamJobsInJobOrder(t *testing.T) {
	prog, cfg, err := experiments.ProgramFor("mysql-binlog", configs.Default())
	if err != nil {
		t.Fatal(err)
	}
	var jobs []sim.Job
	for s := range 12 {
		jobs = append(jobs, sim.Job{Config: cfg, Program: prog, Seed: 1 + uint64(s), Options: experiments.DetectorOptions(prog, "hb", "pset")})
	}
	want, err := sim.RunJobs(jobs, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 3} {
		env := experiments.Env{Workers: workers}
		got, err := experiments.RunJobs(env, jobs)
		if err != nil {
			t.Fatal(err)
		}
		next := 0
		err = experiments.StreamJobs(env, jobs, func(i int, r sim.Result) error {
			if i != next || r.Seed != want[i].Seed {
				t.Errorf("workers %d: delivered job %d (seed %d), want job %d", workers, i, r.Seed, next)
			}
			next++
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if got[i].Seed != want[i].Seed || got[i].Cycles != want[i].Cycles || !slices.EqualFunc(got[i].Findings, want[i].Findings, sameFinding) {
				t.Errorf("workers %d: run %d differs", workers, i)
			}
		}
	}
}

// Relation words a comparison by the numbers.
func TestRelation(t *testing.T) {
	for _, c := range []struct {
		x, base float64
		want    string
	}{{2, 1, "above"}, {1, 2, "below"}, {1, 1, "same"}} {
		if got := experiments.Relation(c.x, c.base, "above", "below", "same"); got != c.want {
			t.Errorf("Relation(%v, %v) = %q, want %q", c.x, c.base, got, c.want)
		}
	}
}
