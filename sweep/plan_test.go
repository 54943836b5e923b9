package sweep_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weft/configs"
	"weft/sweep"
)

// testSweep is a small, fast sweep: 2 × 2 axis values × 2 workloads (a
// profile with params and a kernel) × 3 runs = 24 runs.
const testSweep = `runs = 3
seed = 5

[[axis]]
key = "machine.cores"
values = [4, 8]

[[axis]]
key = "sim.jitter_cycles"
values = [0, 8]

[[workload]]
name = "fft"
params = { ops_per_thread = 400, phases = 2 }

[[workload]]
name = "counter-race"
`

// planText plans the sweep text, written to a file in a temporary directory.
func planText(t *testing.T, text string) *sweep.Plan {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := sweep.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func TestPlanSweep(t *testing.T) {
	plan := planText(t, testSweep)
	if len(plan.Points) != 8 || plan.Runs() != 24 {
		t.Fatalf("%d points, %d runs; want 8, 24", len(plan.Points), plan.Runs())
	}
	want := []struct {
		cores    int
		jitter   uint64
		workload string
	}{
		{4, 0, "fft(ops_per_thread=400,phases=2)"}, {4, 0, "counter-race"},
		{4, 8, "fft(ops_per_thread=400,phases=2)"}, {4, 8, "counter-race"},
		{8, 0, "fft(ops_per_thread=400,phases=2)"}, {8, 0, "counter-race"},
		{8, 8, "fft(ops_per_thread=400,phases=2)"}, {8, 8, "counter-race"},
	}
	for i, pt := range plan.Points {
		w := want[i]
		if pt.Index != i || pt.Config.Machine.Cores != w.cores || pt.Config.Sim.JitterCycles != w.jitter || pt.Workload != w.workload {
			t.Errorf("point %d: index %d cores %d jitter %d workload %s; want %+v", i, pt.Index,
				pt.Config.Machine.Cores, pt.Config.Sim.JitterCycles, pt.Workload, w)
		}
		if got := pt.Axes.String(); got != "machine.cores="+configs.FormatValue(int64(w.cores))+", sim.jitter_cycles="+configs.FormatValue(int64(w.jitter)) {
			t.Errorf("point %d axes %s", i, got)
		}
	}
	if fft := plan.Points[0].Program; fft.MinCores != 4 {
		t.Errorf("the profile follows machine.cores: %d threads at 4 cores", fft.MinCores)
	}
}

func TestPlanSweepErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"unknown workload", "[[axis]]\nkey = \"machine.cores\"\nvalues = [4]\n\n[[workload]]\nname = \"fft\"\n\n[[workload]]\nname = \"ffx\"\n",
			[]string{"test.toml:9", `workload "ffx"`, "unknown workload"}},
		{"bad param", "[[workload]]\nname = \"fft\"\nparams = { phasez = 2 }\n", []string{"test.toml:2", `workload "fft(phasez=2)"`, `unknown param "phasez"`}},
		{"kernel params", "[[workload]]\nname = \"counter-race\"\nparams = { phases = 2 }\n", []string{"takes no params"}},
		{"kernel cores", "[[axis]]\nkey = \"machine.cores\"\nvalues = [2, 4]\n[[workload]]\nname = \"counter-race\"\n",
			[]string{`workload "counter-race": needs 3 cores (.cores) but axis "machine.cores" value 2`}},
		{"value out of range", "[[axis]]\nkey = \"machine.cores\"\nvalues = [4, 100]\n[[workload]]\nname = \"fft\"\n",
			[]string{`test.toml:3: axis "machine.cores" value 100: machine.cores: must be from 1 to 64, got 100`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "test.toml")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := sweep.Load(path)
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
	// Without a cores axis a kernel's .cores raises machine.cores, as in weft run.
	plan := planText(t, "set = [\"machine.cores=2\"]\n[[workload]]\nname = \"counter-race\"\n")
	if c := plan.Points[0].Config.Machine.Cores; c != 3 || len(plan.Notes) != 1 {
		t.Errorf("cores %d, notes %q; want 3 and a note", c, plan.Notes)
	}
}
