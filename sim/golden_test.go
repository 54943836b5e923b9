package sim_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden.txt from this build")

// goldenCases lists the runs whose result bytes the golden file pins: every
// registry workload at 2, 8 and 64 cores, two seeds each; and, for a few,
// the hash of every event of the run.
func goldenCases(t *testing.T) []string {
	t.Helper()
	var lines []string
	for _, e := range workloads.List() {
		for _, cores := range []int{2, 8, 64} {
			prog, err := workloads.ProgramFor(e.Name, cores)
			if err != nil {
				t.Fatal(err)
			}
			cfg := configs.Default()
			cfg.Machine.Cores = cores
			cfg, _ = sim.FitCores(cfg, prog)
			for _, seed := range []uint64{1, 2} {
				r, err := sim.Run(cfg, prog, seed)
				if err != nil {
					t.Fatalf("%s cores=%d seed %d: %v", e.Name, cores, seed, err)
				}
				// The binary's version and the hash of the config schema
				// (which grows with every new key) are not results.
				r.WeftVersion, r.ConfigHash = "", ""
				b, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				sum := sha256.Sum256(b)
				lines = append(lines, fmt.Sprintf("run %s cores=%d seed=%d %s", e.Name, cores, seed, hex.EncodeToString(sum[:8])))
			}
		}
	}
	for _, name := range []string{"mysql-binlog", "prodcons", "stencil", "pset-moz-timer", "counter-locked"} {
		prog, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), prog)
		lines = append(lines, fmt.Sprintf("trace %s seed=3 %s", name, traceHash(t, cfg, prog, 3)))
	}
	return lines
}

// traceHash runs prog and returns the hash of every event of the run.
func traceHash(t *testing.T, cfg configs.Config, prog *isa.Program, seed uint64, opts ...sim.Option) string {
	t.Helper()
	h := sha256.New()
	var ev []byte
	opts = append(opts, sim.WithObserver(core.AllKinds, core.ObserverFunc(func(e *core.Event) {
		ev = fmt.Appendf(ev[:0], "%d %d %d %d %d %#x %d %v %v %d\n", e.Kind, e.Flags, e.Core, e.Thread, e.PC, e.Addr, e.Value, e.Words, e.List, e.Cycle)
		h.Write(ev)
	})))
	if _, err := sim.Run(cfg, prog, seed, opts...); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// TestGolden pins the bytes of run results and event streams: a change
// that is meant to be invisible (speed, refactoring, an extension that is
// off, an observer) must leave every line unchanged. Rewrite the file with
// -update-golden only for a change that is meant to alter results, and say
// why in the commit.
func TestGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("golden runs take a few seconds")
	}
	checkGolden(t, "golden.txt", goldenCases(t))
}

// checkGolden compares got with testdata/NAME line by line, or rewrites the
// file with -update-golden.
func checkGolden(t *testing.T, name string, got []string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *updateGolden {
		if err := os.WriteFile(path, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	sc := bufio.NewScanner(bytes.NewReader(f))
	for sc.Scan() {
		want = append(want, sc.Text())
	}
	if len(want) != len(got) {
		t.Fatalf("%s has %d lines, this build gives %d", path, len(want), len(got))
	}
	bad := 0
	for i := range got {
		if got[i] != want[i] {
			bad++
			if bad <= 10 {
				t.Errorf("changed: %s\n      was: %s", got[i], want[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d lines of %s changed", bad, len(got), path)
	}
}
