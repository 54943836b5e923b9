// Package workloads holds weft's workloads and the registry that names them:
// bug kernels and correct kernels written in weft's assembly (kernels/*.s,
// embedded in the binary); synthetic profiles resembling PARSEC and SPLASH-2
// programs, generated from Go by the phased generator (Gen), one thread per
// core unless set, with their parameters overridable (ProgramWithParams);
// the mixed workload of the speed benchmark (Mixed); and the map between
// the papers' table rows and the kernels that stand for them (PaperRows,
// RowKernels).
//
// Every entry's name, class, description and paper rows come from the
// program itself (its .kernel, .class, .desc and .source directives), so
// the registry has no hand-written table to drift out of date.
package workloads

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"weft/internal/suggest"
	"weft/isa"
)

// kernelFS holds the kernel sources, one program per kernels/NAME.s file.
//
//go:embed kernels/*.s
var kernelFS embed.FS

// kernelDir is the directory of the embedded kernel sources, and the
// prefix of the file names used in assembler messages.
const kernelDir = "kernels"

// ClassNone is the class of a correct workload (no ground-truth bug).
const ClassNone = "none"

// Kind says how a workload is produced.
type Kind int

const (
	// Kernel is a program assembled from an embedded kernels/NAME.s source.
	Kernel Kind = iota
	// Profile is a synthetic program generated from Go.
	Profile
)

// String returns "kernel" or "profile".
func (k Kind) String() string {
	switch k {
	case Kernel:
		return "kernel"
	case Profile:
		return "profile"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Entry describes one workload in the registry.
type Entry struct {
	// Name is the workload's name, as given to `weft run -w`.
	Name string
	// Kind says whether it is an assembled kernel or a generated profile.
	Kind Kind
	// Class is the bug class: none, race, atomicity, order, multivar or deadlock.
	Class string
	// Desc is the one-line description.
	Desc string
	// Source is the .source directive: the paper rows the workload models.
	Source string
	// Rows is Source split into "paper:row" tokens (nil when Source is empty).
	Rows []string
	// Bug reports whether the workload has a ground-truth bug (Class != none).
	Bug bool
	// Cores is the minimum number of cores the program needs (0: no minimum).
	Cores int
	// File is the embedded source file ("kernels/NAME.s"), empty for profiles.
	File string
}

// workload is one registry member: how to name it and how to build it.
// Kernels assemble an embedded file; profiles generate a program from Go
// and join the same list.
type workload struct {
	name string
	kind Kind
	file string
	// build makes the program for a machine of cores cores (0: the
	// workload's default); kernels ignore it, profiles size their threads.
	build func(cores int) (*isa.Program, error)
}

// catalog returns every workload, sorted by name. It reads the embedded
// kernel directory each time, so the package keeps no mutable state.
func catalog() []workload {
	files, err := fs.ReadDir(kernelFS, kernelDir)
	if err != nil {
		// The directory is embedded; failing to read it is a build bug.
		panic(fmt.Sprintf("workloads: read embedded %s: %v", kernelDir, err))
	}
	var ws []workload
	for _, f := range files {
		if f.IsDir() || path.Ext(f.Name()) != ".s" {
			continue
		}
		file := path.Join(kernelDir, f.Name())
		ws = append(ws, workload{
			name:  strings.TrimSuffix(f.Name(), ".s"),
			kind:  Kernel,
			file:  file,
			build: func(int) (*isa.Program, error) { return assembleKernel(file) },
		})
	}
	for _, p := range profiles() {
		ws = append(ws, workload{name: p.Name, kind: Profile, build: p.Program})
	}
	sort.Slice(ws, func(i, j int) bool { return ws[i].name < ws[j].name })
	return ws
}

// assembleKernel assembles one embedded kernel source.
func assembleKernel(file string) (*isa.Program, error) {
	src, err := kernelFS.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("workloads: %w", err)
	}
	return isa.Assemble(file, src)
}

// find returns the workload named name, or an error naming close matches.
func find(name string) (workload, error) {
	ws := catalog()
	for _, w := range ws {
		if w.name == name {
			return w, nil
		}
	}
	names := make([]string, len(ws))
	for i, w := range ws {
		names[i] = w.name
	}
	return workload{}, unknownError(name, names)
}

// entry builds w's registry entry from its program's directives.
func (w workload) entry() (Entry, error) {
	p, err := w.build(0)
	if err != nil {
		return Entry{}, err
	}
	e := Entry{
		Name:   p.Name,
		Kind:   w.kind,
		Class:  p.Class,
		Desc:   p.Desc,
		Source: p.Source,
		Rows:   splitRows(p.Source),
		Bug:    p.Class != "" && p.Class != ClassNone,
		Cores:  p.MinCores,
		File:   w.file,
	}
	if e.Name == "" {
		e.Name = w.name
	}
	return e, nil
}

// List returns every workload, sorted by name. The embedded kernels are
// tested to assemble, so a kernel that does not is a build bug and List
// panics with the assembler's message.
func List() []Entry {
	ws := catalog()
	es := make([]Entry, 0, len(ws))
	for _, w := range ws {
		e, err := w.entry()
		if err != nil {
			panic(fmt.Sprintf("workloads: embedded workload %s: %v", w.name, err))
		}
		es = append(es, e)
	}
	return es
}

// Lookup returns the entry of the named workload. An unknown name is an
// error that suggests close names.
func Lookup(name string) (Entry, error) {
	w, err := find(name)
	if err != nil {
		return Entry{}, err
	}
	return w.entry()
}

// Program builds a fresh copy of the named workload's program; callers may
// modify it. Kernels are assembled from their embedded source, so
// assembler messages name "kernels/NAME.s".
func Program(name string) (*isa.Program, error) { return ProgramFor(name, 0) }

// ProgramFor builds the named workload for a machine of cores cores: a
// synthetic profile runs one thread per core unless it fixes its thread
// count; kernels are the same whatever cores is. cores 0 means the
// workload's default.
func ProgramFor(name string, cores int) (*isa.Program, error) {
	w, err := find(name)
	if err != nil {
		return nil, err
	}
	return w.build(cores)
}

// Source returns the assembly source of the named kernel. Generated
// profiles have no source and return an error.
func Source(name string) ([]byte, error) {
	w, err := find(name)
	if err != nil {
		return nil, err
	}
	if w.file == "" {
		return nil, fmt.Errorf("workloads: %s is a generated %s and has no assembly source", name, w.kind)
	}
	src, err := kernelFS.ReadFile(w.file)
	if err != nil {
		return nil, fmt.Errorf("workloads: %w", err)
	}
	return src, nil
}

// splitRows splits a .source string into its "paper:row" tokens
// ("pset:5 bugaboo:10" gives [pset:5 bugaboo:10]); it returns nil for an
// empty source.
func splitRows(source string) []string {
	f := strings.Fields(source)
	if len(f) == 0 {
		return nil
	}
	return f
}

// ErrUnknown is wrapped by the error for a name that is not in the registry.
var ErrUnknown = errors.New("unknown workload")

// unknownError reports an unknown name, suggesting the known names that
// are close to it, or pointing to weft list when none is.
func unknownError(name string, names []string) error {
	if near := suggest.Closest(name, names); len(near) > 0 {
		return fmt.Errorf("workloads: %w %q; did you mean %s?", ErrUnknown, name, strings.Join(near, ", "))
	}
	return fmt.Errorf("workloads: %w %q (run weft list to see the %d workloads)", ErrUnknown, name, len(names))
}
