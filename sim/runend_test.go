package sim_test

// How a run ends: the cycle and the thread a deadlock or a max_cycles hang
// is charged to, cycle breakdowns that stay within the run, stall and park
// timers cancelled when released, and the address a crash event carries.

import (
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/cpu"
	"weft/sim"
)

// lastEvent runs p and returns the result and the largest event cycle.
func lastEvent(t *testing.T, cfg configs.Config, src string, seed uint64) (sim.Result, core.Cycle) {
	t.Helper()
	p := assemble(t, src)
	var last core.Cycle
	r, err := sim.Run(cfg, p, seed, sim.WithObserver(core.AllKinds, core.ObserverFunc(func(e *core.Event) {
		if e.Cycle < last {
			t.Errorf("%s at cycle %d after an event at cycle %d", e.Kind, e.Cycle, last)
		}
		last = e.Cycle
	})))
	if err != nil {
		t.Fatal(err)
	}
	return r, last
}

func sumsToCycles(t *testing.T, r sim.Result) {
	t.Helper()
	for i, c := range r.Breakdown {
		if sum := c.Busy + c.MemStall + c.LockWait + c.BarrierWait + c.CondWait + c.JoinWait + c.Idle; sum != r.Cycles {
			t.Errorf("core %d: breakdown sums to %d, run took %d cycles (%+v)", i, sum, r.Cycles, c)
		}
	}
}

// A deadlock found after a core ran ahead of the engine (lookahead) ends
// at the last cycle any core acted, not at the engine's clock.
func TestDeadlockTimeAfterLookahead(t *testing.T) {
	r, last := lastEvent(t, configs.Default(), ".data\nL: .word 0\n.text\nmain: lock L\n work 500\n out r0\nbad: lock L\n exit\n", 1)
	if r.Outcome != core.Hang || !strings.Contains(r.OutcomeMsg, "deadlock") {
		t.Fatalf("outcome %s %q", r.Outcome, r.OutcomeMsg)
	}
	if core.Cycle(r.Cycles) < last || r.Cycles < 500 {
		t.Errorf("deadlock at cycle %d, last event at %d", r.Cycles, last)
	}
	sumsToCycles(t, r)
}

// sim.max_cycles holds even when a core would cross it without queueing
// an event.
func TestMaxCyclesWithoutEvents(t *testing.T) {
	cfg := configs.Default()
	cfg.Sim.MaxCycles = 500
	for _, src := range []string{
		".data\nx: .word 1\n.text\nmain: ld r1, x\n work 1000\n st r0, x\n out r1\n exit\n",
		".data\nx: .word 1\n.text\nmain: ld r1, x\n work 1000\n div r1, r1, r0\n exit\n",
		".text\nmain: work 1000\n exit\n",
	} {
		r, last := lastEvent(t, cfg, src, 1)
		if r.Outcome != core.Hang || !strings.Contains(r.OutcomeMsg, "max_cycles") || r.Cycles != 500 {
			t.Errorf("%q: outcome %s at %d (%q), want a max_cycles hang at 500", src, r.Outcome, r.Cycles, r.OutcomeMsg)
		}
		if last > 500 {
			t.Errorf("%q: an event at cycle %d, past max_cycles", src, last)
		}
		sumsToCycles(t, r)
	}
}

// A max_cycles hang names the thread that ran out of time.
func TestMaxCyclesBlamesTheLoopingThread(t *testing.T) {
	cfg := configs.Default()
	cfg.Sim.MaxCycles = 20000
	p := assemble(t, ".text\nmain: spawn r2, child, r0\n join r2\n exit\nchild: nop\nloop: add r1, r1, 1\n jmp loop\n")
	r, err := sim.Run(cfg, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	loop := pcOf(t, p, "loop")
	if r.Outcome != core.Hang || r.OutcomeThread != 1 || (r.OutcomePC != loop && r.OutcomePC != loop+1) {
		t.Errorf("hang blames thread %d pc %d, want thread 1 in its loop (pc %d/%d)", r.OutcomeThread, r.OutcomePC, loop, loop+1)
	}
}

// With start skew, a thread that would start after the run ended does not
// add idle time beyond the end.
func TestSkewKeepsBreakdownWithinRun(t *testing.T) {
	cfg := configs.Default()
	cfg.Sim.StartSkewCycles = 10000
	for seed := uint64(1); seed <= 3; seed++ {
		r, _ := lastEvent(t, cfg, ".text\nmain: spawn r2, child, r0\n div r1, r1, r0\n exit\nchild: exit\n", seed)
		if r.Outcome != core.Crash {
			t.Fatalf("outcome %s", r.Outcome)
		}
		sumsToCycles(t, r)
	}
}

const stallSrc = `
.data
x: .word 0
.align 64
L: .word 0
.text
main:  spawn r2, reader, r0
       spawn r3, writer, r0
       join r2
       join r3
       exit
reader: nop
rd:    ld r4, x
       lock L
       lock L
       exit
writer: work 300
       li r5, 5
       st r5, x
       exit
`

// A stall released early cancels its timer, so a later deadlock is found
// at once, and the stalled load is counted once.
func TestStallTimerCancelled(t *testing.T) {
	p := assemble(t, stallSrc)
	rd := pcOf(t, p, "rd")
	stalled := false
	r, err := sim.Run(configs.Default(), p, 1, sim.WithExtension(withCheck(func(a *cpu.Access) cpu.Verdict {
		if a.PC == rd && !stalled {
			stalled = true
			return cpu.StallOnLine(a, 1_000_000)
		}
		return cpu.Verdict{}
	})))
	if err != nil {
		t.Fatal(err)
	}
	if r.Outcome != core.Hang || !strings.Contains(r.OutcomeMsg, "deadlock") || r.Cycles > 10000 {
		t.Errorf("outcome %s at cycle %d (%q), want a deadlock soon after the stall resolves", r.Outcome, r.Cycles, r.OutcomeMsg)
	}
	reads, _ := r.Stats.Get("l1_reads")
	loads, _ := r.Stats.Get("loads")
	if reads != loads {
		t.Errorf("%v L1 reads for %v loads: the stalled load was counted twice", reads, loads)
	}
}

// The same for a park rule released by an access before its timeout.
func TestParkTimerCancelled(t *testing.T) {
	p := assemble(t, stallSrc)
	m, err := sim.Build(configs.Default(), p, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := p.SymbolAddr("x")
	idx, err := m.Park(core.ParkRule{Thread: 1, PC: pcOf(t, p, "rd"), Wait: core.Wait{Until: core.UntilWrite, Addr: x, Timeout: 1_000_000}})
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	m.Run()
	res := m.ParkResult(idx)
	r := sim.Collect(m, configs.Default(), 1)
	if !res.Released || res.TimedOut || r.Outcome != core.Hang || r.Cycles > 10000 {
		t.Errorf("park %+v, outcome %s at %d; want released by the write and a prompt deadlock", res, r.Outcome, r.Cycles)
	}
}

// A crash on a bad access names the faulting address in its event.
func TestCrashEventCarriesAddress(t *testing.T) {
	p := assemble(t, ".text\nmain: alloc r1, 4\n free [r1], 4\nbad: ld r2, [r1+8]\n exit\n")
	var got uint64
	var heap int64
	_, err := sim.Run(configs.Default(), p, 1, sim.WithObserver(core.MaskOf(core.KindCrash, core.KindFree), core.ObserverFunc(func(e *core.Event) {
		if e.Kind == core.KindFree {
			heap = int64(e.Addr)
		} else {
			got = e.Addr
		}
	})))
	if err != nil {
		t.Fatal(err)
	}
	if got == 0 || got != uint64(heap+8) {
		t.Errorf("crash event address %#x, want the freed word %#x", got, heap+8)
	}
}
