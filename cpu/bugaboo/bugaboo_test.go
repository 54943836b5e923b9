package bugaboo_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/cpu/bugaboo"
	"weft/isa"
	"weft/sim"
)

func assemble(t *testing.T, src string) *isa.Program {
	t.Helper()
	p, err := isa.Assemble("t.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func pc(t *testing.T, p *isa.Program, label string) uint64 {
	t.Helper()
	v, ok := p.LabelPC(label)
	if !ok {
		t.Fatalf("no label %s", label)
	}
	return uint64(v)
}

// rec records BB-HW's events.
type rec struct {
	inserts []string
	shifts  map[int32][]uint64 // core → events
	drains  int64
	drained []uint64
	traps   []core.Event
	drops   int
	ends    []core.Event
}

func (r *rec) Observe(e *core.Event) {
	switch e.Kind {
	case core.KindCTInsert:
		src := "NULL"
		if e.Words[1] != bugaboo.NullPC {
			src = fmt.Sprintf("%d/%b", e.Words[1], e.Words[2])
		}
		r.inserts = append(r.inserts, fmt.Sprintf("%s %s -> %d/%b", []string{"RAW", "WAW", "MEM"}[e.Words[0]], src, e.PC, e.Words[3]))
	case core.KindCtxShift:
		r.shifts[e.Core] = append(r.shifts[e.Core], e.Words[0])
	case core.KindCTDrain:
		r.drains += e.Value
		r.drained = append(r.drained, e.List...)
	case core.KindCTTrapBegin:
		r.traps = append(r.traps, *e)
	case core.KindCTDrop:
		r.drops++
	case core.KindCTTrapEnd:
		r.ends = append(r.ends, *e)
	}
}

func run(t *testing.T, cfg configs.Config, p *isa.Program, seed uint64) (*rec, sim.Result) {
	t.Helper()
	r := &rec{shifts: map[int32][]uint64{}}
	res, err := sim.Run(cfg, p, seed, sim.WithObserver(core.AllKinds, r), sim.WithStatGroups())
	if err != nil {
		t.Fatal(err)
	}
	return r, res
}

func bbConfig() configs.Config {
	c := configs.Default()
	c.Sim.JitterCycles = 0
	c.Bugaboo.Enabled = true
	c.Bugaboo.Context.DistinctEmpty = true // contexts read unambiguously
	return c
}

// A hand-built two-core sequence: main stores x (a write miss from
// memory), thread 1 loads it (a read reply from main's cache: RAW) and
// stores it (an upgrade acked by main's S copy: WAW), then loads y (from
// memory: a NULL-source edge). Every edge and context is as the paper's
// hardware defines them.
func TestEdgesAndContexts(t *testing.T) {
	p := assemble(t, `
.data
x: .word 0
   .align 64
y: .word 0
.text
main:  li r1, 7
wa:    st r1, x
       spawn r2, t1, r0
       join r2
       exit
t1:    work 100
rb:    ld r3, x
wc:    st r3, x
ry:    ld r4, y
       exit
`)
	r, _ := run(t, bbConfig(), p, 1)
	// 3-bit codes: LcRd 1, LcWr 2, RmRd 3, RmWr 4.
	want := []string{
		fmt.Sprintf("RAW %d/0 -> %d/0", pc(t, p, "wa"), pc(t, p, "rb")), // main stored x in (); t1 loads in ()
		fmt.Sprintf("WAW %d/0 -> %d/1", pc(t, p, "wa"), pc(t, p, "wc")), // main's S copy still holds wa's record; t1 stores in (LcRd)
		fmt.Sprintf("MEM NULL -> %d/%b", pc(t, p, "ry"), 0b001_010),     // t1 loads y in (LcRd,LcWr)
	}
	if !slices.Equal(r.inserts, want) {
		t.Errorf("edges\n%v\nwant\n%v", r.inserts, want)
	}
	if got := r.shifts[0]; !slices.Equal(got, []uint64{uint64(core.LcWr), uint64(core.RmRd), uint64(core.RmWr)}) {
		t.Errorf("main's core shifted %v, want LcWr RmRd RmWr", got)
	}
	if got := r.shifts[1]; !slices.Equal(got, []uint64{uint64(core.LcRd), uint64(core.LcWr)}) {
		t.Errorf("t1's core shifted %v, want LcRd LcWr (the memory-served load of y shifts nothing)", got)
	}
	if r.drains != 3 || len(r.drained) != 12 || r.drained[0] != pc(t, p, "wa") || r.drained[8] != bugaboo.NullPC {
		t.Errorf("final drain: %d edges %v", r.drains, r.drained)
	}
	// Options change exactly what they say.
	c := bbConfig()
	c.Bugaboo.CT.RecordMemoryMisses = false
	c.Bugaboo.Context.LcRdOnMemoryMiss = true
	r, _ = run(t, c, p, 1)
	if len(r.inserts) != 2 || !slices.Equal(r.shifts[1], []uint64{uint64(core.LcRd), uint64(core.LcWr), uint64(core.LcRd)}) {
		t.Errorf("no memory edges, LcRd on memory misses: edges %v, t1 shifts %v", r.inserts, r.shifts[1])
	}
	c = bbConfig()
	c.Bugaboo.Metadata.ReadFill = "none"
	c.Bugaboo.Context.RmRdStates = "any"
	r, _ = run(t, c, p, 1)
	// With no record copied on the read fill, main's S copy still has wa's
	// record: the WAW edge is the same; RmRd "any" changes nothing here
	// (main's line was M when t1 read it).
	if !slices.Equal(r.inserts, want) {
		t.Errorf("read_fill none: edges %v", r.inserts)
	}
	c = bbConfig()
	c.Bugaboo.Context.Size = 0
	r, _ = run(t, c, p, 1)
	if len(r.inserts) != 3 || r.inserts[1] != fmt.Sprintf("WAW %d/0 -> %d/0", pc(t, p, "wa"), pc(t, p, "wc")) {
		t.Errorf("context size 0: edges %v", r.inserts)
	}
}

// Trap, drain and drop accounting add up: every insert is drained once
// (at a trap or at the end) or dropped; each trap drains a full table and
// charges the trapping core exactly trap_cycles + entries × per entry.
func TestTrapAccounting(t *testing.T) {
	p := assemble(t, `
.data
a: .space 512
.text
main:  li r1, 0
loop:  ld r2, a[r1]
       add r1, r1, 64
       blt r1, 4096, loop
       exit
`)
	c := bbConfig()
	c.Bugaboo.CT.Entries = 16
	c.Bugaboo.CT.TrapCycles = 1000
	c.Bugaboo.CT.DrainCyclesPerEntry = 7
	r, res := run(t, c, p, 1)
	g, _ := res.Groups.Get("ext.bugaboo")
	st := func(n string) uint64 { v, _ := g.Stats.Get(n); return uint64(v) }
	// 64 loads of distinct lines, all from memory: 64 MEM edges, 4 traps.
	if st("ct_inserts") != 64 || st("ct_mem") != 64 || st("traps") != 4 || st("drained") != 64 || st("ct_drops") != 0 || len(r.traps) != 4 || r.drains != 64 {
		t.Errorf("counters %v, %d trap events, %d drained", g.Stats, len(r.traps), r.drains)
	}
	for _, e := range r.traps {
		if e.Words[0] != 16 || e.Words[1] != 1000+7*16 {
			t.Errorf("trap %v: want 16 entries costing %d", e.Words, 1000+7*16)
		}
	}
	if st("trap_cycles") != 4*(1000+7*16) {
		t.Errorf("trap cycles %d", st("trap_cycles"))
	}
	c.Bugaboo.CT.SpareCoreDrain = true
	_, spare := run(t, c, p, 1)
	if res.Cycles != spare.Cycles+4*(1000+7*16) {
		t.Errorf("cycles %d with traps on the core, %d on a spare core: want exactly the 4 traps' cost apart", res.Cycles, spare.Cycles)
	}
	// On a spare core the program keeps missing while the table drains:
	// those inserts are dropped (and counted), or wait.
	r, spare = run(t, c, p, 1)
	g, _ = spare.Groups.Get("ext.bugaboo")
	if st("ct_drops") == 0 || st("ct_inserts")+st("ct_drops") != 64 || uint64(r.drops) != st("ct_drops") || r.drains != int64(st("ct_inserts")) {
		t.Errorf("spare-core drain: counters %v, %d drop events, %d drained", g.Stats, r.drops, r.drains)
	}
	var dropped uint64
	for _, e := range r.ends {
		dropped += e.Words[1]
	}
	if dropped != st("ct_drops") {
		t.Errorf("TrapEnd events count %d drops, the counter %d", dropped, st("ct_drops"))
	}
	c.Bugaboo.CT.DropDuringTrap = false
	r, spare = run(t, c, p, 1)
	g, _ = spare.Groups.Get("ext.bugaboo")
	if st("ct_drops") != 0 || st("ct_inserts") != 64 || st("ct_waits") == 0 || r.drains != 64 {
		t.Errorf("waiting inserts: counters %v", g.Stats)
	}
}

// BB-HW off leaves a run exactly as it was: no [bugaboo] key changes it.
// (TestRollsBackWithTheMachine checks its state's rollback.)
func TestOffIsInvisible(t *testing.T) {
	p := assemble(t, ".data\nx: .word 0\n.text\nmain: li r1, 3\n st r1, x\n exit\n")
	a, err := sim.Run(configs.Default(), p, 1)
	if err != nil {
		t.Fatal(err)
	}
	c := configs.Default()
	c.Bugaboo.CT.Entries = 3 // off: no key changes the run
	b, err := sim.Run(c, p, 1)
	if err != nil {
		t.Fatal(err)
	}
	a.ConfigHash, b.ConfigHash = "", ""
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("BB-HW off changed the run")
	}
}

// With save_on_switch a thread starting on a core gets its own (empty)
// context; without, it inherits the history of the thread before it.
func TestSaveOnSwitch(t *testing.T) {
	p := assemble(t, `
.data
x: .word 0
   .align 64
y: .word 0
.text
main:  li r1, 7
       st r1, x
       spawn r2, t1, r0
       join r2
       spawn r3, t2, r0
       join r3
       exit
t1:    ld r3, x
       exit
t2:    ld r4, y
       exit
`)
	for _, save := range []bool{false, true} {
		c := bbConfig()
		c.Bugaboo.Context.SaveOnSwitch = save
		r, _ := run(t, c, p, 1)
		// t1's load is a RAW from main's store (t1 on core 1 then holds
		// LcRd); t2 runs on core 1 next and misses y in memory.
		last := r.inserts[len(r.inserts)-1]
		want := "/1" // (LcRd) in 3-bit codes
		if save {
			want = "/0"
		}
		if !strings.HasPrefix(last, "MEM NULL -> ") || !strings.HasSuffix(last, want) {
			t.Errorf("save_on_switch %v: t2's edge %q, want its destination context %s", save, last, want)
		}
	}
}
