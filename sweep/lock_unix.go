//go:build unix

package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// lockDir takes the lock of the sweep directory dir (which must
// exist), so that two weft processes never write one directory at once. It
// holds an exclusive flock(2) on dir/sweep.lock, which the kernel releases
// when the process ends however it ends, so a killed sweep never leaves a
// stale lock behind. A directory locked by another process is an error
// naming it and the process. The returned function releases the lock.
func lockDir(dir string) (unlock func(), err error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock sweep directory: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, fmt.Errorf("%s is in use by another weft sweep or merge (%s; lock %s): wait for it to finish, or choose another --out", dir, who, path)
		}
		return nil, fmt.Errorf("lock sweep directory %s: %w", dir, err)
	}
	host, _ := os.Hostname()
	f.Truncate(0)
	fmt.Fprintf(f, "pid %d on %s since %s\n", os.Getpid(), host, time.Now().Format(time.DateTime))
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
