package lockset_test

import (
	"fmt"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// streamChecker checks the properties of the event stream the detector
// relies on.
type streamChecker struct {
	started map[int32]bool
	exited  map[int32]bool
	holder  map[uint64]int32
	last    core.Kind
	// released is the thread and lock of the last Release.
	released [2]uint64
	cycle    core.Cycle
	issues   map[string]int
}

func (c *streamChecker) bad(format string, a ...any) { c.issues[fmt.Sprintf(format, a...)]++ }

func (c *streamChecker) Observe(e *core.Event) {
	if e.Thread > 0 && !c.started[e.Thread] {
		c.bad("%s by a thread before its Spawn", e.Kind)
	}
	if c.exited[e.Thread] {
		c.bad("%s by a thread after its ThreadExit", e.Kind)
	}
	if e.Cycle < c.cycle {
		c.bad("%s goes back in time", e.Kind)
	}
	c.cycle = max(c.cycle, e.Cycle)
	switch e.Kind {
	case core.KindRead, core.KindWrite, core.KindRMW:
		if e.Addr < isa.DataBase || e.Addr%isa.WordBytes != 0 {
			c.bad("%s of a non-word address", e.Kind)
		}
	case core.KindSpawn:
		if e.Value != int64(e.Words[0]) || c.started[int32(e.Value)] {
			c.bad("bad Spawn")
		}
		c.started[int32(e.Value)] = true
	case core.KindThreadExit:
		c.exited[e.Thread] = true
	case core.KindJoin:
		if !c.exited[int32(e.Value)] {
			c.bad("Join before the joined thread's ThreadExit")
		}
	case core.KindAcquire:
		if _, held := c.holder[e.Addr]; held {
			c.bad("Acquire of a held lock")
		}
		c.holder[e.Addr] = e.Thread
	case core.KindRelease:
		if h, held := c.holder[e.Addr]; !held || h != e.Thread {
			c.bad("Release of a lock the thread does not hold")
		}
		delete(c.holder, e.Addr)
		c.released = [2]uint64{uint64(e.Thread), e.Addr}
	case core.KindCondWait:
		if c.last != core.KindRelease || c.released != [2]uint64{uint64(e.Thread), e.Words[0]} {
			c.bad("CondWait not right after the Release of its lock")
		}
	}
	c.last = e.Kind
}

// TestStreamAssumptions checks, on every kernel, what the detector assumes
// of the stream: a thread's events follow the Spawn that names it and
// precede its ThreadExit, Join follows the joined thread's exit, locks are
// acquired only when free and released by their holder, and a cwait's
// Release comes just before its CondWait.
func TestStreamAssumptions(t *testing.T) {
	mask := core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW, core.KindSpawn, core.KindJoin,
		core.KindThreadExit, core.KindAcquire, core.KindRelease, core.KindCondWait, core.KindFree, core.KindCrash)
	for _, e := range workloads.List() {
		if e.Kind != workloads.Kernel {
			continue
		}
		p := program(t, e.Name)
		cfg, _ := sim.FitCores(configs.Default(), p)
		for seed := uint64(1); seed <= 5; seed++ {
			c := &streamChecker{started: map[int32]bool{}, exited: map[int32]bool{}, holder: map[uint64]int32{}, issues: map[string]int{}}
			if _, err := sim.Run(cfg, p, seed, sim.WithObserver(mask, c)); err != nil {
				t.Fatal(err)
			}
			for issue, n := range c.issues {
				t.Errorf("%s seed %d: %s (%d times)", e.Name, seed, issue, n)
			}
		}
	}
}
