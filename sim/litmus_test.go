package sim_test

// Litmus tests for the memory model. weft is sequentially consistent
// (DESIGN.md §2, §5): every memory operation is performed at its own cycle
// in one global order. Each litmus program in testdata/litmus spawns its
// test threads, joins them and prints what they observed (or the final
// memory values), so an outcome is Result.Outputs.
//
// For every test the Go table below gives the accesses of each thread, the
// outputs, the outcomes sequential consistency forbids, and one witness
// order (a global order of the accesses) for every outcome it allows.
// TestLitmusTables checks the tables against the programs and against an
// enumeration of every SC interleaving. TestLitmusRandom runs each program
// over many seeds, cold and warm (the test threads first load every test
// variable, so lines start shared and stores are upgrades), and checks that
// no forbidden outcome appears.
// TestLitmusForced produces every allowed outcome on purpose with park
// rules that force the witness order, and checks the rules really fired.
// TestLitmusParkConditions forces outcomes with the other park conditions
// (invalidation, predicate, cycle) and checks a timeout.

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
)

// litOp is one test access: a plain ld or st of a word at label.
type litOp struct {
	label string
	sym   string
	write bool
	val   int64 // the value a store writes
}

func litLd(label, sym string) litOp { return litOp{label: label, sym: sym} }
func litSt(label, sym string, v int64) litOp {
	return litOp{label: label, sym: sym, write: true, val: v}
}

// litWitness is an allowed outcome and a global order of the accesses (their
// labels, space-separated) that produces it.
type litWitness struct {
	out   []int64
	order string
}

type litmus struct {
	name string
	file string
	// threads[i] is the program order of the accesses of thread i+1 (main
	// is thread 0 and spawns the test threads in this order).
	threads [][]litOp
	// outs describes main's outputs in order: a load's label (the value it
	// read) or "final:sym" (the final value of sym).
	outs      []string
	forbidden [][]int64
	witnesses []litWitness
}

var litmusTests = []litmus{
	{
		name: "SB", file: "sb.s",
		threads: [][]litOp{
			{litSt("a_st", "x", 1), litLd("a_ld", "y")},
			{litSt("b_st", "y", 1), litLd("b_ld", "x")},
		},
		outs:      []string{"a_ld", "b_ld"},
		forbidden: [][]int64{{0, 0}},
		witnesses: []litWitness{
			{[]int64{0, 1}, "a_st a_ld b_st b_ld"},
			{[]int64{1, 0}, "b_st b_ld a_st a_ld"},
			{[]int64{1, 1}, "a_st b_st a_ld b_ld"},
		},
	},
	{
		name: "MP", file: "mp.s",
		threads: [][]litOp{
			{litSt("a_data", "data", 1), litSt("a_flag", "flag", 1)},
			{litLd("b_flag", "flag"), litLd("b_data", "data")},
		},
		outs:      []string{"b_flag", "b_data"},
		forbidden: [][]int64{{1, 0}},
		witnesses: []litWitness{
			{[]int64{0, 0}, "b_flag b_data a_data a_flag"},
			{[]int64{0, 1}, "b_flag a_data a_flag b_data"},
			{[]int64{1, 1}, "a_data a_flag b_flag b_data"},
		},
	},
	{
		name: "LB", file: "lb.s",
		threads: [][]litOp{
			{litLd("a_ld", "x"), litSt("a_st", "y", 1)},
			{litLd("b_ld", "y"), litSt("b_st", "x", 1)},
		},
		outs:      []string{"a_ld", "b_ld"},
		forbidden: [][]int64{{1, 1}},
		witnesses: []litWitness{
			{[]int64{0, 0}, "a_ld b_ld a_st b_st"},
			{[]int64{0, 1}, "a_ld a_st b_ld b_st"},
			{[]int64{1, 0}, "b_ld b_st a_ld a_st"},
		},
	},
	{
		name: "IRIW", file: "iriw.s",
		threads: [][]litOp{
			{litSt("a_st", "x", 1)},
			{litSt("b_st", "y", 1)},
			{litLd("c_ldx", "x"), litLd("c_ldy", "y")},
			{litLd("d_ldy", "y"), litLd("d_ldx", "x")},
		},
		outs:      []string{"c_ldx", "c_ldy", "d_ldy", "d_ldx"},
		forbidden: [][]int64{{1, 0, 1, 0}},
		witnesses: []litWitness{
			{[]int64{0, 0, 0, 0}, "c_ldx c_ldy d_ldy d_ldx a_st b_st"},
			{[]int64{0, 0, 0, 1}, "c_ldx c_ldy d_ldy a_st d_ldx b_st"},
			{[]int64{0, 0, 1, 0}, "c_ldx c_ldy b_st d_ldy d_ldx a_st"},
			{[]int64{0, 0, 1, 1}, "c_ldx c_ldy a_st b_st d_ldy d_ldx"},
			{[]int64{0, 1, 0, 0}, "d_ldy d_ldx c_ldx b_st c_ldy a_st"},
			{[]int64{0, 1, 0, 1}, "d_ldy c_ldx b_st c_ldy a_st d_ldx"},
			{[]int64{0, 1, 1, 0}, "c_ldx b_st c_ldy d_ldy d_ldx a_st"},
			{[]int64{0, 1, 1, 1}, "c_ldx a_st b_st c_ldy d_ldy d_ldx"},
			{[]int64{1, 0, 0, 0}, "d_ldy d_ldx a_st c_ldx c_ldy b_st"},
			{[]int64{1, 0, 0, 1}, "a_st c_ldx c_ldy d_ldy d_ldx b_st"},
			{[]int64{1, 0, 1, 1}, "a_st c_ldx c_ldy b_st d_ldy d_ldx"},
			{[]int64{1, 1, 0, 0}, "d_ldy d_ldx a_st b_st c_ldx c_ldy"},
			{[]int64{1, 1, 0, 1}, "a_st d_ldy b_st c_ldx c_ldy d_ldx"},
			{[]int64{1, 1, 1, 0}, "b_st d_ldy d_ldx a_st c_ldx c_ldy"},
			{[]int64{1, 1, 1, 1}, "a_st b_st c_ldx c_ldy d_ldy d_ldx"},
		},
	},
	{
		name: "2+2W", file: "2+2w.s",
		threads: [][]litOp{
			{litSt("a_stx", "x", 1), litSt("a_sty", "y", 2)},
			{litSt("b_sty", "y", 1), litSt("b_stx", "x", 2)},
		},
		outs:      []string{"final:x", "final:y"},
		forbidden: [][]int64{{1, 1}},
		witnesses: []litWitness{
			{[]int64{1, 2}, "b_sty b_stx a_stx a_sty"},
			{[]int64{2, 1}, "a_stx a_sty b_sty b_stx"},
			{[]int64{2, 2}, "a_stx b_sty a_sty b_stx"},
		},
	},
	{
		name: "WRC", file: "wrc.s",
		threads: [][]litOp{
			{litSt("a_st", "x", 1)},
			{litLd("b_ld", "x"), litSt("b_st", "y", 1)},
			{litLd("c_ldy", "y"), litLd("c_ldx", "x")},
		},
		outs:      []string{"b_ld", "c_ldy", "c_ldx"},
		forbidden: [][]int64{{1, 1, 0}},
		witnesses: []litWitness{
			{[]int64{0, 0, 0}, "c_ldy c_ldx b_ld b_st a_st"},
			{[]int64{0, 0, 1}, "b_ld c_ldy a_st c_ldx b_st"},
			{[]int64{0, 1, 0}, "b_ld b_st c_ldy c_ldx a_st"},
			{[]int64{0, 1, 1}, "b_ld b_st c_ldy a_st c_ldx"},
			{[]int64{1, 0, 0}, "c_ldy c_ldx a_st b_ld b_st"},
			{[]int64{1, 0, 1}, "a_st b_ld c_ldy c_ldx b_st"},
			{[]int64{1, 1, 1}, "a_st b_ld b_st c_ldy c_ldx"},
		},
	},
	{
		name: "CoRR", file: "corr.s",
		threads: [][]litOp{
			{litSt("a_st", "x", 1)},
			{litLd("b_ld1", "x"), litLd("b_ld2", "x")},
		},
		outs:      []string{"b_ld1", "b_ld2"},
		forbidden: [][]int64{{1, 0}},
		witnesses: []litWitness{
			{[]int64{0, 0}, "b_ld1 b_ld2 a_st"},
			{[]int64{0, 1}, "b_ld1 a_st b_ld2"},
			{[]int64{1, 1}, "a_st b_ld1 b_ld2"},
		},
	},
}

func litKey(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprint(x)
	}
	return "(" + strings.Join(s, ",") + ")"
}

// litRef names one access of a litmus test.
type litRef struct {
	thread int32 // simulator thread id (1-based)
	op     litOp
}

func (lt *litmus) ops() map[string]litRef {
	m := map[string]litRef{}
	for i, ops := range lt.threads {
		for _, o := range ops {
			m[o.label] = litRef{thread: int32(i + 1), op: o}
		}
	}
	return m
}

// parseOrder turns a witness order into accesses and checks that it is an
// interleaving of the threads' program orders.
func (lt *litmus) parseOrder(order string) ([]litRef, error) {
	all := lt.ops()
	next := make([]int, len(lt.threads))
	var refs []litRef
	for _, l := range strings.Fields(order) {
		r, ok := all[l]
		if !ok {
			return nil, fmt.Errorf("unknown access %q", l)
		}
		ti := r.thread - 1
		if next[ti] >= len(lt.threads[ti]) || lt.threads[ti][next[ti]].label != l {
			return nil, fmt.Errorf("access %q is out of program order", l)
		}
		next[ti]++
		refs = append(refs, r)
	}
	for i, n := range next {
		if n != len(lt.threads[i]) {
			return nil, fmt.Errorf("thread %d: %d of %d accesses in the order", i+1, n, len(lt.threads[i]))
		}
	}
	return refs, nil
}

// evaluate runs accesses in the given global order on an SC memory and
// returns the outcome.
func (lt *litmus) evaluate(order []litRef) []int64 {
	mem := map[string]int64{}
	seen := map[string]int64{}
	for _, r := range order {
		if r.op.write {
			mem[r.op.sym] = r.op.val
		} else {
			seen[r.op.label] = mem[r.op.sym]
		}
	}
	out := make([]int64, len(lt.outs))
	for i, o := range lt.outs {
		if sym, ok := strings.CutPrefix(o, "final:"); ok {
			out[i] = mem[sym]
		} else {
			out[i] = seen[o]
		}
	}
	return out
}

// scOutcomes enumerates every interleaving of the threads and returns the
// outcomes sequential consistency allows.
func (lt *litmus) scOutcomes() map[string][]int64 {
	res := map[string][]int64{}
	pos := make([]int, len(lt.threads))
	var order []litRef
	var rec func()
	rec = func() {
		done := true
		for i, ops := range lt.threads {
			if pos[i] == len(ops) {
				continue
			}
			done = false
			order = append(order, litRef{thread: int32(i + 1), op: ops[pos[i]]})
			pos[i]++
			rec()
			pos[i]--
			order = order[:len(order)-1]
		}
		if done {
			out := lt.evaluate(order)
			res[litKey(out)] = out
		}
	}
	rec()
	return res
}

// candidates returns every outcome built from plausible values: a load
// reads the initial 0 or a value some thread stores to its variable; a
// final value is one of the values stored to the variable.
func (lt *litmus) candidates() map[string][]int64 {
	vals := map[string][]int64{}
	for _, ops := range lt.threads {
		for _, o := range ops {
			if o.write && !slices.Contains(vals[o.sym], o.val) {
				vals[o.sym] = append(vals[o.sym], o.val)
			}
		}
	}
	all := lt.ops()
	choices := make([][]int64, len(lt.outs))
	for i, o := range lt.outs {
		if sym, ok := strings.CutPrefix(o, "final:"); ok {
			choices[i] = vals[sym]
		} else {
			choices[i] = append([]int64{0}, vals[all[o].op.sym]...)
		}
	}
	res := map[string][]int64{}
	cur := make([]int64, len(choices))
	var rec func(int)
	rec = func(i int) {
		if i == len(choices) {
			v := slices.Clone(cur)
			res[litKey(v)] = v
			return
		}
		for _, c := range choices[i] {
			cur[i] = c
			rec(i + 1)
		}
	}
	rec(0)
	return res
}

func (lt *litmus) forbiddenSet() map[string]bool {
	m := map[string]bool{}
	for _, f := range lt.forbidden {
		m[litKey(f)] = true
	}
	return m
}

var litWarmLine = regexp.MustCompile(`(?m)^warm:(\s+)\.word 0$`)

// litLoad assembles a litmus program; warm sets its warm word to 1, so
// the test threads load every test variable before the barrier.
func litLoad(t *testing.T, lt *litmus, warm bool) *isa.Program {
	t.Helper()
	path := filepath.Join("testdata", "litmus", lt.file)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(litWarmLine.FindAllIndex(src, -1)); n != 1 {
		t.Fatalf("%s: %d lines \"warm: .word 0\", want 1", path, n)
	}
	if warm {
		src = litWarmLine.ReplaceAll(src, []byte("warm:${1}.word 1"))
	}
	prog, err := isa.Assemble(path, src)
	if err != nil {
		t.Fatalf("assemble %s: %v", path, err)
	}
	return prog
}

func litPC(t *testing.T, prog *isa.Program, label string) int32 {
	t.Helper()
	pc, ok := prog.LabelPC(label)
	if !ok {
		t.Fatalf("%s: no label %q", prog.Name, label)
	}
	return pc
}

func litAddr(t *testing.T, prog *isa.Program, sym string) uint64 {
	t.Helper()
	a, ok := prog.SymbolAddr(sym)
	if !ok {
		t.Fatalf("%s: no symbol %q", prog.Name, sym)
	}
	return a
}

// TestLitmusTables checks each table against its program (the labelled
// instructions are the described accesses, on distinct cache lines) and
// against an enumeration of every SC interleaving: the forbidden set is
// exactly the plausible outcomes SC never gives, and the witnesses give
// every allowed outcome once, each by a valid order.
func TestLitmusTables(t *testing.T) {
	for i := range litmusTests {
		lt := &litmusTests[i]
		t.Run(lt.name, func(t *testing.T) {
			prog := litLoad(t, lt, false)
			if warm := litLoad(t, lt, true); !slices.Equal(warm.Instrs, prog.Instrs) || warm.Data[0] != 1 || prog.Data[0] != 0 {
				t.Errorf("%s: the warm variant differs in more than the warm word", lt.file)
			}
			lines := map[uint64]string{}
			for _, ops := range lt.threads {
				for _, o := range ops {
					pc := litPC(t, prog, o.label)
					addr := litAddr(t, prog, o.sym)
					in := prog.Instrs[pc]
					want := isa.OpLd
					if o.write {
						want = isa.OpSt
					}
					if in.Op != want || in.Base != 0 || uint64(in.Off) != addr {
						t.Errorf("%s: instruction at %s (pc %d) is %v [r%d%+d], want %v %s (%#x)", lt.file, o.label, pc, in.Op, in.Base, in.Off, want, o.sym, addr)
					}
					line := addr / 64
					if s, ok := lines[line]; ok && s != o.sym {
						t.Errorf("%s: %s and %s share a cache line", lt.file, s, o.sym)
					}
					lines[line] = o.sym
				}
			}
			allowed := lt.scOutcomes()
			forb := lt.forbiddenSet()
			for k := range lt.candidates() {
				if _, ok := allowed[k]; !ok && !forb[k] {
					t.Errorf("SC never gives %s, but it is not in the forbidden set", k)
				}
			}
			for k := range forb {
				if _, ok := allowed[k]; ok {
					t.Errorf("forbidden outcome %s is allowed under SC", k)
				}
			}
			covered := map[string]bool{}
			for _, w := range lt.witnesses {
				order, err := lt.parseOrder(w.order)
				if err != nil {
					t.Errorf("witness %s: %v", litKey(w.out), err)
					continue
				}
				if got := lt.evaluate(order); !slices.Equal(got, w.out) {
					t.Errorf("witness order %q gives %s, not %s", w.order, litKey(got), litKey(w.out))
				}
				if covered[litKey(w.out)] {
					t.Errorf("two witnesses for %s", litKey(w.out))
				}
				covered[litKey(w.out)] = true
			}
			for k := range allowed {
				if !covered[k] {
					t.Errorf("allowed outcome %s has no witness", k)
				}
			}
			if len(covered) != len(allowed) {
				t.Errorf("%d witnesses for %d allowed outcomes", len(covered), len(allowed))
			}
		})
	}
}

// TestLitmusRandom runs each litmus program, cold and warm, over many
// seeds on the default machine (and on one with more jitter and a start
// skew) and checks that every outcome is allowed under SC, that no
// forbidden one appears, and that the seeds give more than one outcome.
func TestLitmusRandom(t *testing.T) {
	seeds := 300
	if testing.Short() {
		seeds = 60
	}
	noisy := configs.Default()
	noisy.Sim.JitterCycles = 50
	noisy.Sim.StartSkewCycles = 100
	// The split-transaction bus with a shared L2 and one bus for data:
	// transactions overlap, so SC rests on the order points.
	split := noisy
	split.Bus.Kind, split.Bus.DataBus = configs.BusSplit, configs.DataBusShared
	split.Cache.L2.SizeBytes = 1 << 20
	cfgs := []struct {
		name string
		cfg  configs.Config
	}{{"default", configs.Default()}, {"jitter50-skew100", noisy}, {"split-l2", split}}
	for i := range litmusTests {
		lt := &litmusTests[i]
		for _, warm := range []bool{false, true} {
			for _, c := range cfgs {
				t.Run(lt.name+"/"+litWarmName(warm)+"/"+c.name, func(t *testing.T) {
					litRandom(t, lt, warm, c.name, c.cfg, seeds)
				})
			}
		}
	}
}

func litWarmName(warm bool) string {
	if warm {
		return "warm"
	}
	return "cold"
}

func litRandom(t *testing.T, lt *litmus, warm bool, cfgName string, cfg configs.Config, seeds int) {
	prog := litLoad(t, lt, warm)
	what := fmt.Sprintf("%s (%s, %s config)", lt.name, litWarmName(warm), cfgName)
	allowed := lt.scOutcomes()
	forb := lt.forbiddenSet()
	counts := map[string]int{}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		res, err := sim.Run(cfg, prog, seed)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if res.Outcome != core.Pass {
			t.Errorf("%s, seed %d: outcome %s (%s), want pass", what, seed, res.Outcome, res.OutcomeMsg)
			continue
		}
		if len(res.Outputs) != len(lt.outs) {
			t.Errorf("%s, seed %d: outputs %v, want %d values", what, seed, res.Outputs, len(lt.outs))
			continue
		}
		k := litKey(res.Outputs)
		counts[k]++
		if forb[k] {
			t.Errorf("%s, seed %d: outcome %s, which sequential consistency forbids", what, seed, k)
		} else if _, ok := allowed[k]; !ok {
			t.Errorf("%s, seed %d: outcome %s, which no SC interleaving gives", what, seed, k)
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, " %s×%d", k, counts[k])
	}
	t.Logf("%s: %d seeds, %d of %d allowed outcomes:%s", what, seeds, len(counts), len(allowed), b.String())
	if len(counts) < 2 {
		t.Errorf("%s: all %d seeds gave the same outcome; the test is vacuous", what, seeds)
	}
}

// The forcing schedule: the thread of the first access waits at a gate
// until litGate, by which time every other thread has reached its first
// park point (the warm-up, the barrier and a delay of at most 300 cycles
// take well under 2000 cycles; the checks below verify it).
const (
	litGate    = core.Cycle(5000)
	litTimeout = core.Cycle(200000)
)

// litMode says how each cross-thread edge of a witness order is forced.
type litMode int

const (
	// litEdge parks the later access until another thread writes
	// (UntilWrite) or accesses (UntilAccess) the address of the earlier
	// one, with a cycle gate on the first access. Such a condition is an
	// edge: the thread must already be parked when the access happens.
	// Two cases fall back to a predicate for the edge: when the address
	// is also touched in between by another access (the wrong access
	// would release it), and, with warm caches, when the thread has made
	// an earlier test access. A hit costs a cycle, so a thread parks one
	// cycle after its own hit while the thread that hit released can hit
	// in that same cycle: the access then rightly happens before the park.
	// (Cold, every earlier test access is a miss; the thread parks in the
	// cycle the miss completes, before any thread it released runs.)
	litEdge litMode = iota
	// litPred parks the later access until a predicate says the earlier
	// access has been performed (from an observer of the access events).
	litPred
)

func (f litMode) String() string { return [...]string{"edge", "pred"}[f] }

// litRule is a park rule added for a witness with what it should show.
type litRule struct {
	rule core.ParkRule
	// res is what became of the rule, filled when the run ends.
	res core.ParkResult
	// pred is the order index of the access that must release it, or -1
	// for the gate.
	pred int
	desc string
}

// litRun is the record of one forced run.
type litRun struct {
	// performed[i] is set when access i of the order was performed, at
	// cycle at[i]; seq is the order indices in performed order.
	performed []bool
	at        []core.Cycle
	seq       []int
	byPC      map[int32]int
	rules     []litRule
}

func (fr *litRun) Observe(e *core.Event) {
	i, ok := fr.byPC[e.PC]
	if !ok || e.Thread == 0 {
		return
	}
	fr.performed[i] = true
	fr.at[i] = e.Cycle
	fr.seq = append(fr.seq, i)
}

// litPlan turns a witness order into park rules.
func litPlan(t *testing.T, prog *isa.Program, order []litRef, mode litMode, warm bool, fr *litRun) []litRule {
	t.Helper()
	var rules []litRule
	last := map[int32]int{} // thread -> order index of its previous access
	for k, r := range order {
		pc := litPC(t, prog, r.op.label)
		prev, hasPrev := last[r.thread]
		last[r.thread] = k
		if k == 0 {
			if mode == litEdge {
				rules = append(rules, litRule{pred: -1, desc: "gate " + r.op.label,
					rule: core.ParkRule{Thread: r.thread, PC: pc, Wait: core.Wait{Until: core.UntilCycle, Cycle: litGate, Timeout: litTimeout}}})
			}
			continue
		}
		p := order[k-1]
		if p.thread == r.thread {
			continue
		}
		from := 0
		if hasPrev {
			from = prev + 1
		}
		ambiguous := false
		for j := from; j < k-1; j++ {
			o := order[j]
			if o.op.sym == p.op.sym && o.thread != r.thread && (o.op.write || !p.op.write) {
				ambiguous = true
			}
		}
		kk := k - 1
		pred := core.ParkRule{Thread: r.thread, PC: pc, Wait: core.Wait{Until: core.UntilPredicate, Timeout: litTimeout,
			Pred: func(core.View) bool { return fr.performed[kk] }}}
		switch {
		case mode == litPred || ambiguous || (warm && hasPrev):
			rules = append(rules, litRule{pred: kk, rule: pred,
				desc: fmt.Sprintf("%s until %s performed (predicate)", r.op.label, p.op.label)})
		case p.op.write:
			rules = append(rules, litRule{pred: kk, desc: fmt.Sprintf("%s until write of %s", r.op.label, p.op.sym),
				rule: core.ParkRule{Thread: r.thread, PC: pc, Wait: core.Wait{Until: core.UntilWrite, Addr: litAddr(t, prog, p.op.sym), Timeout: litTimeout}}})
		default:
			rules = append(rules, litRule{pred: kk, desc: fmt.Sprintf("%s until access of %s", r.op.label, p.op.sym),
				rule: core.ParkRule{Thread: r.thread, PC: pc, Wait: core.Wait{Until: core.UntilAccess, Addr: litAddr(t, prog, p.op.sym), Timeout: litTimeout}}})
		}
	}
	return rules
}

// litParks turns the rules into run options whose results land in them.
func litParks(rules []litRule) []sim.Option {
	var opts []sim.Option
	for i := range rules {
		opts = append(opts, sim.WithPark(rules[i].rule, &rules[i].res))
	}
	return opts
}

// litForce runs prog with the witness order forced and checks the
// outcome, the performed order and every park rule.
func litForce(t *testing.T, lt *litmus, prog *isa.Program, warm bool, w litWitness, mode litMode, jitter, seed uint64) map[core.WaitKind]int {
	t.Helper()
	order, err := lt.parseOrder(w.order)
	if err != nil {
		t.Fatal(err)
	}
	fr := &litRun{performed: make([]bool, len(order)), at: make([]core.Cycle, len(order)), byPC: map[int32]int{}}
	for i, r := range order {
		fr.byPC[litPC(t, prog, r.op.label)] = i
	}
	fr.rules = litPlan(t, prog, order, mode, warm, fr)
	kinds := map[core.WaitKind]int{}
	for _, r := range fr.rules {
		kinds[r.rule.Until]++
	}
	cfg := configs.Default()
	cfg.Sim.JitterCycles = jitter
	name := fmt.Sprintf("%s (%s) %s forced by %s mode, jitter %d, seed %d", lt.name, litWarmName(warm), litKey(w.out), mode, jitter, seed)
	opts := append(litParks(fr.rules), sim.WithObserver(core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW), fr))
	res, err := sim.Run(cfg, prog, seed, opts...)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.Outcome != core.Pass {
		t.Errorf("%s: outcome %s (%s), want pass", name, res.Outcome, res.OutcomeMsg)
	}
	if !slices.Equal(res.Outputs, w.out) {
		t.Errorf("%s: outputs %v, want %v", name, res.Outputs, w.out)
	}
	var got []string
	for _, i := range fr.seq {
		got = append(got, order[i].op.label)
	}
	if strings.Join(got, " ") != strings.Join(strings.Fields(w.order), " ") {
		t.Errorf("%s: accesses performed in order %q, want %q", name, strings.Join(got, " "), w.order)
	}
	for _, r := range fr.rules {
		pr := r.res
		switch {
		case !pr.Parked:
			t.Errorf("%s: rule %q never parked its thread", name, r.desc)
			continue
		case !pr.Released:
			t.Errorf("%s: rule %q parked at cycle %d and was never released", name, r.desc, pr.ParkedAt)
			continue
		case pr.TimedOut:
			t.Errorf("%s: rule %q parked at cycle %d timed out at %d instead of being released by its condition", name, r.desc, pr.ParkedAt, pr.ReleasedAt)
			continue
		}
		if r.pred < 0 {
			if pr.ReleasedAt != litGate {
				t.Errorf("%s: gate %q released at cycle %d, want %d", name, r.desc, pr.ReleasedAt, litGate)
			}
			continue
		}
		pa := fr.at[r.pred]
		if r.rule.Until == core.UntilPredicate {
			if want := max(pa, pr.ParkedAt); pr.ReleasedAt != want {
				t.Errorf("%s: rule %q parked at %d, predecessor performed at %d, released at %d; want %d", name, r.desc, pr.ParkedAt, pa, pr.ReleasedAt, want)
			}
			continue
		}
		// An access-triggered rule must have been waiting when the
		// access it waits for was performed, and released by it.
		if pr.ParkedAt > pa || pr.ReleasedAt != pa {
			t.Errorf("%s: rule %q parked at %d, released at %d, but the access it waits for was performed at %d", name, r.desc, pr.ParkedAt, pr.ReleasedAt, pa)
		}
	}
	return kinds
}

// TestLitmusForced produces every SC-allowed outcome of every test on
// purpose: park rules force the witness order, under a few seeds and
// jitter settings, and the run must give exactly that outcome.
func TestLitmusForced(t *testing.T) {
	seeds := []uint64{1, 7, 1234}
	jitters := []uint64{0, 4, 40}
	if testing.Short() {
		seeds = seeds[:2]
	}
	untilNames := map[core.WaitKind]string{core.UntilAccess: "access", core.UntilWrite: "write",
		core.UntilInvalidate: "invalidate", core.UntilCycle: "cycle", core.UntilPredicate: "predicate"}
	for i := range litmusTests {
		lt := &litmusTests[i]
		for _, warm := range []bool{false, true} {
			t.Run(lt.name+"/"+litWarmName(warm), func(t *testing.T) {
				prog := litLoad(t, lt, warm)
				runs := 0
				kinds := map[core.WaitKind]int{}
				for _, w := range lt.witnesses {
					for _, mode := range []litMode{litEdge, litPred} {
						for _, j := range jitters {
							for _, s := range seeds {
								for k, n := range litForce(t, lt, prog, warm, w, mode, j, s) {
									kinds[k] += n
								}
								runs++
							}
						}
					}
				}
				var b strings.Builder
				for k := core.UntilAccess; k <= core.UntilPredicate; k++ {
					if kinds[k] > 0 {
						fmt.Fprintf(&b, " %s×%d", untilNames[k], kinds[k])
					}
				}
				t.Logf("%s (%s): %d outcomes forced in %d runs; rules:%s", lt.name, litWarmName(warm), len(lt.witnesses), runs, b.String())
			})
		}
	}
}

// litParkCase is one hand-written forcing that uses the other park
// conditions.
type litParkCase struct {
	name   string
	test   string // litmus test name
	want   []int64
	jitter uint64
	rules  func(t *testing.T, prog *isa.Program) []core.ParkRule
	// timedOut lists rules that must time out; all others must be released
	// by their condition.
	timedOut []int
}

func litFind(t *testing.T, name string) *litmus {
	t.Helper()
	for i := range litmusTests {
		if litmusTests[i].name == name {
			return &litmusTests[i]
		}
	}
	t.Fatalf("no litmus test %s", name)
	return nil
}

var litParkCases = []litParkCase{
	{
		// b reads x, then waits until the line of x is invalidated in some
		// cache (a's store invalidates b's copy), then reads x again.
		name: "CoRR (0,1) by invalidation", test: "CoRR", want: []int64{0, 1},
		rules: func(t *testing.T, p *isa.Program) []core.ParkRule {
			x := litAddr(t, p, "x")
			return []core.ParkRule{
				{Thread: 2, PC: litPC(t, p, "b_ld1"), Wait: core.Wait{Until: core.UntilCycle, Cycle: litGate}},
				{Thread: 2, PC: litPC(t, p, "b_ld2"), Wait: core.Wait{Until: core.UntilInvalidate, Addr: x, Timeout: litTimeout}},
				{Thread: 1, PC: litPC(t, p, "a_st"), Wait: core.Wait{Until: core.UntilAccess, Addr: x, Timeout: litTimeout}},
			}
		},
	},
	{
		// Both loads wait until the other thread's store is visible in
		// memory (level-triggered, so the order the stores happen in
		// does not matter).
		name: "SB (1,1) by coherent-value predicates", test: "SB", want: []int64{1, 1},
		rules: func(t *testing.T, p *isa.Program) []core.ParkRule {
			x, y := litAddr(t, p, "x"), litAddr(t, p, "y")
			return []core.ParkRule{
				{Thread: 1, PC: litPC(t, p, "a_ld"), Wait: core.Wait{Until: core.UntilPredicate, Timeout: litTimeout,
					Pred: func(v core.View) bool { w, _ := v.Word(y); return w == 1 }}},
				{Thread: 2, PC: litPC(t, p, "b_ld"), Wait: core.Wait{Until: core.UntilPredicate, Timeout: litTimeout,
					Pred: func(v core.View) bool { w, _ := v.Word(x); return w == 1 }}},
			}
		},
	},
	{
		// The writer waits at its first store until a cycle long after
		// the reader is done.
		name: "MP (0,0) by cycle", test: "MP", want: []int64{0, 0}, jitter: 40,
		rules: func(t *testing.T, p *isa.Program) []core.ParkRule {
			return []core.ParkRule{
				{Thread: 1, PC: litPC(t, p, "a_data"), Wait: core.Wait{Until: core.UntilCycle, Cycle: litGate}},
			}
		},
	},
	{
		// Two rules at one PC fire one after the other: c waits for both
		// writes before its first load (and d reads before either).
		name: "IRIW (1,1,0,0) by two rules at one PC", test: "IRIW", want: []int64{1, 1, 0, 0},
		rules: func(t *testing.T, p *isa.Program) []core.ParkRule {
			x, y := litAddr(t, p, "x"), litAddr(t, p, "y")
			return []core.ParkRule{
				{Thread: 1, PC: litPC(t, p, "a_st"), Wait: core.Wait{Until: core.UntilCycle, Cycle: litGate}},
				{Thread: 2, PC: litPC(t, p, "b_st"), Wait: core.Wait{Until: core.UntilCycle, Cycle: litGate + 500}},
				{Thread: 3, PC: litPC(t, p, "c_ldx"), Wait: core.Wait{Until: core.UntilWrite, Addr: x, Timeout: litTimeout}},
				{Thread: 3, PC: litPC(t, p, "c_ldx"), Wait: core.Wait{Until: core.UntilWrite, Addr: y, Timeout: litTimeout}},
			}
		},
	},
	{
		// A rule whose condition never holds is released by its timeout,
		// and says so; the run goes on to the SC outcome it forced.
		name: "LB (0,1) with a timeout", test: "LB", want: []int64{0, 1},
		rules: func(t *testing.T, p *isa.Program) []core.ParkRule {
			return []core.ParkRule{
				// b waits for a write of res2, which only b itself does.
				{Thread: 2, PC: litPC(t, p, "b_ld"), Wait: core.Wait{Until: core.UntilWrite, Addr: litAddr(t, p, "res2"), Timeout: litGate}},
				{Thread: 1, PC: litPC(t, p, "a_ld"), Wait: core.Wait{Until: core.UntilCycle, Cycle: litGate / 2}},
			}
		},
		timedOut: []int{0},
	},
}

// TestLitmusParkConditions forces outcomes with the invalidation, predicate
// and cycle conditions, chained rules at one PC and a timeout.
func TestLitmusParkConditions(t *testing.T) {
	for _, pc := range litParkCases {
		for _, warm := range []bool{false, true} {
			t.Run(pc.name+"/"+litWarmName(warm), func(t *testing.T) {
				litParkCondition(t, pc, warm)
			})
		}
	}
}

func litParkCondition(t *testing.T, pc litParkCase, warm bool) {
	lt := litFind(t, pc.test)
	prog := litLoad(t, lt, warm)
	for _, seed := range []uint64{1, 2, 3, 99} {
		name := fmt.Sprintf("%s (%s), seed %d", pc.name, litWarmName(warm), seed)
		cfg := configs.Default()
		cfg.Sim.JitterCycles = pc.jitter
		rules := pc.rules(t, prog)
		results := make([]core.ParkResult, len(rules))
		var opts []sim.Option
		for i, r := range rules {
			opts = append(opts, sim.WithPark(r, &results[i]))
		}
		res, err := sim.Run(cfg, prog, seed, opts...)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Outcome != core.Pass || !slices.Equal(res.Outputs, pc.want) {
			t.Errorf("%s: outcome %s %v, want pass %v", name, res.Outcome, res.Outputs, pc.want)
		}
		for i, r := range rules {
			pr := results[i]
			wantTO := slices.Contains(pc.timedOut, i)
			if !pr.Parked || !pr.Released || pr.TimedOut != wantTO {
				t.Errorf("%s: rule %d: %+v, want parked, released, timed out %v", name, i, pr, wantTO)
				continue
			}
			if r.Until == core.UntilCycle && pr.ReleasedAt != r.Cycle {
				t.Errorf("%s: rule %d parked at %d, released at %d, want cycle %d", name, i, pr.ParkedAt, pr.ReleasedAt, r.Cycle)
			}
			if wantTO && pr.ReleasedAt != pr.ParkedAt+r.Timeout {
				t.Errorf("%s: rule %d parked at %d timed out at %d, want %d", name, i, pr.ParkedAt, pr.ReleasedAt, pr.ParkedAt+r.Timeout)
			}
		}
	}
}
