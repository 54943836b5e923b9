package infer

import (
	"testing"

	"weft/configs"
	"weft/core"
	"weft/sim"
	"weft/workloads"
)

// runKernel records passing runs of kernel name (seeds from 1) and returns
// their analyses.
func runKernel(t *testing.T, name string, runs int) []*Analysis {
	t.Helper()
	prog, err := workloads.Program(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), prog)
	var out []*Analysis
	for seed := uint64(1); len(out) < runs && seed < 40; seed++ {
		rec := NewRecorder(prog)
		res, err := sim.Run(cfg, prog, seed, sim.WithDetector(rec))
		if err != nil {
			t.Fatal(err)
		}
		a, err := rec.Analyse(DefaultOptions())
		if res.Outcome != core.Pass {
			if err == nil {
				t.Fatalf("%s seed %d: outcome %s but the analysis ran", name, seed, res.Outcome)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s seed %d: %v", name, seed, err)
		}
		out = append(out, a)
	}
	if len(out) < runs {
		t.Fatalf("%s: only %d passing runs", name, len(out))
	}
	return out
}

func addr(t *testing.T, kernel, sym string) uint64 {
	t.Helper()
	prog, err := workloads.Program(kernel)
	if err != nil {
		t.Fatal(err)
	}
	a, ok := prog.SymbolAddr(sym)
	if !ok {
		t.Fatalf("%s has no symbol %s", kernel, sym)
	}
	return a
}

func TestKernelK1Commutativity(t *testing.T) {
	y := addr(t, "infer-k1-commutativity", "y")
	hidden := 0
	for _, a := range runKernel(t, "infer-k1-commutativity", 6) {
		if len(a.Candidates) != 1 {
			t.Fatalf("candidates %+v, want y only", a.Candidates)
		}
		c := a.CandidateAt(y)
		if c == nil {
			t.Fatalf("y is not a candidate: %+v", a.Candidates)
		}
		if !c.Observed() {
			hidden++
		}
		st := a.Trace.Stats
		t.Logf("captured %d reduced %d sync %d (%.0f%%), pairs %d observed %v", st.Captured(), st.Reduced(), st.Sync, 100*st.SyncFraction(), len(c.Pairs), c.Observed())
	}
	if hidden == 0 {
		t.Errorf("no run with main locking first (the race hidden by lock order)")
	}
}

func TestKernelsRaceFree(t *testing.T) {
	for _, k := range []string{"infer-k3-bounded-buffer", "infer-fork-join-ordered", "infer-k4-barrier-phases", "infer-barrier-then-read", "infer-lockset-protected"} {
		t.Run(k, func(t *testing.T) {
			for _, a := range runKernel(t, k, 3) {
				if len(a.Candidates) != 0 {
					t.Errorf("candidates %+v, want none", a.Candidates)
					for _, f := range a.Findings() {
						t.Logf("%+v", f)
					}
				}
				if k == "infer-k3-bounded-buffer" && len(a.Conds) == 0 {
					t.Errorf("no condition instances")
				}
				if k == "infer-k4-barrier-phases" && len(a.Episodes) == 0 {
					t.Errorf("no barrier episodes")
				}
			}
		})
	}
}

func TestKernelDifferentLocks(t *testing.T) {
	hits := addr(t, "infer-different-locks", "hits")
	for _, a := range runKernel(t, "infer-different-locks", 3) {
		c := a.CandidateAt(hits)
		if len(a.Candidates) != 1 || c == nil || !c.Observed() {
			t.Fatalf("candidates %+v, want hits as a plain (observed) race", a.Candidates)
		}
	}
}

func TestKernelK8Regions(t *testing.T) {
	for _, a := range runKernel(t, "infer-k8-segment-races", 3) {
		if len(a.Candidates) != 2 {
			t.Errorf("candidates %+v, want lo and hi", a.Candidates)
		}
		for _, c := range a.Candidates {
			if o := a.Objects[c.Object]; o.Words != 3 || len(c.Pairs) != 3 {
				t.Errorf("object %+v with %d pairs, want 3 words and 3 pairs", o, len(c.Pairs))
			}
		}
	}
}

// TestKernelSkippedWaits checks the wait-loop markers: a skipped wait
// loop is paired with the signal that made its predicate true, so the
// condition-variable kernels whose data handoff relies on it have no
// candidate.
func TestKernelSkippedWaits(t *testing.T) {
	for _, k := range []string{"infer-cond-reuse", "infer-signal-before-wait", "infer-broadcast-waiters"} {
		t.Run(k, func(t *testing.T) {
			for _, a := range runKernel(t, k, 4) {
				skipped, exits := 0, 0
				for _, c := range a.Conds {
					if c.Skipped {
						skipped++
					}
					exits += len(c.LoopExits)
				}
				if exits == 0 {
					t.Errorf("no wait-loop exit recorded")
				}
				if len(a.Candidates) != 0 {
					t.Errorf("candidates %+v, want none (%d instances, %d skipped)", a.Findings(), len(a.Conds), skipped)
				}
			}
		})
	}
}

// TestKernelCondRaces checks that the wait-loop edges do not hide the
// condition-variable races: the payload written after the signal, and
// ready read without the lock.
func TestKernelCondRaces(t *testing.T) {
	for k, sym := range map[string]string{"infer-signal-before-data": "payload", "infer-lost-wakeup": "ready"} {
		at := addr(t, k, sym)
		for _, a := range runKernel(t, k, 3) {
			if len(a.Candidates) != 1 || a.CandidateAt(at) == nil {
				t.Errorf("%s: candidates %+v, want %s only", k, a.Findings(), sym)
			}
		}
	}
}
