package sweep_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weft/sweep"
)

func TestSweepShardMerge(t *testing.T) {
	plan := planText(t, testSweep)
	_, whole := runSweep(t, plan, sweep.Options{Dir: t.TempDir(), Workers: 2})

	root := t.TempDir()
	var shards []string
	for i := range 2 {
		dir := filepath.Join(root, "shard-"+string(rune('0'+i)))
		st, data := runSweep(t, plan, sweep.Options{Dir: dir, Shard: i, Shards: 2})
		if st.Complete || st.Points != 4 || st.Computed != 12 {
			t.Errorf("shard %d/2: %+v", i, st)
		}
		runs, err := sweep.ReadRuns(dir)
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
	_, st, err := sweep.Merge(shards, out, false)
	if err != nil {
		t.Fatal(err)
	}
	if !st.Complete() || st.Runs != 24 {
		t.Errorf("merge status %+v", st)
	}
	if got := readRuns(t, out); !bytes.Equal(got, whole) {
		t.Error("shard 0/2 + shard 1/2 merged differs from the unsharded run")
	}
	// Merging again, with an input repeated, into the merged directory
	// (whose runs join the union) changes nothing.
	if _, _, err := sweep.Merge([]string{shards[0], shards[1], shards[0]}, out, false); err != nil {
		t.Fatal(err)
	}
	if got := readRuns(t, out); !bytes.Equal(got, whole) {
		t.Error("re-merge changed runs.jsonl")
	}
	// A merge into one of its inputs, however spelled, is refused and
	// leaves it as it was.
	before := readRuns(t, shards[0])
	for _, o := range []string{shards[0], shards[0] + "/", filepath.Join(shards[0], "..", filepath.Base(shards[0]))} {
		_, _, err := sweep.Merge([]string{shards[0], shards[1]}, o, false)
		if err == nil || !strings.Contains(err.Error(), "is one of the inputs") {
			t.Errorf("merge into input %s: %v", o, err)
		}
	}
	if got := readRuns(t, shards[0]); !bytes.Equal(got, before) {
		t.Error("a refused merge changed its input")
	}

	for _, bad := range []struct{ shard, shards int }{{2, 2}, {-1, 2}, {0, -1}} {
		if _, err := sweep.Run(context.Background(), plan, sweep.Options{Dir: t.TempDir(), Shard: bad.shard, Shards: bad.shards}); err == nil {
			t.Errorf("shard %d/%d accepted", bad.shard, bad.shards)
		}
	}
}

func TestMergeErrors(t *testing.T) {
	plan := planText(t, testSweep)
	root := t.TempDir()
	s0, s1 := filepath.Join(root, "s0"), filepath.Join(root, "s1")
	runSweep(t, plan, sweep.Options{Dir: s0, Shard: 0, Shards: 2})
	runSweep(t, plan, sweep.Options{Dir: s1, Shard: 1, Shards: 2})

	t.Run("missing runs", func(t *testing.T) {
		_, _, err := sweep.Merge([]string{s0}, filepath.Join(t.TempDir(), "m"), false)
		if err == nil || !strings.Contains(err.Error(), "12 of 24 runs are missing (point 1 run 0") {
			t.Errorf("missing shard: %v", err)
		}
		out := filepath.Join(t.TempDir(), "m")
		_, st, err := sweep.Merge([]string{s0}, out, true)
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
		for _, f := range []string{sweep.SpecFile, sweep.BaseFile} {
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
		if err := os.WriteFile(filepath.Join(dup, sweep.RunsFile), changed, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := sweep.Merge([]string{s0, s1, dup}, filepath.Join(t.TempDir(), "m"), false)
		if err == nil || !strings.Contains(err.Error(), "point 2 run 1 differs between") {
			t.Errorf("conflicting duplicate: %v", err)
		}
	})

	t.Run("different sweeps", func(t *testing.T) {
		other := planText(t, strings.Replace(testSweep, "seed = 5", "seed = 6", 1))
		od := filepath.Join(t.TempDir(), "other")
		runSweep(t, other, sweep.Options{Dir: od, Shard: 1, Shards: 2})
		_, _, err := sweep.Merge([]string{s0, od}, filepath.Join(t.TempDir(), "m"), false)
		if err == nil || !strings.Contains(err.Error(), "holds a different sweep from") {
			t.Errorf("mismatched sweeps: %v", err)
		}
		_, _, err = sweep.Merge([]string{s0, s1}, od, false)
		if err == nil || !strings.Contains(err.Error(), "--out") {
			t.Errorf("--out holding another sweep: %v", err)
		}
		_, _, err = sweep.Merge([]string{s0, t.TempDir()}, filepath.Join(t.TempDir(), "m"), false)
		if err == nil || !strings.Contains(err.Error(), "not a sweep directory") {
			t.Errorf("plain directory: %v", err)
		}
	})

	t.Run("interrupted shard", func(t *testing.T) {
		cut := filepath.Join(t.TempDir(), "cut")
		runSweep(t, plan, sweep.Options{Dir: cut, Shard: 1, Shards: 2})
		data := readRuns(t, cut)
		if err := os.WriteFile(filepath.Join(cut, sweep.RunsFile), data[:len(data)-10], 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := sweep.Merge([]string{s0, cut}, filepath.Join(t.TempDir(), "m"), false)
		if err == nil || !strings.Contains(err.Error(), "half-written") {
			t.Errorf("interrupted shard: %v", err)
		}
	})
}
