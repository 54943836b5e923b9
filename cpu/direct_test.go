package cpu_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"weft/coherence"
	"weft/core"
	"weft/cpu"
	"weft/cpu/pset"
	"weft/isa"
	"weft/workloads"
)

// directRun runs prog on s with the direct path on or off and returns a
// digest of everything the run shows: its result, every event of the kinds
// in mask, and what became of its park rules; and the result. opts makes
// the run's options (extensions are built anew for each run).
func directRun(t *testing.T, s spec, prog *isa.Program, seed uint64, mask core.KindMask, rules []core.ParkRule, direct bool, opts func() []option) (string, result) {
	t.Helper()
	h := sha256.New()
	var ev []byte
	res := make([]core.ParkResult, len(rules))
	var o []option
	if opts != nil {
		o = opts()
	}
	for i, r := range rules {
		o = append(o, withPark(r, &res[i]))
	}
	o = append(o,
		withSetup(func(m *cpu.Machine) { m.SetDirect(direct) }),
		withObserver(mask, core.ObserverFunc(func(e *core.Event) {
			ev = binary.LittleEndian.AppendUint64(ev[:0], uint64(e.Kind)|uint64(e.Flags)<<8|uint64(uint32(e.Core))<<16)
			for _, x := range []uint64{uint64(e.Thread), uint64(e.PC), e.Addr, uint64(e.Value), e.Words[0], e.Words[1], e.Words[2], e.Words[3], uint64(e.Cycle), uint64(len(e.List))} {
				ev = binary.LittleEndian.AppendUint64(ev, x)
			}
			for _, x := range e.List {
				ev = binary.LittleEndian.AppendUint64(ev, uint64(x))
			}
			h.Write(ev)
		})))
	r := run(t, s, prog, seed, o...)
	h.Write([]byte(r.digest()))
	fmt.Fprintf(h, "%+v", res)
	return hex.EncodeToString(h.Sum(nil)[:8]), r
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
		s := defaultSpec().fit(prog)
		cases := []struct {
			name  string
			mask  core.KindMask
			rules []core.ParkRule
			opts  func() []option
		}{
			{"observed", core.AllKinds, nil, nil},
			{"parked", core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW), directRules(prog), nil},
			{"bbhw+pset", core.AllKinds, nil, func() []option {
				return []option{withExtension(newBugaboo(t, bugabooSpec())), withExtension(newPSet(t, psetSpec(isa.PSets{})))}
			}},
		}
		for _, c := range cases {
			on, _ := directRun(t, s, prog, 1, c.mask, c.rules, true, c.opts)
			off, _ := directRun(t, s, prog, 1, c.mask, c.rules, false, c.opts)
			if on != off {
				t.Errorf("%s %s: direct path %s, general path %s", e.Name, c.name, on, off)
			}
		}
	}
}

// genProg returns a random program: threads run a loop of random loads,
// stores, cas, xchg, fadd (immediate and register), lock/unlock pairs,
// work and delay over words in three lines (lock words among them, so
// plain RMWs on lock words and crashing unlocks happen too). No registry
// workload executes cas, so TestDirectPathIsGeneralPath alone never
// compares the direct path's cas, failed or not, or fadd with a register.
func genProg(r *rand.Rand, threads int) string {
	var b strings.Builder
	b.WriteString(".kernel fz\n.data\nA: .word 0\nB: .word 0\n.align 64\nC: .word 0\nL: .word 0\n.align 64\nD: .word 0\nM: .word 0\n.text\n.func main\nmain:\n")
	for i := 1; i < threads; i++ {
		fmt.Fprintf(&b, "  spawn r%d, w, r0\n", 9+i)
	}
	b.WriteString("  call body\n")
	for i := 1; i < threads; i++ {
		fmt.Fprintf(&b, "  join r%d\n", 9+i)
	}
	b.WriteString("  ld r1, A\n  out r1\n  exit\nw:\n  call body\n  exit\n.func body\nbody:\n  li r9, 6\nloop:\n")
	words := []string{"A", "B", "C", "D", "M"}
	locks := []string{"L", "M"}
	n := 4 + r.Intn(10)
	held := ""
	for i := 0; i < n; i++ {
		w := words[r.Intn(len(words))]
		switch k := r.Intn(12); {
		case k < 3:
			fmt.Fprintf(&b, "  ld r%d, %s\n", 1+r.Intn(4), w)
		case k < 5:
			fmt.Fprintf(&b, "  st r%d, %s\n", 1+r.Intn(4), w)
		case k == 5:
			fmt.Fprintf(&b, "  cas r%d, %s, r%d, r%d\n", 1+r.Intn(4), w, 1+r.Intn(4), 1+r.Intn(4))
		case k == 6:
			fmt.Fprintf(&b, "  xchg r%d, %s, r%d\n", 1+r.Intn(4), w, 1+r.Intn(4))
		case k == 7:
			if r.Intn(2) == 0 {
				fmt.Fprintf(&b, "  fadd r%d, %s, 1\n", 1+r.Intn(4), w)
			} else {
				fmt.Fprintf(&b, "  fadd r%d, %s, r%d\n", 1+r.Intn(4), w, 1+r.Intn(4))
			}
		case k == 8:
			if held == "" {
				held = locks[r.Intn(2)]
				fmt.Fprintf(&b, "  lock %s\n", held)
			} else {
				fmt.Fprintf(&b, "  unlock %s\n", held)
				held = ""
			}
		case k == 9:
			fmt.Fprintf(&b, "  work %d\n", r.Intn(20))
		case k == 10:
			fmt.Fprintf(&b, "  delay 0, %d\n", r.Intn(30))
		default:
			fmt.Fprintf(&b, "  add r%d, r%d, 1\n", 1+r.Intn(4), 1+r.Intn(4))
		}
	}
	if held != "" {
		fmt.Fprintf(&b, "  unlock %s\n", held)
	}
	b.WriteString("  sub r9, r9, 1\n  bnez r9, loop\n  ret\n")
	return b.String()
}

// TestDirectPathFuzz compares direct on and off on random programs and
// machines: jitter, irritators, a 2-line L1 (evictions between a lock's
// test and swap), hit latency, PSet stalls with short timeouts or log-only
// with BB-HW updating on every write, a max_cycles boundary, and a park
// rule of every wait kind; every event, result and statistics group.
func TestDirectPathFuzz(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	outc := map[string]int{}
	var cyc uint64
	defer func() { t.Logf("outcomes %v, mean cycles %d", outc, cyc/1500) }()
	for it := 0; it < 1500; it++ {
		threads := 2 + r.Intn(3)
		src := genProg(r, threads)
		prog, err := isa.Assemble("fz.s", []byte(src))
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		s := defaultSpec().withCores(threads)
		s.cpu.JitterCycles = uint64(r.Intn(5))
		if r.Intn(3) == 0 {
			s.cpu.IrritatorProb = 0.3
			s.cpu.IrritatorMaxCycles = 40
		}
		if r.Intn(3) == 0 {
			s.mem.SizeBytes = 128
			s.mem.Assoc = 1
			s.mem.LineBytes = 64
		}
		hit := core.Cycle(1 + r.Intn(3))
		s.cpu.HitCycles, s.mem.HitCycles = hit, hit
		var bb, ps func() cpu.Extension
		switch r.Intn(4) {
		case 0:
			spec := psetSpec(isa.PSets{})
			spec.StallTimeout = core.Cycle(50 + r.Intn(300))
			spec.IgnoreSync = r.Intn(2) != 0
			ps = func() cpu.Extension { return newPSet(t, spec) }
		case 1:
			spec := psetSpec(isa.PSets{})
			spec.Mode = pset.LogOnly
			ps = func() cpu.Extension { return newPSet(t, spec) }
			bspec := bugabooSpec()
			bspec.UpdateEveryWrite = true
			bb = func() cpu.Extension { return newBugaboo(t, bspec) }
		case 2:
			bb = func() cpu.Extension { return newBugaboo(t, bugabooSpec()) }
		}
		if r.Intn(4) == 0 {
			s.cpu.MaxCycles = core.Cycle(300 + r.Intn(3000))
		}
		seed := uint64(r.Intn(100))
		opts := func() []option {
			o := []option{withGroups()}
			if bb != nil {
				o = append(o, withExtension(bb()))
			}
			if ps != nil {
				o = append(o, withExtension(ps()))
			}
			return o
		}
		var rules []core.ParkRule
		if r.Intn(2) == 0 {
			// park a thread at a random memory pc
			var mem []int32
			for i, in := range prog.Instrs {
				if in.Op.TouchesMemory() {
					mem = append(mem, int32(i))
				}
			}
			pc := mem[r.Intn(len(mem))]
			w := core.Wait{Timeout: core.Cycle(50 + r.Intn(500))}
			switch r.Intn(4) {
			case 0:
				w.Until, w.Addr = core.UntilWrite, isa.DataBase+uint64(8*r.Intn(2))
			case 1:
				w.Until, w.Addr = core.UntilAccess, isa.DataBase+64
			case 2:
				w.Until, w.Addr = core.UntilLineAccess, isa.DataBase+128
			case 3:
				w.Until = core.UntilPredicate
				w.Pred = func(v core.View) bool { x, _ := v.Word(isa.DataBase); return x != 0 }
			}
			rules = append(rules, core.ParkRule{Thread: int32(r.Intn(threads)), PC: pc, Skip: uint32(r.Intn(3)), Wait: w})
		}
		on, res := directRun(t, s, prog, seed, core.AllKinds, rules, true, opts)
		off, _ := directRun(t, s, prog, seed, core.AllKinds, rules, false, opts)
		outc[res.Kind.String()]++
		cyc += uint64(res.Cycle)
		if on != off {
			t.Errorf("it %d: on %s off %s spec %+v %+v\n%s", it, on, off, s.cpu, rules, src)
			return
		}
	}
}

// pfExt is an extension whose perform hook requests checkpoints and
// rollbacks (safe points after an access performed on the direct path and
// between a lock's test and swap) and charges the accessing core.
type pfExt struct {
	k, rk, maxRB int
	n, rbs       int
	port         *cpu.Port
}

func (x *pfExt) Name() string                { return "pf" }
func (x *pfExt) Meta() coherence.MetaRequest { return coherence.MetaRequest{} }
func (x *pfExt) Attach(p *cpu.Port) error {
	x.port = p
	p.OnPerform(func(a *cpu.Access) {
		x.n++
		m := p.Machine()
		if x.n%x.k == 0 {
			m.RequestCheckpoint()
		}
		if x.n%x.rk == 0 && x.rbs < x.maxRB && m.HasCheckpoint() {
			x.rbs++
			m.RequestRollback(uint64(x.rbs))
		}
		if x.n%5 == 0 {
			p.Charge(a.Core, 3)
		}
	})
	return nil
}

// TestDirectPathSafePoints compares direct on and off with pfExt attached:
// no configuration TestDirectPathIsGeneralPath runs requests a safe point
// while the direct path is on (after a retired access, and between a
// lock's test and swap).
func TestDirectPathSafePoints(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for it := 0; it < 1500; it++ {
		threads := 2 + r.Intn(3)
		src := genProg(r, threads)
		prog, err := isa.Assemble("fz.s", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		s := defaultSpec().withCores(threads)
		s.cpu.JitterCycles = uint64(r.Intn(5))
		hit := core.Cycle(1 + r.Intn(3))
		s.cpu.HitCycles, s.mem.HitCycles = hit, hit
		if r.Intn(3) == 0 {
			s.cpu.MaxCycles = core.Cycle(300 + r.Intn(3000))
		}
		seed := uint64(r.Intn(100))
		k, rk, mrb := 1+r.Intn(40), 1+r.Intn(60), r.Intn(4)
		opts := func() []option {
			return []option{withGroups(), withExtension(&pfExt{k: k, rk: rk, maxRB: mrb})}
		}
		on, _ := directRun(t, s, prog, seed, core.AllKinds, nil, true, opts)
		off, _ := directRun(t, s, prog, seed, core.AllKinds, nil, false, opts)
		if on != off {
			t.Errorf("it %d: on %s off %s k %d rk %d mrb %d spec %+v\n%s", it, on, off, k, rk, mrb, s.cpu, src)
			return
		}
	}
}
