package layout

import (
	"os/exec"
	"strings"
	"testing"
)

// allowed lists, for each package (a path under weft/; "x/..." is x's
// sub-packages), the parts of weft it may import directly. internal/...
// is open to every package, and a package always may import its own
// sub-packages' siblings where the rule says so.
var allowed = []struct {
	pkg     string
	imports []string
}{
	{"core", nil},
	{"isa", nil},
	{"configs", nil},
	// results colours outcomes by the names core gives them.
	{"results", []string{"core"}},
	{"coherence", []string{"core"}},
	{"cpu", []string{"core", "isa", "coherence"}},
	{"cpu/...", []string{"cpu", "core", "isa", "coherence"}},
	{"workloads", []string{"core", "isa"}},
	// A detector sees events and the program only; one that re-runs the
	// program is handed a runner declared beside it.
	{"detectors/...", []string{"core", "isa", "detectors/..."}},
	{"detectors", []string{"core", "isa", "detectors/..."}},
	{"sim", []string{"core", "isa", "configs", "coherence", "cpu", "cpu/..."}},
	{"analysis", []string{"core", "isa", "configs", "sim", "detectors", "detectors/..."}},
	// Sweeps sit above the detection pipeline (a sweep's detectors, their
	// counts in the report) and beside the experiments, which plan their
	// machine studies as sweeps: analysis never imports sweep.
	{"sweep", []string{"core", "isa", "configs", "workloads", "sim", "analysis", "results", "cpu", "coherence"}},
	// Sweeps and experiments read the run record's statistics by the
	// names the machine's parts declare (cpu.IPC, coherence.L1MissRate,
	// the PSet hardware's counters): they import cpu and coherence for
	// those names only, never to build or drive a machine (sim does).
	{"experiments", []string{"core", "isa", "configs", "workloads", "sim", "analysis", "sweep", "detectors", "detectors/...", "results", "cpu", "cpu/...", "coherence"}},
	// One sub-package per paper, and suite (the default experiment), over
	// the shared parent; suite takes the Bugaboo and PSet hardware columns
	// from those papers' packages, and the registry imports them all.
	{"experiments/all", []string{"experiments", "experiments/..."}},
	{"experiments/suite", []string{"core", "isa", "configs", "workloads", "sim", "analysis", "detectors", "detectors/...", "results", "experiments", "experiments/bugaboo", "experiments/pset", "cpu", "cpu/...", "coherence"}},
	{"experiments/...", []string{"core", "isa", "configs", "workloads", "sim", "analysis", "sweep", "detectors", "detectors/...", "results", "experiments", "cpu", "cpu/...", "coherence"}},
	{"cmd/weft", []string{"*"}},
	{"internal/...", nil},
}

// matches reports whether pkg (a path under weft/) is what pattern names.
func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return strings.HasPrefix(pkg, base+"/")
	}
	return pattern == pkg
}

// rule returns the allowed imports of pkg, and whether a rule names it.
func rule(pkg string) ([]string, bool) {
	for _, r := range allowed {
		if matches(r.pkg, pkg) {
			return r.imports, true
		}
	}
	return nil, false
}

// imports lists every package of the module with its direct imports of
// weft's own packages (tests left out: a test may run the simulator).
func imports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "weft/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	pkgs := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		pkg := strings.TrimPrefix(f[0], "weft/")
		var own []string
		for _, imp := range f[1:] {
			if rest, ok := strings.CutPrefix(imp, "weft/"); ok {
				own = append(own, rest)
			}
		}
		pkgs[pkg] = own
	}
	return pkgs
}

// Every package imports only what the layout allows it, and every package
// is named by a rule.
func TestImportRules(t *testing.T) {
	pkgs := imports(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list found %d packages; want the whole module", len(pkgs))
	}
	for pkg, imps := range pkgs {
		ok, named := rule(pkg)
		if !named {
			t.Errorf("%s: no import rule names it; add one to internal/layout", pkg)
			continue
		}
		for _, imp := range imps {
			if strings.HasPrefix(imp, "internal/") || (len(ok) == 1 && ok[0] == "*") {
				continue
			}
			fine := false
			for _, a := range ok {
				fine = fine || matches(a, imp)
			}
			if !fine {
				t.Errorf("%s imports %s, which the layout does not allow (it may import %v)", pkg, imp, ok)
			}
		}
	}
}

// No detector depends, even indirectly, on the simulator, the machine,
// the configs, the workloads or anything above them.
func TestDetectorsAreALeaf(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "weft/detectors/...")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	banned := []string{"sim", "configs", "cpu", "coherence", "workloads", "experiments", "analysis", "results", "cmd"}
	for _, dep := range strings.Fields(string(out)) {
		rest, ok := strings.CutPrefix(dep, "weft/")
		if !ok {
			continue
		}
		for _, b := range banned {
			if rest == b || strings.HasPrefix(rest, b+"/") {
				t.Errorf("the detectors depend on weft/%s", rest)
			}
		}
	}
}

// The rules' patterns name real packages and match as meant.
func TestRulePatterns(t *testing.T) {
	for _, c := range []struct {
		pattern, pkg string
		want         bool
	}{
		{"detectors/...", "detectors/hb", true},
		{"detectors/...", "detectors/infer/model", true},
		{"detectors/...", "detectors", false},
		{"detectors", "detectors", true},
		{"cpu", "cpu/pset", false},
	} {
		if got := matches(c.pattern, c.pkg); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.pattern, c.pkg, got, c.want)
		}
	}
	pkgs := imports(t)
	for _, r := range allowed {
		found := false
		for pkg := range pkgs {
			found = found || matches(r.pkg, pkg)
		}
		if !found && !strings.HasPrefix(r.pkg, "experiments/") {
			t.Errorf("rule %q names no package", r.pkg)
		}
	}
}
