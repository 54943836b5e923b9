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
