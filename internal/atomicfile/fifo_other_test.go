//go:build !unix

package atomicfile

import "errors"

func mkfifo(string) error { return errors.New("no mkfifo") }
