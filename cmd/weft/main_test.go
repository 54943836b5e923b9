package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/experiments"
	"weft/experiments/all"
	"weft/internal/version"
	"weft/isa"
	"weft/results"
	"weft/sim"
	"weft/workloads"
)

// weft runs the command line in-process and returns its outputs and exit
// status.
func weft(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return out.String(), errb.String(), code
}

// mustWeft runs the command line and fails the test unless it exits 0.
func mustWeft(t *testing.T, args ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, code := weft(t, args...)
	if code != 0 {
		t.Fatalf("weft %s: exit %d\nstderr:\n%s", strings.Join(args, " "), code, stderr)
	}
	return stdout, stderr
}

// writeFile writes text to name in a temporary directory and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runRecord is the part of a run's JSON line the tests read back.
// (sim.Stats has no UnmarshalJSON, so sim.Result cannot be decoded.)
type runRecord struct {
	Workload           string             `json:"workload"`
	Seed               uint64             `json:"seed"`
	Outcome            string             `json:"outcome"`
	Cycles             uint64             `json:"cycles"`
	Instructions       uint64             `json:"instructions"`
	ThreadInstructions []uint64           `json:"thread_instructions"`
	Stats              map[string]float64 `json:"stats"`
	Cores              int                `json:"cores"`
	ConfigHash         string             `json:"config_hash"`
}

// resolved returns the default config with seed set and cores fitted to the
// named workload, and its program: what `weft run -w name --seed seed` runs.
func resolved(t *testing.T, name string, seed uint64) (configs.Config, *isa.Program) {
	t.Helper()
	prog, err := workloads.Program(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), prog)
	cfg.Sim.Seed = seed
	return cfg, prog
}

func TestRunJSON(t *testing.T) {
	const runs, seed = 6, 7
	args := []string{"run", "-w", "mysql-binlog", "--runs", strconv.Itoa(runs), "--seed", strconv.Itoa(seed), "--json"}
	out, stderr := mustWeft(t, append(args, "--workers", "1")...)
	if stderr != "" {
		t.Errorf("stderr not empty: %q", stderr)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != runs || !strings.HasSuffix(out, "\n") {
		t.Fatalf("got %d lines, want %d:\n%s", len(lines), runs, out)
	}
	cfg, prog := resolved(t, "mysql-binlog", seed)
	for i, line := range lines {
		var r runRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i, err, line)
		}
		if r.Seed != seed+uint64(i) || r.Workload != "mysql-binlog" || r.ConfigHash != cfg.Hash() {
			t.Errorf("line %d: seed %d workload %q hash %s; want seed %d, mysql-binlog, %s",
				i, r.Seed, r.Workload, r.ConfigHash, seed+i, cfg.Hash())
		}
		var sum uint64
		for _, n := range r.ThreadInstructions {
			sum += n
		}
		if r.Cycles == 0 || r.Instructions == 0 || sum != r.Instructions {
			t.Errorf("line %d: cycles %d, instructions %d, thread sum %d", i, r.Cycles, r.Instructions, sum)
		}
		// The line is exactly the encoding of a direct run.
		want, err := sim.Run(cfg, prog, seed+uint64(i))
		if err != nil {
			t.Fatal(err)
		}
		wantLine, _ := jsonLines([]sim.Result{want})
		if line+"\n" != string(wantLine) {
			t.Errorf("line %d differs from sim.Run:\n got %s\nwant %s", i, line, wantLine)
		}
	}
	again, _ := mustWeft(t, append(args, "--workers", "1")...)
	parallel, _ := mustWeft(t, append(args, "--workers", "4")...)
	if again != out {
		t.Error("two invocations printed different bytes")
	}
	if parallel != out {
		t.Error("--workers 4 printed different bytes from --workers 1")
	}
}

func TestRunOutDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "res")
	out, _ := mustWeft(t, "run", "-w", "msgpass", "--runs", "3", "--json", "--out", dir, "--set", "bus.width_bytes=64")
	jsonl, err := os.ReadFile(filepath.Join(dir, "runs.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if string(jsonl) != out {
		t.Errorf("runs.jsonl differs from stdout")
	}
	var r runRecord
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &r); err != nil {
		t.Fatal(err)
	}
	cfg, err := configs.Load(filepath.Join(dir, "config.toml"))
	if err != nil {
		t.Fatalf("config.toml does not load: %v", err)
	}
	if cfg.Hash() != r.ConfigHash || cfg.Bus.WidthBytes != 64 {
		t.Errorf("config.toml: hash %s width %d; want hash %s width 64", cfg.Hash(), cfg.Bus.WidthBytes, r.ConfigHash)
	}
	src, err := os.ReadFile(filepath.Join(dir, "program.s"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := isa.Assemble("program.s", src)
	if err != nil {
		t.Fatalf("program.s does not assemble: %v", err)
	}
	_, want := resolved(t, "msgpass", 1)
	if isa.Disassemble(p) != isa.Disassemble(want) {
		t.Error("program.s is not the program's disassembly")
	}
}

func TestRunSummary(t *testing.T) {
	out, _ := mustWeft(t, "run", "-w", "mysql-binlog", "--seed", "3")
	cfg, prog := resolved(t, "mysql-binlog", 3)
	r, err := sim.Run(cfg, prog, 3)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"workload  mysql-binlog   seed 3",
		"outcome   " + outcomeText(r, prog) + "\n",
		fmt.Sprintf("cycles    %d\n", r.Cycles),
		fmt.Sprintf("instrs    %d ", r.Instructions),
		"L1 miss rate " + pct(stats(r)("l1_miss_rate")),
		"utilisation " + pct(stats(r)("bus_utilization")),
		"per-core cycles",
		"simulated instructions/s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}

	// A batch: the distribution and first seeds agree with the JSON runs.
	const runs = 24
	batch, _ := mustWeft(t, "run", "-w", "pbzip2-uaf", "--runs", strconv.Itoa(runs))
	js, _ := mustWeft(t, "run", "-w", "pbzip2-uaf", "--runs", strconv.Itoa(runs), "--json")
	counts := map[string]int{}
	first := map[string]uint64{}
	for _, line := range strings.Split(strings.TrimSpace(js), "\n") {
		var r runRecord
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if counts[r.Outcome] == 0 {
			first[r.Outcome] = r.Seed
		}
		counts[r.Outcome]++
	}
	for name, n := range counts {
		re := regexp.MustCompile(`(?m)^  ` + name + ` +` + strconv.Itoa(n) + ` +` + regexp.QuoteMeta(pct(float64(n)/runs)))
		if !re.MatchString(batch) {
			t.Errorf("batch summary lacks %s with %d runs:\n%s", name, n, batch)
		}
		if name != "pass" {
			want := fmt.Sprintf("reproduce %s: weft run -w pbzip2-uaf --seed %d\n", name, first[name])
			if !strings.Contains(batch, want) || !strings.Contains(batch, fmt.Sprintf("first at seed %d: ", first[name])) {
				t.Errorf("batch summary lacks the first seed %d of %s:\n%s", first[name], name, batch)
			}
		}
	}
	if !strings.Contains(batch, fmt.Sprintf("%d runs (seeds 1..%d)", runs, runs)) {
		t.Errorf("batch summary lacks the seed range:\n%s", batch)
	}
}

// An outcome names its PC, the source line and the instruction there:
// "pc 29, line 71: fail ...", in one run's summary, in a batch's and in
// trace -o's.
func TestOutcomeNamesSourceLine(t *testing.T) {
	cfg, prog := resolved(t, "mysql-binlog", 14)
	r, err := sim.Run(cfg, prog, 14)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome == core.Pass || r.OutcomePC < 0 {
		t.Fatalf("seed 14 of mysql-binlog: %s at pc %d; the test wants a failing run", r.Outcome, r.OutcomePC)
	}
	pc := r.OutcomePC
	line := prog.Instrs[pc].Line
	where := fmt.Sprintf("thread %d at pc %d, line %d: %s", r.OutcomeThread, pc, line, prog.InstrText(pc))
	src, err := workloads.Source("mysql-binlog")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Fields(strings.Split(string(src), "\n")[line-1])
	if strings.Join(text, " ") == "" || !strings.Contains(strings.Join(text, " "), strings.Fields(prog.InstrText(pc))[0]) {
		t.Errorf("line %d of the source is %q, not the instruction %q", line, text, prog.InstrText(pc))
	}
	out, _ := mustWeft(t, "run", "-w", "mysql-binlog", "--seed", "14")
	if want := "outcome   " + r.Outcome.String() + ": " + r.OutcomeMsg + "\n          " + where + "\n"; !strings.Contains(out, want) {
		t.Errorf("summary lacks\n%s\ngot:\n%s", want, out)
	}
	out, _ = mustWeft(t, "run", "-w", "mysql-binlog", "--seed", "14", "--runs", "2")
	if want := fmt.Sprintf("first at seed 14: %s: %s (%s)\n", r.Outcome, r.OutcomeMsg, where); !strings.Contains(out, want) {
		t.Errorf("batch summary lacks %q:\n%s", want, out)
	}
	out, _ = mustWeft(t, "trace", "-w", "mysql-binlog", "--seed", "14", "-o", filepath.Join(t.TempDir(), "t.wtr"))
	if !strings.Contains(out, "("+where+")") {
		t.Errorf("trace -o lacks %q:\n%s", where, out)
	}
}

func TestFitCoresNote(t *testing.T) {
	entry, err := workloads.Lookup("counter-locked")
	if err != nil {
		t.Fatal(err)
	}
	if entry.Cores < 2 {
		t.Skipf("counter-locked needs %d cores; the test wants a .cores of at least 2", entry.Cores)
	}
	out, stderr := mustWeft(t, "run", "-w", "counter-locked", "--set", "machine.cores=1", "--json")
	want := fmt.Sprintf("raising machine.cores from 1 to %d", entry.Cores)
	if !strings.Contains(stderr, want) {
		t.Errorf("stderr %q lacks %q", stderr, want)
	}
	var r runRecord
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Cores != entry.Cores {
		t.Errorf("ran on %d cores, want %d", r.Cores, entry.Cores)
	}
	_, stderr = mustWeft(t, "run", "-w", "counter-locked", "--set", "machine.cores=1", "--json", "--quiet")
	if stderr != "" {
		t.Errorf("--quiet still printed %q", stderr)
	}
}

func TestBadInput(t *testing.T) {
	badAsm := writeFile(t, "bad.s", "main:\n  li r1, 1\n  bogus r1\n  exit\n")
	badCfg := writeFile(t, "bad.toml", "[cache.l1]\nsise_bytes = 3\n")
	trace := filepath.Join(t.TempDir(), "t.wtr")
	mustWeft(t, "trace", "-w", "msgpass", "-o", trace)
	tests := []struct {
		args []string
		code int
		want []string // substrings of stderr
	}{
		{[]string{"run", "-w", "nosuchkernel"}, 1, []string{`weft: unknown workload "nosuchkernel"`}},
		{[]string{"run", "-w", "counter-lockd"}, 1, []string{`"counter-lockd"`, "did you mean counter-locked"}},
		{[]string{"run", "-p", "/no/such/prog.s"}, 1, []string{"/no/such/prog.s"}},
		{[]string{"run", "-p", badAsm}, 1, []string{badAsm + `:3: unknown opcode "bogus"`}},
		{[]string{"run", "-w", "msgpass", "--set", "cache.l1.sise_bytes=1"}, 1, []string{"weft: --set cache.l1.sise_bytes=1: ", "unknown key", "cache.l1.size_bytes"}},
		{[]string{"run", "-w", "msgpass", "--set", "cache.l1.size_bytes"}, 1, []string{"--set cache.l1.size_bytes: ", "key=value"}},
		{[]string{"run", "-w", "msgpass", "--set", "machine.cores=lots"}, 1, []string{"machine.cores", "lots"}},
		{[]string{"run", "-w", "msgpass", "-c", badCfg}, 1, []string{badCfg + ":2", "cache.l1.sise_bytes", "unknown key"}},
		{[]string{"run", "-w", "msgpass", "-c", "nosuchpreset"}, 1, []string{`"nosuchpreset"`}},
		{[]string{"run", "-w", "msgpass", "--set", "machine.cores=100"}, 1, []string{"machine.cores", "100"}},
		{[]string{"run", "-w", "msgpass", "--set", "cache.l1.line_bytes=48"}, 1, []string{"cache.l1.line_bytes", "48"}},
		{[]string{"run", "-w", "msgpass", "--set", "bus.snoop_cycles=4611686018427387904"}, 1, []string{"bus.snoop_cycles: must be at most 1000000000"}},
		{[]string{"run", "-w", "msgpass", "--set", "memory.latency_cycles=4611686018427387904"}, 1, []string{"memory.latency_cycles: must be at most 1000000000"}},
		{[]string{"run", "-w", "msgpass", "--set", "sim.seed=18446744073709551615"}, 1, []string{"sim.seed: ", "out of range"}},
		{[]string{"run"}, 2, []string{"-w KERNEL", "run 'weft help run' for usage"}},
		{[]string{"run", "-w", "msgpass", "-p", badAsm}, 2, []string{"not both"}},
		{[]string{"run", "-w", "msgpass", "--runs", "0"}, 2, []string{"--runs"}},
		{[]string{"run", "-w", "msgpass", "--seed", "9223372036854775807", "--runs", "2"}, 1, []string{"last seed must be at most 9223372036854775807"}},
		{[]string{"run", "-w", "msgpass", "--seed", "x"}, 2, []string{"seed"}},
		{[]string{"run", "-w", "msgpass", "--seed", "5", "--set", "sim.seed=3"}, 2, []string{"run: --seed 5 and --set sim.seed=3 both set the seed; give one of them"}},
		{[]string{"trace", "-w", "msgpass", "--set", "sim.seed=3", "--seed", "5", "-o", "x.wtr"}, 2, []string{"trace: --seed 5 and --set sim.seed=3 both set the seed"}},
		{[]string{"run", "-w", "msgpass", "--bogus"}, 2, []string{"weft: run: unknown flag --bogus\nrun 'weft help run' for usage\n"}},
		{[]string{"run", "-w", "msgpass", "--sed", "3"}, 2, []string{"unknown flag --sed; did you mean --seed?"}},
		{[]string{"run", "-w", "msgpass", "extra"}, 2, []string{`"extra"`}},
		{[]string{"frobnicate"}, 2, []string{`unknown command "frobnicate"`, "commands:"}},
		{[]string{"--bogus"}, 2, []string{"--bogus", "run 'weft help' for usage"}},
		{[]string{"help", "nosuch"}, 2, []string{`"nosuch"`}},
		{[]string{"asm"}, 2, []string{"run 'weft help asm' for usage"}},
		{[]string{"asm", badAsm}, 1, []string{badAsm + ":3: "}},
		{[]string{"asm", "/no/such/file.s"}, 1, []string{"/no/such/file.s"}},
		{[]string{"trace", "-w", "msgpass"}, 2, []string{"-o FILE"}},
		{[]string{"trace", "--text"}, 2, []string{"trace FILE"}},
		{[]string{"trace", "--text", trace, "--set", "a=1"}, 2, []string{"--set does not go with --text"}},
		{[]string{"trace", "-w", "msgpass", "-o", trace, "--thread", "1"}, 2, []string{"--thread goes only with --text"}},
		{[]string{"trace", "--text", trace, "--kind", "Reed"}, 2, []string{`"Reed"`}},
		{[]string{"trace", "--text", trace, "--addr", "zz"}, 2, []string{"addr"}},
		{[]string{"trace", "--text", "/no/such/trace"}, 1, []string{"/no/such/trace"}},
		{[]string{"trace", "--text", badAsm}, 1, []string{badAsm, "not a weft trace"}},
		{[]string{"config"}, 2, []string{"show"}},
		{[]string{"config", "show", "nosuchpreset"}, 1, []string{`"nosuchpreset"`}},
		{[]string{"config", "show", "--set", "bus.widht_bytes=3"}, 1, []string{"bus.widht_bytes", "unknown key"}},
		{[]string{"list", "x"}, 2, []string{`"x"`}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			stdout, stderr, code := weft(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout not empty:\n%s", stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if tc.code == 1 && strings.Count(strings.TrimSpace(stderr), "\n") > 0 && !strings.Contains(stderr, ".s:") {
				t.Errorf("want a one-line message, got:\n%s", stderr)
			}
			// A bad command line is its one error and a hint, not the
			// error buried under the whole usage.
			if tc.code == 2 && (strings.Count(stderr, "\n") != 2 || !strings.HasSuffix(stderr, " for usage\n")) {
				t.Errorf("want the error line and the help hint, got:\n%s", stderr)
			}
		})
	}
}

func TestAsm(t *testing.T) {
	src, err := workloads.Source("prodcons")
	if err != nil {
		t.Fatal(err)
	}
	path := writeFile(t, "prodcons.s", string(src))
	out, _ := mustWeft(t, "asm", path)
	want, err := isa.Assemble(path, src)
	if err != nil {
		t.Fatal(err)
	}
	if out != isa.Listing(want) {
		t.Error("asm output is not the listing")
	}
	// Every instruction has its PC and source line, and the line holds it.
	lines := strings.Split(string(src), "\n")
	for pc := range want.Instrs {
		in := &want.Instrs[pc]
		tag := fmt.Sprintf("# pc %d, line %d\n", pc, in.Line)
		i := strings.Index(out, tag)
		if i < 0 {
			t.Errorf("asm output lacks %q", tag)
			continue
		}
		listed := strings.Fields(out[strings.LastIndexByte(out[:i], '\n')+1 : i])
		if source := strings.Fields(lines[in.Line-1]); len(listed) == 0 || !strings.Contains(strings.Join(source, " "), listed[0]) {
			t.Errorf("pc %d is listed as %q, but line %d is %q", pc, listed, in.Line, source)
		}
	}
	// The listing assembles back to the same program (its own lines aside).
	again, _ := mustWeft(t, "asm", writeFile(t, "again.s", out))
	back, err := isa.Assemble("again.s", []byte(again))
	if err != nil {
		t.Fatal(err)
	}
	if isa.Disassemble(back) != isa.Disassemble(want) {
		t.Errorf("asm does not round-trip:\nfirst:\n%s\nsecond:\n%s", out, again)
	}
	// Assembler errors are printed as the assembler gives them.
	bad := writeFile(t, "bad.s", "main:\n  li r1, 1\n  bogus r1\n  li r77, 2\n  exit\n")
	_, stderr, code := weft(t, "asm", bad)
	_, aerr := isa.Assemble(bad, []byte("main:\n  li r1, 1\n  bogus r1\n  li r77, 2\n  exit\n"))
	if code != 1 || aerr == nil || stderr != aerr.Error()+"\n" {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, aerr)
	}
}

func TestTrace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.wtr")
	out, _ := mustWeft(t, "trace", "-w", "mysql-binlog", "--seed", "3", "-o", path)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d files, want only the trace", len(entries))
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	h, events, err := core.ReadTrace(f)
	f.Close()
	if err != nil {
		t.Fatalf("trace does not read back: %v", err)
	}
	cfg, prog := resolved(t, "mysql-binlog", 3)
	if h.Seed != 3 || h.ProgramName != "mysql-binlog" || h.Config != cfg.TOML() || h.Program != isa.Listing(prog) {
		t.Errorf("header: seed %d, name %q, config/program match %v/%v", h.Seed, h.ProgramName, h.Config == cfg.TOML(), h.Program == isa.Listing(prog))
	}
	if !strings.HasPrefix(out, fmt.Sprintf("wrote %d events to %s", len(events), path)) {
		t.Errorf("summary %q does not give %d events", out, len(events))
	}
	r, err := sim.Run(cfg, prog, 3)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(events); n < 2 || events[0].Kind != core.KindRunStart || events[n-1].Kind != core.KindRunEnd || uint64(events[n-1].Cycle) != r.Cycles {
		t.Errorf("trace does not run from RunStart to a RunEnd at cycle %d", r.Cycles)
	}

	// eventLines returns the event lines of `weft trace --text` output.
	eventLines := func(out string) [][]string {
		var ls [][]string
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if !strings.HasPrefix(l, "#") {
				ls = append(ls, strings.Fields(l))
			}
		}
		return ls
	}
	all, _ := mustWeft(t, "trace", "--text", path)
	lines := eventLines(all)
	if len(lines) != len(events) {
		t.Fatalf("--text printed %d events, want %d", len(lines), len(events))
	}
	for i, l := range lines {
		e := events[i]
		if l[0] != strconv.FormatUint(uint64(e.Cycle), 10) || l[1] != e.Kind.String() {
			t.Fatalf("line %d = %v, want cycle %d kind %v", i, l, e.Cycle, e.Kind)
		}
	}
	if !strings.Contains(all, fmt.Sprintf("# %d of %d events shown", len(events), len(events))) {
		t.Error("--text lacks the event count")
	}
	// Addresses are shown as symbol+offset too.
	named := 0
	for i, l := range lines {
		e := events[i]
		want := "-"
		if e.Addr != 0 {
			if sym, ok := prog.SymbolAt(e.Addr); ok {
				want = sym
				named++
			}
		}
		if l[6] != want {
			t.Fatalf("line %d = %v: symbol %q, want %q", i, l, l[6], want)
		}
	}
	if named == 0 {
		t.Error("no address was named by its symbol")
	}
	// --header gives the program with PCs and source lines.
	head, _ := mustWeft(t, "trace", "--text", path, "--header", "--kind", "RunEnd")
	if !strings.Contains(head, "#   main:\n") || !regexp.MustCompile(`(?m)^#\s+spawn\s.*# pc 0, line \d+$`).MatchString(head) {
		t.Errorf("--header lacks the program with PCs and lines:\n%s", head)
	}

	// Filters: flags after the file, kinds in any case.
	var rw, thread2 int
	var addr uint64
	for _, e := range events {
		if e.Kind == core.KindRead || e.Kind == core.KindWrite {
			rw++
			if addr == 0 && e.Kind == core.KindWrite {
				addr = e.Addr
			}
		}
		if e.Thread == 2 {
			thread2++
		}
	}
	out, _ = mustWeft(t, "trace", "--text", path, "--kind", "read,Write")
	if ls := eventLines(out); len(ls) != rw || rw == 0 {
		t.Errorf("--kind read,Write printed %d events, want %d", len(ls), rw)
	} else {
		for _, l := range ls {
			if l[1] != "Read" && l[1] != "Write" {
				t.Errorf("--kind read,Write printed %v", l)
			}
		}
	}
	out, _ = mustWeft(t, "trace", "--thread", "2", "--text", path)
	if ls := eventLines(out); len(ls) != thread2 || thread2 == 0 {
		t.Errorf("--thread 2 printed %d events, want %d", len(ls), thread2)
	} else {
		for _, l := range ls {
			if l[3] != "2" {
				t.Errorf("--thread 2 printed %v", l)
			}
		}
	}
	hex := fmt.Sprintf("0x%08x", addr)
	line := hex[:len(hex)-2] + fmt.Sprintf("%02x", addr&^63&0xff)
	out, _ = mustWeft(t, "trace", "--text", path, "--addr", fmt.Sprintf("%#x", addr), "--kind", "Write,Fill")
	ls := eventLines(out)
	if len(ls) == 0 {
		t.Errorf("--addr %#x printed nothing", addr)
	}
	for _, l := range ls {
		if !(l[1] == "Write" && l[5] == hex || l[1] == "Fill" && l[5] == line) {
			t.Errorf("--addr %#x --kind Write,Fill printed %v", addr, l)
		}
	}
}

// Heap addresses are named heap+offset from the first heap word.
func TestTraceHeapSymbols(t *testing.T) {
	prog := writeFile(t, "h.s", ".data\nx: .word 1\n.text\nmain: alloc r1, 4\n st r1, [r1+8]\n st r1, x\n exit\n")
	path := filepath.Join(t.TempDir(), "h.wtr")
	mustWeft(t, "trace", "-p", prog, "-o", path)
	out, _ := mustWeft(t, "trace", "--text", path, "--kind", "Write")
	if !regexp.MustCompile(`(?m) Write .* heap\+8 `).MatchString(out) || !regexp.MustCompile(`(?m) Write .* x `).MatchString(out) {
		t.Errorf("writes to the heap and to x are not named:\n%s", out)
	}
}

func TestTraceDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.wtr")
	mustWeft(t, "trace", "-w", "msgpass", "-o", path)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.wtr")
	if err := os.WriteFile(cut, data[:len(data)-len(data)/4], 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := weft(t, "trace", "--text", cut)
	if code != 1 || !strings.Contains(stderr, "weft: trace "+cut+": truncated at byte") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("truncated trace: exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(stdout, "the file is damaged") {
		t.Errorf("truncated trace: stdout does not say it stopped:\n%s", stdout)
	}
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)-20] ^= 0x10
	bad := filepath.Join(dir, "flip.wtr")
	if err := os.WriteFile(bad, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, stderr, code := weft(t, "trace", "--text", bad); code != 1 || !strings.Contains(stderr, bad) {
		t.Errorf("corrupt trace: exit %d, stderr %q", code, stderr)
	}
	// A failed trace leaves no file behind.
	for _, args := range [][]string{
		{"trace", "-w", "msgpass", "-o", filepath.Join(dir, "nodir", "x.wtr")},
		{"trace", "-w", "msgpass", "--set", "machine.cores=0", "-o", filepath.Join(dir, "x.wtr")},
	} {
		if _, _, code := weft(t, args...); code != 1 {
			t.Errorf("%v: exit %d, want 1", args, code)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v, want only run.wtr, cut.wtr and flip.wtr", names)
	}
}

func TestList(t *testing.T) {
	out, _ := mustWeft(t, "list", "--json")
	var got []listEntry
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("list --json is not one JSON array: %v", err)
	}
	want := workloads.List()
	if len(got) != len(want) {
		t.Fatalf("listed %d workloads, want %d", len(got), len(want))
	}
	found := false
	for i, g := range got {
		w := want[i]
		if g.Name != w.Name || g.Class != w.Class || g.Desc != w.Desc || g.Cores != w.Cores || strings.Join(g.Rows, " ") != strings.Join(w.Rows, " ") {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
		found = found || g.Name == "mysql-binlog"
	}
	if !found {
		t.Error("list --json lacks mysql-binlog")
	}
	text, _ := mustWeft(t, "list")
	for _, w := range want {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(w.Name) + ` +` + w.Kind.String() + ` +` + regexp.QuoteMeta(w.Class) + ` `).MatchString(text) {
			t.Errorf("list lacks %s (%s):\n%s", w.Name, w.Class, text)
		}
	}
}

func TestConfigShow(t *testing.T) {
	out, _ := mustWeft(t, "config", "show", "--set", "bus.width_bytes=64", "--set", "memory.latency_cycles=150")
	first, rest, _ := strings.Cut(out, "\n")
	path := writeFile(t, "shown.toml", out)
	cfg, err := configs.Load(path)
	if err != nil {
		t.Fatalf("shown config does not load: %v\n%s", err, out)
	}
	if cfg.Bus.WidthBytes != 64 || cfg.Memory.LatencyCycles != 150 {
		t.Errorf("loaded width %d latency %d, want 64 and 150", cfg.Bus.WidthBytes, cfg.Memory.LatencyCycles)
	}
	if !strings.HasPrefix(first, "# config hash "+cfg.Hash()) || rest != cfg.TOML() {
		t.Errorf("first line %q does not give hash %s, or the rest is not the TOML", first, cfg.Hash())
	}
	def, _ := mustWeft(t, "config", "show", "default")
	if _, rest, _ := strings.Cut(def, "\n"); rest != configs.Default().TOML() {
		t.Errorf("config show default:\n%s", def)
	}
	presets, _ := mustWeft(t, "config", "presets")
	if strings.Fields(presets)[0] != configs.PresetNames()[0] {
		t.Errorf("config presets: %q", presets)
	}
}

func TestDefaultExperiment(t *testing.T) {
	var out, errb bytes.Buffer
	dir := t.TempDir()
	if err := runDefault(env{stdout: &out, stderr: &errb}, experiments.Env{Seeds: 2, Quick: true}, dir); err != nil {
		t.Fatal(err)
	}
	report, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"![Outcomes over seeds, by workload group](report/outcomes.png)", "(report/breakdown.png)", "[cache.l1]", "report/workloads.csv"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	for _, f := range []string{"outcomes.png", "outcomes.svg", "breakdown.png", "breakdown.svg", "workloads.csv", "outcomes.csv"} {
		if st, err := os.Stat(filepath.Join(dir, "report", f)); err != nil || st.Size() < 100 {
			t.Errorf("%s missing or tiny: %v", f, err)
		}
	}
	// Quick mode takes every eighth workload of the registry.
	for i, w := range workloads.List() {
		if i%8 != 0 {
			continue
		}
		prog, err := workloads.ProgramFor(w.Name, configs.Default().Machine.Cores)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), prog)
		var cycles float64
		for s := uint64(1); s <= 2; s++ {
			r, err := sim.Run(cfg, prog, s)
			if err != nil {
				t.Fatal(err)
			}
			cycles += float64(r.Cycles)
		}
		re := fmt.Sprintf(`(?m)^%s +%s +%d +2 +%s `, regexp.QuoteMeta(w.Name), regexp.QuoteMeta(w.Class), cfg.Machine.Cores, regexp.QuoteMeta(results.FormatReadable(cycles/2)))
		if !regexp.MustCompile(re).MatchString(out.String()) {
			t.Errorf("summary table lacks a row matching %s:\n%s", re, out.String())
		}
	}
	if !strings.Contains(out.String(), "simulated instructions/s") {
		t.Errorf("no host speed line:\n%s", out.String())
	}
}

func TestReproduce(t *testing.T) {
	list, _ := mustWeft(t, "reproduce", "--list")
	for _, x := range all.List() {
		if !strings.Contains(list, x.Name) {
			t.Errorf("reproduce --list lacks %s:\n%s", x.Name, list)
		}
	}
	dir := t.TempDir()
	out, _ := mustWeft(t, "reproduce", "bugaboo-table5", "--seeds", "1", "--out", dir, "--quiet")
	if !strings.Contains(out, filepath.Join(dir, "bugaboo-table5.md")) {
		t.Errorf("output does not name the report:\n%s", out)
	}
	for _, f := range []string{"bugaboo-table5.md", "bugaboo-table5/table5.csv", "bugaboo-table5/table5-read-misses.png", "bugaboo-table5/table5-read-misses.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	var o, e bytes.Buffer
	if code := run([]string{"reproduce", "nope"}, &o, &e); code != 1 || !strings.Contains(e.String(), `unknown experiment "nope"`) {
		t.Errorf("unknown experiment: exit %d, stderr %q", code, e.String())
	}
	if code := run([]string{"reproduce"}, &o, &e); code != 2 {
		t.Errorf("reproduce with no name: exit %d", code)
	}
}

func TestHelp(t *testing.T) {
	top, _ := mustWeft(t, "help")
	for _, c := range commands() {
		if !strings.Contains(top, "  "+c.name+" ") {
			t.Errorf("help lacks command %s", c.name)
		}
		out, _ := mustWeft(t, "help", c.name)
		if !strings.Contains(out, "usage: weft "+c.name) {
			t.Errorf("help %s:\n%s", c.name, out)
		}
		if h, _ := mustWeft(t, c.name, "-h"); h != out {
			t.Errorf("%s -h differs from help %s", c.name, c.name)
		}
	}
	run, _ := mustWeft(t, "run", "--help")
	for _, flag := range []string{"-c, --config", "-w, --workload", "-p, --program", "--seed", "--runs", "--workers", "--set", "--json", "--out", "--quiet"} {
		if !strings.Contains(run, "  "+flag+" ") && !strings.Contains(run, "  "+flag+"\n") {
			t.Errorf("run usage lacks %s:\n%s", flag, run)
		}
	}
}

func TestPlural(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{plural(0, "run"), "0 runs"},
		{plural(1, "run"), "1 run"},
		{plural(2, "worker"), "2 workers"},
		{plural(int64(1), "spin"), "1 spin"},
		{plural(uint64(5), "event"), "5 events"},
		{plural(1, "directory"), "1 directory"},
		{plural(3, "directory"), "3 directories"},
		{plural(2, "upgrade miss"), "2 upgrade misses"},
		{plural(2, "RMW"), "2 RMWs"},
		{plural(2, "host CPU"), "2 host CPUs"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// Every result, report and sweep names the weft that made it.
func TestVersionRecorded(t *testing.T) {
	v := version.String()
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out, _ := mustWeft(t, args...)
		if !strings.HasPrefix(out, "weft "+v+"\n") || !strings.Contains(out, "built with go") {
			t.Errorf("weft %s:\n%s", args[0], out)
		}
	}
	out, _ := mustWeft(t, "run", "-w", "msgpass", "--json")
	if !strings.HasSuffix(out, `,"weft_version":"`+v+"\"}\n") {
		t.Errorf("run JSON lacks the version: %s", out)
	}
	dir := t.TempDir()
	mustWeft(t, "run", "-w", "msgpass", "--out", dir)
	if cfg := string(fileBytes(t, filepath.Join(dir, "config.toml"))); !strings.HasPrefix(cfg, "# config hash ") || !strings.Contains(strings.SplitN(cfg, "\n", 2)[0], "weft "+v+":") {
		t.Errorf("config.toml does not name the version:\n%.200s", cfg)
	}
	sweep := filepath.Join(t.TempDir(), "sw")
	mustWeft(t, "sweep", writeFile(t, "one.toml", "[[workload]]\nname = \"counter-race\"\n"), "--out", sweep, "--quiet")
	for _, f := range []string{"report.md", "sweep.md", "sweep.json", "runs.jsonl"} {
		if !strings.Contains(string(fileBytes(t, filepath.Join(sweep, f))), v) {
			t.Errorf("sweep %s does not name weft %s", f, v)
		}
	}
	rep := t.TempDir()
	mustWeft(t, "reproduce", "bugaboo-table5", "--seeds", "1", "--out", rep, "--quiet")
	for _, f := range []string{"bugaboo-table5.md", "bugaboo-table5/table5.json", "bugaboo-table5/table5.md"} {
		if !strings.Contains(string(fileBytes(t, filepath.Join(rep, f))), "Made by weft "+v) {
			t.Errorf("%s does not name weft %s", f, v)
		}
	}
}
