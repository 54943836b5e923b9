package main

import (
	"fmt"
	"runtime"

	"weft/internal/version"
)

// cmdVersion is `weft version` (also `weft --version`).
func cmdVersion(e env, args []string) error {
	fs := newFlagSet("version", "weft version",
		`Prints weft's version as every result records it (the "weft_version" of
run JSON, the first line of config.toml, the reports): the module version,
the VCS revision and +dirty for uncommitted changes. Then the full revision
and the Go toolchain. go build and go install record the revision; go run,
go test and builds with -buildvcs=false do not.`)
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef(fs, "version: unexpected argument %q", pos[0])
	}
	in := version.Get()
	fmt.Fprintf(e.stdout, "weft %s\n", in)
	switch {
	case in.Revision == "":
		fmt.Fprintln(e.stdout, "revision unknown: this binary was built without VCS information (go run, go test or -buildvcs=false)")
	default:
		rev := "revision " + in.Revision
		if in.Time != "" {
			rev += ", committed " + in.Time
		}
		if in.Modified {
			rev += ", with uncommitted changes"
		}
		fmt.Fprintln(e.stdout, rev)
	}
	fmt.Fprintf(e.stdout, "built with %s %s/%s\n", in.Go, runtime.GOOS, runtime.GOARCH)
	return nil
}
