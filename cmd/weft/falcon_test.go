package main

import (
	"strings"
	"testing"
)

// weft run --detectors falcon ranks the patterns of the batch: on
// falcon-account the bug's R1-W2-R1 (its check, the transfer's store, its
// debit) ranks first, with its location and source lines; [falcon] keys
// set the window and score; a window out of range and a program that
// cannot fail are errors naming the key and the program.
func TestRunFalcon(t *testing.T) {
	out, _ := mustWeft(t, "run", "-w", "falcon-account", "--runs", "100", "--detectors", "falcon", "--quiet")
	i := strings.Index(out, "falcon across the batch (patterns of ")
	if i < 0 {
		t.Fatalf("no ranking:\n%s", out)
	}
	lines := strings.Split(out[i:], "\n")
	if len(lines) < 2 || !strings.Contains(lines[1], "rank 1: R1-W2-R1 on A_amount (lines 53, 76, 56): J 1,") {
		t.Errorf("rank 1:\n%s", out[i:])
	}
	out, _ = mustWeft(t, "run", "-w", "falcon-account", "--runs", "40", "--detectors", "falcon", "--set", `falcon.score="tarantula"`, "--quiet")
	if !strings.Contains(out, "ranked by tarantula suspiciousness") {
		t.Errorf("tarantula:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-w", "falcon-account", "--detectors", "falcon", "--set", "falcon.window=2"}, "falcon.window: must be from 3 (the longest pattern) to 1024, got 2"},
		{[]string{"run", "-p", writeFile(t, "noracle.s", ".kernel noracle\n.data\nx: .word 0\n.text\nmain: st r1, x\n exit\n"), "--detectors", "falcon"},
			"falcon ranks patterns by the runs that fail, but noracle has no oracle (no assert, fail or .expect): no run can fail"},
	} {
		_, stderr, code := weft(t, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("weft %s: exit %d, %q; want %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
}
