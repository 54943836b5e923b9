package sweep_test

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"weft/sweep"
)

const twoAxes = `# a sweep
base = "default"
runs = 3
seed = 10
out = "weft-out/x"
set = ["sim.jitter_cycles=2"]

[[axis]]
key = "machine.cores"
values = [2, 4, 8]

[[axis]]
key = "cache.l1.size_bytes"
values = [4096, 8192]

[[workload]]
name = "fft"

[[workload]]
name = "lu"
[workload.params]
phases = 2
hot_write_frac = 0.5
`

func TestParseSpec(t *testing.T) {
	s, err := sweep.ParseSpec("two.toml", []byte(twoAxes))
	if err != nil {
		t.Fatal(err)
	}
	if s.Base != "default" || s.Runs != 3 || s.Seed != 10 || s.Out != "weft-out/x" ||
		!reflect.DeepEqual(s.Set, []string{"sim.jitter_cycles=2"}) {
		t.Errorf("parsed %+v", s)
	}
	if len(s.Axes) != 2 || s.Axes[0].Key != "machine.cores" || s.Axes[1].Key != "cache.l1.size_bytes" {
		t.Fatalf("axes %+v", s.Axes)
	}
	if !reflect.DeepEqual(s.Axes[0].Values, []any{int64(2), int64(4), int64(8)}) {
		t.Errorf("axis values %#v", s.Axes[0].Values)
	}
	if s.Axes[0].Line != 10 || s.Axes[1].Line != 14 {
		t.Errorf("axis lines %d, %d; want 10, 14", s.Axes[0].Line, s.Axes[1].Line)
	}
	if len(s.Workloads) != 2 || s.Workloads[1].Name != "lu" || s.Workloads[1].Line != 20 {
		t.Fatalf("workloads %+v", s.Workloads)
	}
	if got, want := s.Workloads[1].Label(), "lu(hot_write_frac=0.5,phases=2)"; got != want {
		t.Errorf("Label() = %q, want %q", got, want)
	}
	if !s.Axes[0].Numeric() {
		t.Error("machine.cores axis not numeric")
	}

	// Defaults.
	d, err := sweep.ParseSpec("d.toml", []byte("[[workload]]\nname = \"fft\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Base != "default" || d.Runs != 1 || d.Seed != 1 || d.Out != "" || len(d.Axes) != 0 {
		t.Errorf("defaults: %+v", d)
	}
}

func TestSweepTOMLRoundTrip(t *testing.T) {
	s, err := sweep.ParseSpec("two.toml", []byte(twoAxes))
	if err != nil {
		t.Fatal(err)
	}
	back, err := sweep.ParseSpec("two.toml", []byte(s.TOML()))
	if err != nil {
		t.Fatalf("%v\n%s", err, s.TOML())
	}
	if back.TOML() != s.TOML() {
		t.Errorf("TOML() does not round-trip:\n%s\n---\n%s", s.TOML(), back.TOML())
	}
	strip := func(s sweep.Spec) sweep.Spec {
		for i := range s.Axes {
			s.Axes[i].Line = 0
		}
		for i := range s.Workloads {
			s.Workloads[i].Line = 0
		}
		return s
	}
	if !reflect.DeepEqual(strip(back), strip(s)) {
		t.Errorf("round trip:\n%+v\n%+v", back, s)
	}
}

func TestSweepPointsOrder(t *testing.T) {
	s, err := sweep.ParseSpec("two.toml", []byte(twoAxes))
	if err != nil {
		t.Fatal(err)
	}
	if n := s.NumPoints(); n != 3*2*2 {
		t.Fatalf("NumPoints() = %d, want 12", n)
	}
	base, err := s.BaseConfig()
	if err != nil {
		t.Fatal(err)
	}
	if base.Sim.JitterCycles != 2 || base.Sim.Seed != 10 {
		t.Errorf("base: jitter %d seed %d; want the set override and the sweep seed", base.Sim.JitterCycles, base.Sim.Seed)
	}
	pts, err := s.PointConfigs(base)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 12 {
		t.Fatalf("%d points, want 12", len(pts))
	}
	// First axis slowest, workload fastest.
	i := 0
	for _, cores := range []int{2, 4, 8} {
		for _, size := range []int{4096, 8192} {
			for w := range 2 {
				p := pts[i]
				if p.Index != i || p.Workload != w || p.Config.Machine.Cores != cores || p.Config.Cache.L1.SizeBytes != size ||
					!reflect.DeepEqual(p.Values, []any{int64(cores), int64(size)}) {
					t.Errorf("point %d = %+v; want cores %d size %d workload %d", i, p, cores, size, w)
				}
				if p.Config.Sim.JitterCycles != 2 || p.Config.Sim.Seed != 10 {
					t.Errorf("point %d lost the base: %+v", i, p.Config.Sim)
				}
				i++
			}
		}
	}
}

func TestSweepHash(t *testing.T) {
	s, err := sweep.ParseSpec("two.toml", []byte(twoAxes))
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.BaseConfig()
	if err != nil {
		t.Fatal(err)
	}
	h := s.Hash(base)
	// Out, the base's name and where the overrides come from do not matter.
	o := s
	o.Out, o.Base, o.Set = "elsewhere", "mine.toml", nil
	if o.Hash(base) != h {
		t.Error("hash depends on out, base name or set")
	}
	o = s
	o.Runs = 4
	if o.Hash(base) == h {
		t.Error("hash ignores runs")
	}
	b2 := base
	b2.Memory.LatencyCycles++
	if s.Hash(b2) == h {
		t.Error("hash ignores the base config")
	}
}

func TestSweepErrors(t *testing.T) {
	head := "runs = 2\n[[axis]]\nkey = \"machine.cores\"\n"
	wl := "\n[[workload]]\nname = \"fft\"\n"
	for _, tc := range []struct {
		name, text string
		want       []string // substrings of the error
	}{
		{"malformed", "runs = 2\nseed = [1,\n", []string{"sweep bad.toml:2: seed: invalid TOML"}},
		{"unknown top key", "runs = 2\ncolour = 3\n" + wl,
			[]string{"bad.toml:2: colour: unknown key (sweep keys: name, base, runs, seed, out, set, detectors, [[axis]], [[workload]])"}},
		{"top key typo", "runs = 2\nrunz = 3\n" + wl, []string{"bad.toml:2: runz: unknown key; did you mean runs?"}},
		{"workloads typo", "workloads = 1\n" + wl, []string{"bad.toml:1: workloads: unknown key; did you mean [[workload]]?"}},
		{"name with a separator", "name = \"a/b\"\n" + wl,
			[]string{`bad.toml:1: name: want a name without / or \ (it names the output directory weft-out/sweep-NAME), found the string "a/b"`}},
		{"axes typo", "axes = 1\n" + wl, []string{"bad.toml:1: axes: unknown key; did you mean [[axis]]?"}},
		{"bad axis key", "runs = 2\n[[axis]]\nkey = \"machine.core\"\nvalues = [1]\n" + wl,
			[]string{"bad.toml:3", `axis "machine.core"`, "did you mean machine.cores?"}},
		{"table axis key", "[[axis]]\nkey = \"cache.l1\"\nvalues = [1]\n" + wl, []string{"bad.toml:2", `axis "cache.l1"`, "is a table"}},
		{"bad value type", head + "values = [2, \"four\"]\n" + wl,
			[]string{"bad.toml:4", `axis "machine.cores" value "four"`, "wrong type"}},
		{"array value", head + "values = [[2]]\n" + wl, []string{"bad.toml:4", "want numbers, strings or booleans"}},
		{"repeated value", head + "values = [2, 2]\n" + wl, []string{`axis "machine.cores" value 2: repeated value`}},
		{"empty values", head + "values = []\n" + wl, []string{"bad.toml:4", "non-empty array"}},
		{"no values", head + wl, []string{"bad.toml:2", "missing values"}},
		{"unknown axis key", head + "values = [2]\nstep = 2\n" + wl, []string{"bad.toml:5", `unknown key "step"`}},
		{"seed axis", "[[axis]]\nkey = \"sim.seed\"\nvalues = [1, 2]\n" + wl, []string{`axis "sim.seed"`, "not an axis"}},
		{"duplicate axis", head + "values = [2]\n[[axis]]\nkey = \"machine.cores\"\nvalues = [4]\n" + wl,
			[]string{"bad.toml:6", "already an axis (line 4)"}},
		{"no workloads", head + "values = [2]\n", []string{"no workloads"}},
		{"workload without name", "[[workload]]\nparams = { phases = 2 }\n", []string{"bad.toml:1", "workload 1: missing name"}},
		{"duplicate workload", wl + wl, []string{"bad.toml:6", `workload "fft"`, "listed twice (line 3)"}},
		{"bad param", "[[workload]]\nname = \"fft\"\n[workload.params]\nphases = \"two\"\n", []string{"bad.toml:4", "params.phases"}},
		{"runs zero", "runs = 0\n" + wl, []string{"bad.toml:1: runs: want an integer from 1 to 100000000 (runs per point, as weft run --runs), found the integer 0"}},
		{"runs huge", "runs = 100000000000\n" + wl, []string{"bad.toml:1: runs: want an integer from 1 to 100000000 (runs per point, as weft run --runs), found the integer 100000000000"}},
		{"bad set", "set = [\"machine.cores=x\"]\n" + wl, []string{"bad.toml:1", `set[0] "machine.cores=x"`, "machine.cores"}},
		{"set seed", "set = [\"sim.seed=3\"]\n" + wl, []string{"use the sweep's seed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sweep.ParseSpec("bad.toml", []byte(tc.text))
			if err == nil {
				t.Fatalf("no error for\n%s", tc.text)
			}
			var se *sweep.Error
			if !errors.As(err, &se) {
				t.Errorf("error %T is not a *SweepError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

func TestSweepPointErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"out of range", "[[axis]]\nkey = \"machine.cores\"\nvalues = [2, 100]\n[[workload]]\nname = \"fft\"\n",
			[]string{`sweep bad.toml:3: axis "machine.cores" value 100: machine.cores: must be from 1 to 64, got 100`}},
		{"combination", "[[axis]]\nkey = \"cache.l1.size_bytes\"\nvalues = [512, 1024]\n" +
			"[[axis]]\nkey = \"cache.l1.assoc\"\nvalues = [8, 16]\n[[workload]]\nname = \"fft\"\n",
			[]string{`axis "cache.l1.size_bytes" value 512 (with cache.l1.assoc=16)`, "must be a multiple of line_bytes × assoc (64 × 16), got 512"}},
		{"base set", "set = [\"machine.cores=0\"]\n[[workload]]\nname = \"fft\"\n",
			[]string{`base "default" with set machine.cores=0`, "machine.cores: must be"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sweep.ParseSpec("bad.toml", []byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			base, err := s.BaseConfig()
			if err == nil {
				_, err = s.PointConfigs(base)
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nwant it to contain %q", err, w)
				}
			}
		})
	}
}

func TestSweepBaseFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "machine.toml"), []byte("[machine]\ncores = 4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(path, []byte("base = \"machine.toml\"\n[[workload]]\nname = \"fft\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := sweep.LoadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.BaseConfig()
	if err != nil {
		t.Fatal(err)
	}
	if base.Machine.Cores != 4 {
		t.Errorf("base relative to the sweep file: cores %d, want 4", base.Machine.Cores)
	}
	s.Base = "nothere.toml"
	if _, err := s.BaseConfig(); err == nil || !strings.Contains(err.Error(), `base "nothere.toml"`) {
		t.Errorf("missing base: %v", err)
	}
}

// TestExampleSweeps checks that every example in configs/sweeps parses and
// that all its points validate on its base (the workloads are checked by
// NewPlan).
func TestExampleSweeps(t *testing.T) {
	files, err := filepath.Glob("../configs/sweeps/*.toml")
	if err != nil || len(files) < 4 {
		t.Fatalf("example sweeps: %v %v", files, err)
	}
	keys := map[string]bool{}
	for _, f := range files {
		s, err := sweep.LoadSpec(f)
		if err != nil {
			t.Error(err)
			continue
		}
		base, err := s.BaseConfig()
		if err != nil {
			t.Error(err)
			continue
		}
		pts, err := s.PointConfigs(base)
		if err != nil {
			t.Error(err)
			continue
		}
		if len(pts)*s.Runs > 100 {
			t.Errorf("%s: %d runs; keep the examples small", f, len(pts)*s.Runs)
		}
		for _, a := range s.Axes {
			keys[a.Key] = true
		}
	}
	for _, k := range []string{"machine.cores", "cache.l1.size_bytes", "cache.l1.line_bytes", "bus.c2c_cycles"} {
		if !keys[k] {
			t.Errorf("no example sweeps %s", k)
		}
	}
}

// An integer beyond TOML's range (a seed of 2^64−1) names its key and the
// limit in a sweep file, as in a config file and a --set (configs'
// TestHugeIntegerNamesKey).
func TestHugeIntegerNamesKey(t *testing.T) {
	if _, err := sweep.ParseSpec("s.toml", []byte("runs = 2\nseed = 99999999999999999999\n[[workload]]\nname = \"fft\"\n")); err == nil ||
		!strings.Contains(err.Error(), "sweep s.toml:2: seed: 99999999999999999999 is out of range") {
		t.Errorf("ParseSpec = %v", err)
	}
	if _, err := sweep.ParseSpec("s.toml", []byte("[[axis]]\nkey = \"sim.jitter_cycles\"\nvalues = [1, 99999999999999999999]\n[[workload]]\nname = \"fft\"\n")); err == nil ||
		!strings.Contains(err.Error(), "sweep s.toml:3: axis.values: 99999999999999999999 is out of range") {
		t.Errorf("ParseSpec axis = %v", err)
	}
}

// FuzzParseSpec checks that ParseSpec never panics and that every sweep
// it accepts round-trips through its canonical TOML.
func FuzzParseSpec(f *testing.F) {
	f.Add(twoAxes)
	f.Add("[[workload]]\nname = \"fft\"\nparams = { a = 1, b = 2.5, c = true }\n")
	f.Add("axis = [{key = \"bus.c2c_cycles\", values = [1, 2.0]}]\n[[workload]]\nname = \"x\"\n")
	f.Add("base = \"a\\\"b\"\n[[workload]]\nname = \"x y\"\nparams = { \"a b\" = 1, 'c.d' = 2 }\n")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := sweep.ParseSpec("f.toml", []byte(text))
		if err != nil {
			return
		}
		back, err := sweep.ParseSpec("f.toml", []byte(s.TOML()))
		if err != nil {
			t.Fatalf("canonical form does not parse: %v\n%s", err, s.TOML())
		}
		if back.TOML() != s.TOML() {
			t.Fatalf("canonical form does not round-trip:\n%s\n---\n%s", s.TOML(), back.TOML())
		}
	})
}
