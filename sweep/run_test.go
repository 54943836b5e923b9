package sweep_test

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"weft/sim"
	"weft/sweep"
)

// runSweep runs plan into dir and returns the status and the bytes of
// runs.jsonl.
func runSweep(t *testing.T, plan *sweep.Plan, opt sweep.Options) (sweep.Status, []byte) {
	t.Helper()
	st, err := sweep.Run(context.Background(), plan, opt)
	if err != nil {
		t.Fatal(err)
	}
	return st, readRuns(t, opt.Dir)
}

// readRuns returns the bytes of dir/runs.jsonl.
func readRuns(t *testing.T, dir string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, sweep.RunsFile))
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

func TestSweepRecords(t *testing.T) {
	plan := planText(t, testSweep)
	dir := t.TempDir()
	st, data := runSweep(t, plan, sweep.Options{Dir: dir, Workers: 2})
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
	runs, err := sweep.ReadRuns(dir)
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
	again, err := sweep.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash != plan.Hash {
		t.Errorf("OpenSweepDir hash %s, want %s", again.Hash, plan.Hash)
	}
	if st, err := sweep.Run(context.Background(), again, sweep.Options{Dir: dir}); err != nil || st.Computed != 0 || st.Resumed != 24 {
		t.Errorf("rerun from DIR/sweep.toml: %+v, %v", st, err)
	}
	if !bytes.Equal(readRuns(t, dir), data) {
		t.Error("a rerun of a finished sweep changed runs.jsonl")
	}
}

func TestSweepWorkersAndOrder(t *testing.T) {
	plan := planText(t, testSweep)
	_, one := runSweep(t, plan, sweep.Options{Dir: t.TempDir(), Workers: 1})
	_, four := runSweep(t, plan, sweep.Options{Dir: t.TempDir(), Workers: 4})
	if !bytes.Equal(one, four) {
		t.Error("runs.jsonl differs between 1 and 4 workers")
	}
}

func TestSweepResume(t *testing.T) {
	plan := planText(t, testSweep)
	_, whole := runSweep(t, plan, sweep.Options{Dir: t.TempDir(), Workers: 2})
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
			if _, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir}); err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			kept := append([][]byte{}, lines...)
			rng.Shuffle(len(kept), func(i, j int) { kept[i], kept[j] = kept[j], kept[i] })
			kept = kept[:15]
			torn := tc.torn(append([]byte{}, kept[14]...))
			kept = kept[:14]
			killed := append(bytes.Join(kept, nil), torn...)
			if err := os.WriteFile(filepath.Join(dir, sweep.RunsFile), killed, 0o644); err != nil {
				t.Fatal(err)
			}

			var first, last sweep.Progress
			calls := 0
			st, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir, Workers: 2,
				Progress: func(p sweep.Progress) {
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
		if _, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir}); err != nil {
			t.Fatal(err)
		}
		bad := append(append(append([]byte{}, lines[0]...), "{oops\n"...), lines[1]...)
		if err := os.WriteFile(filepath.Join(dir, sweep.RunsFile), bad, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir})
		if err == nil || !strings.Contains(err.Error(), "runs.jsonl:2:") {
			t.Errorf("corrupt middle line: %v", err)
		}
	})
}

func TestSweepDifferentSweepRefused(t *testing.T) {
	plan := planText(t, testSweep)
	dir := t.TempDir()
	if _, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir}); err != nil {
		t.Fatal(err)
	}
	other := planText(t, strings.Replace(testSweep, "runs = 3", "runs = 2", 1))
	_, err := sweep.Run(context.Background(), other, sweep.Options{Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "holds a different sweep") {
		t.Errorf("different sweep in the same dir: %v", err)
	}
	// The same sweep from another file, with another out, is the same sweep.
	same := planText(t, "out = \"elsewhere\"\n"+testSweep)
	if _, err := sweep.Run(context.Background(), same, sweep.Options{Dir: dir}); err != nil {
		t.Errorf("same sweep, other file: %v", err)
	}
	// A directory with runs but no sweep is not a sweep directory.
	plain := t.TempDir()
	if err := os.WriteFile(filepath.Join(plain, sweep.RunsFile), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: plain}); err == nil || !strings.Contains(err.Error(), "not a sweep directory") {
		t.Errorf("runs without a sweep: %v", err)
	}
}

func TestSweepCancel(t *testing.T) {
	plan := planText(t, testSweep)
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	_, err := sweep.Run(ctx, plan, sweep.Options{Dir: dir, Workers: 1, Progress: func(p sweep.Progress) {
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
	st, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: dir})
	if err != nil || st.Resumed != n || st.Computed != 24-n {
		t.Errorf("resume after cancel: %+v, %v", st, err)
	}
}
