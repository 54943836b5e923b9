package pset_test

import (
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
)

func asm(t *testing.T, src string) *isa.Program {
	t.Helper()
	p, err := isa.Assemble("t.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func lpc(t *testing.T, p *isa.Program, l string) int32 {
	t.Helper()
	v, ok := p.LabelPC(l)
	if !ok {
		t.Fatalf("no label %s", l)
	}
	return int32(v)
}

// nullPSets: every instruction tested, no predecessors (extra: pc -> preds).
func nullPSets(p *isa.Program, extra map[int32][]int32) isa.PSets {
	ps := make(isa.PSets, len(p.Instrs))
	for i := range ps {
		ps[i].Tested = true
		ps[i].Preds = extra[int32(i)]
	}
	return ps
}

type evLog struct{ evs []core.Event }

func (l *evLog) Observe(e *core.Event) { l.evs = append(l.evs, *e) }

func hwConfig() configs.Config {
	c := configs.Default()
	c.Sim.JitterCycles = 0
	c.PSet.Enabled = true
	c.PSet.CheckBaseCycles, c.PSet.CheckPerEntryCycles = 0, 0
	return c
}

func stat(t *testing.T, r sim.Result, name string) uint64 {
	t.Helper()
	g, ok := r.Groups.Get("ext.pset")
	if !ok {
		t.Fatal("no ext.pset group")
	}
	v, _ := g.Stats.Get(name)
	return uint64(v)
}

// A stall timeout releases one access, not every later phase of the
// instruction: t1's lock times out on its first test read, spins while
// main holds the lock, and its test read after main's unlock violates
// again; that check must stall again, not proceed as a "timeout".
func TestTimeoutReleasesOneAccess(t *testing.T) {
	p := asm(t, `
.data
l: .word 0
.text
main:  spawn r5, t1, r0
ml:    lock l
       work 5000
mu:    unlock l
       work 20000
       join r5
       exit
t1:    work 1000
tl:    lock l
tu:    unlock l
       exit
`)
	ps := nullPSets(p, map[int32][]int32{lpc(t, p, "mu"): {lpc(t, p, "tl")}})
	c := hwConfig()
	c.PSet.Recovery.Mode = "stall"
	c.PSet.Recovery.StallTimeoutCycles = 500
	log := &evLog{}
	r, err := sim.Run(c, p, 1, sim.WithPSets(ps), sim.WithStatGroups(),
		sim.WithObserver(core.MaskOf(core.KindStallBegin, core.KindStallEnd, core.KindPSetViolation), log))
	if err != nil {
		t.Fatal(err)
	}
	timedOut := uint64(0)
	for _, e := range log.evs {
		if e.Kind == core.KindStallEnd && e.Words[0] != 0 {
			timedOut++
		}
	}
	if timedOut == 0 {
		t.Fatal("no stall timed out: the test no longer exercises a timeout")
	}
	if got := stat(t, r, "stall_timeouts"); got != timedOut {
		t.Errorf("stall_timeouts = %d, but %d stalls timed out (stalls = %d)", got, timedOut, stat(t, r, "stalls"))
	}
}

// TestTimeoutBoundsWholeStall: a stalled access that another thread's
// spinning wakes over and over (each wake re-checks it, and it stalls
// again) is released when stall_timeout_cycles have passed since it first
// stalled, not re-armed at every re-stall (which let it wait as long as
// the spinning lasted: here for ever).
func TestTimeoutBoundsWholeStall(t *testing.T) {
	p := asm(t, `
.data
x:    .word 0
      .align 64
stop: .word 0
.text
main:  spawn r5, t1, r0
       work 200
       li r1, 1
       st r1, x
       st r1, stop
       join r5
       exit
t1:    ld r2, x
       ld r3, stop
       beq r3, r0, t1
       exit
`)
	for _, mode := range []string{"stall", "stall_then_rollback"} {
		c := hwConfig()
		c.PSet.Recovery.Mode = mode
		c.PSet.Recovery.StallTimeoutCycles = 2000
		c.Sim.MaxCycles = 1_000_000
		r, err := sim.Run(c, p, 1, sim.WithPSets(nullPSets(p, nil)), sim.WithStatGroups())
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome != core.Pass || r.Cycles > 50_000 {
			t.Errorf("%s: %s after %d cycles; want the stall released after 2000", mode, r.Outcome, r.Cycles)
		}
		if mode == "stall" && stat(t, r, "stall_timeouts") == 0 {
			t.Errorf("stall: no timeout")
		}
		t.Logf("%s: %d cycles, %d stalls, %d timeouts, %d rollbacks", mode, r.Cycles, stat(t, r, "stalls"), stat(t, r, "stall_timeouts"), stat(t, r, "rollbacks"))
	}
}
