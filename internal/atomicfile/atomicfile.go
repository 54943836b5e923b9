// Package atomicfile writes result files whole or not at all: a file is
// written through a temporary file beside it and renamed into place, so a
// failed or interrupted write never leaves a partial result behind.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// File is a file that appears at its path only when committed, so a
// failed or interrupted write never leaves a partial result behind.
type File struct {
	// File is the temporary file being written; its Name is the temporary
	// path.
	*os.File
	path string
}

// Create starts writing path through a temporary file beside it.
func Create(path string) (*File, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name means nothing to the user
		}
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{File: tmp, path: path}, nil
}

// Commit flushes the file and moves it to its path.
func (f *File) Commit() error {
	if err := f.Sync(); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	if err := os.Rename(f.Name(), f.path); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	return nil
}

// CommitAs flushes the file and moves it to path instead of the path it
// was created for (which is left as it was). path must be in the same
// directory.
func (f *File) CommitAs(path string) error {
	f.path = path
	return f.Commit()
}

// Abort discards the file; its path is left as it was.
func (f *File) Abort() {
	f.Close()
	os.Remove(f.Name())
}

// Write writes path whole or not at all with write.
func Write(path string, write func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// WriteFile writes data to path whole or not at all.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
