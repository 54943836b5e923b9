package bugaboo_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
)

// waitingTables is four threads missing on 128 lines each, into one
// central table whose inserts wait for its drains.
func waitingTables(t *testing.T) (*isa.Program, configs.Config) {
	t.Helper()
	p := assemble(t, `
.data
a: .space 8192
.text
main:  spawn r5, w, r0
       spawn r6, w, r0
       spawn r7, w, r0
       li r1, 0
loop:  ld r2, a[r1]
       add r1, r1, 64
       blt r1, 2048, loop
       join r5
       join r6
       join r7
       exit
w:     li r1, 2048
wl:    ld r2, a[r1]
       add r1, r1, 64
       blt r1, 8192, wl
       exit
`)
	c := bbConfig()
	c.Bugaboo.CT.Organization = "central"
	c.Bugaboo.CT.TrapCycles = 400
	c.Bugaboo.CT.DrainCyclesPerEntry = 0
	c.Bugaboo.CT.DropDuringTrap = false
	return p, c
}

// A central table with waiting inserts can fill again while it drains:
// the next drain starts when the last ends, so every TrapBegin has its
// TrapEnd and no two drains of a table overlap.
func TestWaitingDrainsDoNotOverlap(t *testing.T) {
	p, c := waitingTables(t)
	c.Bugaboo.CT.Entries = 2
	r, res := run(t, c, p, 1)
	g, _ := res.Groups.Get("ext.bugaboo")
	waits, _ := g.Stats.Get("ct_waits")
	if len(r.traps) < 10 || waits == 0 || len(r.traps) != len(r.ends) {
		t.Fatalf("%d TrapBegin, %d TrapEnd, %v waits; want many traps, some waits, one end per begin", len(r.traps), len(r.ends), waits)
	}
	for i := range r.traps {
		end := r.traps[i].Cycle + core.Cycle(r.traps[i].Words[1])
		if r.ends[i].Cycle != end || (i+1 < len(r.traps) && r.traps[i+1].Cycle < end) {
			t.Fatalf("drain %d: begins %d, ends %d (want %d), next begins %d", i, r.traps[i].Cycle, r.ends[i].Cycle, end, r.traps[min(i+1, len(r.traps)-1)].Cycle)
		}
	}
}

// With memory_fill = "ideal" (or "memory") the record survives the
// writer's eviction and the memory fill brings it back: the read that
// consumes the evicted store inserts a RAW edge from its writer, not a
// NULL-source edge (which "null" inserts).
func TestMemoryFillRestoresWriter(t *testing.T) {
	p := assemble(t, `
.data
x: .word 0
   .align 64
z: .space 64
.text
main:  li r1, 7
wa:    st r1, x
       ld r2, z
       spawn r2, t1, r0
       join r2
       exit
t1:    work 100
rb:    ld r3, x
       exit
`)
	for _, mf := range []string{"null", "memory", "ideal"} {
		c := bbConfig()
		c.Cache.L1.SizeBytes = 64
		c.Cache.L1.Assoc = 1
		c.Bugaboo.Metadata.MemoryFill = mf
		r, _ := run(t, c, p, 1)
		last := r.inserts[len(r.inserts)-1]
		if mf == "null" && last != fmt.Sprintf("MEM NULL -> %d/0", pc(t, p, "rb")) {
			t.Errorf("memory_fill=null: rb's edge %q, want a NULL source", last)
		}
		if mf != "null" && !strings.HasPrefix(r.inserts[len(r.inserts)-1], fmt.Sprintf("RAW %d/", pc(t, p, "wa"))) {
			t.Errorf("memory_fill=%s: rb's edge %q, want RAW from wa's restored record", mf, r.inserts[len(r.inserts)-1])
		}
	}
}

// The "drained" counter counts every drained edge, the run-end drain's too.
func TestDrainedCounter(t *testing.T) {
	p := assemble(t, `
.data
a: .space 640
.text
main:  li r1, 0
loop:  ld r2, a[r1]
       add r1, r1, 64
       blt r1, 4480, loop
       exit
`)
	c := bbConfig()
	c.Bugaboo.CT.Entries = 16
	r, res := run(t, c, p, 1)
	g, _ := res.Groups.Get("ext.bugaboo")
	ins, _ := g.Stats.Get("ct_inserts")
	dr, _ := g.Stats.Get("drained")
	if uint64(ins) != uint64(r.drains) || dr != ins {
		t.Errorf("ct_inserts %v, edges in CTDrain events %d, drained counter %v", ins, r.drains, dr)
	}
}

// Dedup keeps one WAW edge per miss, from the first ack that holds a
// record (w1, the last writer), not an empty one (rd2's read copy holds
// none here after main's memory-served read).
func TestDedupSkipsEmptyRecords(t *testing.T) {
	p := assemble(t, `
.data
x: .word 0
.text
main:  spawn r2, t1, r0
       spawn r3, t2, r0
       spawn r4, t3, r0
       work 3000
rm:    ld r1, x
       join r2
       join r3
       join r4
       exit
t1:    li r5, 9
       work 1000
w1:    st r5, x
       work 20000
       exit
t2:    work 2000
rd2:   ld r5, x
       work 20000
       exit
t3:    li r5, 3
       work 5000
w3:    st r5, x
       exit
`)
	for _, mode := range []string{"per_sharer", "dedup"} {
		c := bbConfig()
		c.Bugaboo.CT.InvalAckEntries = mode
		r, _ := run(t, c, p, 1)
		if !strings.Contains(strings.Join(r.inserts, ";"), fmt.Sprintf("WAW %d/", pc(t, p, "w1"))) {
			t.Errorf("%s: no WAW edge from w1 (the last writer) to w3", mode)
		}
	}
}

// BB-HW's state rolls back with the machine: restored to a mid-run
// snapshot (its tables holding entries, a drain's trap cycles counted), a
// run ends with the same counters as the first time, and drains again
// exactly the edges it drained after the snapshot.
func TestRollsBackWithTheMachine(t *testing.T) {
	p := assemble(t, `
.data
a: .space 4096
.text
main:  spawn r5, w, r0
       li r1, 0
loop:  ld r2, a[r1]
       st r2, a[r1]
       add r1, r1, 64
       blt r1, 4096, loop
       join r5
       exit
w:     li r1, 4032
wl:    ld r2, a[r1]
       st r1, a[r1]
       sub r1, r1, 64
       bge r1, 0, wl
       exit
`)
	c := bbConfig()
	c.Bugaboo.CT.Entries = 8
	var drained []uint64
	inserts := 0
	var s core.Stream
	s.Attach(core.MaskOf(core.KindCTDrain, core.KindCTInsert), core.ObserverFunc(func(e *core.Event) {
		if e.Kind == core.KindCTInsert {
			inserts++
			return
		}
		drained = append(drained, e.List...)
	}))
	m, err := sim.Build(c, p, 1, &s)
	if err != nil {
		t.Fatal(err)
	}
	m.Start()
	// Snapshot once a table holds entries and one drain has happened.
	for len(drained) == 0 || inserts*4 == len(drained) {
		if m.Step() {
			t.Fatal("the run ended before the snapshot")
		}
	}
	snap := m.Snapshot()
	at := len(drained)
	m.Run()
	first := m.StatRegistry().Read(nil)
	after := slices.Clone(drained[at:])
	drained = drained[:at]
	m.Restore(snap)
	m.Run()
	if second := m.StatRegistry().Read(nil); !slices.Equal(first, second) {
		t.Errorf("counters differ after the rollback:\n%v\n%v", first, second)
	}
	if len(after) == 0 || !slices.Equal(drained[at:], after) {
		t.Errorf("drained %d words after the snapshot, %d after the rollback", len(after), len(drained)-at)
	}
	g := m.StatRegistry().Offset("ext.bugaboo")
	if g < 0 || first[g] == 0 {
		t.Errorf("no BB-HW counters (offset %d)", g)
	}
}

// A write that invalidates two sharers inserts two WAW edges in the same
// transaction. With a per-core table of 1 entry and wait_during_trap, the
// first edge traps (the writer runs the handler: charged C), the second
// waits for that very drain and then traps again: the writer loses 2C
// (two drains back to back on it), not 3C (the wait for its own drain is
// that drain).
func TestOwnDrainChargedOnce(t *testing.T) {
	p := assemble(t, `
.data
x: .word 0
.text
main:  spawn r5, t1, r0
       spawn r6, t2, r0
       work 5000
       join r5
       join r6
       li r1, 1
ws:    st r1, x
       exit
t1:    ld r2, x
       exit
t2:    work 200
       ld r2, x
       exit
`)
	const C = 100000
	c := bbConfig()
	c.Bugaboo.CT.Entries = 1
	c.Bugaboo.CT.TrapCycles = C
	c.Bugaboo.CT.DrainCyclesPerEntry = 0
	c.Bugaboo.CT.InvalAckEntries = "per_sharer"
	rd, drop := run(t, c, p, 1)
	c.Bugaboo.CT.DropDuringTrap = false
	rw, wait := run(t, c, p, 1)

	if len(rw.traps) != len(rd.traps)+1 || rd.drops != 1 {
		t.Fatalf("setup: want exactly one more trap when waiting (drops %d, traps %d vs %d)", rd.drops, len(rd.traps), len(rw.traps))
	}
	if got := wait.Cycles - drop.Cycles; got != C {
		t.Errorf("waiting made the run %d cycles longer; one more drain on the writer costs %d (the writer was charged its own drain twice)", got, C)
	}
}

// memory_fill = ideal ("never loses a record", as if memory held the
// current one): thread t1's store wb is evicted, then main's store wc
// misses to memory. Reads in this situation get a RAW edge from the
// restored record (TestMemoryFillRestoresWriter); the write gets the WAW
// edge wb -> wc the ack would have inserted with the line still cached.
func TestMemoryFillWriteMissWAW(t *testing.T) {
	p := assemble(t, `
.data
x: .word 0
   .align 64
z: .space 64
.text
main:  spawn r2, t1, r0
       join r2
       li r1, 5
wc:    st r1, x
       exit
t1:    li r1, 7
wb:    st r1, x
       ld r2, z
       exit
`)
	for _, small := range []bool{false, true} {
		c := bbConfig()
		if small {
			c.Cache.L1.SizeBytes = 64
			c.Cache.L1.Assoc = 1
		}
		c.Bugaboo.Metadata.MemoryFill = "ideal"
		r, _ := run(t, c, p, 1)
		found := false
		for _, s := range r.inserts {
			if len(s) > 3 && s[:3] == "WAW" {
				found = true
			}
		}
		if !found {
			t.Errorf("evicted=%v: no WAW edge wb(%d) -> wc(%d); inserts %v", small, pc(t, p, "wb"), pc(t, p, "wc"), r.inserts)
		}
	}
}

// With wait_during_trap, an insert into a draining table enters it when
// the drain ends: its CTInsert follows the drain's TrapEnd and carries the
// drain's end, never a cycle inside the drain.
func TestWaitingInsertAfterDrain(t *testing.T) {
	p, c := waitingTables(t)
	c.Bugaboo.CT.Entries = 4
	open := false
	var end core.Cycle
	bad := 0
	obs := core.ObserverFunc(func(e *core.Event) {
		switch e.Kind {
		case core.KindCTTrapBegin:
			open, end = true, e.Cycle+core.Cycle(e.Words[1])
		case core.KindCTTrapEnd:
			open = false
		case core.KindCTInsert:
			if open && e.Cycle < end {
				bad++
			}
		}
	})
	if _, err := sim.Run(c, p, 1, sim.WithObserver(core.AllKinds, obs)); err != nil {
		t.Fatal(err)
	}
	if bad > 0 {
		t.Errorf("%d CTInserts inside an open drain, stamped before its end", bad)
	}
}
