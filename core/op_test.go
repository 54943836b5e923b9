package core_test

import (
	"fmt"
	"testing"

	"weft/core"
)

// TestOp checks the decoding of every kind, with and without FlagSync.
func TestOp(t *testing.T) {
	want := map[core.Kind]core.OpKind{
		core.KindRead: core.OpRead, core.KindWrite: core.OpWrite, core.KindRMW: core.OpAtomic,
		core.KindFree: core.OpFree, core.KindCrash: core.OpFault,
		core.KindSpawn: core.OpSpawn, core.KindJoin: core.OpJoin, core.KindThreadExit: core.OpExit,
		core.KindAcquire: core.OpAcquire, core.KindRelease: core.OpRelease,
		core.KindBarrierArrive: core.OpArrive, core.KindBarrierLeave: core.OpLeave,
		core.KindCondWait: core.OpWait, core.KindCondSignal: core.OpSignal, core.KindCondWake: core.OpWake,
	}
	seen := map[core.OpKind]bool{}
	for k := core.Kind(0); k < core.NumKinds; k++ {
		c := core.ContractOf(k)
		for _, flags := range []uint8{0, core.FlagSync, core.FlagSync | core.FlagHit, core.FlagHit} {
			if flags&^c.Flags != 0 {
				continue
			}
			e := core.Event{Kind: k, Flags: flags, Addr: 0x10000}
			w, ok := want[k]
			if flags&core.FlagSync != 0 {
				w = core.OpSyncAccess
			}
			if got := e.Op(); got != w {
				t.Errorf("%s flags %#x: Op %s, want %s", k, flags, got, w)
			}
			seen[w] = true
			if ok && c.Group != "program" {
				t.Errorf("%s decodes to %s but is in group %s", k, w, c.Group)
			}
		}
	}
	for op := core.OpNone; op < core.NumOps; op++ {
		if !seen[op] {
			t.Errorf("no kind decodes to %s", op)
		}
	}
	if s := core.NumOps.String(); s != "OpKind(17)" {
		t.Errorf("String of NumOps: %q", s)
	}
	// Beyond the kinds: nothing.
	e := core.Event{Kind: core.NumKinds + 3}
	if got := e.Op(); got != core.OpNone {
		t.Errorf("Op of an unknown kind: %s", got)
	}
}

// ExampleEvent_Op decodes a barrier arrival: what it does, and its operands.
func ExampleEvent_Op() {
	e := core.Event{Kind: core.KindBarrierArrive, Thread: 2, Addr: 0x10040, Value: 1, Words: [4]uint64{3, 4}}
	switch e.Op() {
	case core.OpArrive:
		fmt.Printf("thread %d arrives at barrier %#x, generation %d of %d threads\n", e.Thread, e.Addr, e.Generation(), e.Parties())
	}
	// Output: thread 2 arrives at barrier 0x10040, generation 3 of 4 threads
}
