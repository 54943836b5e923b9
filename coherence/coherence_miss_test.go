package coherence

import (
	"testing"

	"weft/core"
)

// TestCoherenceMissSurvivesRefill: core 0's copy of line A is invalidated by
// core 1's write; core 0 then fills the same set with other lines (reusing
// the invalidated way); its next miss on A is still a coherence miss.
func TestCoherenceMissSurvivesRefill(t *testing.T) {
	eng := &core.Engine{}
	spec := Spec{Cores: 2, SizeBytes: 256, Assoc: 2, LineBytes: 64, HitCycles: 1, BusWidth: 32, ArbCycles: 2, SnoopCycles: 4, C2CCycles: 10, MemCycles: 50}
	sys, err := New(spec, eng, &core.Stream{}, stressBase, 64*8)
	if err != nil {
		t.Fatal(err)
	}
	rc := &recordClient{}
	sys.SetClient(0, rc)
	sys.SetClient(1, rc)
	access := func(c int, addr uint64, write bool) {
		if sys.Probe(c, addr, write) >= 0 {
			return
		}
		sys.Request(c, addr, write, 0, eng.Now())
		for eng.Step() {
		}
	}
	const a = stressBase
	sameSet := func(i uint64) uint64 { return a + i*2*64 } // 2 sets: every other line maps to A's set
	access(0, a, false)
	access(1, a, true) // invalidates core 0's copy
	if got := sys.Stats()[StatCoherenceMisses]; got != 0 {
		t.Fatalf("%d coherence misses before any re-miss", got)
	}
	access(0, sameSet(1), false) // fills the invalidated way
	access(0, sameSet(2), false)
	access(0, a, false) // a coherence miss
	access(0, sameSet(3), false)
	access(0, sameSet(4), false) // evicts A (least recently used) by capacity
	if sys.Holds(0, a>>6) != Invalid {
		t.Fatal("A still cached: the capacity case is not exercised")
	}
	misses := sys.Stats()[StatReadMisses]
	access(0, a, false) // a capacity miss, not a coherence miss
	if sys.Stats()[StatReadMisses] != misses+1 {
		t.Fatal("the last access to A did not miss")
	}
	if got := sys.Stats()[StatCoherenceMisses]; got != 1 {
		t.Errorf("%d coherence misses, want 1", got)
	}
}
