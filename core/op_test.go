package core_test

import (
	"fmt"
	"slices"
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

// TestReadsWrites checks what each access reads and writes.
func TestReadsWrites(t *testing.T) {
	for _, c := range []struct {
		e            core.Event
		reads, write bool
	}{
		{core.Event{Kind: core.KindRead}, true, false},
		{core.Event{Kind: core.KindWrite}, false, true},
		{core.Event{Kind: core.KindRMW, Words: [4]uint64{5, 1}}, true, true},
		{core.Event{Kind: core.KindRMW, Words: [4]uint64{5, 0}}, true, false},
		{core.Event{Kind: core.KindRMW, Flags: core.FlagSync, Words: [4]uint64{0, 1}}, true, true},
		{core.Event{Kind: core.KindFree, Value: 2}, false, false},
	} {
		if c.e.Reads() != c.reads || c.e.Writes() != c.write {
			t.Errorf("%s %v: Reads %v Writes %v, want %v %v", c.e.Kind, c.e.Words, c.e.Reads(), c.e.Writes(), c.reads, c.write)
		}
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

// TestBarriers checks the generation rule: arrivals accumulate within a
// generation, a new one starts from zero, and a leave sees only its own.
func TestBarriers(t *testing.T) {
	var b core.Barriers[[]int]
	if _, ok := b.Leave(0x10000, 0); ok {
		t.Errorf("Leave of an unknown barrier")
	}
	for _, tid := range []int{1, 2} {
		acc := b.Arrive(0x10000, 0)
		*acc = append(*acc, tid)
	}
	*b.Arrive(0x10040, 5) = []int{9}
	if got, ok := b.Leave(0x10000, 0); !ok || !slices.Equal(got, []int{1, 2}) {
		t.Errorf("Leave of generation 0: %v %v", got, ok)
	}
	if _, ok := b.Leave(0x10000, 1); ok {
		t.Errorf("Leave of a generation with no arrival")
	}
	if acc := b.Arrive(0x10000, 1); *acc != nil {
		t.Errorf("generation 1 starts with %v", *acc)
	}
	if _, ok := b.Leave(0x10000, 0); ok {
		t.Errorf("Leave of generation 0 after generation 1 began")
	}
	if got, ok := b.Leave(0x10040, 5); !ok || !slices.Equal(got, []int{9}) {
		t.Errorf("another barrier: %v %v", got, ok)
	}
}
