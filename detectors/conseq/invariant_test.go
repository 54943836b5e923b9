package conseq

import (
	"fmt"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// invSrc is the program of the hand-built streams: x and y are scalars,
// k a constant never written, arr three {a, b} structs, lk a lock.
const invSrc = `
.data
x:   .word 0
y:   .word 0
k:   .word 5
arr: .word 1, 0, 2, 0, 3, 0
lk:  .word 0
.text
main: ld r1, x
      ld r2, k
      fadd r3, x, 1
      lock lk
      unlock lk
      exit
`

// invFeed builds a hand-made event stream for a Trainer.
type invFeed struct {
	t   *testing.T
	tr  *Trainer
	p   *isa.Program
	mem map[uint64]int64 // the feed's own memory, to give reads their values
}

func newInvFeed(t *testing.T, o TrainOptions) *invFeed {
	t.Helper()
	p, err := isa.Assemble("inv.s", []byte(invSrc))
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	f := &invFeed{t: t, tr: NewTrainer(p, o), p: p}
	f.reset()
	return f
}

func (f *invFeed) reset() {
	f.mem = map[uint64]int64{}
	for i, v := range f.p.Data {
		f.mem[isa.DataBase+uint64(i)*isa.WordBytes] = v
	}
}

// addr returns sym's address plus off bytes.
func (f *invFeed) addr(sym string, off uint64) uint64 {
	f.t.Helper()
	a, ok := f.p.SymbolAddr(sym)
	if !ok {
		f.t.Fatalf("no symbol %s", sym)
	}
	return a + off
}

func (f *invFeed) write(a uint64, v int64) {
	f.mem[a] = v
	f.tr.Observe(&core.Event{Kind: core.KindWrite, Thread: 1, PC: 9, Addr: a, Value: v})
}

func (f *invFeed) read(pc int32, a uint64) {
	f.tr.Observe(&core.Event{Kind: core.KindRead, Thread: 0, PC: pc, Addr: a, Value: f.mem[a]})
}

func (f *invFeed) end(pass bool) {
	f.tr.EndRun(pass)
	f.reset()
}

// at returns the invariants at pc, as strings.
func (f *invFeed) at(pc int32) []string {
	var out []string
	for _, v := range f.tr.Invariants() {
		if v.PC == pc {
			out = append(out, fmt.Sprintf("%s sup=%d runs=%d", v, v.Support, v.Runs))
		}
	}
	return out
}

func invWant(t *testing.T, what string, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

func TestInvConst(t *testing.T) {
	f := newInvFeed(t, TrainOptions{})
	x := f.addr("x", 0)
	for run := 0; run < 5; run++ {
		f.write(x, 7)
		f.read(0, x)
		f.read(0, x)
		f.read(1, f.addr("k", 0)) // k is never written: nothing at pc 1
		f.end(true)
	}
	invWant(t, "x == 7", f.at(0), "x == 7 at pc 0 sup=10 runs=5")
	invWant(t, "never-written k", f.at(1))

	// One contradicting instance in one run kills it.
	f = newInvFeed(t, TrainOptions{})
	for run := 0; run < 6; run++ {
		f.write(x, 7)
		f.read(0, x)
		if run == 3 {
			f.write(x, 8)
			f.read(0, x)
		}
		f.end(true)
	}
	invWant(t, "x == 7 killed by x = 8", f.at(0))
}

func TestInvEqual(t *testing.T) {
	for _, kill := range []bool{false, true} {
		f := newInvFeed(t, TrainOptions{})
		x, y := f.addr("x", 0), f.addr("y", 0)
		for run := 0; run < 5; run++ {
			f.write(x, int64(10+run))
			f.write(y, int64(10+run))
			f.read(0, x)
			if kill && run == 4 {
				f.write(y, 99)
				f.read(0, x)
			}
			f.end(true)
		}
		if kill {
			invWant(t, "x == y killed by y = 99", f.at(0))
		} else {
			invWant(t, "x == y", f.at(0), "x == y at pc 0 sup=5 runs=5")
		}
	}
}

func TestInvSum(t *testing.T) {
	for _, kill := range []bool{false, true} {
		f := newInvFeed(t, TrainOptions{})
		x := f.addr("x", 0)
		for run := int64(0); run < 5; run++ {
			f.write(f.addr("arr", 8), run)
			f.write(f.addr("arr", 24), 2*run+1)
			f.write(f.addr("arr", 40), 3)
			f.write(x, 3*run+4)
			f.read(0, x)
			if kill && run == 2 {
				f.write(f.addr("arr", 40), 4)
				f.read(0, x)
			}
			f.end(true)
		}
		if kill {
			invWant(t, "x == Σ arr[].b killed by arr[2].b = 4", f.at(0))
			continue
		}
		invWant(t, "x == Σ arr[].b", f.at(0), "x == Σ arr+8+16k (k=0..2) at pc 0 sup=5 runs=5")
		for _, v := range f.tr.Invariants() {
			want := []uint64{f.addr("arr", 8), f.addr("arr", 24), f.addr("arr", 40)}
			if v.Kind != InvSum || fmt.Sprint(v.Terms) != fmt.Sprint(want) || v.Addr != x {
				t.Errorf("got %+v, want a sum over %v", v, want)
			}
		}
	}

	// A family with one written word is that word plus constants: the
	// equality is kept, the sum is not.
	f := newInvFeed(t, TrainOptions{})
	x := f.addr("x", 0)
	for run := int64(0); run < 5; run++ {
		f.write(f.addr("arr", 8), run+20)
		f.write(x, run+20)
		f.read(0, x)
		f.end(true)
	}
	invWant(t, "one written term", f.at(0), "x == arr+8 at pc 0 sup=5 runs=5")
}

func TestInvFailingRunIgnored(t *testing.T) {
	f := newInvFeed(t, TrainOptions{})
	x, y := f.addr("x", 0), f.addr("y", 0)
	for run := 0; run < 6; run++ {
		f.write(x, 7)
		f.read(0, x)
		if run == 2 { // a failing run contradicts x == 7 and writes y
			f.write(x, 8)
			f.read(0, x)
			f.write(y, 1)
			f.end(false)
			continue
		}
		f.end(true)
	}
	invWant(t, "x == 7 despite the failing run", f.at(0), "x == 7 at pc 0 sup=5 runs=5")
	if p, d := f.tr.Runs(); p != 5 || d != 1 {
		t.Errorf("Runs() = %d passed, %d discarded; want 5, 1", p, d)
	}
	if !f.tr.written(x) || f.tr.written(y) {
		t.Errorf("written: x %v (want true), y %v (want false: only the failing run wrote it)", f.tr.written(x), f.tr.written(y))
	}

	// A run with a rollback is discarded too.
	f.write(x, 8)
	f.tr.Observe(&core.Event{Kind: core.KindRollback, Thread: -1, Core: -1, PC: core.NoPC})
	f.read(0, x)
	f.end(true)
	invWant(t, "x == 7 despite the rolled-back run", f.at(0), "x == 7 at pc 0 sup=5 runs=5")

	// A run that never got EndRun is discarded at the next RunStart.
	f.tr.Observe(&core.Event{Kind: core.KindRunStart, Thread: -1, Core: -1, PC: core.NoPC})
	f.write(x, 8)
	f.read(0, x)
	f.tr.Observe(&core.Event{Kind: core.KindRunStart, Thread: -1, Core: -1, PC: core.NoPC})
	f.reset()
	f.write(x, 7)
	f.read(0, x)
	f.end(true)
	invWant(t, "x == 7 after an unfinished run", f.at(0), "x == 7 at pc 0 sup=6 runs=6")
}

func TestInvMinRunsAndSupport(t *testing.T) {
	for _, c := range []struct {
		o    TrainOptions
		want int
	}{{TrainOptions{}, 0}, {TrainOptions{MinRuns: 4}, 1}, {TrainOptions{MinRuns: 4, MinSupport: 5}, 0}} {
		f := newInvFeed(t, c.o)
		x := f.addr("x", 0)
		for run := 0; run < 4; run++ {
			f.write(x, 7)
			f.read(0, x)
			f.end(true)
		}
		if got := len(f.at(0)); got != c.want {
			t.Errorf("%+v: %d invariants, want %d", c.o, got, c.want)
		}
	}
}

func TestInvAddrVaries(t *testing.T) {
	f := newInvFeed(t, TrainOptions{})
	x, y := f.addr("x", 0), f.addr("y", 0)
	for run := 0; run < 5; run++ {
		f.write(x, 7)
		f.write(y, 7)
		f.read(0, x)
		if run == 4 {
			f.read(0, y) // the same PC loads another word
		}
		f.end(true)
	}
	invWant(t, "two words at one PC", f.at(0))
}

func TestInvSyncRMWAndHeap(t *testing.T) {
	f := newInvFeed(t, TrainOptions{})
	x, y, lk := f.addr("x", 0), f.addr("y", 0), f.addr("lk", 0)
	heap := f.p.DataEnd() + 4096
	for run := int64(0); run < 5; run++ {
		v := 10 + run
		f.write(y, v)
		f.write(heap, v)
		f.write(x, v)
		// The unlock's store makes the lock word equal x too; it is a sync
		// word, so it never becomes a candidate.
		f.tr.Observe(&core.Event{Kind: core.KindWrite, Flags: core.FlagSync, PC: 4, Addr: lk, Value: v})
		f.tr.Observe(&core.Event{Kind: core.KindRead, Flags: core.FlagSync, PC: 3, Addr: lk, Value: v})
		// fadd x, 1: checked with the old value, then x becomes v+1.
		f.tr.Observe(&core.Event{Kind: core.KindRMW, PC: 2, Addr: x, Value: v + 1, Words: [4]uint64{uint64(v), 1}})
		f.mem[x] = v + 1
		f.read(0, x)
		f.end(true)
	}
	invWant(t, "the fadd's read", f.at(2),
		fmt.Sprintf("x == y at pc 2 sup=5 runs=5\nx == %#x at pc 2 sup=5 runs=5", heap))
	invWant(t, "the read after the fadd", f.at(0))
	invWant(t, "the lock's test read", f.at(3))
}

func TestInvHolds(t *testing.T) {
	mem := map[uint64]int64{8: 3, 16: 4, 24: 5}
	word := func(a uint64) int64 { return mem[a] }
	for _, c := range []struct {
		v    Invariant
		x    int64
		want bool
	}{
		{Invariant{Kind: InvConst, C: 7}, 7, true},
		{Invariant{Kind: InvConst, C: 7}, 8, false},
		{Invariant{Kind: InvEqual, Other: 16}, 4, true},
		{Invariant{Kind: InvEqual, Other: 16}, 3, false},
		{Invariant{Kind: InvSum, Terms: []uint64{8, 16, 24}}, 12, true},
		{Invariant{Kind: InvSum, Terms: []uint64{8, 16, 24}}, 11, false},
		{Invariant{Kind: InvKind(9)}, 0, false},
	} {
		if got := c.v.Holds(c.x, word); got != c.want {
			t.Errorf("%+v.Holds(%d) = %v, want %v", c.v, c.x, got, c.want)
		}
	}
	if (Invariant{Kind: InvEqual, Other: 16}).Holds(4, nil) {
		t.Error("Holds with a nil word function: want false")
	}
	if s := (Invariant{Kind: InvSum, Addr: 0x10, Terms: []uint64{8, 24}}).String(); s != "0x10 == 0x8 + 0x18 at pc 0" {
		t.Errorf("String without a program: %q", s)
	}
}

func TestInvBadInput(t *testing.T) {
	if err := (TrainOptions{MinRuns: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "min_runs") {
		t.Errorf("MinRuns -1: err %v, want one naming min_runs", err)
	}
	if err := (TrainOptions{MinSupport: -1}).Validate(); err == nil || !strings.Contains(err.Error(), "min_support") {
		t.Errorf("MinSupport -1: err %v, want one naming min_support", err)
	}
	if err := (TrainOptions{}).Validate(); err != nil {
		t.Errorf("zero options: %v", err)
	}
	tr := NewTrainer(nil, TrainOptions{MinRuns: -3, MinSupport: -1})
	for run := 0; run < 6; run++ {
		tr.Observe(&core.Event{Kind: core.KindWrite, Addr: 0x20000, Value: 1})
		tr.Observe(&core.Event{Kind: core.KindRead, PC: 0, Addr: 0x20000, Value: 1})
		tr.Observe(&core.Event{Kind: core.KindRead, PC: 1, Addr: 3, Value: 1}) // misaligned, below data
		tr.EndRun(true)
	}
	if got := fmt.Sprint(tr.Invariants()); got != "[0x20000 == 1 at pc 0 0x3 == 1 at pc 1]" && got != "[0x20000 == 1 at pc 0]" {
		t.Errorf("nil program: %s", got)
	}
}

// invKernel returns a kernel, its machine and the PC of the only ld of
// word sym inside function fn.
func invKernel(t *testing.T, name, fn, sym string) (*isa.Program, configs.Config, int32) {
	t.Helper()
	p, err := workloads.Program(name)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), p)
	a, ok := p.SymbolAddr(sym)
	if !ok {
		t.Fatalf("%s: no symbol %s", name, sym)
	}
	pc := int32(-1)
	for i, in := range p.Instrs {
		if in.Op != isa.OpLd || in.Base != 0 || uint64(in.Off) != a || in.Func < 0 || p.Funcs[in.Func].Name != fn {
			continue
		}
		if pc >= 0 {
			t.Fatalf("%s: two loads of %s in %s", name, sym, fn)
		}
		pc = int32(i)
	}
	if pc < 0 {
		t.Fatalf("%s: no load of %s in %s", name, sym, fn)
	}
	return p, cfg, pc
}

// invS4 watches one cq-aget1 run: the value the save-log thread's read of
// bwritten loaded, the memory just before it, and the values stored to
// bwritten.
type invS4 struct {
	seed   uint64
	s4     int32
	bw     uint64
	mem    map[uint64]int64
	x      int64
	before map[uint64]int64 // memory just before S4
	stored []int64
}

func (o *invS4) Observe(e *core.Event) {
	switch e.Kind {
	case core.KindRead:
		if e.PC == o.s4 {
			o.x = e.Value
			o.before = make(map[uint64]int64, len(o.mem))
			for a, v := range o.mem {
				o.before[a] = v
			}
		}
	case core.KindWrite, core.KindRMW:
		o.mem[e.Addr] = e.Value
		if e.Addr == o.bw && e.Flags&core.FlagSync == 0 {
			o.stored = append(o.stored, e.Value)
		}
	}
}

func (o *invS4) word(a uint64) int64 { return o.before[a] }

// TestInvAget1 trains on passing runs of cq-aget1 and checks that the
// paper's invariant, bwritten == Σ wthread[].bwritten just before the
// save-log thread's read of bwritten (S4), is inferred, and that values
// the workers stored to bwritten at other moments break it.
func TestInvAget1(t *testing.T) {
	const nTrain = 20
	p, cfg, s4 := invKernel(t, "cq-aget1", "save_log", "bwritten")
	bw, _ := p.SymbolAddr("bwritten")
	wt, _ := p.SymbolAddr("wthread")
	var terms []uint64
	for k := uint64(0); k < 10; k++ {
		terms = append(terms, wt+8+16*k) // wthread[k].bwritten
	}
	oracle := func(o *invS4) bool { // the invariant, evaluated by hand
		var s int64
		for _, a := range terms {
			s += o.before[a]
		}
		return o.x == s
	}

	tr := NewTrainer(p, TrainOptions{})
	var first *invS4 // the first passing run whose S4 falls mid-download
	var failViolate, failRuns, passViolate int
	var breaker uint64 // a passing seed past the training set that breaks it
	seed := uint64(1)
	for ; seed <= 100; seed++ {
		o := &invS4{seed: seed, s4: s4, bw: bw, mem: map[uint64]int64{}}
		for i, v := range p.Data {
			o.mem[isa.DataBase+uint64(i)*isa.WordBytes] = v
		}
		passed, _ := tr.Runs()
		opts := []sim.Option{sim.WithObserver(core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW), o)}
		if passed < nTrain {
			opts = append(opts, sim.WithObserver(tr.Kinds(), tr))
		}
		r, err := sim.Run(cfg, p, seed, opts...)
		if err != nil {
			t.Fatal(err)
		}
		pass := r.Outcome == core.Pass
		if o.before == nil {
			t.Fatalf("seed %d: S4 (pc %d) never ran", seed, s4)
		}
		if passed < nTrain {
			tr.EndRun(pass)
			if pass && !oracle(o) {
				t.Errorf("training seed %d passes but breaks the invariant at S4 (x=%d); pick other seeds", seed, o.x)
			}
		}
		switch {
		case !pass:
			failRuns++
			if !oracle(o) {
				failViolate++
			}
		case !oracle(o):
			passViolate++
			if breaker == 0 && passed >= nTrain {
				breaker = seed
			}
		}
		if pass && first == nil && o.x > 0 && o.x < 6000 {
			first = o
		}
	}
	passed, discarded := tr.Runs()
	if passed != nTrain {
		t.Fatalf("trained on %d passing runs, want %d", passed, nTrain)
	}
	t.Logf("seeds 1..%d: %d failing (%d of them break the invariant at S4), %d passing runs break it; trained on %d passing, %d failing discarded",
		seed-1, failRuns, failViolate, passViolate, passed, discarded)
	if failViolate == 0 {
		t.Error("no failing run breaks the invariant at S4")
	}

	invs := tr.Invariants()
	var kinds [NumInvKinds]int
	for _, v := range invs {
		kinds[v.Kind]++
	}
	t.Logf("cq-aget1: %d invariants survive %d passing runs (MinRuns %d): %d const, %d equal, %d sum",
		len(invs), passed, DefaultMinRuns, kinds[InvConst], kinds[InvEqual], kinds[InvSum])
	var got *Invariant
	for i := range invs {
		v := &invs[i]
		if v.PC == s4 && v.Kind == InvSum && v.Addr == bw && fmt.Sprint(v.Terms) == fmt.Sprint(terms) {
			got = v
		}
		if v.PC == s4 {
			t.Logf("  at S4: %v (support %d, runs %d)", v, v.Support, v.Runs)
		}
	}
	if got == nil {
		t.Fatalf("no bwritten == Σ wthread[].bwritten at S4 (pc %d) among %d invariants", s4, len(invs))
	}
	if s := got.String(); s != fmt.Sprintf("bwritten == Σ wthread+8+16k (k=0..9) at pc %d", s4) {
		t.Errorf("String() = %q", s)
	}
	if got.Runs != nTrain || got.Support != nTrain {
		t.Errorf("support %d over %d runs, want %d over %d (S4 runs once a run)", got.Support, got.Runs, nTrain, nTrain)
	}

	// In a passing run the read's own value holds, and a value a worker
	// stored to bwritten at another moment does not.
	if first == nil {
		t.Fatal("no passing run reads bwritten at S4 mid-download")
	}
	if !got.Holds(first.x, first.word) {
		t.Errorf("the invariant does not hold with S4's own value %d", first.x)
	}
	broke, other := 0, 0
	for _, v := range first.stored {
		if v != first.x {
			other++
			if !got.Holds(v, first.word) {
				broke++
			}
		}
	}
	t.Logf("passing seed %d: S4 read %d; %d of the %d other values stored to bwritten break the invariant there (%v)",
		first.seed, first.x, broke, other, first.stored)
	if broke == 0 {
		t.Error("no value stored to bwritten breaks the invariant at S4")
	}

	// A passing run that breaks it (a worker's S1 between the save-log's
	// S2 and S4 and its S3 after S4: the saved log stays consistent, but
	// the invariant does not; the paper's second, new Aget bug) kills it.
	if breaker == 0 {
		t.Logf("no passing seed in 1..%d breaks the invariant", seed-1)
		return
	}
	r, err := sim.Run(cfg, p, breaker, sim.WithObserver(tr.Kinds(), tr))
	if err != nil || r.Outcome != core.Pass {
		t.Fatalf("seed %d: %v %v", breaker, r.Outcome, err)
	}
	tr.EndRun(true)
	for _, v := range tr.Invariants() {
		if v.PC == s4 && v.Kind == InvSum {
			t.Errorf("passing seed %d breaks it, but %v survives", breaker, v)
		}
	}
	t.Logf("passing seed %d breaks it and kills it; %d invariants left", breaker, len(tr.Invariants()))
}

// TestInvMySQL1 trains on passing runs of cq-mysql1: the insert's read of
// log_type is always LOG_BIN (3), the paper's MySQL1 invariant.
func TestInvMySQL1(t *testing.T) {
	p, cfg, rd := invKernel(t, "cq-mysql1", "binlog_write", "log_type")
	tr := NewTrainer(p, TrainOptions{})
	for seed := uint64(1); seed <= 30; seed++ {
		r, err := sim.Run(cfg, p, seed, sim.WithObserver(tr.Kinds(), tr))
		if err != nil {
			t.Fatal(err)
		}
		tr.EndRun(r.Outcome == core.Pass)
	}
	passed, discarded := tr.Runs()
	invs := tr.Invariants()
	t.Logf("cq-mysql1: %d invariants survive %d passing runs (%d failing discarded)", len(invs), passed, discarded)
	found := false
	for _, v := range invs {
		t.Logf("  %v (support %d, runs %d)", v, v.Support, v.Runs)
		if v.PC == rd && v.Kind == InvConst && v.C == 3 {
			found = true
		}
	}
	if !found {
		t.Errorf("no log_type == 3 at the insert's read (pc %d)", rd)
	}
}
