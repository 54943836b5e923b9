package coherence

import (
	"fmt"
	"testing"

	"weft/core"
)

// TestRestampKeepsOrder checks restamp on 8-way sets with random stamps and
// invalid ways: the valid ways keep their order with stamps 1..k, every
// key is untouched, and the next tick is above every stamp.
func TestRestampKeepsOrder(t *testing.T) {
	spec := Spec{Cores: 2, SizeBytes: 4 * 8 * 64, Assoc: 8, LineBytes: 64, BusWidth: 32}
	sys, err := New(spec, &core.Engine{}, &core.Stream{}, stressBase, 64)
	if err != nil {
		t.Fatal(err)
	}
	rng := core.NewRNG(5, "restamp")
	before := make([]uint64, len(sys.st.frames))
	for f := range sys.st.frames {
		st := State(rng.Below(4))
		sys.setFrame(f, uint64(f), st)
		// Distinct stamps near the limit, as a long run leaves them.
		sys.st.frames[f] = sys.st.frames[f]&keyMask | (stampLimit-1-uint64(f)*7-rng.Below(7))<<stampShift
	}
	copy(before, sys.st.frames)
	victims := make([]int, sys.sets)
	for set := range victims {
		victims[set] = sys.victim(1, uint64(set))
	}
	next := sys.restamp(1)
	if next != 9 {
		t.Errorf("restamp returned tick %d, want 9", next)
	}
	for set := 0; set < sys.sets; set++ {
		base := (1*sys.sets + set) * spec.Assoc

		for f := base; f < base+spec.Assoc; f++ {
			x, b := sys.st.frames[f], before[f]
			if x&keyMask != b&keyMask {
				t.Fatalf("frame %d: key changed from %#x to %#x", f, b&keyMask, x&keyMask)
			}
			if frameState(x) == Invalid {
				continue
			}

			if s := x >> stampShift; s < 1 || s > uint64(spec.Assoc) {
				t.Errorf("frame %d: stamp %d after restamp, want 1..%d", f, s, spec.Assoc)
			}
			for g := base; g < base+spec.Assoc; g++ {
				if frameState(before[g]) != Invalid && (before[f]>>stampShift < before[g]>>stampShift) != (x>>stampShift < sys.st.frames[g]>>stampShift) {
					t.Errorf("frames %d and %d changed order", f, g)
				}
			}
		}
		if v := sys.victim(1, uint64(set)); v != victims[set] {
			t.Errorf("set %d: victim %d after restamp, %d before", set, v, victims[set])
		}
	}
	// Core 0's frames are not restamped.
	for f := 0; f < sys.sets*spec.Assoc; f++ {
		if sys.st.frames[f] != before[f] {
			t.Fatalf("core 0's frame %d changed", f)
		}
	}
}

// TestRestampIsInvisible runs the MESI stress test twice, the second time
// pushing every core's tick to the stamp limit after every bus transaction
// so that stamps are renumbered hundreds of times, and checks that every
// eviction and counter is the same.
func TestRestampIsInvisible(t *testing.T) {
	run := func(bump bool) ([]string, Stats, int) {
		var evicts []string
		restamps := 0
		h := runStress(t, 4, 4000, MetaLost, 11, func(msg string) { t.Error(msg) }, func(sys *System, s *core.Stream) {
			s.Attach(core.MaskOf(core.KindEvict), core.ObserverFunc(func(e *core.Event) {
				evicts = append(evicts, fmt.Sprintf("%d/%d/%#x", e.Cycle, e.Core, e.Addr))
			}))
			if bump {
				s.Attach(MaskOf3(), core.ObserverFunc(func(e *core.Event) {
					for c := range sys.st.ticks {
						if sys.st.ticks[c] < stampLimit-3 {
							sys.st.ticks[c] = stampLimit - 3
							restamps++
						}
					}
				}))
			}
		})
		return evicts, h.sys.Stats(), restamps
	}
	e1, s1, _ := run(false)
	e2, s2, n := run(true)
	if n < 100 {
		t.Fatalf("only %d restamps forced", n)
	}
	if len(e1) < 100 {
		t.Fatalf("only %d evictions", len(e1))
	}
	if fmt.Sprint(e1) != fmt.Sprint(e2) || s1 != s2 {
		t.Errorf("restamping changed the run: %d and %d evictions, stats equal %v", len(e1), len(e2), s1 == s2)
	}
}
