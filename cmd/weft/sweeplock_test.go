//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// holdLock takes dir's sweep lock as another process would and returns a
// function that releases it.
func holdLock(t *testing.T, dir string) func() {
	t.Helper()
	lock, err := os.OpenFile(filepath.Join(dir, "sweep.lock"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		t.Fatal(err)
	}
	lock.Truncate(0)
	lock.WriteString("pid 4242 on testhost since now\n")
	return func() {
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
	}
}

// Two sweeps, or a sweep and a merge, into one directory at once: the
// second is refused with a message naming the directory and the holder.
func TestSweepDirLocked(t *testing.T) {
	file := writeFile(t, "one.toml", "[[workload]]\nname = \"counter-race\"\n")
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	release := holdLock(t, dir)
	const busy = " is in use by another weft sweep or merge (pid 4242 on testhost since now;"
	_, stderr, code := weft(t, "sweep", file, "--out", dir, "--quiet")
	if code != 1 || !strings.Contains(stderr, "weft: "+dir+busy) {
		t.Errorf("sweep into a locked directory: exit %d, %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs.jsonl")); err == nil {
		t.Error("the refused sweep wrote runs.jsonl")
	}
	// Released (a killed holder's lock goes with its process), the sweep runs.
	release()
	mustWeft(t, "sweep", file, "--out", dir, "--quiet")

	other := filepath.Join(t.TempDir(), "other")
	mustWeft(t, "sweep", file, "--out", other, "--quiet")
	release = holdLock(t, dir)
	defer release()
	_, stderr, code = weft(t, "merge", other, "--out", dir)
	if code != 1 || !strings.Contains(stderr, "weft: merge: "+dir+busy) {
		t.Errorf("merge into a locked directory: exit %d, %s", code, stderr)
	}
}
