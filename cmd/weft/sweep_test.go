package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"weft/results"
)

// cliSweep is a small sweep for the command-line tests: 2 × 2 points × 2 runs.
const cliSweep = `runs = 2
seed = 3
out = "unused"

[[axis]]
key = "sim.jitter_cycles"
values = [0, 6]

[[workload]]
name = "lu"
params = { ops_per_thread = 300 }

[[workload]]
name = "counter-race"
`

// checkSweepConsole checks the per-point table a sweep or merge printed
// against the sweep.csv it wrote: one row per point, no blank cell, and
// every headline mean printed as sweep.md prints it.
func checkSweepConsole(t *testing.T, out, dir string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	csv, err := results.ReadCSV("sweep", f)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "point ") {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no per-point table in:\n%s", out)
	}
	head := strings.Fields(lines[start])
	if head[len(head)-1] != "outcomes" {
		t.Fatalf("header %q", head)
	}
	for _, want := range []string{"roi_cycles", "roi_cycles_ci95", "ipc", "l1_miss_rate", "bus_utilization"} {
		if !strings.Contains(lines[start], want) {
			t.Errorf("header lacks %s: %s", want, lines[start])
		}
	}
	for r, row := range csv.Rows {
		line := lines[start+1+r]
		cells := strings.Fields(line)
		if len(cells) < len(head) {
			t.Errorf("row %d has %d cells for %d columns (a blank column?): %q", r, len(cells), len(head), line)
			continue
		}
		for k, name := range head[:len(head)-1] {
			col := name
			if i, ok := csv.Column(name + "_mean"); ok {
				col = csv.Columns[i]
			}
			i, ok := csv.Column(col)
			if !ok {
				t.Fatalf("sweep.csv has no column %s", col)
			}
			want := results.FormatCell(row[i])
			if x, ok := row[i].(float64); ok {
				want = results.FormatReadable(x)
			}
			if strings.HasSuffix(col, "_ci95") {
				want = "±" + want
			}
			if cells[k] != want {
				t.Errorf("row %d column %s: console %q, sweep.csv %q", r, name, cells[k], want)
			}
		}
	}
}

// fileBytes returns the contents of path.
func fileBytes(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSweepCommand(t *testing.T) {
	file := writeFile(t, "cli.toml", cliSweep)
	dir := filepath.Join(t.TempDir(), "out")
	out, stderr := mustWeft(t, "sweep", file, "--out", dir, "--quiet")
	if stderr != "" {
		t.Errorf("--quiet: stderr %q", stderr)
	}
	for _, s := range []string{"4 points × 2 runs = 8 runs", "ran 8 runs (0 already done)", "sim.jitter_cycles", "counter-race", "wrote " + dir} {
		if !strings.Contains(out, s) {
			t.Errorf("stdout lacks %q:\n%s", s, out)
		}
	}
	runs := fileBytes(t, filepath.Join(dir, "runs.jsonl"))
	if n := bytes.Count(runs, []byte("\n")); n != 8 {
		t.Errorf("%d lines in runs.jsonl, want 8", n)
	}
	for _, f := range []string{"sweep.toml", "base.toml", "sweep.csv", "sweep.md", "sweep.json",
		"plots/roi_cycles-vs-sim.jitter_cycles.png", "plots/bus_utilization-vs-sim.jitter_cycles.svg"} {
		if len(fileBytes(t, filepath.Join(dir, f))) == 0 {
			t.Errorf("%s is empty", f)
		}
	}
	checkSweepConsole(t, out, dir)
	if rep := string(fileBytes(t, filepath.Join(dir, "report.md"))); !strings.Contains(rep, "weft sweep "+file+" --out "+dir+" --quiet") {
		t.Errorf("report.md does not give the command:\n%s", rep)
	}

	// Again: everything is resumed, nothing changes.
	out, _ = mustWeft(t, "sweep", file, "--out", dir, "--quiet", "--workers", "1")
	if !strings.Contains(out, "ran 0 runs (8 already done)") {
		t.Errorf("rerun: %s", out)
	}
	if !bytes.Equal(fileBytes(t, filepath.Join(dir, "runs.jsonl")), runs) {
		t.Error("rerun changed runs.jsonl")
	}
	// From the directory's own copy of the spec.
	out, _ = mustWeft(t, "sweep", filepath.Join(dir, "sweep.toml"), "--quiet")
	if !strings.Contains(out, "ran 0 runs (8 already done)") {
		t.Errorf("resume from DIR/sweep.toml: %s", out)
	}

	// A half-written last line (here a duplicate of a finished run) is cut;
	// nothing claims its run was redone when none was.
	f, err := os.OpenFile(filepath.Join(dir, "runs.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"point":0,"run":1,"axes":{`)
	f.Close()
	out, _ = mustWeft(t, "sweep", file, "--out", dir, "--quiet")
	if !strings.Contains(out, "ran 0 runs (8 already done; cut a half-written last line left by an interrupted write)") || strings.Contains(out, "redone") {
		t.Errorf("torn line: %s", out)
	}
	if !bytes.Equal(fileBytes(t, filepath.Join(dir, "runs.jsonl")), runs) {
		t.Error("cutting the torn line changed runs.jsonl")
	}

	// A different sweep is refused.
	other := writeFile(t, "other.toml", strings.Replace(cliSweep, "runs = 2", "runs = 3", 1))
	_, stderr, code := weft(t, "sweep", other, "--out", dir, "--quiet")
	if code != 1 || !strings.Contains(stderr, "holds a different sweep") {
		t.Errorf("different sweep: exit %d, %s", code, stderr)
	}
}

func TestSweepCommandErrors(t *testing.T) {
	good := writeFile(t, "good.toml", cliSweep)
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no file", []string{"sweep"}, 2, "want one sweep FILE"},
		{"bad shard", []string{"sweep", good, "--shard", "2/2"}, 2, "--shard 2/2: the shard index I must be from 0 to N-1 = 1, got 2"},
		{"shard syntax", []string{"sweep", good, "--shard", "1"}, 2, "want I/N"},
		{"bad workers", []string{"sweep", good, "--workers", "-1"}, 2, "--workers"},
		{"missing file", []string{"sweep", "/no/such.toml"}, 1, "read sweep"},
		{"bad axis key", []string{"sweep", writeFile(t, "k.toml", "[[axis]]\nkey = \"machine.corez\"\nvalues = [2]\n[[workload]]\nname = \"fft\"\n")},
			1, `weft: sweep ` + "%DIR%" + `/k.toml:2: axis "machine.corez": not a config key: unknown key; did you mean machine.cores?`},
		{"value out of range", []string{"sweep", writeFile(t, "v.toml", "[[axis]]\nkey = \"machine.cores\"\nvalues = [4, 65]\n[[workload]]\nname = \"fft\"\n")},
			1, `v.toml:3: axis "machine.cores" value 65: machine.cores: must be from 1 to 64, got 65`},
		{"unknown workload", []string{"sweep", writeFile(t, "w.toml", "[[workload]]\nname = \"fft\"\n[[workload]]\nname = \"no-such-kernel\"\n")},
			1, `w.toml:4: workload "no-such-kernel": unknown workload`},
		{"merge without out", []string{"merge", t.TempDir()}, 2, "--out DIR is required"},
		{"merge nothing", []string{"merge", "--out", t.TempDir()}, 2, "at least one sweep directory"},
		{"merge plain dir", []string{"merge", t.TempDir(), "--out", filepath.Join(t.TempDir(), "m")}, 1, "not a sweep directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, code := weft(t, tc.args...)
			want := tc.want
			if strings.Contains(want, "%DIR%") {
				want = strings.ReplaceAll(want, "%DIR%", filepath.Dir(tc.args[1]))
			}
			if code != tc.code || !strings.Contains(stderr, want) {
				t.Errorf("exit %d, want %d; stderr:\n%s\nwant it to contain %q", code, tc.code, stderr, want)
			}
		})
	}
}

func TestSweepShardMergeCommand(t *testing.T) {
	file := writeFile(t, "cli.toml", cliSweep)
	root := t.TempDir()
	whole := filepath.Join(root, "whole")
	mustWeft(t, "sweep", file, "--out", whole, "--quiet")

	var shards []string
	for i, spec := range []string{"0/2", "1/2"} {
		dir := filepath.Join(root, "shard-"+spec[:1])
		out, _ := mustWeft(t, "sweep", file, "--shard", spec, "--out", dir, "--quiet")
		if !strings.Contains(out, "shard "+spec+": 2 points, ran 4 runs") || !strings.Contains(out, "weft merge") {
			t.Errorf("shard %d: %s", i, out)
		}
		if _, err := os.Stat(filepath.Join(dir, "report.md")); err == nil {
			t.Errorf("shard %s wrote a report", spec)
		}
		shards = append(shards, dir)
	}

	// One shard alone is incomplete: an error, or a warning with --partial.
	_, stderr, code := weft(t, "merge", shards[0], "--out", filepath.Join(root, "half"))
	if code != 1 || !strings.Contains(stderr, "4 of 8 runs are missing (point 1 run 0") {
		t.Errorf("merge of one shard: exit %d\n%s", code, stderr)
	}
	_, stderr = mustWeft(t, "merge", shards[0], "--out", filepath.Join(root, "half"), "--partial")
	if !strings.Contains(stderr, "warning: 4 of 8 runs are missing") {
		t.Errorf("--partial: stderr %q", stderr)
	}

	merged := filepath.Join(root, "merged")
	out, _ := mustWeft(t, "merge", shards[0], shards[1], "--out", merged)
	if !strings.Contains(out, "8 of 8 runs") {
		t.Errorf("merge: %s", out)
	}
	checkSweepConsole(t, out, merged)
	if !bytes.Equal(fileBytes(t, filepath.Join(merged, "runs.jsonl")), fileBytes(t, filepath.Join(whole, "runs.jsonl"))) {
		t.Error("merged shards differ from the whole sweep")
	}
	for _, f := range []string{"sweep.csv", "sweep.toml", "base.toml", "sweep.json"} {
		if !bytes.Equal(fileBytes(t, filepath.Join(merged, f)), fileBytes(t, filepath.Join(whole, f))) {
			t.Errorf("merged %s differs from the whole sweep's", f)
		}
	}
	if rep := string(fileBytes(t, filepath.Join(merged, "report.md"))); !strings.HasPrefix(rep, "# Sweep cli\n") {
		t.Errorf("merged report.md is not titled after the sweep file (cli.toml):\n%.200s", rep)
	}
	if rep := string(fileBytes(t, filepath.Join(merged, "report.md"))); !strings.Contains(rep, "weft merge "+shards[0]+" "+shards[1]+" --out "+merged) {
		t.Errorf("merged report.md lacks the command:\n%.400s", rep)
	}
}

// TestExampleSweepEndToEnd runs an example from configs/sweeps as shipped.
func TestExampleSweepEndToEnd(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "bus")
	out, _ := mustWeft(t, "sweep", "../../configs/sweeps/bus-latency.toml", "--out", dir, "--quiet")
	if !strings.Contains(out, "24 points × 2 runs = 48 runs") {
		t.Errorf("stdout:\n%s", out)
	}
	checkSweepConsole(t, out, dir)
	for _, axis := range []string{"bus.c2c_cycles", "memory.latency_cycles"} {
		for _, m := range []string{"roi_cycles", "ipc", "l1_miss_rate", "bus_utilization"} {
			for _, ext := range []string{".png", ".svg"} {
				if len(fileBytes(t, filepath.Join(dir, "plots", m+"-vs-"+axis+ext))) == 0 {
					t.Errorf("empty plot %s-vs-%s%s", m, axis, ext)
				}
			}
		}
	}
}

func TestHelpListsSweep(t *testing.T) {
	out, _ := mustWeft(t, "help")
	for _, c := range []string{"sweep", "merge"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("help does not list %s", c)
		}
	}
	for _, c := range []string{"sweep", "merge"} {
		out, _ := mustWeft(t, "help", c)
		if !strings.Contains(out, "usage: weft "+c) {
			t.Errorf("help %s: %s", c, out)
		}
	}
}

// A sweep's name, not its file's, names the default output directory.
func TestSweepNameNamesOutDir(t *testing.T) {
	file := writeFile(t, "file-stem.toml", "name = \"myname\"\n"+strings.Replace(cliSweep, "out = \"unused\"\n", "", 1))
	dir := t.TempDir()
	cwd, _ := os.Getwd()
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(cwd)
	mustWeft(t, "sweep", file, "--quiet")
	if _, err := os.Stat(filepath.Join(dir, "weft-out", "sweep-myname", "runs.jsonl")); err != nil {
		t.Errorf("default output directory: %v", err)
	}
}

// TestSweepCommandSingular checks the counts of a one-point, one-run sweep
// read in the singular.
func TestSweepCommandSingular(t *testing.T) {
	file := writeFile(t, "one.toml", "runs = 1\n\n[[axis]]\nkey = \"sim.jitter_cycles\"\nvalues = [0]\n\n[[workload]]\nname = \"counter-race\"\n")
	out, _ := mustWeft(t, "sweep", file, "--out", filepath.Join(t.TempDir(), "out"), "--quiet")
	for _, s := range []string{"1 point × 1 run = 1 run", "ran 1 run (0 already done)", " on 1 worker\n"} {
		if !strings.Contains(out, s) {
			t.Errorf("stdout lacks %q:\n%s", s, out)
		}
	}
	// One run has no interval: no ±0 column.
	if strings.Contains(out, "±") || strings.Contains(out, "_ci95") {
		t.Errorf("a one-run sweep prints an interval:\n%s", out)
	}
}

// The console table has the detector columns sweep.csv has.
func TestSweepCommandDetectorColumns(t *testing.T) {
	file := writeFile(t, "det.toml", "runs = 2\ndetectors = [\"hb\", \"lockset\"]\n\n[[axis]]\nkey = \"sim.jitter_cycles\"\nvalues = [0]\n\n[[workload]]\nname = \"counter-race\"\n")
	out, _ := mustWeft(t, "sweep", file, "--out", filepath.Join(t.TempDir(), "out"), "--quiet")
	for _, s := range []string{"hb_runs", "hb_findings", "lockset_runs", "lockset_findings"} {
		if !strings.Contains(out, s) {
			t.Errorf("stdout lacks %q:\n%s", s, out)
		}
	}
}
