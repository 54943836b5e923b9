// Package atomicfile writes result files whole or not at all: a file is
// written through a temporary file beside it and renamed into place, so a
// failed or interrupted write never leaves a partial result behind.
//
// Only a regular file (or a path that does not exist yet) is replaced. A
// symbolic link is kept: the file it points to is written whole in its
// stead. Anything else that is not a directory — a named pipe, a device
// such as /dev/null or /dev/stdout, a socket — is written straight
// through, as a stream, since renaming over it would replace the node
// itself; such a write cannot be undone. A directory is an error that says
// so.
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
	// File is the temporary file being written (its Name is the temporary
	// path), or for a stream the path itself, opened for writing.
	*os.File
	path string
	// stream marks a write straight through to a node that is not a
	// regular file.
	stream bool
}

// Create starts writing path: through a temporary file beside it (beside
// the file a symbolic link points to, for a link), or straight through to
// a pipe or a device.
func Create(path string) (*File, error) {
	target, stream, err := resolve(path)
	if err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if stream {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, fmt.Errorf("create %s: %w", path, err)
		}
		return &File{File: f, path: path, stream: true}, nil
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the temporary name means nothing to the user
		}
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	return &File{File: tmp, path: target}, nil
}

// resolve returns where path's contents go: the path itself for a new
// file, the file at the end of its symbolic links for a regular file or a
// dangling link (the name the link would create), or stream true for a
// node that is not a regular file (a pipe, a device; /dev/fd/N for a
// shell's process substitution is a link to one). A directory is an
// error.
func resolve(path string) (target string, stream bool, err error) {
	st, err := os.Stat(path)
	switch {
	case err == nil && st.IsDir():
		return "", false, errors.New("it is a directory: name a file")
	case err == nil && !st.Mode().IsRegular():
		return path, true, nil
	case err == nil:
		real, err := filepath.EvalSymlinks(path)
		return real, false, err
	case !errors.Is(err, fs.ErrNotExist):
		return "", false, err
	}
	for range 40 {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, false, nil
		}
		if err != nil {
			return "", false, err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return path, false, nil
		}
		to, err := os.Readlink(path)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(path), to)
		}
		path = to
	}
	return "", false, errors.New("too many levels of symbolic links")
}

// Commit flushes the file and moves it to its path (for a stream: closes
// it).
func (f *File) Commit() error {
	if f.stream {
		if err := f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", f.path, err)
		}
		return nil
	}
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
// directory, and the file must not be a stream.
func (f *File) CommitAs(path string) error {
	if f.stream {
		f.Close()
		return fmt.Errorf("write %s: %s is not a regular file", path, f.path)
	}
	f.path = path
	return f.Commit()
}

// Abort discards the file; its path is left as it was (what was written
// to a stream stays written).
func (f *File) Abort() {
	f.Close()
	if !f.stream {
		os.Remove(f.Name())
	}
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
