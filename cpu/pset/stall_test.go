package pset_test

import (
	"fmt"
	"testing"

	"weft/core"
	"weft/sim"
	"weft/workloads"
)

// outcomes counts the failing runs of seeds from..to with the PSet
// hardware in mode, and the stalls and timeouts.
func outcomes(t *testing.T, name, mode string, train, from, to int) (fail, stalls, timeouts int) {
	t.Helper()
	return outcomesWith(t, name, mode, "jitter", train, from, to)
}

// outcomesWith is outcomes with the given rollback perturbation.
func outcomesWith(t *testing.T, name, mode, perturb string, train, from, to int) (fail, stalls, timeouts int) {
	t.Helper()
	prog, err := workloads.Program(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg := kernelConfig(prog)
	ps := train0(t, name, train)
	hw := cfg
	hw.PSet.Enabled = true
	hw.PSet.Recovery.Mode = mode
	hw.PSet.Recovery.StallTimeoutCycles = 20000
	hw.PSet.Recovery.Perturbation = perturb
	// A stall that deadlocks (#3) re-checks on every spin of the lock's
	// other waiters until the hang limit: keep it short.
	hw.Sim.MaxCycles = 300_000
	for s := from; s <= to; s++ {
		r, err := sim.Run(hw, prog, uint64(s), sim.WithPSets(ps), sim.WithStatGroups())
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != core.Pass {
			fail++
		}
		g, _ := r.Groups.Get("ext.pset")
		st, _ := g.Stats.Get("stalls")
		to, _ := g.Stats.Get("stall_timeouts")
		stalls += int(st)
		timeouts += int(to)
	}
	return
}

// TestStallAvoids checks the stall column of the paper's Table 2 with
// PSets learned from 100 training seeds, on 80 held-out seeds: stalling
// avoids every failure of rows 5, 10, 11, 12 and 14 (the paper's stall
// pattern, but for row 1) and none of the others' (a stall cannot help a
// deadlock, a null PSet or a violation the timeout releases). Row 1's
// failure is a use after free: its violating access faults before any
// check, and the caches never see the free, so the hardware has nothing
// to stall; the paper's stall avoided it.
func TestStallAvoids(t *testing.T) {
	avoids := map[int]bool{5: true, 10: true, 11: true, 12: true, 14: true}
	for n := 1; n <= 17; n++ {
		name := workloads.RowKernels()[fmt.Sprintf("pset:%d", n)][0]
		f0, _, _ := outcomes(t, name, "log_only", 100, 101, 180)
		f1, st, to := outcomes(t, name, "stall", 100, 101, 180)
		t.Logf("row %d %s: failing log_only %d, stall %d (stalls %d, timeouts %d)", n, name, f0, f1, st, to)
		if n == 2 {
			// Aget's failure needs its signal handler to land inside a
			// short window, which the word metadata's bus time (about
			// 370 bytes a line) closes: with the hardware on it does
			// not fail on these seeds (nor on 101..600), so there is
			// nothing to avoid. Without it, 11% of seeds fail.
			if f0 != 0 {
				t.Errorf("row 2 %s fails %d runs with the PSet hardware on; update this test's account of row 2", name, f0)
			}
			continue
		}
		if f0 == 0 {
			t.Errorf("row %d %s: no failing run among seeds 101..180", n, name)
			continue
		}
		if got := f1 == 0; got != avoids[n] {
			t.Errorf("row %d %s: stall mode fails %d of the %d runs that fail without it; the paper's Table 2 says avoided = %v", n, name, f1, f0, avoids[n])
		}
	}
}

// TestRollbackAvoids checks the rollback modes on 40 held-out seeds, for
// each perturbation of the re-execution: rolling back (to a checkpoint, at
// most 3 times) never leaves more failing runs than logging only, and
// avoids every failure of the rows listed. Holding the violation's
// predecessor (the default) avoids 10 of the 14 rows that fail: every
// order violation whose predecessor a re-execution can postpone; only
// reseeding the jitter avoids 6, holding the violator 5 (it is a stall
// at the same access, so it avoids what stalling avoids). Row 1's
// faulting access is never checked. With a stall first, a stall that
// times out can outlast the checkpoint interval, and the rollback then
// returns to a checkpoint after the predecessor (rows 3, 8 and 15).
func TestRollbackAvoids(t *testing.T) {
	avoids := map[string]map[int]bool{
		"delay_predecessor": {3: true, 5: true, 6: true, 8: true, 10: true, 11: true, 12: true, 13: true, 14: true, 15: true},
		"jitter":            {5: true, 9: true, 11: true, 12: true, 13: true, 14: true},
		"delay_violator":    {5: true, 10: true, 11: true, 12: true, 14: true},
	}
	for n := 1; n <= 15; n++ {
		name := workloads.RowKernels()[fmt.Sprintf("pset:%d", n)][0]
		f0, _, _ := outcomes(t, name, "log_only", 100, 101, 140)
		for _, p := range []string{"delay_predecessor", "jitter", "delay_violator"} {
			f1, _, _ := outcomesWith(t, name, "rollback", p, 100, 101, 140)
			t.Logf("row %d %s: failing log_only %d, rollback with %s %d", n, name, f0, p, f1)
			if f1 > f0 {
				t.Errorf("row %d %s: rolling back with %s left more failing runs (%d) than logging only (%d)", n, name, p, f1, f0)
			}
			if got := f0 > 0 && f1 == 0; got != avoids[p][n] {
				t.Errorf("row %d %s: failing log_only %d, rollback with %s %d; want avoided = %v", n, name, f0, p, f1, avoids[p][n])
			}
		}
		if n == 10 {
			if f2, _, _ := outcomesWith(t, name, "stall_then_rollback", "jitter", 100, 101, 140); f0 == 0 || f2 != 0 {
				t.Errorf("row 10: stall_then_rollback fails %d of %d", f2, f0)
			}
		}
	}
}
