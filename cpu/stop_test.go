package cpu_test

import (
	"math/rand"
	"testing"

	"weft/core"
	"weft/cpu"
	"weft/isa"
	"weft/workloads"
)

// withStop makes the run look at stop every `every` cycles (cpu.StopOn).
func withStop(stop <-chan struct{}, every core.Cycle) option {
	return withSetup(func(m *cpu.Machine) { m.StopOn(stop, every) })
}

// stopCompare runs prog with and without an open stop channel looked at
// every `every` cycles and returns the two digests (results, every event,
// park results).
func stopCompare(t *testing.T, s spec, prog *isa.Program, seed uint64, rules []core.ParkRule, every core.Cycle, opts func() []option) (with, without string) {
	t.Helper()
	open := make(chan struct{})
	withOpts := func() []option {
		var o []option
		if opts != nil {
			o = opts()
		}
		return append(o, withStop(open, every))
	}
	with, _ = directRun(t, s, prog, seed, core.AllKinds, rules, true, withOpts)
	without, _ = directRun(t, s, prog, seed, core.AllKinds, rules, true, opts)
	return with, without
}

// Looking at a stop channel that is never closed changes nothing a run
// computes, however often the machine looks (every cycle at the most):
// every registry workload, and random programs on random machines with
// irritators, tiny L1s, PSet stalls, BB-HW, checkpoints and rollbacks,
// park rules and a max_cycles boundary (hangs in endless loops among
// them) give the same results, events and park results.
func TestStopOnChangesNothing(t *testing.T) {
	for _, e := range workloads.List() {
		prog, err := workloads.ProgramFor(e.Name, 8)
		if err != nil {
			t.Fatal(err)
		}
		s := defaultSpec().fit(prog)
		for _, every := range []core.Cycle{1, 997} {
			if with, without := stopCompare(t, s, prog, 1, nil, every, nil); with != without {
				t.Errorf("%s, stop looked at every %d cycles: %s, without %s", e.Name, every, with, without)
			}
		}
	}
	endless := assemble(t, ".text\nmain: spawn r2, spin, r0\nloop: add r1, r1, 1\n work 7\n jmp loop\nspin: ld r3, x\n st r3, x\n jmp spin\n.data\nx: .word 0\n")
	s := defaultSpec()
	s.cpu.MaxCycles = 250_000
	for _, every := range []core.Cycle{1, 3, 1000, cpu.StopCycles} {
		if with, without := stopCompare(t, s, endless, 1, nil, every, nil); with != without {
			t.Errorf("endless loop, every %d cycles: %s, without %s", every, with, without)
		}
	}

	r := rand.New(rand.NewSource(25))
	for it := 0; it < 400; it++ {
		threads := 2 + r.Intn(3)
		src := genProg(r, threads)
		prog, err := isa.Assemble("fz.s", []byte(src))
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		s := defaultSpec().withCores(threads)
		s.cpu.JitterCycles = uint64(r.Intn(5))
		if r.Intn(3) == 0 {
			s.cpu.IrritatorProb = 0.3
			s.cpu.IrritatorMaxCycles = 40
		}
		if r.Intn(3) == 0 {
			s.mem.SizeBytes, s.mem.Assoc, s.mem.LineBytes = 128, 1, 64
		}
		if r.Intn(3) == 0 {
			s.cpu.MaxCycles = core.Cycle(300 + r.Intn(3000))
		}
		var opts func() []option
		switch r.Intn(4) {
		case 0:
			spec := psetSpec(isa.PSets{})
			spec.StallTimeout = core.Cycle(50 + r.Intn(300))
			opts = func() []option { return []option{withGroups(), withExtension(newPSet(t, spec))} }
		case 1:
			opts = func() []option { return []option{withGroups(), withExtension(newBugaboo(t, bugabooSpec()))} }
		case 2:
			k, rk, mrb := 1+r.Intn(40), 1+r.Intn(60), r.Intn(4)
			opts = func() []option { return []option{withGroups(), withExtension(&pfExt{k: k, rk: rk, maxRB: mrb})} }
		}
		var rules []core.ParkRule
		if r.Intn(2) == 0 {
			rules = directRules(prog)[:1]
			rules[0].Thread = int32(r.Intn(threads))
		}
		every := core.Cycle(1 + r.Intn(50))
		seed := uint64(r.Intn(100))
		if with, without := stopCompare(t, s, prog, seed, rules, every, opts); with != without {
			t.Fatalf("it %d, every %d cycles: %s, without %s; spec %+v\n%s", it, every, with, without, s.cpu, src)
		}
	}
}

// A closed stop channel stops a run within the look interval, in an
// endless loop of local instructions that never leaves one core (one
// event, before StopOn) and in an endless loop of coherence misses between
// two cores (many events); the run is interrupted, not a hang.
func TestStopOnStops(t *testing.T) {
	for _, c := range []struct{ name, src string }{
		{"local loop", ".text\nmain: add r1, r1, 1\n jmp main\n"},
		{"ping-pong", ".text\nmain: spawn r2, pong, r0\nping: fadd r1, x, 1\n jmp ping\npong: fadd r1, x, 2\n jmp pong\n.data\nx: .word 0\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := defaultSpec()
			s.cpu.MaxCycles = 1_000_000_000_000_000
			closed := make(chan struct{})
			close(closed)
			const every = 5000
			m := build(t, s, assemble(t, c.src), 1, nil)
			m.StopOn(closed, every)
			m.Start()
			if !m.RunUntil(^core.Cycle(0)) {
				t.Fatal("RunUntil returned before the run ended")
			}
			at, ok := m.Interrupted()
			if !ok || !m.Ended() {
				t.Fatalf("not interrupted (ended %v, outcome %+v)", m.Ended(), m.Outcome())
			}
			if at <= every || at > 3*every {
				t.Errorf("interrupted at cycle %d, want just past %d", at, every)
			}
			if m.InternalError() != nil {
				t.Error(m.InternalError())
			}
		})
	}
	// Without a stop channel, or with one never closed, the same loop ends
	// as a hang at max_cycles.
	s := defaultSpec()
	s.cpu.MaxCycles = 100_000
	m := build(t, s, assemble(t, ".text\nmain: add r1, r1, 1\n jmp main\n"), 1, nil)
	m.StopOn(make(chan struct{}), 7)
	m.Start()
	m.Run()
	if _, ok := m.Interrupted(); ok || m.Outcome().Kind != core.Hang {
		t.Errorf("outcome %+v, interrupted %v; want a hang", m.Outcome(), ok)
	}
}
