// Review tests of the direct path (issue 14, item 1), filling gaps of
// TestDirectPathIsGeneralPath: no registry workload executes cas (so the
// direct path's cas, failed or not, and fadd with a register were never
// compared), and no configuration it runs requests a safe point while the
// direct path is on (directAfter's and directLock's pending branches never
// ran). These pass on the reviewed commit: they pin the equivalence.
package sim_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"weft/coherence"
	"weft/configs"
	"weft/core"
	"weft/cpu"
	"weft/isa"
	"weft/sim"
)

// genProg returns a random program: threads run a loop of random loads,
// stores, cas, xchg, fadd (immediate and register), lock/unlock pairs,
// work and delay over words in three lines (lock words among them, so
// plain RMWs on lock words and crashing unlocks happen too).
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
		cfg := configs.Default()
		cfg.Machine.Cores = threads
		cfg.Sim.JitterCycles = uint64(r.Intn(5))
		if r.Intn(3) == 0 {
			cfg.Sim.IrritatorProb = 0.3
			cfg.Sim.IrritatorMaxCycles = 40
		}
		if r.Intn(3) == 0 {
			cfg.Cache.L1.SizeBytes = 128
			cfg.Cache.L1.Assoc = 1
			cfg.Cache.L1.LineBytes = 64
		}
		cfg.Cache.L1.HitCycles = uint64(1 + r.Intn(3))
		ps := false
		switch r.Intn(4) {
		case 0:
			cfg.PSet.Enabled = true
			cfg.PSet.Recovery.StallTimeoutCycles = uint64(50 + r.Intn(300))
			cfg.PSet.IncludeSyncOps = r.Intn(2) == 0
			ps = true
		case 1:
			cfg.PSet.Enabled = true
			cfg.PSet.Recovery.Mode = "log_only"
			cfg.Bugaboo.Enabled = true
			cfg.Bugaboo.Metadata.UpdateOn = "every_write"
			ps = true
		case 2:
			cfg.Bugaboo.Enabled = true
		}
		if r.Intn(4) == 0 {
			cfg.Sim.MaxCycles = uint64(300 + r.Intn(3000))
		}
		seed := uint64(r.Intn(100))
		cfg.Sim.Seed = seed
		opts := []sim.Option{sim.WithStatGroups()}
		if ps {
			opts = append(opts, sim.WithPSets(isa.PSets{}))
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
		if res, err := sim.Run(cfg, prog, seed, opts...); err == nil {
			outc[res.Outcome.String()]++
			cyc += res.Cycles
		}
		on := directRunSeed(t, cfg, prog, core.AllKinds, rules, true, seed, opts...)
		off := directRunSeed(t, cfg, prog, core.AllKinds, rules, false, seed, opts...)
		if on != off {
			t.Errorf("it %d: on %s off %s cfg %+v %+v %+v\n%s", it, on, off, cfg.Sim, cfg.Cache, rules, src)
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

// TestDirectPathSafePoints compares direct on and off with pfExt attached.
func TestDirectPathSafePoints(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for it := 0; it < 1500; it++ {
		threads := 2 + r.Intn(3)
		src := genProg(r, threads)
		prog, err := isa.Assemble("fz.s", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		cfg := configs.Default()
		cfg.Machine.Cores = threads
		cfg.Sim.JitterCycles = uint64(r.Intn(5))
		cfg.Cache.L1.HitCycles = uint64(1 + r.Intn(3))
		if r.Intn(3) == 0 {
			cfg.Sim.MaxCycles = uint64(300 + r.Intn(3000))
		}
		seed := uint64(r.Intn(100))
		k, rk, mrb := 1+r.Intn(40), 1+r.Intn(60), r.Intn(4)
		run := func(direct bool) string {
			x := &pfExt{k: k, rk: rk, maxRB: mrb}
			return directRunSeed(t, cfg, prog, core.AllKinds, nil, direct, seed, sim.WithStatGroups(), sim.WithExtension(x))
		}
		on, off := run(true), run(false)
		if on != off {
			t.Errorf("it %d: on %s off %s k %d rk %d mrb %d cfg %+v\n%s", it, on, off, k, rk, mrb, cfg.Sim, src)
			return
		}
	}
}

// directRunSeed is directRun with a seed.
func directRunSeed(t *testing.T, cfg configs.Config, prog *isa.Program, mask core.KindMask, rules []core.ParkRule, direct bool, seed uint64, opts ...sim.Option) string {
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
	r, err := sim.Run(cfg, prog, seed, opts...)
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
