package sim_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

func assemble(t *testing.T, src string) *isa.Program {
	t.Helper()
	p, err := isa.Assemble("test.s", []byte(src))
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	return p
}

func kernel(t *testing.T, name string) *isa.Program {
	t.Helper()
	p, err := workloads.Program(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pcOf returns the PC of a code label.
func pcOf(t *testing.T, p *isa.Program, label string) int32 {
	t.Helper()
	pc, ok := p.LabelPC(label)
	if !ok {
		t.Fatalf("no label %q", label)
	}
	return pc
}

func TestSpawnWithoutFreeCoreNamesKey(t *testing.T) {
	p := assemble(t, ".text\nmain: spawn r2, child, r0\n spawn r3, child, r0\n join r2\n join r3\n exit\nchild: work 1000\n exit\n")
	cfg := configs.Default()
	cfg.Machine.Cores = 2
	r, err := sim.Run(cfg, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != core.Crash || !strings.Contains(r.OutcomeMsg, "machine.cores") || r.OutcomePC != 1 || r.OutcomeThread != 0 {
		t.Fatalf("outcome %s %q at pc %d thread %d, want a crash at the second spawn naming machine.cores",
			r.Outcome, r.OutcomeMsg, r.OutcomePC, r.OutcomeThread)
	}
	cfg, note := sim.FitCores(cfg, &isa.Program{Name: "x", MinCores: 3})
	if cfg.Machine.Cores != 3 || !strings.Contains(note, "raising machine.cores from 2 to 3") {
		t.Errorf("FitCores gave %d cores and note %q", cfg.Machine.Cores, note)
	}
}

// traceBytes runs prog and returns the whole event trace as bytes.
func traceBytes(t *testing.T, cfg configs.Config, p *isa.Program, seed uint64) ([]byte, sim.Result) {
	t.Helper()
	var buf bytes.Buffer
	tw, err := core.NewTraceWriter(&buf, core.TraceHeader{Program: isa.Disassemble(p), ProgramName: p.Name, Config: cfg.TOML(), Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(cfg, p, seed, sim.WithObserver(core.AllKinds, tw))
	if err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), r
}

func jsonOf(t *testing.T, r sim.Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDeterminism(t *testing.T) {
	cfg := configs.Default()
	for _, name := range []string{"counter-race", "prodcons", "mysql-binlog", "pbzip2-uaf", "stencil"} {
		p := kernel(t, name)
		cfg, _ := sim.FitCores(cfg, p)
		a, ra := traceBytes(t, cfg, p, 11)
		b, rb := traceBytes(t, cfg, p, 11)
		if !bytes.Equal(a, b) {
			t.Errorf("%s: two runs with seed 11 gave different traces", name)
		}
		if jsonOf(t, ra) != jsonOf(t, rb) {
			t.Errorf("%s: two runs with seed 11 gave different JSON", name)
		}
		bare, err := sim.Run(cfg, p, 11)
		if err != nil {
			t.Fatal(err)
		}
		if jsonOf(t, bare) != jsonOf(t, ra) {
			t.Errorf("%s: attaching an observer changed the run:\n%s\n%s", name, jsonOf(t, bare), jsonOf(t, ra))
		}
		if len(a) < 1000 {
			t.Errorf("%s: trace of %d bytes is suspiciously small", name, len(a))
		}
	}
}

func TestSeedsChangeInterleavings(t *testing.T) {
	p := kernel(t, "counter-race")
	traces := map[string]bool{}
	outputs := map[string]bool{}
	for seed := uint64(0); seed < 20; seed++ {
		tr, r := traceBytes(t, configs.Default(), p, seed)
		traces[string(tr)] = true
		outputs[jsonOf(t, sim.Result{Outputs: r.Outputs})] = true
	}
	if len(traces) < 15 {
		t.Errorf("20 seeds gave only %d distinct traces", len(traces))
	}
	if len(outputs) < 2 {
		t.Errorf("20 seeds of a racy counter gave only %d distinct outputs", len(outputs))
	}
}

func TestBatchWorkersDoNotMatter(t *testing.T) {
	p := kernel(t, "mysql-binlog")
	var outs [][]sim.Result
	for _, w := range []int{1, 3, 8} {
		rs, err := sim.RunBatch(sim.Batch{Config: configs.Default(), Program: p, BaseSeed: 100, Runs: 24, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, rs)
	}
	for i := range outs[0] {
		if outs[0][i].Seed != 100+uint64(i) {
			t.Fatalf("run %d has seed %d", i, outs[0][i].Seed)
		}
		for w := 1; w < len(outs); w++ {
			if jsonOf(t, outs[0][i]) != jsonOf(t, outs[w][i]) {
				t.Errorf("run %d differs between worker counts", i)
			}
		}
	}
}

func TestResultJSONRoundTrip(t *testing.T) {
	r, err := sim.Run(configs.Default(), kernel(t, "prodcons"), 4)
	if err != nil {
		t.Fatal(err)
	}
	var back sim.Result
	if err := json.Unmarshal([]byte(jsonOf(t, r)), &back); err != nil {
		t.Fatal(err)
	}
	if jsonOf(t, back) != jsonOf(t, r) {
		t.Errorf("round trip changed the result:\n%s\n%s", jsonOf(t, r), jsonOf(t, back))
	}
	if r.OutcomePC != -1 || r.OutcomeThread != -1 {
		t.Errorf("a pass names pc %d thread %d, want -1 -1", r.OutcomePC, r.OutcomeThread)
	}
	n, _ := r.Stats.Get("instructions")
	ipc, _ := r.Stats.Get("ipc")
	if uint64(n) != r.Instructions || ipc <= 0 {
		t.Errorf("stats: instructions %v (run %d), ipc %v", n, r.Instructions, ipc)
	}
	if err := json.Unmarshal([]byte(`{"a":1,"b":`), &back.Stats); err == nil {
		t.Error("truncated stats decoded without error")
	}
}

// Counters of a million or more are JSON integers, like cycles, never in
// exponent form (5.754931e+06); rates are plain decimals.
func TestStatsJSONCountersAreIntegers(t *testing.T) {
	b, err := json.Marshal(sim.Stats{{Name: "roi_cycles", Value: 5754931}, {Name: "big", Value: 1 << 52},
		{Name: "rate", Value: 0.25}, {Name: "mean", Value: 1128181.2}, {Name: "tiny", Value: 1e-7}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"roi_cycles":5754931,"big":4503599627370496,"rate":0.25,"mean":1128181.2,"tiny":1e-7}`; string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	r, err := sim.Run(configs.Default(), assemble(t, "main: work 2000000\n exit\n"), 1)
	if err != nil {
		t.Fatal(err)
	}
	line := jsonOf(t, r)
	if strings.Contains(line, "e+") || !strings.Contains(line, `"cycles":2000001,`) || !strings.Contains(line, `"roi_cycles":2000001,`) {
		t.Errorf("want integers, got %s", line)
	}
	if _, err := json.Marshal(sim.Stats{{Name: "x", Value: math.NaN()}}); err == nil {
		t.Error("NaN statistic encoded")
	}
}
