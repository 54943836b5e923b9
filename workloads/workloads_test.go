package workloads

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"

	"weft/isa"
)

// embeddedNames returns the kernel names from the embedded file names.
func embeddedNames(t *testing.T) []string {
	t.Helper()
	files, err := fs.Glob(kernelFS, kernelDir+"/*.s")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, strings.TrimSuffix(path.Base(f), ".s"))
	}
	return names
}

func TestEveryKernelAssembles(t *testing.T) {
	names := embeddedNames(t)
	if len(names) == 0 {
		t.Fatal("no embedded kernels")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			p, err := Program(name)
			if err != nil {
				t.Fatalf("assemble: %v", err)
			}
			if len(p.Instrs) == 0 {
				t.Fatal("no instructions")
			}
			if _, ok := p.LabelPC("main"); !ok {
				t.Error("no main label")
			}
			if want := "kernels/" + name + ".s"; p.File != want {
				t.Errorf("File = %q, want %q", p.File, want)
			}
		})
	}
}

func TestNamesUniqueAndMatchFiles(t *testing.T) {
	var es []Entry
	for _, e := range List() {
		if e.Kind == Kernel {
			es = append(es, e)
		}
	}
	files := embeddedNames(t)
	if len(es) != len(files) {
		t.Fatalf("List has %d entries, %d embedded files", len(es), len(files))
	}
	seen := map[string]bool{}
	for _, e := range es {
		if seen[e.Name] {
			t.Errorf("duplicate name %q", e.Name)
		}
		seen[e.Name] = true
		if e.Kind != Kernel {
			continue
		}
		if want := "kernels/" + e.Name + ".s"; e.File != want {
			t.Errorf("%s: .kernel name does not match file %s", e.Name, e.File)
		}
	}
	if !sort.SliceIsSorted(es, func(i, j int) bool { return es[i].Name < es[j].Name }) {
		t.Error("List is not sorted by name")
	}
}

var classes = []string{"none", "race", "atomicity", "order", "multivar", "deadlock"}

func TestDirectives(t *testing.T) {
	for _, e := range List() {
		t.Run(e.Name, func(t *testing.T) {
			p, err := Program(e.Name)
			if err != nil {
				t.Fatal(err)
			}
			if e.Desc == "" {
				t.Error("no .desc")
			}
			if !slices.Contains(classes, e.Class) {
				t.Errorf(".class %q is not one of %v", e.Class, classes)
			}
			if len(p.Funcs) == 0 {
				t.Error("no .func regions")
			}
			for pc, in := range p.Instrs {
				if in.Func < 0 {
					t.Errorf("pc %d (line %d) is outside every .func region", pc, in.Line)
				}
			}
			for _, r := range e.Rows {
				paper, row, ok := strings.Cut(r, ":")
				if !ok || paper == "" || row == "" || strings.Contains(row, ":") {
					t.Errorf(".source token %q is not paper:row", r)
				}
			}
			if !slices.Equal(e.Rows, strings.Fields(e.Source)) {
				t.Errorf("Rows %v do not split Source %q", e.Rows, e.Source)
			}
		})
	}
}

func TestBugKernels(t *testing.T) {
	n := 0
	for _, e := range List() {
		if !e.Bug {
			continue
		}
		n++
		t.Run(e.Name, func(t *testing.T) {
			p, err := Program(e.Name)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.BugPCs()) == 0 {
				t.Error("no @bug instruction")
			}
			if e.Class == ClassNone || e.Class == "" {
				t.Errorf("bug kernel with class %q", e.Class)
			}
			if e.Source == "" || len(e.Rows) == 0 {
				t.Error("bug kernel with an empty .source")
			}
			// The oracle may also be a crash or a hang, which no directive
			// names: TestManifestation checks every .force seed makes the
			// run end in something other than pass.
			if len(p.Force) == 0 {
				t.Error("bug kernel with no .force")
			}
		})
	}
	if n == 0 {
		t.Error("no bug kernels")
	}
}

func TestCorrectKernels(t *testing.T) {
	for _, e := range List() {
		if e.Bug {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			p, err := Program(e.Name)
			if err != nil {
				t.Fatal(err)
			}
			if e.Class != ClassNone {
				t.Errorf("class %q, want none", e.Class)
			}
			if !p.HasExpect || len(p.Expect) == 0 {
				t.Error("correct kernel without .expect")
			}
			if pcs := p.BugPCs(); len(pcs) != 0 {
				t.Errorf("correct kernel has @bug at %v", pcs)
			}
		})
	}
}

func TestKernelSuite(t *testing.T) {
	// The kernels the rest of weft (experiments, docs) refers to by name.
	want := map[string]string{
		"counter-locked": "none",
		"prodcons":       "none",
		"stencil":        "none",
		"matmul":         "none",
		"histogram":      "none",
		"msgpass":        "none",
		"counter-race":   "race",
		"mysql-binlog":   "atomicity",
		"pbzip2-uaf":     "order",
	}
	for name, class := range want {
		e, err := Lookup(name)
		if err != nil {
			t.Errorf("Lookup(%q): %v", name, err)
			continue
		}
		if e.Class != class {
			t.Errorf("%s: class %q, want %q", name, e.Class, class)
		}
	}
	e, err := Lookup("mysql-binlog")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(e.Rows, []string{"pset:5", "bugaboo:10"}) {
		t.Errorf("mysql-binlog rows %v", e.Rows)
	}
}

func TestLookupUnknown(t *testing.T) {
	tests := []struct {
		name    string
		mention string // a name the error must suggest
	}{
		{"mysql-binlg", "mysql-binlog"},
		{"counter", "counter-race"},
		{"pbzip2", "pbzip2-uaf"},
		{"counter-lockd", "did you mean counter-locked"}, // best first
		// Nothing close: point to weft list rather than list every name.
		{"no-such-kernel-at-all", fmt.Sprintf(`workloads: unknown workload "no-such-kernel-at-all" (run weft list to see the %d workloads)`, len(List()))},
	}
	for _, tt := range tests {
		_, err := Lookup(tt.name)
		if err == nil {
			t.Errorf("Lookup(%q) succeeded", tt.name)
			continue
		}
		if !errors.Is(err, ErrUnknown) {
			t.Errorf("Lookup(%q) error %v does not wrap ErrUnknown", tt.name, err)
		}
		if !strings.Contains(err.Error(), tt.mention) {
			t.Errorf("Lookup(%q) error %q does not mention %q", tt.name, err, tt.mention)
		}
		if _, err := Program(tt.name); !errors.Is(err, ErrUnknown) {
			t.Errorf("Program(%q) error %v", tt.name, err)
		}
		if _, err := Source(tt.name); !errors.Is(err, ErrUnknown) {
			t.Errorf("Source(%q) error %v", tt.name, err)
		}
	}
}

func TestSource(t *testing.T) {
	src, err := Source("mysql-binlog")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), ".kernel  mysql-binlog") {
		t.Error("source does not hold its .kernel directive")
	}
	// Callers get their own copy.
	src[0] = '!'
	again, _ := Source("mysql-binlog")
	if again[0] == '!' {
		t.Error("Source returned shared bytes")
	}
}

func TestProgramIsFresh(t *testing.T) {
	a, err := Program("counter-race")
	if err != nil {
		t.Fatal(err)
	}
	a.Instrs[0].Op = isa.OpNop
	b, _ := Program("counter-race")
	if b.Instrs[0].Op == isa.OpNop {
		t.Error("Program returned a shared program")
	}
}

func TestKindString(t *testing.T) {
	if Kernel.String() != "kernel" || Profile.String() != "profile" {
		t.Errorf("Kind strings %q %q", Kernel, Profile)
	}
}
