package sim_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/cpu"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// directRun runs prog on cfg with the direct path on or off and returns a
// digest of everything the run shows: its result, every event of the kinds
// in mask, and what became of its park rules.
func directRun(t *testing.T, cfg configs.Config, prog *isa.Program, mask core.KindMask, rules []core.ParkRule, direct bool, opts ...sim.Option) string {
	t.Helper()
	h := sha256.New()
	var ev []byte
	res := make([]core.ParkResult, len(rules))
	for i, r := range rules {
		opts = append(opts, sim.WithPark(r, &res[i]))
	}
	opts = append(opts,
		sim.WithSetup(func(m *cpu.Machine) error { m.SetDirect(direct); return nil }),
		sim.WithObserver(mask, core.ObserverFunc(func(e *core.Event) {
			ev = binary.LittleEndian.AppendUint64(ev[:0], uint64(e.Kind)|uint64(e.Flags)<<8|uint64(uint32(e.Core))<<16)
			for _, x := range []uint64{uint64(e.Thread), uint64(e.PC), e.Addr, uint64(e.Value), e.Words[0], e.Words[1], e.Words[2], e.Words[3], uint64(e.Cycle), uint64(len(e.List))} {
				ev = binary.LittleEndian.AppendUint64(ev, x)
			}
			for _, x := range e.List {
				ev = binary.LittleEndian.AppendUint64(ev, uint64(x))
			}
			h.Write(ev)
		})))
	r, err := sim.Run(cfg, prog, 1, opts...)
	if err != nil {
		t.Fatal(err)
	}
	r.WeftVersion = ""
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	h.Write(b)
	fmt.Fprintf(h, "%+v", res)
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// directRules parks threads 1, 2 and 3 before memory instructions a third,
// half and two thirds into the program, until another thread writes the
// first data word, until a predicate over it holds, and until a cycle, each
// with a timeout: while they wait, every access must notify them.
func directRules(prog *isa.Program) []core.ParkRule {
	memPC := func(from int) int32 {
		for i := from; i < len(prog.Instrs); i++ {
			if prog.Instrs[i].Op.TouchesMemory() {
				return int32(i)
			}
		}
		return 0
	}
	n := len(prog.Instrs)
	first := uint64(isa.DataBase)
	init := int64(0)
	if len(prog.Data) > 0 {
		init = prog.Data[0]
	}
	return []core.ParkRule{
		{Thread: 1, PC: memPC(n / 3), Wait: core.Wait{Until: core.UntilWrite, Addr: first, Timeout: 2000}},
		{Thread: 2, PC: memPC(n / 2), Skip: 1, Wait: core.Wait{Until: core.UntilPredicate, Timeout: 3000,
			Pred: func(v core.View) bool { w, _ := v.Word(first); return w != init }}},
		{Thread: 3, PC: memPC(2 * n / 3), Wait: core.Wait{Until: core.UntilCycle, Cycle: 4000, Timeout: 1500}},
	}
}

// TestDirectPathIsGeneralPath runs every registry workload with the
// direct path of accesses that hit on and off and requires identical
// results, event streams and park results: with every event watched, with
// schedule-control rules waiting (access notifications, predicates), and
// with PSet's stalls and BB-HW on.
func TestDirectPathIsGeneralPath(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every workload several times")
	}
	for _, e := range workloads.List() {
		prog, err := workloads.ProgramFor(e.Name, 8)
		if err != nil {
			t.Fatal(err)
		}
		base, _ := sim.FitCores(configs.Default(), prog)
		ext := base
		ext.Bugaboo.Enabled = true
		ext.PSet.Enabled = true
		cases := []struct {
			name  string
			cfg   configs.Config
			mask  core.KindMask
			rules []core.ParkRule
			opts  []sim.Option
		}{
			{"observed", base, core.AllKinds, nil, nil},
			{"parked", base, core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW), directRules(prog), nil},
			{"bbhw+pset", ext, core.AllKinds, nil, []sim.Option{sim.WithPSets(isa.PSets{})}},
		}
		for _, c := range cases {
			on := directRun(t, c.cfg, prog, c.mask, c.rules, true, c.opts...)
			off := directRun(t, c.cfg, prog, c.mask, c.rules, false, c.opts...)
			if on != off {
				t.Errorf("%s %s: direct path %s, general path %s", e.Name, c.name, on, off)
			}
		}
	}
}
