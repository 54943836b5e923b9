package main

import (
	"strings"
	"testing"
)

// weft infer: on the paper's Listing 1 the race on y hidden by the lock
// order is a candidate, its counterexample lets the task take m first, and
// the replay confirms it with happens-before's report and a reproduce
// line; the lock-order scenario's deadlock is confirmed with the blocked
// locks; bad flags and a failing trace are errors saying what is wrong.
func TestInfer(t *testing.T) {
	out, _ := mustWeft(t, "infer", "-w", "infer-k1-commutativity")
	for _, want := range []string{"candidates (hb without lock edges, then lockset): 1", "y (1 words): 1 unordered pairs, hidden by the observed lock order",
		"#1 race on y: pc 8 and pc 29 (window 0): confirmed", "lock.t1.0x10080 unlock.t1.0x10080", "hb: race on y", "reproduce: weft infer -w infer-k1-commutativity --seed 1", "confirmed: 1 of 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("k1: no %q in\n%s", want, out)
		}
	}
	out, _ = mustWeft(t, "infer", "-w", "infer-k2-lock-order")
	if !strings.Contains(out, "#1 deadlock (window 0): confirmed") || !strings.Contains(out, "blocked: lock.t1.0x10040") {
		t.Errorf("k2:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"infer", "-w", "infer-k1-commutativity", "--window", "0"}, "--window must be at least 1 (one sync event), got 0"},
		{[]string{"infer", "-w", "no-such-scenario"}, "no-such-scenario"},
		{[]string{"infer", "-w", "counter-race", "--seed", "3"}, "the trace is from a failing run"},
	} {
		_, stderr, code := weft(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("weft %s: exit %d, %q; want %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}
