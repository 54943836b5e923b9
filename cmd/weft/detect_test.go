package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"weft/core"
	"weft/detectors"
	"weft/workloads"
)

// findingsLine is the part of a run's JSON line holding its findings.
type findingsLine struct {
	Workload string         `json:"workload"`
	Seed     uint64         `json:"seed"`
	Outcome  string         `json:"outcome"`
	PC       int32          `json:"outcome_pc"`
	Thread   int32          `json:"outcome_thread"`
	Cycles   uint64         `json:"cycles"`
	Findings []core.Finding `json:"findings"`
}

// Every detector gives the same findings offline, from a trace, as online,
// attached to the run, on every kernel.
func TestDetectOfflineEqualsOnline(t *testing.T) {
	all := strings.Join(detectors.Names(), ",")
	dir := t.TempDir()
	n := 0
	for _, e := range workloads.List() {
		if e.Kind != workloads.Kernel {
			continue
		}
		for _, seed := range []string{"1", "7"} {
			trace := filepath.Join(dir, e.Name+"-"+seed+".wtr")
			// Bugaboo's hardware on, so bbhw has graphs to read.
			mustWeft(t, "trace", "-w", e.Name, "--seed", seed, "--set", "bugaboo.enabled=true", "-o", trace, "--quiet")
			online, _ := mustWeft(t, "run", "-w", e.Name, "--seed", seed, "--set", "bugaboo.enabled=true", "--detectors", all, "--json", "--quiet")
			offline, _ := mustWeft(t, "detect", trace, "--detectors", all, "--json")
			var on, off findingsLine
			if err := json.Unmarshal([]byte(online), &on); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(offline), &off); err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(on.Findings)
			b, _ := json.Marshal(off.Findings)
			if string(a) != string(b) || on.Outcome != off.Outcome || on.Seed != off.Seed || on.PC != off.PC || on.Thread != off.Thread || on.Cycles != off.Cycles {
				t.Errorf("%s seed %s: online %s %s\noffline %s %s", e.Name, seed, on.Outcome, a, off.Outcome, b)
			}
			if on.Findings == nil {
				t.Errorf("%s seed %s: --detectors gave no findings list", e.Name, seed)
			}
			n += len(on.Findings)
		}
	}
	if n == 0 {
		t.Errorf("no detector found anything on any kernel")
	}
}

// Attaching detectors never changes a cycle: the run JSON without its
// findings is byte-identical to the run without detectors.
func TestDetectorsInvisible(t *testing.T) {
	all := strings.Join(detectors.Names(), ",")
	for _, name := range []string{"mysql-binlog", "prodcons", "pbzip2-uaf", "stencil", "fft"} {
		bare, _ := mustWeft(t, "run", "-w", name, "--runs", "3", "--json", "--quiet", "--set", "bugaboo.enabled=true")
		with, _ := mustWeft(t, "run", "-w", name, "--runs", "3", "--json", "--quiet", "--set", "bugaboo.enabled=true", "--detectors", all)
		bl, wl := strings.Split(strings.TrimSpace(bare), "\n"), strings.Split(strings.TrimSpace(with), "\n")
		if len(bl) != 3 || len(wl) != 3 {
			t.Fatalf("%s: %d and %d lines", name, len(bl), len(wl))
		}
		for i := range bl {
			j := strings.Index(wl[i], `,"findings":`)
			if j < 0 || wl[i][:j]+"}" != bl[i] {
				t.Errorf("%s run %d: with detectors the run differs:\n%s\n%s", name, i, bl[i], wl[i])
			}
		}
	}
}

func TestDetectorSummary(t *testing.T) {
	out, _ := mustWeft(t, "run", "-w", "mysql-binlog", "--runs", "40", "--detectors", "hb,avio", "--quiet")
	for _, want := range []string{"hb: ", "race on log_type", "of 40 runs, first seed", "avio across the batch (invariants trained on"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	out, _ = mustWeft(t, "list", "--detectors")
	for _, d := range detectors.Names() {
		if !strings.Contains(out, d) {
			t.Errorf("weft list --detectors lacks %s", d)
		}
	}
	out, _ = mustWeft(t, "list", "--detectors", "--json")
	var ds []struct {
		Name  string   `json:"name"`
		Kinds []string `json:"kinds"`
	}
	if err := json.Unmarshal([]byte(out), &ds); err != nil || len(ds) != len(detectors.All()) || len(ds[0].Kinds) == 0 {
		t.Errorf("list --detectors --json: %v %v", err, ds)
	}
}

func TestDetectBadInput(t *testing.T) {
	dir := t.TempDir()
	reads := filepath.Join(dir, "reads.wtr")
	mustWeft(t, "trace", "-w", "counter-race", "--kind", "Read,Write,RMW,Free,Crash,RunEnd", "-o", reads, "--quiet")
	noEnd := filepath.Join(dir, "noend.wtr")
	mustWeft(t, "trace", "-w", "counter-race", "--kind", "Read,Write,Free,Crash", "-o", noEnd, "--quiet")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "-w", "counter-race", "--detectors", "hbb"}, 2, `unknown detector "hbb" (did you mean hb`},
		{[]string{"run", "-w", "counter-race", "--detectors", "hb,hb"}, 2, `detector "hb" named twice`},
		{[]string{"run", "-w", "counter-race", "--detectors", ""}, 2, `empty detector name`},
		{[]string{"run", "-w", "counter-race", "--detectors", "hb", "--detectors", "avio"}, 2, `given twice`},
		{[]string{"detect", reads}, 2, "name the detectors with --detectors"},
		{[]string{"detect", reads, "--detectors", "lockset"}, 1, "detector lockset needs event kinds the trace " + reads + " did not record: Spawn,Join,Acquire,Release"},
		{[]string{"detect", filepath.Join(dir, "none.wtr"), "--detectors", "hb"}, 1, "no such file"},
		{[]string{"detect", noEnd, "--detectors", "avio"}, 1, "did not record RunEnd"},
		{[]string{"trace", "-w", "counter-race", "--kind", ",", "-o", filepath.Join(dir, "x.wtr")}, 2, `no event kind named in ","`},
		{[]string{"detect", writeFile(t, "junk.wtr", "not a trace"), "--detectors", "hb"}, 1, "not a weft trace file"},
	} {
		_, stderr, code := weft(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("weft %s: exit %d, stderr %q; want exit %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
	}
	// A trace of the kinds a detector needs is enough.
	out, _ := mustWeft(t, "detect", reads, "--detectors", "avio")
	if !strings.Contains(out, "avio: ") {
		t.Errorf("detect over a Read/Write trace: %s", out)
	}
}

// A sweep may name detectors: every run gets them, runs.jsonl holds the
// findings and the per-point table counts them.
func TestSweepDetectors(t *testing.T) {
	dir := t.TempDir()
	spec := writeFile(t, "det.toml", `runs = 6
detectors = ["hb", "lockset"]

[[axis]]
key = "sim.jitter_cycles"
values = [0, 16]

[[workload]]
name = "counter-race"

[[workload]]
name = "counter-locked"
`)
	out := filepath.Join(dir, "out")
	mustWeft(t, "sweep", spec, "--out", out, "--quiet")
	csv, err := os.ReadFile(filepath.Join(out, "sweep.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	head := strings.Split(lines[0], ",")
	col := func(name string) int {
		for i, h := range head {
			if h == name {
				return i
			}
		}
		t.Fatalf("sweep.csv has no column %s: %s", name, lines[0])
		return -1
	}
	hb, ls, wl := col("hb_runs"), col("lockset_runs"), col("workload")
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		racy := f[wl] == "counter-race"
		for _, c := range []int{hb, ls} {
			if (f[c] == "6") != racy || (f[c] == "0") == racy {
				t.Errorf("%s: %s = %s of 6 runs", f[wl], head[c], f[c])
			}
		}
	}
	// Resuming the finished sweep does nothing and keeps the findings.
	mustWeft(t, "sweep", spec, "--out", out, "--quiet")
	for _, c := range []struct{ text, want string }{
		{"detectors = [\"hbb\"]\n[[workload]]\nname = \"fft\"\n", `det.toml:1: detectors: unknown detector "hbb" (did you mean hb`},
		{"detectors = []\n[[workload]]\nname = \"fft\"\n", "det.toml:1: detectors: want a non-empty array"},
		{"detectors = [\"hb\", \"hb\"]\n[[workload]]\nname = \"fft\"\n", `detector "hb" named twice`},
		{"detectors = [3]\n[[workload]]\nname = \"fft\"\n", "entry 0: want one detector name"},
		{"detectors = [\" hb\"]\n[[workload]]\nname = \"fft\"\n", "entry 0: want one detector name (no spaces or commas)"},
		{"detectors = [\"hb,lockset\"]\n[[workload]]\nname = \"fft\"\n", "entry 0: want one detector name (no spaces or commas)"},
	} {
		bad := writeFile(t, "det.toml", c.text)
		_, stderr, code := weft(t, "sweep", bad, "--out", filepath.Join(dir, "bad"), "--quiet")
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("sweep with %q: exit %d, stderr %q; want %q", c.text, code, stderr, c.want)
		}
	}
}

func TestRunGroups(t *testing.T) {
	out, _ := mustWeft(t, "run", "-w", "prodcons", "--groups", "--json")
	var r struct {
		Groups map[string]map[string]float64 `json:"groups"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Groups["core[1]"]["loads"] == 0 || r.Groups["l1[1]"]["read_misses"] == 0 || r.Groups["bus"]["busrd"] == 0 {
		t.Errorf("groups: %v", r.Groups)
	}
	out, _ = mustWeft(t, "run", "-w", "prodcons", "--groups")
	if !strings.Contains(out, "per-core counters") {
		t.Errorf("summary lacks the per-core table:\n%s", out)
	}
	out, _ = mustWeft(t, "run", "-w", "prodcons", "--json")
	if strings.Contains(out, `"groups"`) {
		t.Errorf("groups without --groups")
	}
}

// Bugaboo's detectors through the command line: BB-SW's labeled ranking
// over a batch puts mysql-binlog's @bug load first; bbhw needs the
// hardware on; offline equals online for both.
func TestBugabooDetectors(t *testing.T) {
	out, _ := mustWeft(t, "run", "-w", "mysql-binlog", "--runs", "60", "--detectors", "bbsw", "--quiet")
	prog, _ := workloads.Program("mysql-binlog")
	bug := prog.BugPCs()
	i := strings.Index(out, "bbsw across the batch (labeled ranking")
	if i < 0 {
		t.Fatalf("no labeled ranking:\n%s", out)
	}
	first := strings.Fields(out[i:])
	// "... runs): N findings\n  rare-context pcs P ..."
	var pc int
	for k, f := range first {
		if f == "pcs" {
			fmt.Sscan(first[k+1], &pc)
			break
		}
	}
	if !slices.Contains(bug, int32(pc)) {
		t.Errorf("the labeled ranking's first code point is pc %d, not an @bug instruction %v", pc, bug)
	}
	_, stderr, code := weft(t, "run", "-w", "mysql-binlog", "--detectors", "bbhw")
	if code != 2 || !strings.Contains(stderr, "bbhw reads the graphs Bugaboo's hardware drains, which is off") {
		t.Errorf("bbhw without the hardware: exit %d, %s", code, stderr)
	}
	dir := t.TempDir()
	for _, seed := range []string{"3", "14"} {
		trace := filepath.Join(dir, "t"+seed+".wtr")
		mustWeft(t, "trace", "-w", "mysql-binlog", "--seed", seed, "--set", "bugaboo.enabled=true", "-o", trace, "--quiet")
		on, _ := mustWeft(t, "run", "-w", "mysql-binlog", "--seed", seed, "--set", "bugaboo.enabled=true", "--detectors", "bbsw,bbhw,bbsw-line", "--json", "--quiet")
		off, _ := mustWeft(t, "detect", trace, "--detectors", "bbsw,bbhw,bbsw-line", "--json")
		var a, b findingsLine
		json.Unmarshal([]byte(on), &a)
		json.Unmarshal([]byte(off), &b)
		x, _ := json.Marshal(a.Findings)
		y, _ := json.Marshal(b.Findings)
		if string(x) != string(y) || len(a.Findings) == 0 {
			t.Errorf("seed %s: online %s\noffline %s", seed, x, y)
		}
	}
	plain := filepath.Join(dir, "plain.wtr")
	mustWeft(t, "trace", "-w", "mysql-binlog", "-o", plain, "--quiet")
	if _, stderr, code := weft(t, "detect", plain, "--detectors", "bbhw"); code != 1 || !strings.Contains(stderr, "which is off") {
		t.Errorf("detect bbhw on a trace without the hardware: exit %d %s", code, stderr)
	}
}

// weft run --graphs and weft rank: the labeled ranking over the files puts
// mysql-binlog's @bug load first, deployment reports it from the failing
// run against the passing runs' testing graph, and graphs of another
// program are rejected naming both.
func TestRankGraphs(t *testing.T) {
	dir := t.TempDir()
	mustWeft(t, "run", "-w", "mysql-binlog", "--runs", "60", "--detectors", "bbsw", "--graphs", dir, "--quiet")
	files, _ := filepath.Glob(filepath.Join(dir, "bbsw-seed*.graph"))
	if len(files) != 60 {
		t.Fatalf("%d graph files", len(files))
	}
	prog, _ := workloads.Program("mysql-binlog")
	bug := fmt.Sprint(prog.BugPCs()[0])
	out, _ := mustWeft(t, append([]string{"rank", "-w", "mysql-binlog"}, files...)...)
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "labeled ranking (min_relfreq) of mysql-binlog over 60 graphs (1 buggy, 59 passing)") ||
		len(lines) < 3 || strings.Fields(lines[2])[0] != "1" || !strings.HasSuffix(strings.TrimSpace(lines[2]), " "+bug) {
		t.Errorf("labeled ranking:\n%s", out)
	}
	var failing, passing []string
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if strings.Contains(string(data), "\noutcome pass\n") {
			passing = append(passing, "--testing", f)
		} else {
			failing = append(failing, f)
		}
	}
	args := append(append([]string{"rank", "-w", "mysql-binlog", "--method", "deploy", "--threshold", "0.5"}, passing...), failing...)
	out, _ = mustWeft(t, args...)
	if !strings.Contains(out, "deploy ranking") || !strings.Contains(out, " "+bug+"\n") {
		t.Errorf("deployment:\n%s", out)
	}
	other := t.TempDir()
	mustWeft(t, "run", "-w", "mysql-binlog", "--detectors", "bbsw-noctx", "--graphs", other, "--quiet")
	noctx := filepath.Join(other, "bbsw-noctx-seed1.graph")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"rank", "-w", "counter-race", files[0]}, 1, "is of program mysql-binlog (hash "},
		{[]string{"rank", "-w", "mysql-binlog", files[0], noctx}, 1, noctx + " is a bbsw-noctx graph with 0-event contexts but " + files[0] + " is a bbsw graph with 5-event contexts"},
		{[]string{"rank", "-w", "mysql-binlog", "--method", "deploy", "--testing", noctx, files[0]}, 1, "is a bbsw-noctx graph"},
		{[]string{"rank", "-w", "mysql-binlog"}, 2, "name at least one GRAPH"},
		{[]string{"rank", "-w", "mysql-binlog", "--how", "median", files[0]}, 2, "--how"},
		{[]string{"rank", "-w", "mysql-binlog", "--method", "labeled", files[0]}, 2, "needs buggy and passing graphs"},
		{[]string{"rank", "-w", "mysql-binlog", "--method", "deploy", files[0]}, 2, "needs --testing"},
		{[]string{"rank", "-w", "mysql-binlog", writeFile(t, "bad.graph", "junk\n")}, 1, "bad.graph:1: not a weft graph file"},
		{[]string{"run", "-w", "mysql-binlog", "--graphs", dir}, 2, "--graphs writes the graphs of Bugaboo's detectors"},
	} {
		_, stderr, code := weft(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("weft %s: exit %d, %q; want %d and %q", strings.Join(c.args, " "), code, stderr, c.code, c.want)
		}
	}
}

// The pset detector learns PSets from a batch's passing runs and flags,
// in its failing runs, pairs outside them: on counter-race every flagged
// pair involves a @bug instruction (scored here, never by the detector).
func TestPSetAcrossBatch(t *testing.T) {
	out, _ := mustWeft(t, "run", "-w", "counter-race", "--runs", "40", "--detectors", "pset", "--quiet")
	prog, _ := workloads.Program("counter-race")
	bug := map[string]bool{}
	for _, pc := range prog.BugPCs() {
		bug[fmt.Sprint(pc)] = true
	}
	_, batch, ok := strings.Cut(out, "pset across the batch (PSets (")
	if !ok {
		t.Fatalf("no batch findings:\n%s", out)
	}
	n := 0
	for _, line := range strings.Split(batch, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || f[0] != "violation" {
			continue
		}
		n++
		if !bug[f[2]] && !bug[f[3]] {
			t.Errorf("a violation without a @bug instruction: %s", line)
		}
	}
	if n == 0 || !strings.Contains(batch, "trained on ") {
		t.Errorf("pset across the batch:\n%s", batch)
	}
}

// detect --json leaves out what a trace does not hold (instructions,
// statistics, the outcome's message, the weft version) instead of
// printing zeros, and carries the findings report.
func TestDetectJSONOnlyWhatTheTraceHolds(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "t.wtr")
	mustWeft(t, "trace", "-w", "counter-race", "--seed", "2", "-o", trace)
	out, _ := mustWeft(t, "detect", trace, "--detectors", "hb,avio", "--json")
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, k := range []string{"instructions", "stats", "weft_version", "outcome_msg", "thread_instructions", "cycle_breakdown"} {
		if _, ok := m[k]; ok {
			t.Errorf("detect --json has %q, which a trace does not hold", k)
		}
	}
	for _, k := range []string{"trace", "workload", "seed", "outcome", "cycles", "config_hash", "findings", "report"} {
		if _, ok := m[k]; !ok {
			t.Errorf("detect --json lacks %q", k)
		}
	}
	var rep struct {
		Runs      int `json:"runs"`
		Detectors []struct {
			Name    string          `json:"name"`
			Learned json.RawMessage `json:"learned"`
		} `json:"detectors"`
	}
	if err := json.Unmarshal(m["report"], &rep); err != nil || rep.Runs != 1 || len(rep.Detectors) != 2 || rep.Detectors[1].Name != "avio" || len(rep.Detectors[1].Learned) == 0 {
		t.Errorf("report %s: %v", m["report"], err)
	}
}

// run --out writes the batch's summary as JSON: the outcome counts as the
// runs have them, the statistics, and the detectors' findings report with
// what the learners concluded across the batch.
func TestRunSummaryJSON(t *testing.T) {
	dir := t.TempDir()
	mustWeft(t, "run", "-w", "counter-race", "--runs", "8", "--detectors", "hb,avio,bbsw", "--out", dir, "--quiet")
	data, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Workload string `json:"workload"`
		Runs     int    `json:"runs"`
		Outcomes []struct {
			Outcome string `json:"outcome"`
			Count   int    `json:"count"`
		} `json:"outcomes"`
		Stats []struct {
			Name string  `json:"name"`
			Mean float64 `json:"mean"`
		} `json:"stats"`
		Findings struct {
			Runs      int `json:"runs"`
			Detectors []struct {
				Name     string            `json:"name"`
				Findings []json.RawMessage `json:"findings"`
				Learned  *struct {
					Summary   string            `json:"summary"`
					BatchWide bool              `json:"batch_wide"`
					Findings  []json.RawMessage `json:"findings"`
				} `json:"learned"`
			} `json:"detectors"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("summary.json does not parse: %v\n%s", err, data)
	}
	lines, _ := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	count := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		var r struct {
			Outcome string `json:"outcome"`
		}
		json.Unmarshal([]byte(l), &r)
		count[r.Outcome]++
	}
	total := 0
	for _, o := range s.Outcomes {
		total += o.Count
		if count[o.Outcome] != o.Count {
			t.Errorf("%s: %d in summary.json, %d in runs.jsonl", o.Outcome, o.Count, count[o.Outcome])
		}
	}
	if s.Workload != "counter-race" || s.Runs != 8 || total != 8 || s.Findings.Runs != 8 || len(s.Findings.Detectors) != 3 || len(s.Stats) == 0 {
		t.Fatalf("summary.json: %s", data)
	}
	hb, av, bb := s.Findings.Detectors[0], s.Findings.Detectors[1], s.Findings.Detectors[2]
	if hb.Name != "hb" || len(hb.Findings) == 0 || hb.Learned != nil {
		t.Errorf("hb: %+v", hb)
	}
	if av.Learned == nil || !strings.Contains(av.Learned.Summary, "trained on") || av.Learned.BatchWide {
		t.Errorf("avio's learned findings: %+v", av.Learned)
	}
	if bb.Learned == nil || !bb.Learned.BatchWide || len(bb.Learned.Findings) == 0 {
		t.Errorf("bbsw's ranking: %+v", bb.Learned)
	}
}
