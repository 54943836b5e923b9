package sim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"weft/configs"
	"weft/sim"
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
func planText(t *testing.T, text string) *sim.SweepPlan {
	t.Helper()
	path := filepath.Join(t.TempDir(), "test.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	plan, err := sim.LoadSweepPlan(path)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// runSweep runs plan into dir and returns the status and the bytes of
// runs.jsonl.
func runSweep(t *testing.T, plan *sim.SweepPlan, opt sim.SweepOptions) (sim.SweepStatus, []byte) {
	t.Helper()
	st, err := sim.RunSweep(context.Background(), plan, opt)
	if err != nil {
		t.Fatal(err)
	}
	return st, readRuns(t, opt.Dir)
}

// readRuns returns the bytes of dir/runs.jsonl.
func readRuns(t *testing.T, dir string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, sim.SweepRunsFile))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// splitLines splits data after each newline.
func splitLines(data []byte) [][]byte {
	var lines [][]byte
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) > 0 {
			lines = append(lines, l)
		}
	}
	return lines
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
			_, err := sim.LoadSweepPlan(path)
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

func TestAxisValuesJSON(t *testing.T) {
	in := sim.AxisValues{{"b", int64(4)}, {"a", 2.0}, {"c", "x<y"}, {"d", true}, {"e", 0.25}}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"b":4,"a":2.0,"c":"x\u003cy","d":true,"e":0.25}`; string(data) != want {
		t.Errorf("marshal = %s, want %s", data, want)
	}
	var out sim.AxisValues
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip: %#v, want %#v", out, in)
	}
}

func TestSweepRecords(t *testing.T) {
	plan := planText(t, testSweep)
	dir := t.TempDir()
	st, data := runSweep(t, plan, sim.SweepOptions{Dir: dir, Workers: 2})
	if !st.Complete || st.Computed != 24 || st.Resumed != 0 || st.PointsDone != 8 {
		t.Errorf("status %+v", st)
	}
	lines := splitLines(data)
	if len(lines) != 24 {
		t.Fatalf("%d lines, want 24", len(lines))
	}
	for i, line := range lines {
		if !bytes.HasPrefix(line, []byte(`{"point":`)) || !bytes.Contains(line, []byte(`,"axes":{"machine.cores":`)) {
			t.Errorf("line %d: %.80s", i, line)
		}
	}
	runs, err := sim.ReadSweepRuns(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range runs {
		pt := plan.Points[i/3]
		if r.Point != i/3 || r.Run != i%3 || r.Seed != 5+uint64(i%3) || r.Workload != pt.Workload ||
			!reflect.DeepEqual(r.Axes, pt.Axes) || r.ConfigHash != pt.Config.Hash() {
			t.Errorf("run %d: point %d run %d seed %d workload %s axes %v", i, r.Point, r.Run, r.Seed, r.Workload, r.Axes)
		}
		// The line is exactly what `weft run` computes for the point and seed.
		want, err := sim.Run(pt.Config, pt.Program, r.Seed)
		if err != nil {
			t.Fatal(err)
		}
		if want.Cycles != r.Cycles || want.Outcome != r.Outcome || want.Instructions != r.Instructions {
			t.Errorf("run %d: cycles %d outcome %s; sim.Run gives %d %s", i, r.Cycles, r.Outcome, want.Cycles, want.Outcome)
		}
	}
	// The directory records the sweep so that it can be resumed from there.
	again, err := sim.OpenSweepDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash != plan.Hash {
		t.Errorf("OpenSweepDir hash %s, want %s", again.Hash, plan.Hash)
	}
	if st, err := sim.RunSweep(context.Background(), again, sim.SweepOptions{Dir: dir}); err != nil || st.Computed != 0 || st.Resumed != 24 {
		t.Errorf("rerun from DIR/sweep.toml: %+v, %v", st, err)
	}
	if !bytes.Equal(readRuns(t, dir), data) {
		t.Error("a rerun of a finished sweep changed runs.jsonl")
	}
}

func TestSweepWorkersAndOrder(t *testing.T) {
	plan := planText(t, testSweep)
	_, one := runSweep(t, plan, sim.SweepOptions{Dir: t.TempDir(), Workers: 1})
	_, four := runSweep(t, plan, sim.SweepOptions{Dir: t.TempDir(), Workers: 4})
	if !bytes.Equal(one, four) {
		t.Error("runs.jsonl differs between 1 and 4 workers")
	}
}

func TestSweepResume(t *testing.T) {
	plan := planText(t, testSweep)
	_, whole := runSweep(t, plan, sim.SweepOptions{Dir: t.TempDir(), Workers: 2})
	lines := splitLines(whole)

	for _, tc := range []struct {
		name string
		// torn is the half-written last line a kill left behind.
		torn func(line []byte) []byte
	}{
		{"cut mid-line", func(l []byte) []byte { return l[:len(l)/2] }},
		{"no newline", func(l []byte) []byte { return l[:len(l)-1] }},
		{"garbage with newline", func(l []byte) []byte { return append(l[:20:20], '\n') }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A killed sweep: some runs finished in some order, one line half written.
			dir := t.TempDir()
			if _, err := sim.RunSweep(context.Background(), plan, sim.SweepOptions{Dir: dir}); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			kept := append([][]byte{}, lines...)
			rng.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
			kept = kept[:15]
			torn := tc.torn(append([]byte{}, kept[14]...))
			kept = kept[:14]
			killed := append(bytes.Join(kept, nil), torn...)
			if err := os.WriteFile(filepath.Join(dir, sim.SweepRunsFile), killed, 0o644); err != nil {
				t.Fatal(err)
			}

			var first, last sim.SweepProgress
			calls := 0
			st, err := sim.RunSweep(context.Background(), plan, sim.SweepOptions{Dir: dir, Workers: 2,
				Progress: func(p sim.SweepProgress) {
					if calls == 0 {
						first = p
					}
					last = p
					calls++
				}})
			if err != nil {
				t.Fatal(err)
			}
			if !st.Repaired || st.Resumed != 14 || st.Computed != 24-14 || !st.Complete {
				t.Errorf("status %+v; want repaired, 14 resumed, 10 computed", st)
			}
			// Only the missing runs were computed: one call before, one per run.
			if first.Resumed != 14 || first.RunsDone != 14 || calls != 1+10 || last.RunsDone != 24 || last.PointsDone != 8 {
				t.Errorf("progress: first %+v, last %+v, %d calls", first, last, calls)
			}
			if got := readRuns(t, dir); !bytes.Equal(got, whole) {
				t.Errorf("resumed runs.jsonl differs from an uninterrupted run (%d vs %d bytes)", len(got), len(whole))
			}
		})
	}

	t.Run("corrupt middle line", func(t *testing.T) {
		dir := t.TempDir()
		if _, err := sim.RunSweep(context.Background(), plan, sim.SweepOptions{Dir: dir}); err != nil {
			t.Fatal(err)
		}
		bad := append(append(append([]byte{}, lines[0]...), "{oops\n"...), lines[1]...)
		if err := os.WriteFile(filepath.Join(dir, sim.SweepRunsFile), bad, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := sim.RunSweep(context.Background(), plan, sim.SweepOptions{Dir: dir})
		if err == nil || !strings.Contains(err.Error(), "runs.jsonl:2:") {
			t.Errorf("corrupt middle line: %v", err)
		}
	})
}

func TestSweepDifferentSweepRefused(t *testing.T) {
	plan := planText(t, testSweep)
	dir := t.TempDir()
	if _, err := sim.RunSweep(context.Background(), plan, sim.SweepOptions{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	other := planText(t, strings.Replace(testSweep, "runs = 3", "runs = 2", 1))
	_, err := sim.RunSweep(context.Background(), other, sim.SweepOptions{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "holds a different sweep") {
		t.Errorf("different sweep in the same dir: %v", err)
	}
	// The same sweep from another file, with another out, is the same sweep.
	same := planText(t, "out = \"elsewhere\"\n"+testSweep)
	if _, err := sim.RunSweep(context.Background(), same, sim.SweepOptions{Dir: dir}); err != nil {
		t.Errorf("same sweep, other file: %v", err)
	}
	// A directory with runs but no sweep is not a sweep directory.
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, sim.SweepRunsFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.RunSweep(context.Background(), plan, sim.SweepOptions{Dir: plain}); err == nil || !strings.Contains(err.Error(), "not a sweep directory") {
		t.Errorf("runs without a sweep: %v", err)
	}
}

func TestSweepShardMerge(t *testing.T) {
	plan := planText(t, testSweep)
	_, whole := runSweep(t, plan, sim.SweepOptions{Dir: t.TempDir(), Workers: 2})

	root := t.TempDir()
	var shards []string
	for i := range 2 {
		dir := filepath.Join(root, "shard-"+string(rune('0'+i)))
		st, data := runSweep(t, plan, sim.SweepOptions{Dir: dir, Shard: i, Shards: 2})
		if st.Complete || st.Points != 4 || st.Computed != 12 {
			t.Errorf("shard %d/2: %+v", i, st)
		}
		runs, err := sim.ReadSweepRuns(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Point%2 != i {
				t.Errorf("shard %d/2 ran point %d", i, r.Point)
			}
		}
		if len(splitLines(data)) != 12 {
			t.Errorf("shard %d/2: %d lines", i, len(splitLines(data)))
		}
		shards = append(shards, dir)
	}
	out := filepath.Join(root, "merged")
	_, st, err := sim.MergeSweeps(shards, out, false)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Complete() || st.Runs != 24 {
		t.Errorf("merge status %+v", st)
	}
	if got := readRuns(t, out); !bytes.Equal(got, whole) {
		t.Error("shard 0/2 + shard 1/2 merged differs from the unsharded run")
	}
	// Merging again, with an input repeated and out among the inputs, changes nothing.
	if _, _, err := sim.MergeSweeps([]string{shards[0], shards[1], shards[0], out}, out, false); err != nil {
		t.Fatal(err)
	}
	if got := readRuns(t, out); !bytes.Equal(got, whole) {
		t.Error("re-merge changed runs.jsonl")
	}

	for _, bad := range []struct{ shard, shards int }{{2, 2}, {-1, 2}, {0, -1}} {
		if _, err := sim.RunSweep(context.Background(), plan, sim.SweepOptions{Dir: t.TempDir(), Shard: bad.shard, Shards: bad.shards}); err == nil {
			t.Errorf("shard %d/%d accepted", bad.shard, bad.shards)
		}
	}
}

func TestMergeErrors(t *testing.T) {
	plan := planText(t, testSweep)
	root := t.TempDir()
	s0, s1 := filepath.Join(root, "s0"), filepath.Join(root, "s1")
	runSweep(t, plan, sim.SweepOptions{Dir: s0, Shard: 0, Shards: 2})
	runSweep(t, plan, sim.SweepOptions{Dir: s1, Shard: 1, Shards: 2})

	t.Run("missing runs", func(t *testing.T) {
		_, _, err := sim.MergeSweeps([]string{s0}, filepath.Join(t.TempDir(), "m"), false)
		if err == nil || !strings.Contains(err.Error(), "12 of 24 runs are missing (point 1 run 0") {
			t.Errorf("missing shard: %v", err)
		}
		out := filepath.Join(t.TempDir(), "m")
		_, st, err := sim.MergeSweeps([]string{s0}, out, true)
		if err != nil || st.Complete() || st.Runs != 12 || len(st.Missing) == 0 {
			t.Errorf("--partial: %+v, %v", st, err)
		}
		if !bytes.Equal(readRuns(t, out), readRuns(t, s0)) {
			t.Error("partial merge of one shard differs from the shard")
		}
	})

	t.Run("conflicting duplicate", func(t *testing.T) {
		dup := filepath.Join(t.TempDir(), "dup")
		if err := os.MkdirAll(dup, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{sim.SweepSpecFile, sim.SweepBaseFile} {
			data, err := os.ReadFile(filepath.Join(s0, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dup, f), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		lines := splitLines(readRuns(t, s0))
		changed := bytes.Replace(lines[4], []byte(`"cycles":`), []byte(`"cycles":1`), 1)
		if err := os.WriteFile(filepath.Join(dup, sim.SweepRunsFile), changed, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := sim.MergeSweeps([]string{s0, s1, dup}, filepath.Join(t.TempDir(), "m"), false)
		if err == nil || !strings.Contains(err.Error(), "point 2 run 1 differs between") {
			t.Errorf("conflicting duplicate: %v", err)
		}
	})

	t.Run("different sweeps", func(t *testing.T) {
		other := planText(t, strings.Replace(testSweep, "seed = 5", "seed = 6", 1))
		od := filepath.Join(t.TempDir(), "other")
		runSweep(t, other, sim.SweepOptions{Dir: od, Shard: 1, Shards: 2})
		_, _, err := sim.MergeSweeps([]string{s0, od}, filepath.Join(t.TempDir(), "m"), false)
		if err == nil || !strings.Contains(err.Error(), "holds a different sweep from") {
			t.Errorf("mismatched sweeps: %v", err)
		}
		_, _, err = sim.MergeSweeps([]string{s0, s1}, od, false)
		if err == nil || !strings.Contains(err.Error(), "--out") {
			t.Errorf("--out holding another sweep: %v", err)
		}
		_, _, err = sim.MergeSweeps([]string{s0, t.TempDir()}, filepath.Join(t.TempDir(), "m"), false)
		if err == nil || !strings.Contains(err.Error(), "not a sweep directory") {
			t.Errorf("plain directory: %v", err)
		}
	})

	t.Run("interrupted shard", func(t *testing.T) {
		cut := filepath.Join(t.TempDir(), "cut")
		runSweep(t, plan, sim.SweepOptions{Dir: cut, Shard: 1, Shards: 2})
		data := readRuns(t, cut)
		if err := os.WriteFile(filepath.Join(cut, sim.SweepRunsFile), data[:len(data)-10], 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := sim.MergeSweeps([]string{s0, cut}, filepath.Join(t.TempDir(), "m"), false)
		if err == nil || !strings.Contains(err.Error(), "half-written") {
			t.Errorf("interrupted shard: %v", err)
		}
	})
}

func TestSweepCancel(t *testing.T) {
	plan := planText(t, testSweep)
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	_, err := sim.RunSweep(ctx, plan, sim.SweepOptions{Dir: dir, Workers: 1, Progress: func(p sim.SweepProgress) {
		if p.RunsDone-p.Resumed == 3 {
			cancel()
		}
	}})
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Fatalf("cancelled sweep: %v", err)
	}
	n := len(splitLines(readRuns(t, dir)))
	if n < 3 || n >= 24 {
		t.Errorf("%d lines after cancelling at 3", n)
	}
	st, err := sim.RunSweep(context.Background(), plan, sim.SweepOptions{Dir: dir})
	if err != nil || st.Resumed != n || st.Computed != 24-n {
		t.Errorf("resume after cancel: %+v, %v", st, err)
	}
}
