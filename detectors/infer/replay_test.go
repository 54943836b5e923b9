package infer

import (
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/sim"
	"weft/workloads"
)

// TestReplayScenarios records a passing run of every inference scenario,
// searches it and replays every counterexample with happens-before
// attached: every race, order and deadlock scenario is confirmed (a
// race's report involves an @bug instruction) but the window one, which
// has no counterexample; no correct scenario is confirmed but the benign
// ad-hoc flag (its flag and message are data races by definition); k5's
// false candidate is discarded and k6's infeasible one dropped, as they
// are built to be; a deadlock replay hangs.
func TestReplayScenarios(t *testing.T) {
	for _, e := range workloads.List() {
		if !strings.HasPrefix(e.Name, "infer-") {
			continue
		}
		prog, err := workloads.Program(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), prog)
		var a *Analysis
		var seed uint64
		for seed = 1; seed < 40 && a == nil; seed++ {
			rec := NewRecorder(prog)
			r, err := sim.Run(cfg, prog, seed, sim.WithDetector(rec))
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome == core.Pass {
				if a, err = rec.Analyse(DefaultOptions()); err != nil {
					t.Fatal(err)
				}
			}
		}
		seed--
		cex, _, err := a.Search(DefaultSearchOptions())
		if err != nil {
			t.Fatal(err)
		}
		bug := map[int32]bool{}
		for _, pc := range prog.BugPCs() {
			bug[pc] = true
		}
		verdicts := map[Verdict]int{}
		confirmedBug := false
		for i := range cex {
			res, err := Replay(sim.Runner{Config: cfg, Program: prog}, prog, seed, a.Trace, &cex[i])
			if err != nil {
				t.Fatal(err)
			}
			verdicts[res.Verdict]++
			if res.Verdict != Confirmed {
				continue
			}
			if cex[i].Deadlock {
				if !res.Deadlock {
					t.Errorf("%s: a confirmed deadlock whose replay did not hang", e.Name)
				}
				confirmedBug = true
			}
			for _, f := range res.Races {
				for _, pc := range f.PCs {
					confirmedBug = confirmedBug || bug[pc]
				}
			}
		}
		switch e.Name {
		case "infer-k10-window":
			if len(cex) != 0 {
				t.Errorf("%s: %d counterexamples across windows", e.Name, len(cex))
			}
		case "infer-k5-false-candidate":
			if verdicts[Discarded] != 1 || len(cex) != 1 {
				t.Errorf("%s: verdicts %v, want one discarded", e.Name, verdicts)
			}
		case "infer-k6-infeasible":
			if verdicts[Dropped] != 1 || len(cex) != 1 {
				t.Errorf("%s: verdicts %v, want one dropped", e.Name, verdicts)
			}
		case "infer-signal-not-broadcast":
			// The documented miss (no counterexample from a passing trace).
			if len(cex) != 0 {
				t.Errorf("%s: %d counterexamples; update the documented miss", e.Name, len(cex))
			}
		case "infer-adhoc-flag":
			if verdicts[Confirmed] != 2 {
				t.Errorf("%s: verdicts %v, want its 2 benign races confirmed", e.Name, verdicts)
			}
		default:
			if prog.Class == "none" && verdicts[Confirmed] != 0 {
				t.Errorf("%s (correct): %d confirmed", e.Name, verdicts[Confirmed])
			}
			if prog.Class != "none" && !confirmedBug {
				t.Errorf("%s (%s): no confirmed report on its bug; verdicts %v", e.Name, prog.Class, verdicts)
			}
		}
	}
}

// TestDeadlockReplayDeterministic: the lock-order scenario's deadlock
// counterexample, replayed twice from the same seed, hangs the same way.
func TestDeadlockReplayDeterministic(t *testing.T) {
	prog, _ := workloads.Program("infer-k2-lock-order")
	cfg, _ := sim.FitCores(configs.Default(), prog)
	a := runKernel(t, "infer-k2-lock-order", 1)[0]
	cex, _, _ := a.Search(DefaultSearchOptions())
	var dl *Counterexample
	for i := range cex {
		if cex[i].Deadlock {
			dl = &cex[i]
		}
	}
	if dl == nil {
		t.Fatal("no deadlock counterexample")
	}
	var first ReplayResult
	for i := range 2 {
		res, err := Replay(sim.Runner{Config: cfg, Program: prog}, prog, 1, a.Trace, dl)
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Confirmed || !res.Deadlock || res.Outcome != core.Hang {
			t.Fatalf("replay %d: %+v", i, res)
		}
		if i == 0 {
			first = res
		} else if res.Outcome != first.Outcome || len(res.Races) != len(first.Races) {
			t.Errorf("replays differ: %+v, %+v", first, res)
		}
	}
}

// TestDeadlockFlag: a run whose threads all block reports Deadlock; one
// stopped by sim.max_cycles is a hang without it.
func TestDeadlockFlag(t *testing.T) {
	prog, _ := workloads.Program("infer-k2-lock-order")
	cfg, _ := sim.FitCores(configs.Default(), prog)
	deadlocked := false
	for seed := uint64(1); seed < 200 && !deadlocked; seed++ {
		r, err := sim.Run(cfg, prog, seed)
		if err != nil {
			t.Fatal(err)
		}
		if r.Deadlock != (r.Outcome == core.Hang && strings.HasPrefix(r.OutcomeMsg, "deadlock")) {
			t.Fatalf("seed %d: Deadlock %v, outcome %s %q", seed, r.Deadlock, r.Outcome, r.OutcomeMsg)
		}
		deadlocked = r.Deadlock
	}
	if !deadlocked {
		t.Fatal("no seed of 1..199 deadlocked")
	}
	cfg.Sim.MaxCycles = 50
	if r, _ := sim.Run(cfg, prog, 1); r.Outcome != core.Hang || r.Deadlock {
		t.Errorf("max_cycles: %s, Deadlock %v", r.Outcome, r.Deadlock)
	}
}
