package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weft/workloads"
)

// weft pset trains on counter-race's passing runs, writes a PSet file that
// show reads back, and check flags exactly the failing runs of other
// seeds, each violation involving a @bug instruction (scored here).
func TestPSetTrainShowCheck(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "cr.pset")
	out, _ := mustWeft(t, "pset", "train", "-w", "counter-race", "--runs", "60", "-o", file, "--quiet")
	if !strings.Contains(out, "passing runs of counter-race") || !strings.Contains(out, "new pairs by passing run: ") || !strings.Contains(out, "7 memory instructions") {
		t.Errorf("train:\n%s", out)
	}
	out, _ = mustWeft(t, "pset", "show", "-w", "counter-race", file)
	if !strings.Contains(out, "ld r4, balance @bug     one   18 (st r4, balance @bug)") {
		t.Errorf("show:\n%s", out)
	}
	out, _ = mustWeft(t, "pset", "check", "-w", "counter-race", "--seed", "100", "--runs", "40", file, "--quiet")
	var failed, violating int
	if _, err := fmt.Sscanf(out[strings.Index(out, "(")+1:], "%d failed): violations in %d runs", &failed, &violating); err != nil || failed == 0 || failed != violating {
		t.Errorf("check: %v\n%s", err, out)
	}
	prog, _ := workloads.Program("counter-race")
	bug := map[string]bool{}
	for _, pc := range prog.BugPCs() {
		bug[fmt.Sprint(pc)] = true
	}
	n := 0
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 3 && f[0] == "violation" {
			n++
			if !bug[f[2]] && !bug[f[3]] {
				t.Errorf("a violation without a @bug instruction: %s", line)
			}
		}
	}
	if n == 0 {
		t.Errorf("check found nothing:\n%s", out)
	}

	// A file trained with --ignore-sync says so: check follows it, and
	// --ignore-sync against a file trained with sync accesses in is an
	// error.
	nosync := filepath.Join(dir, "ns.pset")
	mustWeft(t, "pset", "train", "-w", "counter-race", "--runs", "10", "--ignore-sync", "-o", nosync, "--quiet")
	mustWeft(t, "pset", "check", "-w", "counter-race", "--runs", "5", nosync, "--quiet")
	mustWeft(t, "pset", "check", "-w", "counter-race", "--runs", "5", "--ignore-sync", nosync, "--quiet")
	// A version 1 file (no flags byte) records neither: --ignore-sync
	// decides, with no error.
	v1data, _ := os.ReadFile(nosync)
	v1data = v1data[:len(v1data)-5] // no checksum (4 bytes), no flags (1)
	v1data[4] = 1
	v1 := filepath.Join(dir, "v1.pset")
	os.WriteFile(v1, v1data, 0o644)
	mustWeft(t, "pset", "check", "-w", "counter-race", "--runs", "5", "--ignore-sync", v1, "--quiet")
	mustWeft(t, "pset", "check", "-w", "counter-race", "--runs", "5", v1, "--quiet")

	data, _ := os.ReadFile(file)
	trunc := filepath.Join(dir, "trunc.pset")
	os.WriteFile(trunc, data[:len(data)-1], 0o644)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"pset"}, 2, "name an action"},
		{[]string{"pset", "frob"}, 2, `unknown action "frob"`},
		{[]string{"pset", "train", "-w", "counter-race"}, 2, "-o FILE.pset"},
		{[]string{"pset", "train", "-w", "counter-race", "--runs", "0", "-o", file}, 2, "--runs must be"},
		{[]string{"pset", "check", "-w", "counter-race", "--untested", "maybe", file}, 2, "--untested"},
		{[]string{"pset", "show", "-w", "counter-race"}, 2, "name one PSet file"},
		{[]string{"pset", "show", "-w", "mysql-binlog", file}, 1, "the PSets of mysql-binlog: " + file + ": PSets of another program"},
		{[]string{"pset", "show", "-w", "counter-race", trunc}, 1, trunc + ": byte "},
		{[]string{"pset", "show", "-w", "counter-race", filepath.Join(dir, "none.pset")}, 1, "no such file"},
		{[]string{"pset", "check", "-w", "counter-race", "--ignore-sync", file}, 2, file + " was trained with synchronisation accesses in, but --ignore-sync leaves them out"},
	} {
		_, stderr, code := weft(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("weft %s: exit %d, %q; want %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
	}
}

// weft run --psets gives the PSet hardware its PSets: on mysql-binlog,
// stalling avoids the failures that logging only lets through, and the
// reproduce line names the PSet file.
func TestRunWithPSetHardware(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mb.pset")
	mustWeft(t, "pset", "train", "-w", "mysql-binlog", "--runs", "100", "-o", file, "--quiet")
	logOnly, _ := mustWeft(t, "run", "-w", "mysql-binlog", "--seed", "101", "--runs", "60", "--set", "pset.enabled=true", "--set", `pset.recovery.mode="log_only"`, "--psets", file, "--quiet")
	if !strings.Contains(logOnly, "  error ") || !strings.Contains(logOnly, "--psets "+file+" --seed ") {
		t.Errorf("log_only: want failures and a reproduce line with --psets:\n%s", logOnly)
	}
	stall, _ := mustWeft(t, "run", "-w", "mysql-binlog", "--seed", "101", "--runs", "60", "--set", "pset.enabled=true", "--psets", file, "--quiet")
	if !strings.Contains(stall, "pass  60  100.0%") {
		t.Errorf("stall: want every run to pass:\n%s", stall)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-w", "mysql-binlog", "--psets", file}, "add --set pset.enabled=true"},
		{[]string{"run", "-w", "mysql-binlog", "--set", "pset.enabled=true"}, "needs the program's PSets: --psets FILE.pset"},
	} {
		_, stderr, code := weft(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("weft %s: exit %d, %q; want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	// The hardware's pset.include_sync_ops must match how the file was
	// trained.
	nosync := filepath.Join(dir, "ns.pset")
	mustWeft(t, "pset", "train", "-w", "mysql-binlog", "--runs", "20", "--ignore-sync", "-o", nosync, "--quiet")
	if _, stderr, code := weft(t, "run", "-w", "mysql-binlog", "--set", "pset.enabled=true", "--psets", nosync); code != 2 ||
		!strings.Contains(stderr, nosync+" was trained with --ignore-sync (synchronisation accesses left out), but pset.include_sync_ops = true counts them") {
		t.Errorf("a --ignore-sync file with sync ops checked: exit %d, %q", code, stderr)
	}
	mustWeft(t, "run", "-w", "mysql-binlog", "--set", "pset.enabled=true", "--set", "pset.include_sync_ops=false", "--psets", nosync, "--runs", "3", "--quiet")
	_, stderr, code := weft(t, "run", "-w", "counter-race", "--set", "pset.enabled=true", "--psets", file)
	if code != 1 || !strings.Contains(stderr, "PSets of another program") {
		t.Errorf("another program's PSets: exit %d, %q", code, stderr)
	}
}
