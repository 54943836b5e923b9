package pset_test

import (
	"testing"

	"weft/core"
	psetsw "weft/detectors/pset"
	"weft/sim"
)

// holdProg: main's load of x right after an output violates (x's writer
// is t1's store, in no PSet); the checkpoint after the output is later
// than t1's first store, so no re-execution runs the predecessor again.
const holdProg = `
.data
x: .word 0
.text
main:  spawn r5, t1, r0
       work 3000
       li r1, 7
       out r1
       ld r2, x
       work 20000
       join r5
       exit
t1:    li r4, 0
loop:  li r3, 5
ts:    st r3, x
       work 6000
       add r4, r4, 1
       blt r4, 3, loop
       exit
`

// TestHoldDoesNotOutliveItsRollbacks: with the predecessor before the
// checkpoint (no re-execution runs it again), delay_predecessor holds the
// violator instead; a hold is dropped when its violation is accepted or a
// new checkpoint is taken, so every hold is at the access of the violation
// that rolled back just before it (a stale hold fired at the predecessor's
// next, unrelated store).
func TestHoldDoesNotOutliveItsRollbacks(t *testing.T) {
	p := asm(t, holdProg)
	ps := nullPSets(p, map[int32][]int32{lpc(t, p, "ts"): {lpc(t, p, "ts")}})
	c := hwConfig()
	c.PSet.Recovery.Mode = "rollback"
	log := &evLog{}
	r, err := sim.Run(c, p, 1, sim.WithPSets(ps), sim.WithStatGroups(),
		sim.WithObserver(core.MaskOf(core.KindPSetViolation, core.KindRollback, core.KindStallBegin), log))
	if err != nil {
		t.Fatal(err)
	}
	var last core.Event
	holds := 0
	for _, e := range log.evs {
		switch e.Kind {
		case core.KindPSetViolation:
			last = e
		case core.KindStallBegin:
			holds++
			if e.Thread != last.Thread || e.PC != last.PC {
				t.Errorf("cycle %d: thread %d held at pc %d; the violation that rolled back was thread %d's at pc %d", e.Cycle, e.Thread, e.PC, last.Thread, last.PC)
			}
		}
	}
	if holds == 0 || stat(t, r, "rollbacks") == 0 || stat(t, r, "rollbacks_exhausted") == 0 {
		t.Errorf("holds %d, rollbacks %d, accepted %d: want rollbacks with holds, then acceptance", holds, stat(t, r, "rollbacks"), stat(t, r, "rollbacks_exhausted"))
	}
}

// TestHoldTimeoutIsNotTheStallTimeout: in stall_then_rollback mode a
// perturbation hold that times out must not count as the held access's
// own stall timeout: its violation stalls first, as every re-execution's
// does, instead of rolling back at once.
func TestHoldTimeoutIsNotTheStallTimeout(t *testing.T) {
	p := asm(t, holdProg)
	ps := nullPSets(p, map[int32][]int32{lpc(t, p, "ts"): {lpc(t, p, "ts")}})
	c := hwConfig()
	c.PSet.Recovery.Mode = "stall_then_rollback"
	c.PSet.Recovery.StallTimeoutCycles = 1000
	log := &evLog{}
	if _, err := sim.Run(c, p, 1, sim.WithPSets(ps), sim.WithStatGroups(),
		sim.WithObserver(core.MaskOf(core.KindPSetViolation, core.KindRollback, core.KindStallBegin, core.KindStallEnd), log)); err != nil {
		t.Fatal(err)
	}
	// A hold is a StallBegin with no violation just before it (same cycle
	// and core); after its StallEnd, a violation of the same access must
	// be followed by a stall, not a rollback.
	holds := 0
	for i, e := range log.evs {
		if e.Kind != core.KindStallBegin || (i > 0 && log.evs[i-1].Kind == core.KindPSetViolation && log.evs[i-1].Cycle == e.Cycle && log.evs[i-1].Core == e.Core) {
			continue
		}
		holds++
		for j := i + 1; j+1 < len(log.evs); j++ {
			if log.evs[j].Kind == core.KindStallEnd && log.evs[j].Core == e.Core {
				if v, next := log.evs[j+1], log.evs[min(j+2, len(log.evs)-1)]; v.Kind == core.KindPSetViolation && v.Core == e.Core && next.Kind == core.KindRollback {
					t.Errorf("cycle %d: the held access's violation rolled back without stalling", v.Cycle)
				}
				break
			}
		}
	}
	if holds == 0 {
		t.Fatal("no perturbation hold")
	}
}

// TestThread65536: thread ids are kept whole: thread 65536's read does not
// look like thread 0's, and the hardware reports the WAR the software
// monitor reports.
func TestThread65536(t *testing.T) {
	p := asm(t, `
.data
x: .word 0
.text
main:  li r1, 1
       st r1, x
       li r7, 0
loop:  spawn r5, nop, r0
       join r5
       add r7, r7, 1
       blt r7, 65535, loop
       spawn r5, last, r0
       join r5
       st r1, x
       exit
nop:   exit
last:  ld r2, x
       exit
`)
	ps := nullPSets(p, nil)
	c := hwConfig()
	c.PSet.Recovery.Mode = "log_only"
	c.Machine.Cores = 2
	hw := &hwLog{pairs: map[[2]int32]bool{}, raw: map[[2]int32]bool{}}
	mon := psetsw.NewMonitor(p, ps, psetsw.Options{})
	if _, err := sim.Run(c, p, 1, sim.WithPSets(ps), sim.WithObserver(core.MaskOf(core.KindPSetViolation), hw), sim.WithDetector(mon)); err != nil {
		t.Fatal(err)
	}
	sw := map[[2]int32]bool{}
	for _, f := range mon.Findings() {
		sw[[2]int32{f.PCs[0], f.PCs[1]}] = true
	}
	if len(sw) != 2 {
		t.Fatalf("software monitor pairs %v, want the RAW and the WAR", pairList(sw))
	}
	for pr := range sw {
		if !hw.pairs[pr] {
			t.Errorf("the hardware missed %v (software %v, hardware %v)", pr, pairList(sw), pairList(hw.pairs))
		}
	}
}
