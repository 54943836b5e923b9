// Package version says which weft built the running program: the weft
// module's version and the VCS revision the Go toolchain recorded in the
// binary (runtime/debug.ReadBuildInfo). Every result, report and sweep
// records it beside the config hash, so a result names the code that made
// it. It is constant for a binary, so equal runs still give equal bytes.
//
// version is a leaf: it imports nothing from weft.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
)

// Module is weft's module path.
const Module = "weft"

// Info is what the build recorded about weft.
type Info struct {
	// Version is the weft module's version: a tag (v1.2.0), a pseudo-version
	// (v0.0.0-20260101120000-9a26d1716d82+dirty) or "(devel)" when the
	// toolchain stamped none.
	Version string
	// Revision is the VCS revision (commit hash) weft was built from, or ""
	// when none was recorded (go run, go test, -buildvcs=false, or a build
	// outside a repository).
	Revision string
	// Time is the revision's commit time (RFC 3339), or "".
	Time string
	// Modified reports that the working tree had uncommitted changes.
	Modified bool
	// Go is the toolchain that built the binary (go1.26.8).
	Go string
}

var (
	once sync.Once
	info Info
)

// Get returns what the running binary's build info says about weft.
func Get() Info {
	once.Do(func() { info = read() })
	return info
}

// read reads the build info. weft is the main module when its own command
// runs; when a program imports weft as a library, weft is one of its
// dependencies and has no VCS settings of its own.
func read() Info {
	in := Info{Version: "(devel)", Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return in
	}
	in.Go = bi.GoVersion
	mod := &bi.Main
	main := bi.Main.Path == Module
	if !main {
		for _, d := range bi.Deps {
			if d.Path == Module {
				mod = d
				if d.Replace != nil {
					mod = d.Replace
				}
				break
			}
		}
	}
	if mod.Version != "" {
		in.Version = mod.Version
	}
	if main || mod == &bi.Main {
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				in.Revision = s.Value
			case "vcs.time":
				in.Time = s.Value
			case "vcs.modified":
				in.Modified = s.Value == "true"
			}
		}
	}
	return in
}

// String is the version as results record it: the module version, then
// the first 12 digits of the revision when the version does not already
// hold them, then "+dirty" for a modified tree when the version does not
// say so: "v1.2.0", "(devel)", "(devel) 9a26d1716d82+dirty",
// "v0.0.0-20260101120000-9a26d1716d82+dirty".
func (in Info) String() string {
	s := in.Version
	if rev := short(in.Revision); rev != "" && !strings.Contains(s, rev) {
		s += " " + rev
	}
	if in.Modified && !strings.HasSuffix(s, "+dirty") {
		s += "+dirty"
	}
	return s
}

// short is the first 12 digits of a revision.
func short(rev string) string {
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// String is Get().String(): the running weft's version for results.
func String() string { return Get().String() }
