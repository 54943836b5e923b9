//go:build !unix

package sim

// lockSweepDir does nothing where flock(2) is missing: run one weft sweep
// per directory at a time.
func lockSweepDir(dir string) (unlock func(), err error) { return func() {}, nil }
