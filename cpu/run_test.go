package cpu_test

import (
	"strings"
	"testing"

	"weft/core"
	"weft/cpu"
	"weft/workloads"
)

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
			s := defaultSpec()
			s.cpu.MaxCycles = 200000
			r := run(t, s, p, 1)
			if r.Kind.String() != tc.outcome {
				t.Fatalf("outcome %s (%s at pc %d), want %s", r.Kind, r.Msg, r.PC, tc.outcome)
			}
			if tc.label != "" {
				if want := pcOf(t, p, tc.label); r.PC != want {
					t.Errorf("outcome pc %d, want %d (%s)", r.PC, want, tc.label)
				}
			}
			if !strings.Contains(r.Msg, tc.msg) {
				t.Errorf("message %q lacks %q", r.Msg, tc.msg)
			}
			if tc.thread >= 0 && r.Thread != tc.thread {
				t.Errorf("outcome thread %d, want %d", r.Thread, tc.thread)
			}
		})
	}
}

func TestHangNamesBlockedThread(t *testing.T) {
	p := assemble(t, ".data\nL: .word 0\n.text\nmain: lock L\n spawn r2, child, r0\n join r2\n exit\nchild: nop\nspin: lock L\n exit\n")
	r := run(t, defaultSpec(), p, 3)
	if !strings.Contains(r.Msg, "thread 1 waiting for a lock at pc") || !strings.Contains(r.Msg, "thread 0 waiting to join") {
		t.Errorf("deadlock message %q does not name the blocked threads", r.Msg)
	}
}

// lastEvent runs p and returns the result and the largest event cycle.
func lastEvent(t *testing.T, s spec, src string, seed uint64) (result, core.Cycle) {
	t.Helper()
	p := assemble(t, src)
	var last core.Cycle
	r := run(t, s, p, seed, withObserver(core.AllKinds, core.ObserverFunc(func(e *core.Event) {
		if e.Cycle < last {
			t.Errorf("%s at cycle %d after an event at cycle %d", e.Kind, e.Cycle, last)
		}
		last = e.Cycle
	})))
	return r, last
}

func sumsToCycles(t *testing.T, r result) {
	t.Helper()
	for i, c := range r.Breakdown {
		var sum core.Cycle
		for _, b := range c {
			sum += b
		}
		if sum != r.Cycle {
			t.Errorf("core %d: breakdown sums to %d, run took %d cycles (%+v)", i, sum, r.Cycle, c)
		}
	}
}

// A deadlock found after a core ran ahead of the engine (lookahead) ends
// at the last cycle any core acted, not at the engine's clock.
func TestDeadlockTimeAfterLookahead(t *testing.T) {
	r, last := lastEvent(t, defaultSpec(), ".data\nL: .word 0\n.text\nmain: lock L\n work 500\n out r0\nbad: lock L\n exit\n", 1)
	if r.Kind != core.Hang || !strings.Contains(r.Msg, "deadlock") {
		t.Fatalf("outcome %s %q", r.Kind, r.Msg)
	}
	if r.Cycle < last || r.Cycle < 500 {
		t.Errorf("deadlock at cycle %d, last event at %d", r.Cycle, last)
	}
	sumsToCycles(t, r)
}

// sim.max_cycles holds even when a core would cross it without queueing
// an event.
func TestMaxCyclesWithoutEvents(t *testing.T) {
	s := defaultSpec()
	s.cpu.MaxCycles = 500
	for _, src := range []string{
		".data\nx: .word 1\n.text\nmain: ld r1, x\n work 1000\n st r0, x\n out r1\n exit\n",
		".data\nx: .word 1\n.text\nmain: ld r1, x\n work 1000\n div r1, r1, r0\n exit\n",
		".text\nmain: work 1000\n exit\n",
	} {
		r, last := lastEvent(t, s, src, 1)
		if r.Kind != core.Hang || !strings.Contains(r.Msg, "max_cycles") || r.Cycle != 500 {
			t.Errorf("%q: outcome %s at %d (%q), want a max_cycles hang at 500", src, r.Kind, r.Cycle, r.Msg)
		}
		if last > 500 {
			t.Errorf("%q: an event at cycle %d, past max_cycles", src, last)
		}
		sumsToCycles(t, r)
	}
}

// A max_cycles hang names the thread that ran out of time.
func TestMaxCyclesBlamesTheLoopingThread(t *testing.T) {
	s := defaultSpec()
	s.cpu.MaxCycles = 20000
	p := assemble(t, ".text\nmain: spawn r2, child, r0\n join r2\n exit\nchild: nop\nloop: add r1, r1, 1\n jmp loop\n")
	r := run(t, s, p, 1)
	loop := pcOf(t, p, "loop")
	if r.Kind != core.Hang || r.Thread != 1 || (r.PC != loop && r.PC != loop+1) {
		t.Errorf("hang blames thread %d pc %d, want thread 1 in its loop (pc %d/%d)", r.Thread, r.PC, loop, loop+1)
	}
}

// With start skew, a thread that would start after the run ended does not
// add idle time beyond the end.
func TestSkewKeepsBreakdownWithinRun(t *testing.T) {
	s := defaultSpec()
	s.cpu.StartSkewCycles = 10000
	for seed := uint64(1); seed <= 3; seed++ {
		r, _ := lastEvent(t, s, ".text\nmain: spawn r2, child, r0\n div r1, r1, r0\n exit\nchild: exit\n", seed)
		if r.Kind != core.Crash {
			t.Fatalf("outcome %s", r.Kind)
		}
		sumsToCycles(t, r)
	}
}

// A crash on a bad access names the faulting address in its event.
func TestCrashEventCarriesAddress(t *testing.T) {
	p := assemble(t, ".text\nmain: alloc r1, 4\n free [r1], 4\nbad: ld r2, [r1+8]\n exit\n")
	var got uint64
	var heap int64
	run(t, defaultSpec(), p, 1, withObserver(core.MaskOf(core.KindCrash, core.KindFree), core.ObserverFunc(func(e *core.Event) {
		if e.Kind == core.KindFree {
			heap = int64(e.Addr)
		} else {
			got = e.Addr
		}
	})))
	if got == 0 || got != uint64(heap+8) {
		t.Errorf("crash event address %#x, want the freed word %#x", got, heap+8)
	}
}

func TestBreakdownSumsToCycles(t *testing.T) {
	for _, name := range []string{"prodcons", "counter-locked", "stencil", "matmul"} {
		p := kernel(t, name)
		r := run(t, defaultSpec(), p, 2)
		var waits core.Cycle
		for i, c := range r.Breakdown {
			var sum core.Cycle
			for _, b := range c {
				sum += b
			}
			if sum != r.Cycle {
				t.Errorf("%s core %d: breakdown sums to %d, run took %d cycles", name, i, sum, r.Cycle)
			}
			waits += c[cpu.LockWait] + c[cpu.BarrierWait] + c[cpu.CondWait] + c[cpu.JoinWait]
		}
		if waits == 0 {
			t.Errorf("%s: no synchronisation wait recorded", name)
		}
	}
}

// TestEventOrderIsGlobal checks that the event stream is one total order in
// time: no event carries an earlier cycle than the one before it.
func TestEventOrderIsGlobal(t *testing.T) {
	for _, e := range workloads.List() {
		p := kernel(t, e.Name)
		s := defaultSpec().fit(p)
		for seed := uint64(1); seed <= 5; seed++ {
			var last core.Cycle
			var prev core.Kind
			bad := 0
			run(t, s, p, seed, withObserver(core.AllKinds, core.ObserverFunc(func(ev *core.Event) {
				if ev.Cycle < last && bad == 0 {
					bad++
					t.Errorf("%s seed %d: %s at cycle %d after %s at cycle %d", e.Name, seed, ev.Kind, ev.Cycle, prev, last)
				}
				last, prev = ev.Cycle, ev.Kind
			})))
		}
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
	r := run(t, defaultSpec(), p, 1)
	if r.Kind != core.Pass {
		t.Errorf("outputs %v: %s %s", r.Outputs, r.Kind, r.Msg)
	}
}

// An endless register-only loop counts no instruction that would complete
// past sim.max_cycles: at most one instruction a cycle (it once reported
// 100000001 instructions in 100000000 cycles).
func TestEndlessLoopInstructionsFitTheCycles(t *testing.T) {
	p := assemble(t, "main: nop\nloop: add r1, r1, 1\n jmp loop\n")
	for _, alu := range []core.Cycle{1, 3} {
		s := defaultSpec()
		s.cpu.MaxCycles = 10000
		s.cpu.ALUCycles = alu
		r := run(t, s, p, 1)
		if r.Kind != core.Hang || r.Cycle != 10000 || r.Instructions != uint64(10000/alu) {
			t.Errorf("alu %d: %s after %d cycles, %d instructions; want a hang after 10000 cycles, %d instructions", alu, r.Kind, r.Cycle, r.Instructions, 10000/alu)
		}
	}
}
