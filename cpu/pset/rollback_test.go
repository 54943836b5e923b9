package pset_test

import (
	"testing"

	"weft/core"
	"weft/sim"
	"weft/workloads"
)

// An output between a checkpoint and the first check after it must not
// be rolled back past: every Output event must be a final output.
func TestRollbackNotPastOutput(t *testing.T) {
	p := asm(t, `
.data
x: .word 0
.text
main:  spawn r5, t1, r0
       li r1, 7
       st r1, x
       work 10
       out r1
       work 5000
       join r5
       exit
t1:    work 1000
       ld r2, x
       exit
`)
	ps := nullPSets(p, nil)
	c := hwConfig()
	c.PSet.Recovery.Mode = "rollback"
	log := &evLog{}
	r, err := sim.Run(c, p, 1, sim.WithPSets(ps), sim.WithStatGroups(),
		sim.WithObserver(core.MaskOf(core.KindOutput, core.KindRollback, core.KindCheckpoint), log))
	if err != nil {
		t.Fatal(err)
	}
	outs := 0
	for _, e := range log.evs {
		t.Logf("%v cycle %d value %d", e.Kind, e.Cycle, e.Value)
		if e.Kind == core.KindOutput {
			outs++
		}
	}
	t.Logf("rollbacks %d checkpoints %d exhausted %d", stat(t, r, "rollbacks"), stat(t, r, "checkpoints"), stat(t, r, "rollbacks_exhausted"))
	if outs != len(r.Outputs) {
		t.Errorf("%d Output events but %d final outputs: the run rolled back past an output", outs, len(r.Outputs))
	}
}

// checkpoint_interval_instrs = 200: a rollback never discards much more
// than 200 instructions' work (plus what runs until the next check).
func TestCheckpointInterval(t *testing.T) {
	p := asm(t, `
.data
x: .word 0
y: .word 0
.text
main:  spawn r5, t1, r0
       li r3, 0
loop:  ld r2, y
       li r4, 0
inner: add r4, r4, 1
       blt r4, 50, inner
       add r3, r3, 1
       blt r3, 100, loop
       st r3, x
       join r5
       exit
t1:    work 30000
       ld r2, x
       exit
`)
	ps := nullPSets(p, nil)
	c := hwConfig()
	c.PSet.Recovery.Mode = "rollback"
	c.PSet.Recovery.CheckpointIntervalInstrs = 200
	log := &evLog{}
	r, err := sim.Run(c, p, 1, sim.WithPSets(ps), sim.WithStatGroups(),
		sim.WithObserver(core.MaskOf(core.KindRollback, core.KindCheckpoint), log))
	if err != nil {
		t.Fatal(err)
	}
	cks, worst := 0, int64(0)
	for _, e := range log.evs {
		switch e.Kind {
		case core.KindCheckpoint:
			cks++
		case core.KindRollback:
			worst = max(worst, e.Value)
		}
	}
	t.Logf("outcome %s, %d checkpoints, rollbacks %d, largest rollback %d instructions", r.Outcome, cks, stat(t, r, "rollbacks"), worst)
	if cks < 20 || worst > 1000 {
		t.Errorf("checkpoint_interval_instrs = 200 over ~10000 instructions: %d checkpoints, a rollback discarded %d instructions", cks, worst)
	}
}

// ext.pset's checkpoints counts the checkpoints taken.
func TestCheckpointCounter(t *testing.T) {
	p := asm(t, `
.data
x: .word 0
.text
main:  spawn r5, t1, r0
       li r1, 7
       st r1, x
       work 5000
       join r5
       exit
t1:    work 1000
       ld r2, x
       exit
`)
	c := hwConfig()
	c.PSet.Recovery.Mode = "rollback"
	log := &evLog{}
	r, err := sim.Run(c, p, 1, sim.WithPSets(nullPSets(p, nil)), sim.WithStatGroups(),
		sim.WithObserver(core.MaskOf(core.KindCheckpoint), log))
	if err != nil {
		t.Fatal(err)
	}
	if got := stat(t, r, "checkpoints"); got != uint64(len(log.evs)) {
		t.Errorf("checkpoints = %d, but %d Checkpoint events", got, len(log.evs))
	}
}

// TestWindowsAndCosts checks the required and actual rollback windows and
// the cost counters on row 6 (the read long before the write): every
// violation that rolls back carries its required window (instructions
// since the predecessor's access, > 0); the actual windows the Rollback
// events report sum to at least the rollback_instrs counter (counted when
// each rollback was asked for, a little before it happens); holding the
// predecessor after each rollback is counted; stalling on row 5 counts
// the cycles stalled.
func TestWindowsAndCosts(t *testing.T) {
	name := workloads.RowKernels()["pset:6"][0]
	prog, err := workloads.Program(name)
	if err != nil {
		t.Fatal(err)
	}
	ps := train0(t, name, 100)
	cfg := kernelConfig(prog)
	cfg.PSet.Enabled = true
	cfg.PSet.Recovery.Mode = "rollback"
	checked := 0
	for s := uint64(101); s <= 140; s++ {
		log := &evLog{}
		r, err := sim.Run(cfg, prog, s, sim.WithPSets(ps), sim.WithStatGroups(),
			sim.WithObserver(core.MaskOf(core.KindPSetViolation, core.KindRollback), log))
		if err != nil {
			t.Fatal(err)
		}
		g, _ := r.Groups.Get("ext.pset")
		rbs, _ := g.Stats.Get("rollbacks")
		instrs, _ := g.Stats.Get("rollback_instrs")
		holds, _ := g.Stats.Get("perturb_holds")
		var actual int64
		rolled := 0
		for _, e := range log.evs {
			switch e.Kind {
			case core.KindRollback:
				actual += e.Value
				rolled++
			case core.KindPSetViolation:
				if e.Words[3] == 1 && e.Value <= 0 {
					t.Errorf("seed %d: a violation that rolled back has required window %d", s, e.Value)
				}
			}
		}
		if int(rbs) != rolled || float64(actual) < instrs || (rolled > 0 && instrs <= 0) || holds > rbs {
			t.Errorf("seed %d: rollbacks %v (events %d), rollback_instrs %v, actual windows %d, holds %v", s, rbs, rolled, instrs, actual, holds)
		}
		if rolled > 0 {
			checked++
		}
	}
	if checked == 0 {
		t.Fatalf("%s rolled back on none of seeds 101..140", name)
	}
	name = workloads.RowKernels()["pset:5"][0]
	prog, _ = workloads.Program(name)
	cfg = kernelConfig(prog)
	cfg.PSet.Enabled = true
	cfg.PSet.Recovery.Mode = "stall"
	ps = train0(t, name, 100)
	stalled := false
	for s := uint64(101); s <= 140; s++ {
		r, err := sim.Run(cfg, prog, s, sim.WithPSets(ps), sim.WithStatGroups())
		if err != nil {
			t.Fatal(err)
		}
		g, _ := r.Groups.Get("ext.pset")
		st, _ := g.Stats.Get("stalls")
		cyc, _ := g.Stats.Get("stall_cycles")
		if (st > 0) != (cyc > 0) {
			t.Errorf("seed %d: %v stalls, %v stall cycles", s, st, cyc)
		}
		stalled = stalled || st > 0
	}
	if !stalled {
		t.Fatalf("%s stalled on none of seeds 101..140", name)
	}
}

// TestViolationRightAfterOutput: the machine checkpoints right after an
// output, so a violation at the next access rolls back to there (and,
// repeating on every re-execution, is accepted after max_rollbacks)
// instead of being accepted at once for want of a checkpoint after the
// output.
func TestViolationRightAfterOutput(t *testing.T) {
	p := asm(t, `
.data
x: .word 0
.text
main:  spawn r5, t1, r0
       work 3000
       li r1, 7
       out r1
       ld r2, x
       join r5
       exit
t1:    li r3, 5
       st r3, x
       exit
`)
	c := hwConfig()
	c.PSet.Recovery.Mode = "rollback"
	log := &evLog{}
	r, err := sim.Run(c, p, 1, sim.WithPSets(nullPSets(p, nil)), sim.WithStatGroups(),
		sim.WithObserver(core.MaskOf(core.KindOutput, core.KindRollback, core.KindCheckpoint), log))
	if err != nil {
		t.Fatal(err)
	}
	g, _ := r.Groups.Get("ext.pset")
	rbs, _ := g.Stats.Get("rollbacks")
	ex, _ := g.Stats.Get("rollbacks_exhausted")
	if rbs != float64(c.PSet.Recovery.MaxRollbacksPerCheckpoint) || ex != 1 {
		t.Errorf("rollbacks %v, exhausted %v; want %d rollbacks to the checkpoint after the output, then accepted", rbs, ex, c.PSet.Recovery.MaxRollbacksPerCheckpoint)
	}
	if r.Outcome != core.Pass || len(r.Outputs) != 1 {
		t.Errorf("outcome %s, outputs %v", r.Outcome, r.Outputs)
	}
}
