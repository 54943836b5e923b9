package cpu_test

import (
	"testing"

	"weft/core"
)

// A park rule released by an access before its timeout cancels its timer,
// so a later deadlock is found at once (as a stall's, TestStallTimerCancelled).
func TestParkTimerCancelled(t *testing.T) {
	p := assemble(t, stallSrc)
	m := build(t, defaultSpec(), p, 1, nil)
	x, _ := p.SymbolAddr("x")
	idx, err := m.Park(core.ParkRule{Thread: 1, PC: pcOf(t, p, "rd"), Wait: core.Wait{Until: core.UntilWrite, Addr: x, Timeout: 1_000_000}})
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	m.Run()
	res := m.ParkResult(idx)
	r := collect(m, false)
	if !res.Released || res.TimedOut || r.Kind != core.Hang || r.Cycle > 10000 {
		t.Errorf("park %+v, outcome %s at %d; want released by the write and a prompt deadlock", res, r.Kind, r.Cycle)
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
	m := build(t, defaultSpec(), p, 1, nil)
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
		m := build(t, defaultSpec(), p, 1, nil)
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
	m := build(t, defaultSpec(), p, 1, nil)
	m.Start()
	m.Run()
	if end != m.Now() {
		t.Errorf("a rule that never fires moved the run's end: cycle %d, %d without it", end, m.Now())
	}
}
