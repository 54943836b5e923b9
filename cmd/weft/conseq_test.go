package main

import (
	"strings"
	"testing"
)

func TestConseqCommand(t *testing.T) {
	out, _ := mustWeft(t, "conseq", "-w", "cq-trans", "--test")
	for _, want := range []string{"cq-trans: 1 failure sites (OUT 0, ASS 1, ERR 0, LOOP 0)", "could run before every write and read the initial 0",
		"tester: bug: assert at pc 22", "park thread 0 at pc 3 (execution 1) until r ran (before the lock)"} {
		if !strings.Contains(out, want) {
			t.Errorf("weft conseq -w cq-trans --test: no %q in\n%s", want, out)
		}
	}
	// cq-aget1's seed 1 fails: the next passing seed is traced instead.
	out, _ = mustWeft(t, "conseq", "-w", "cq-aget1", "--seed", "1")
	if !strings.Contains(out, "seed 1 fails") || !strings.Contains(out, "tracing seed 2 instead") {
		t.Errorf("a failing seed was not skipped:\n%s", out)
	}
	// ConSeq-Daikon: Aget1 is beyond MaxDistance; learned invariants find it.
	out, _ = mustWeft(t, "conseq", "-w", "cq-aget1", "--invariants", "10", "--test")
	if !strings.Contains(out, "INV site at pc 87") || !strings.Contains(out, "tester: bug: wrong_output") {
		t.Errorf("weft conseq -w cq-aget1 --invariants 10 --test:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"conseq", "-w", "cq-trans", "--max-distance", "0"}, "--max-distance must be in 1..64, got 0"},
		{[]string{"conseq", "-w", "cq-trans", "--max-distance", "65"}, "--max-distance must be in 1..64, got 65"},
		{[]string{"conseq", "-w", "cq-trans", "--model", "bytes"}, "--model must be statement or instruction"},
		{[]string{"conseq", "-w", "cq-trans", "--sites", "ASS,MEM"}, `unknown site kind "MEM"`},
		{[]string{"conseq", "-w", "no-such-kernel"}, "no-such-kernel"},
		{[]string{"conseq", "-w", "cq-trans", "--timeout", "0"}, "--timeout must be at least 1 cycle"},
		{[]string{"run", "-w", "cq-fft", "--runs", "2", "--detectors", "conseq", "--set", `conseq.error_routines="nope"`}, `detector conseq: conseq: error routine "nope": no such code label in kernels/cq-fft.s`},
		{[]string{"conseq", "-w", "cq-trans", "--set", "conseq.max_distance=99"}, "conseq.max_distance: must be from 1 to 64, got 99"},
		{[]string{"conseq", "-w", "cq-trans", "--set", `conseq.error_routines="no_such_routine"`}, `error routine "no_such_routine": no such code label`},
		{[]string{"conseq", "-w", "cq-trans", "--invariants", "-1"}, "--invariants must be from 0 to 10000, got -1"},
	} {
		_, errOut, code := weft(t, c.args...)
		if code == 0 || !strings.Contains(errOut, c.want) {
			t.Errorf("weft %s: exit %d, stderr %q; want %q", strings.Join(c.args, " "), code, errOut, c.want)
		}
	}
	// A program with no failure site: an empty report that says why.
	out, _ = mustWeft(t, "conseq", "-w", "cq-trans", "--sites", "OUT")
	if !strings.Contains(out, "nothing to analyse: no failure site of the enabled kinds (OUT) in the code") {
		t.Errorf("no-site program:\n%s", out)
	}
}
