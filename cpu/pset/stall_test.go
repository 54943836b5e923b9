package pset_test

import (
	"fmt"
	"testing"

	"weft/sim"
	"weft/workloads"
)

// outcomes counts the failing runs of seeds from..to with the PSet
// hardware in mode, and the stalls and timeouts.
func outcomes(t *testing.T, name, mode string, train, from, to int) (fail, stalls, timeouts int) {
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
	// A stall that deadlocks (#3) re-checks on every spin of the lock's
	// other waiters until the hang limit: keep it short.
	hw.Sim.MaxCycles = 300_000
	for s := from; s <= to; s++ {
		r, err := sim.Run(hw, prog, uint64(s), sim.WithPSets(ps), sim.WithStatGroups())
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != "pass" {
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

// TestRollbackAvoids checks the rollback modes on 40 held-out seeds:
// rolling back (to a checkpoint, at most 3 times, re-executing with a
// perturbed jitter stream) never leaves more failing runs than logging
// only, and avoids every failure of rows 5, 9, 11, 12, 13 and 14; with a
// stall first, row 10's too. The paper's rollback avoided all 15 rows;
// here rows 1 (the faulting access is never checked), 8 and 15 keep all
// their failures and rows 3, 4, 6, 7 some: three perturbed re-executions
// of the same checkpoint often take the same path again.
func TestRollbackAvoids(t *testing.T) {
	avoids := map[int]bool{5: true, 9: true, 11: true, 12: true, 13: true, 14: true}
	for n := 1; n <= 15; n++ {
		name := workloads.RowKernels()[fmt.Sprintf("pset:%d", n)][0]
		f0, _, _ := outcomes(t, name, "log_only", 100, 101, 140)
		f1, _, _ := outcomes(t, name, "rollback", 100, 101, 140)
		f2, _, _ := outcomes(t, name, "stall_then_rollback", 100, 101, 140)
		t.Logf("row %d %s: failing log_only %d, rollback %d, stall_then_rollback %d", n, name, f0, f1, f2)
		if f1 > f0 || f2 > f0 {
			t.Errorf("row %d %s: rolling back left more failing runs (%d, %d) than logging only (%d)", n, name, f1, f2, f0)
		}
		if avoids[n] && (f0 == 0 || f1 != 0 || f2 != 0) {
			t.Errorf("row %d %s: failing log_only %d, rollback %d, stall_then_rollback %d; want some, then none", n, name, f0, f1, f2)
		}
		if n == 10 && (f0 == 0 || f2 != 0) {
			t.Errorf("row 10: stall_then_rollback fails %d of %d", f2, f0)
		}
	}
}
