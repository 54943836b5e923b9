//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// -o writes through a symbolic link (the link stays, its target gets the
// file) and streams to a named pipe (it stays a pipe); a directory is an
// error that says so.
func TestOutputKeepsLinksAndPipes(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.trace")
	link := filepath.Join(dir, "link.trace")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.trace", link); err != nil {
		t.Fatal(err)
	}
	mustWeft(t, "trace", "-w", "counter-race", "-o", link)
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("trace -o replaced the link: %v %v", st.Mode(), err)
	}
	out, _ := mustWeft(t, "trace", "--text", link)
	if !strings.Contains(out, "RunEnd") {
		t.Errorf("the link's target is not the trace:\n%s", out)
	}

	psets := filepath.Join(dir, "link.pset")
	if err := os.Symlink("real.pset", psets); err != nil {
		t.Fatal(err)
	}
	mustWeft(t, "pset", "train", "-w", "counter-race", "--runs", "3", "--quiet", "-o", psets)
	if st, err := os.Lstat(psets); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("pset train -o replaced the link: %v %v", st.Mode(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "real.pset")); err != nil {
		t.Errorf("pset train -o did not write the link's target: %v", err)
	}

	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("no named pipes: %v", err)
	}
	got := make(chan int, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- -1
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- len(b)
	}()
	mustWeft(t, "trace", "-w", "counter-race", "-o", fifo)
	if n := <-got; n <= 0 {
		t.Errorf("the pipe's reader got %d bytes", n)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("trace -o replaced the pipe: %v %v", st.Mode(), err)
	}

	_, stderr, code := weft(t, "trace", "-w", "counter-race", "-o", dir)
	if code == 0 || !strings.Contains(stderr, "is a directory") || strings.Contains(stderr, ".tmp") {
		t.Errorf("trace -o DIR: exit %d, %s", code, stderr)
	}
}
