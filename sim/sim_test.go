package sim_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/cpu"
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

func TestOutcomes(t *testing.T) {
	const spawnTwo = `
main:   spawn r2, child, r0
        join r2
        exit
`
	tests := []struct {
		name, src, outcome, label, msg string
		thread                         int32
	}{
		{"pass", ".expect 7\n.text\nmain: li r1, 7\n out r1\n exit\n", "pass", "", "", -1},
		{"wrong output", ".expect 7\n.text\nmain: li r1, 8\n out r1\n exit\n", "wrong_output", "", "expected [7]", -1},
		{"assert", ".text\nmain: li r1, 1\n assert r1, \"fine\"\nbad: assert r0, \"r0 is zero\"\n exit\n", "assert", "bad", "r0 is zero", 0},
		{"error keeps running", ".expect 5\n.text\nmain: nop\nbad: fail \"oops\"\n li r1, 5\n out r1\n exit\n", "error", "bad", "oops", 0},
		{"division by zero", ".text\nmain: li r1, 4\nbad: div r2, r1, r0\n exit\n", "crash", "bad", "division by zero", 0},
		{"remainder by zero", ".text\nmain: li r1, 4\nbad: rem r2, r1, 0\n exit\n", "crash", "bad", "division by zero", 0},
		{"null page", ".text\nmain: li r1, 8\nbad: ld r2, [r1]\n exit\n", "crash", "bad", "null-page", 0},
		{"misaligned", ".data\nx: .word 1\n.text\nmain: la r1, x\nbad: ld r2, [r1+4]\n exit\n", "crash", "bad", "misaligned", 0},
		{"outside data", ".data\nx: .word 1\n.text\nmain: la r1, x\nbad: st r1, [r1+4096]\n exit\n", "crash", "bad", "outside data and heap", 0},
		{"use after free", ".text\nmain: alloc r1, 4\n free [r1], 4\nbad: ld r2, [r1+8]\n exit\n", "crash", "bad", "freed", 0},
		{"double free", ".text\nmain: alloc r1, 4\n free [r1], 4\nbad: free [r1], 1\n exit\n", "crash", "bad", "double free", 0},
		{"empty ret", ".text\nmain: nop\nbad: ret\n exit\n", "crash", "bad", "empty return stack", 0},
		{"stack overflow", ".text\nmain: nop\nbad: call bad\n exit\n", "crash", "bad", "return stack overflow", 0},
		{"unlock not held", ".data\nL: .word 0\n.text\nmain: nop\nbad: unlock L\n exit\n", "crash", "bad", "does not hold", 0},
		{"join unknown", ".text\nmain: li r1, 9\nbad: join r1\n exit\n", "crash", "bad", "join of thread 9, which was never spawned (threads so far: 0..0)", 0},
		{"join self", ".text\nmain: nop\nbad: join r0\n exit\n", "crash", "bad", "thread 0 joins itself", 0},
		{"child joins main", ".text\nmain: spawn r2, child, r0\n li r3, 1\n exit\nchild: join r0\n exit\n", "pass", "", "", -1},
		{"crash in child", ".text\n" + spawnTwo + "child: li r3, 0\nbad: div r3, r3, r3\n exit\n", "crash", "bad", "division by zero", 1},
		{"deadlock", ".data\nL: .word 0\n.text\nmain: lock L\n spawn r2, child, r0\n join r2\n exit\nchild: nop\nbad: lock L\n exit\n", "hang", "bad", "deadlock", 1},
		{"endless loop", ".text\nmain: nop\nloop: add r1, r1, 1\n jmp loop\n", "hang", "", "max_cycles", 0},
		{"crash beats error", ".text\nmain: fail \"first\"\nbad: div r1, r1, r0\n exit\n", "crash", "bad", "division by zero", 0},
		{"error beats hang", ".data\nL: .word 0\n.text\nmain: lock L\nbad: fail \"before deadlock\"\n lock L\n exit\n", "error", "bad", "before deadlock", 0},
		{"error beats wrong output", ".expect 1\n.text\nmain: nop\nbad: fail \"e\"\n exit\n", "error", "bad", "e", 0},
		{"spin on lock wakes", ".data\nL: .word 0\nx: .word 0\n.expect 2\n.text\nmain: lock L\n spawn r2, child, r0\n work 500\n li r1, 1\n st r1, x\n unlock L\n join r2\n ld r1, x\n out r1\n exit\nchild: lock L\n ld r1, x\n add r1, r1, 1\n st r1, x\n unlock L\n exit\n", "pass", "", "", -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := assemble(t, tc.src)
			cfg := configs.Default()
			cfg.Sim.MaxCycles = 200000
			r, err := sim.Run(cfg, p, 1)
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome.String() != tc.outcome {
				t.Fatalf("outcome %s (%s at pc %d), want %s", r.Outcome, r.OutcomeMsg, r.OutcomePC, tc.outcome)
			}
			if tc.label != "" {
				if want := pcOf(t, p, tc.label); r.OutcomePC != want {
					t.Errorf("outcome pc %d, want %d (%s)", r.OutcomePC, want, tc.label)
				}
			}
			if !strings.Contains(r.OutcomeMsg, tc.msg) {
				t.Errorf("message %q lacks %q", r.OutcomeMsg, tc.msg)
			}
			if tc.thread >= 0 && r.OutcomeThread != tc.thread {
				t.Errorf("outcome thread %d, want %d", r.OutcomeThread, tc.thread)
			}
		})
	}
}

func TestHangNamesBlockedThread(t *testing.T) {
	p := assemble(t, ".data\nL: .word 0\n.text\nmain: lock L\n spawn r2, child, r0\n join r2\n exit\nchild: nop\nspin: lock L\n exit\n")
	r, err := sim.Run(configs.Default(), p, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.OutcomeMsg, "thread 1 waiting for a lock at pc") || !strings.Contains(r.OutcomeMsg, "thread 0 waiting to join") {
		t.Errorf("deadlock message %q does not name the blocked threads", r.OutcomeMsg)
	}
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

// recorder keeps a textual copy of every event.
type recorder struct{ b strings.Builder }

func (r *recorder) Observe(e *core.Event) {
	b, _ := json.Marshal(e)
	r.b.Write(b)
	r.b.WriteByte('\n')
}

func TestSnapshotRestore(t *testing.T) {
	cfg := configs.Default()
	for _, name := range []string{"prodcons", "counter-locked", "pbzip2-uaf", "stencil"} {
		p := kernel(t, name)
		cfg, _ := sim.FitCores(cfg, p)
		rec := &recorder{}
		stream := &core.Stream{}
		stream.Attach(core.AllKinds, rec)
		m, err := sim.Build(cfg, p, 5, stream)
		if err != nil {
			t.Fatal(err)
		}
		m.Start()
		full, err := sim.Run(cfg, p, 5)
		if err != nil {
			t.Fatal(err)
		}
		if m.RunUntil(core.Cycle(full.Cycles / 3)) {
			t.Fatalf("%s ended before a third of its cycles", name)
		}
		snap := m.Snapshot()
		rec.b.Reset()
		m.Run()
		first := rec.b.String()
		r1 := sim.Collect(m, cfg, 5)
		m.Restore(snap)
		rec.b.Reset()
		m.Run()
		second := rec.b.String()
		r2 := sim.Collect(m, cfg, 5)
		if first != second {
			t.Errorf("%s: the run after restore differs from the run after the snapshot", name)
		}
		if len(first) == 0 {
			t.Errorf("%s: no events after the snapshot", name)
		}
		if jsonOf(t, r1) != jsonOf(t, r2) || jsonOf(t, r1) != jsonOf(t, full) {
			t.Errorf("%s: results differ:\n%s\n%s\n%s", name, jsonOf(t, r1), jsonOf(t, r2), jsonOf(t, full))
		}
	}
}

func TestCheckPhaseStall(t *testing.T) {
	// Thread 1 loads x; the check stalls that load until thread 2 writes x,
	// so thread 1 must see 5 although it would otherwise load first.
	p := assemble(t, `
.data
x: .word 0
.align 64
y: .word 0
.text
main:  spawn r2, reader, r0
       spawn r3, writer, r0
       join r2
       join r3
       exit
reader: nop
rd:    ld r4, x
       out r4
       exit
writer: work 3000
       li r5, 5
       st r5, x
       exit
`)
	rdPC := pcOf(t, p, "rd")
	var stalls, retries int
	r, err := sim.Run(configs.Default(), p, 1, sim.WithExtension(withCheck(func(a *cpu.Access) cpu.Verdict {
		if a.PC != rdPC {
			return cpu.Verdict{}
		}
		if stalls == 0 {
			stalls++
			return cpu.StallOnLine(a, 100000)
		}
		retries++
		return cpu.Verdict{}
	})), sim.WithObserver(core.MaskOf(core.KindStallBegin, core.KindStallEnd), core.ObserverFunc(func(e *core.Event) {
		if e.Kind == core.KindStallEnd && e.Words[0] != 0 {
			t.Errorf("stall timed out instead of resolving on the write")
		}
	})))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Outputs) != 1 || r.Outputs[0] != 5 || stalls != 1 || retries != 1 {
		t.Errorf("outputs %v, %d stalls, %d retries; want [5], 1, 1", r.Outputs, stalls, retries)
	}
}

func TestBreakdownSumsToCycles(t *testing.T) {
	for _, name := range []string{"prodcons", "counter-locked", "stencil", "matmul"} {
		p := kernel(t, name)
		r, err := sim.Run(configs.Default(), p, 2)
		if err != nil {
			t.Fatal(err)
		}
		var waits uint64
		for i, c := range r.Breakdown {
			sum := c.Busy + c.MemStall + c.LockWait + c.BarrierWait + c.CondWait + c.JoinWait + c.Idle
			if sum != r.Cycles {
				t.Errorf("%s core %d: breakdown sums to %d, run took %d cycles", name, i, sum, r.Cycles)
			}
			waits += c.LockWait + c.BarrierWait + c.CondWait + c.JoinWait
		}
		if waits == 0 {
			t.Errorf("%s: no synchronisation wait recorded", name)
		}
	}
}

func TestParkPredicateOnThreadExit(t *testing.T) {
	// Thread 1 parks until thread 2 has exited: no memory access follows
	// the exit, so the predicate must be re-checked on the exit itself.
	p := assemble(t, `
.data
x: .word 0
.text
main:  spawn r2, waiter, r0
       spawn r3, quitter, r0
       join r2
       join r3
       exit
waiter: nop
gate:  ld r4, x
       exit
quitter: work 700
       exit
`)
	m, err := sim.Build(configs.Default(), p, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := m.Park(core.ParkRule{Thread: 1, PC: pcOf(t, p, "gate"), Wait: core.Wait{Until: core.UntilPredicate,
		Pred: func(v core.View) bool { return v.Exited(2) }}})
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	m.Run()
	res := m.ParkResult(idx)
	if o := m.Outcome(); o.Kind != core.Pass {
		t.Fatalf("outcome %s: %s", o.Kind, o.Msg)
	}
	quit := m.Threads()[2].End
	if !res.Parked || !res.Released || res.TimedOut || res.ReleasedAt != quit {
		t.Errorf("park result %+v; want released at thread 2's exit, cycle %d", res, quit)
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

// TestEventOrderIsGlobal checks that the event stream is one total order in
// time: no event carries an earlier cycle than the one before it.
func TestEventOrderIsGlobal(t *testing.T) {
	for _, e := range workloads.List() {
		p := kernel(t, e.Name)
		cfg, _ := sim.FitCores(configs.Default(), p)
		for seed := uint64(1); seed <= 5; seed++ {
			var last core.Cycle
			var prev core.Kind
			bad := 0
			_, err := sim.Run(cfg, p, seed, sim.WithObserver(core.AllKinds, core.ObserverFunc(func(ev *core.Event) {
				if ev.Cycle < last && bad == 0 {
					bad++
					t.Errorf("%s seed %d: %s at cycle %d after %s at cycle %d", e.Name, seed, ev.Kind, ev.Cycle, prev, last)
				}
				last, prev = ev.Cycle, ev.Kind
			})))
			if err != nil {
				t.Fatal(err)
			}
		}
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

// A shift by a register uses the amount's low 6 bits (README, ISA notes):
// 1 << 65 is 2, 1 << 64 is 1, -8 >> 66 (sar) is -2.
func TestShiftAmountIsMasked(t *testing.T) {
	p := assemble(t, `.expect 2 1 -2 4611686018427387902
main: li r1, 1
      li r2, 65
      shl r3, r1, r2
      out r3
      li r2, 64
      shl r3, r1, r2
      out r3
      li r4, -8
      li r2, 66
      sar r3, r4, r2
      out r3
      shr r3, r4, r2
      out r3
      exit
`)
	r, err := sim.Run(configs.Default(), p, 1)
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != core.Pass {
		t.Errorf("outputs %v: %s %s", r.Outputs, r.Outcome, r.OutcomeMsg)
	}
}

// An endless register-only loop counts no instruction that would complete
// past sim.max_cycles: at most one instruction a cycle (it once reported
// 100000001 instructions in 100000000 cycles).
func TestEndlessLoopInstructionsFitTheCycles(t *testing.T) {
	p := assemble(t, "main: nop\nloop: add r1, r1, 1\n jmp loop\n")
	for _, alu := range []uint64{1, 3} {
		cfg := configs.Default()
		cfg.Sim.MaxCycles = 10000
		cfg.CPU.ALUCycles = alu
		r, err := sim.Run(cfg, p, 1)
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != core.Hang || r.Cycles != 10000 || r.Instructions != 10000/alu {
			t.Errorf("alu %d: %s after %d cycles, %d instructions; want a hang after 10000 cycles, %d instructions", alu, r.Outcome, r.Cycles, r.Instructions, 10000/alu)
		}
	}
}

func TestParkSkip(t *testing.T) {
	// A loop loads x five times; a rule with Skip 3 parks the thread at the
	// fourth load until cycle 5000: exactly three loads precede the park,
	// and passing arrivals change no cycle of a run whose rule never fires.
	p := assemble(t, `
.data
x: .word 0
.text
main:  li r2, 0
loop:  ld r3, x
       add r2, r2, 1
       blt r2, 5, loop
       exit
`)
	loads := func(skip uint32, wait core.Cycle) (before int, res core.ParkResult, end core.Cycle) {
		m, err := sim.Build(configs.Default(), p, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		at := pcOf(t, p, "loop")
		idx, err := m.Park(core.ParkRule{Thread: 0, PC: at, Skip: skip, Wait: core.Wait{Until: core.UntilCycle, Cycle: wait}})
		if err != nil {
			t.Fatal(err)
		}
		m.Events().Attach(core.MaskOf(core.KindRead), core.ObserverFunc(func(e *core.Event) {
			if e.Cycle < wait {
				before++
			}
		}))
		m.Start()
		m.Run()
		return before, m.ParkResult(idx), m.Now()
	}
	n, res, _ := loads(3, 5000)
	if n != 3 || !res.Parked || res.ReleasedAt != 5000 {
		t.Errorf("skip 3: %d loads before the park (want 3), result %+v", n, res)
	}
	n, res, end := loads(9, 5000)
	if n != 5 || res.Parked {
		t.Errorf("skip 9: %d loads, result %+v; want 5 loads and no park", n, res)
	}
	m, err := sim.Build(configs.Default(), p, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	m.Run()
	if end != m.Now() {
		t.Errorf("a rule that never fires moved the run's end: cycle %d, %d without it", end, m.Now())
	}
}
