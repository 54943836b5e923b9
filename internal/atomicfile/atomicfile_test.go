package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	if err := WriteFile(path, []byte("first")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Write(path, func(w io.Writer) error {
		w.Write([]byte("half of the second"))
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), path) {
		t.Errorf("failed write: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "first" {
		t.Errorf("a failed write changed the file to %q", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v", st.Mode(), err)
	}
}

func TestCreateInMissingDirectory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out.txt")
	err := WriteFile(path, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "create "+path) || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("error %v should name the file and not the temporary one", err)
	}
}

func TestCommitAs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "runs.jsonl")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("partial\n")
	other := filepath.Join(dir, "runs.partial.jsonl")
	if err := f.CommitAs(other); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(other); string(got) != "partial\n" {
		t.Errorf("%s holds %q", other, got)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("%s exists: %v", path, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// A symbolic link survives a write: the file it points to gets the data,
// whole, and the link still points there.
func TestSymlinkKept(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	if err := os.WriteFile(real, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("real.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st.Mode(), err)
	}
	if got, _ := os.ReadFile(real); string(got) != "new" {
		t.Errorf("the link's target holds %q, want new", got)
	}
	// A dangling link names the file to create.
	dangling := filepath.Join(dir, "dangling")
	if err := os.Symlink("made.txt", dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dangling, []byte("made")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "made.txt")); string(got) != "made" {
		t.Errorf("the dangling link's target holds %q", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// A named pipe is written through, as a stream a reader sees, and stays a
// pipe.
func TestFIFOWrittenThrough(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := mkfifo(path); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := WriteFile(path, []byte("streamed")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "streamed" {
		t.Errorf("the reader got %q", s)
	}
	if st, err := os.Lstat(path); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", st.Mode(), err)
	}
}

// A device is written through and stays a device.
func TestDeviceWrittenThrough(t *testing.T) {
	if err := WriteFile(os.DevNull, []byte("gone")); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(os.DevNull); err != nil || st.Mode()&os.ModeDevice == 0 {
		t.Errorf("%s is no longer a device: %v %v", os.DevNull, st.Mode(), err)
	}
	f, err := Create(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	f.Abort() // must not remove the device
	if _, err := os.Lstat(os.DevNull); err != nil {
		t.Errorf("Abort removed %s: %v", os.DevNull, err)
	}
}

// A directory is an error that says so, not a rename failure on a hidden
// temporary file.
func TestDirectoryRefused(t *testing.T) {
	dir := t.TempDir()
	err := WriteFile(dir, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "is a directory") || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("writing to a directory: %v", err)
	}
}
