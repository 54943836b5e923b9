package cpu

import (
	"testing"

	"weft/coherence"
	"weft/core"
	"weft/workloads"
)

// TestOverdueBlamesTheWaitingCore checks who a hang past sim.max_cycles is
// blamed on when the first overdue event is the split bus's: the core
// whose transaction the event serves (its argument), not the last
// requester to reach an order point, which is usually another core.
func TestOverdueBlamesTheWaitingCore(t *testing.T) {
	p, err := workloads.ProgramFor("canneal", 8)
	if err != nil {
		t.Fatal(err)
	}
	memEvents := 0
	for mc := core.Cycle(3000); mc < 30000; mc += 97 {
		s := Spec{Cores: 8, ALUCycles: 1, HitCycles: 1, JitterCycles: 4, MaxCycles: mc}
		ms := coherence.Spec{Cores: 8, SizeBytes: 32768, Assoc: 8, LineBytes: 64, HitCycles: 1, BusWidth: 32,
			ArbCycles: 2, SnoopCycles: 4, C2CCycles: 10, MemCycles: 100, Split: true, SeparateDataBus: true}
		m, err := New(s, ms, p, 5, &core.Stream{})
		if err != nil {
			t.Fatal(err)
		}
		m.Start()
		for !m.st.ended {
			at, ok := m.eng.NextAt()
			if !ok || at > mc {
				break
			}
			m.step()
		}
		it, ok := m.eng.Peek()
		// Ops 2 and 3 are the split bus's order points and data arrivals.
		if !ok || it.Target != m.mem.Target() || (it.Op != 2 && it.Op != 3) {
			continue
		}
		memEvents++
		if got, want := m.overdue(), m.cores[it.Arg]; got != want {
			t.Fatalf("max_cycles %d: overdue bus event (op %d) serves core %d, blamed core %d", mc, it.Op, it.Arg, got.id)
		}
	}
	if memEvents < 10 {
		t.Fatalf("only %d runs stopped on a bus event", memEvents)
	}
}
