// Daikon-lite: likely equality invariants at global reads, learned from
// correct training runs, for ConSeq's INV sites (digest §2.1.2, §4.8,
// §5.1 item 13). A Trainer watches one training run at a time; at every
// Read of a non-sync word (and the read half of every non-sync RMW) it
// evaluates candidate invariants over a shadow copy of memory taken just
// before the access, and intersects them over every instance of every
// passing run. Invariants returns what survives, filtered and ranked.
//
// What is inferred, at a read PC whose loaded word x is the same address
// on every instance (a PC that reads two different words has none):
//
//   - x == c (InvConst): x loaded the same value on every instance;
//   - x == y (InvEqual): y is another data word, or a heap word that had
//     already been written when the PC first ran in the first passing run
//     to reach it (heap words are matched by address across runs), equal
//     to x on every instance;
//   - x == Σ F (InvSum): F is a strided family of data words inside one
//     symbol of the program: the whole symbol (stride 1), or one field of
//     an array of structs (stride s, where s divides the symbol's size
//     and the symbol holds at least two elements; every offset 0..s-1).
//
// What is not: inequalities, ranges, orderings, linear relations other
// than a plain sum (no x == y + c, no x == 2y), relations between two
// non-x words, derived variables other than these sums (no array lengths,
// no element-wise or sequence invariants, no heap arrays), invariants at
// writes or at function entry and exit (Daikon's program points), and
// conditional invariants. Values are whole words; a candidate needs exact
// equality. The shadow is exact because the stream is one sequentially
// consistent order of performs (DESIGN.md §2); sync words (any access
// flagged FlagSync: locks, barriers, condition variables) are never x, y
// or a term.
//
// The filters ("keep the important ones", as the paper does with Daikon's
// ranking) are listed on Invariants. (This comment is detached from the
// package clause on purpose: conseq.go holds the package documentation.)

package conseq

import (
	"fmt"
	"sort"
	"strings"

	"weft/core"
	"weft/isa"
)

// InvKind is the form of an inferred invariant.
type InvKind uint8

// The invariant forms.
const (
	// InvConst is x == C.
	InvConst InvKind = iota
	// InvEqual is x == y, y at address Other.
	InvEqual
	// InvSum is x == Σ Terms.
	InvSum
	// NumInvKinds is the number of invariant forms.
	NumInvKinds
)

var invKindNames = [NumInvKinds]string{"const", "equal", "sum"}

// String returns the form's name: const, equal or sum.
func (k InvKind) String() string {
	if k < NumInvKinds {
		return invKindNames[k]
	}
	return fmt.Sprintf("InvKind(%d)", uint8(k))
}

// Invariant is a likely invariant that held just before every dynamic
// instance of one global read in every passing training run that reached
// it.
type Invariant struct {
	// PC is the read: an ld, or the read of a cas, xchg or fadd, of a
	// non-sync word.
	PC int32
	// Kind is the invariant's form.
	Kind InvKind
	// Addr is x: the word the read loads.
	Addr uint64
	// C is the constant of an InvConst.
	C int64
	// Other is y's address for an InvEqual.
	Other uint64
	// Terms are the summed words of an InvSum, in address order.
	Terms []uint64
	// Support is the number of dynamic instances of the read it held on,
	// over all passing training runs.
	Support int
	// Runs is the number of passing training runs that executed the read.
	Runs int

	// names renders addresses for String; nil renders them in hex.
	names *invNamer
}

// Holds evaluates the invariant with x substituted for the read's value
// and word(a) for every other word a it mentions.
func (v Invariant) Holds(x int64, word func(addr uint64) int64) bool {
	switch v.Kind {
	case InvConst:
		return x == v.C
	case InvEqual:
		return word != nil && x == word(v.Other)
	case InvSum:
		if word == nil {
			return false
		}
		var s int64
		for _, a := range v.Terms {
			s += word(a)
		}
		return x == s
	}
	return false
}

// String spells the invariant with the program's symbols, e.g.
// "bwritten == Σ wthread+8+16k (k=0..9)", followed by the read's PC.
func (v Invariant) String() string {
	n := v.names
	var rhs string
	switch v.Kind {
	case InvConst:
		rhs = fmt.Sprint(v.C)
	case InvEqual:
		rhs = n.word(v.Other)
	case InvSum:
		rhs = n.sum(v.Terms)
	default:
		rhs = "?"
	}
	return fmt.Sprintf("%s == %s at pc %d", n.word(v.Addr), rhs, v.PC)
}

// DefaultMinRuns is the default TrainOptions.MinRuns.
const DefaultMinRuns = 5

// TrainOptions configure a Trainer. The zero value is the default.
type TrainOptions struct {
	// MinRuns is how many passing training runs must execute a read for
	// its invariants to be kept. 0 means DefaultMinRuns.
	MinRuns int
	// MinSupport is how many dynamic instances, over all passing runs, an
	// invariant must hold on to be kept. 0 means no bound beyond MinRuns
	// (a kept invariant always has at least MinRuns instances).
	MinSupport int
}

// Validate reports a clear error for out-of-range options.
func (o TrainOptions) Validate() error {
	if o.MinRuns < 0 {
		return fmt.Errorf("conseq: min_runs %d is negative: want 1 or more (0 for the default %d)", o.MinRuns, DefaultMinRuns)
	}
	if o.MinSupport < 0 {
		return fmt.Errorf("conseq: min_support %d is negative: want 0 or more", o.MinSupport)
	}
	return nil
}

func (o TrainOptions) minRuns() int {
	if o.MinRuns <= 0 {
		return DefaultMinRuns
	}
	return o.MinRuns
}

// invFamily is a strided family of data words: n words starting off
// words into Program.Symbols[sym], stride words apart.
type invFamily struct {
	sym, off, stride, n int
}

// invCand is the candidate set of one read PC: over one run, or (in the
// Trainer's committed map) the intersection over every passing run.
type invCand struct {
	addr    uint64
	dead    bool // the PC read two different words: nothing holds
	constOK bool
	c       int64
	eq      []uint64 // y candidates, ascending
	sums    []int32  // family ids, ascending
	sumW    []int32  // per sums entry: most of its words written before an instance
	support int
	runs    int
}

// invRun is one training run's state.
type invRun struct {
	seen    bool             // an event of the run has been observed
	tainted bool             // a rollback made the shadow unreliable
	shadow  []int64          // data words' current values
	heap    map[uint64]int64 // heap (and other non-data) words written
	wrote   []bool           // data words a non-sync write touched
	sync    map[uint64]bool  // words a sync access touched
	sums    []int64          // each family's current sum
	famW    []int32          // each family's words written so far in the run
	pcs     map[int32]*invCand
}

// Trainer learns likely invariants from training runs. Attach it to one
// run at a time (it is a core.Observer of Kinds()) and call EndRun after
// each; then call Invariants.
//
// Rule: a candidate at a read PC survives only if it held on every
// instance of that read in every passing run that executed it (a single
// contradicting instance kills it for good); a failing run, or one with a
// Rollback, contributes nothing at all (not its instances, not its writes).
// Invariants then keeps those whose read ran in at least MinRuns passing
// runs.
type Trainer struct {
	prog  *isa.Program
	opts  TrainOptions
	names *invNamer

	fams    []invFamily
	wordFam [][]int32 // data word index → families containing it
	initSum []int64   // each family's sum over the initial image

	cur invRun

	committed map[int32]*invCand
	wrote     []bool          // data words written in some passing run
	heapWrote map[uint64]bool // heap words written in some passing run
	sync      map[uint64]bool // words a sync access touched in a passing run
	passRuns  int
	failRuns  int
}

// NewTrainer returns a Trainer for p. A nil program is treated as one
// with no data; options out of range are replaced by their defaults
// (TrainOptions.Validate reports them).
func NewTrainer(p *isa.Program, o TrainOptions) *Trainer {
	if p == nil {
		p = &isa.Program{}
	}
	if o.MinSupport < 0 {
		o.MinSupport = 0
	}
	t := &Trainer{
		prog:      p,
		opts:      o,
		names:     &invNamer{p: p},
		committed: map[int32]*invCand{},
		wrote:     make([]bool, len(p.Data)),
		heapWrote: map[uint64]bool{},
		sync:      map[uint64]bool{},
	}
	t.families()
	t.cur = t.newRun()
	return t
}

// families enumerates every symbol's strided families: the whole symbol
// and, for each stride s dividing its size with at least two elements,
// each of the s fields.
func (t *Trainer) families() {
	p := t.prog
	t.wordFam = make([][]int32, len(p.Data))
	type extent struct {
		addr  uint64
		words int
	}
	done := map[extent]bool{}
	for si, s := range p.Symbols {
		e := extent{s.Addr, s.Words}
		if s.Words < 2 || done[e] || s.Addr < isa.DataBase || (s.Addr-isa.DataBase)%isa.WordBytes != 0 {
			continue
		}
		base := int((s.Addr - isa.DataBase) / isa.WordBytes)
		if base+s.Words > len(p.Data) {
			continue
		}
		done[e] = true
		for stride := 1; stride <= s.Words/2; stride++ {
			if s.Words%stride != 0 {
				continue
			}
			for off := 0; off < stride; off++ {
				id := int32(len(t.fams))
				f := invFamily{sym: si, off: off, stride: stride, n: s.Words / stride}
				t.fams = append(t.fams, f)
				var sum int64
				for k := 0; k < f.n; k++ {
					w := base + off + k*stride
					t.wordFam[w] = append(t.wordFam[w], id)
					sum += p.Data[w]
				}
				t.initSum = append(t.initSum, sum)
			}
		}
	}
}

// terms returns family f's word addresses, ascending.
func (t *Trainer) terms(f int32) []uint64 {
	fam := t.fams[f]
	base := t.prog.Symbols[fam.sym].Addr
	out := make([]uint64, fam.n)
	for k := range out {
		out[k] = base + uint64(fam.off+k*fam.stride)*isa.WordBytes
	}
	return out
}

// newRun returns a fresh run state over the initial data image.
func (t *Trainer) newRun() invRun {
	return invRun{
		shadow: append([]int64(nil), t.prog.Data...),
		heap:   map[uint64]int64{},
		wrote:  make([]bool, len(t.prog.Data)),
		sync:   map[uint64]bool{},
		sums:   append([]int64(nil), t.initSum...),
		famW:   make([]int32, len(t.fams)),
		pcs:    map[int32]*invCand{},
	}
}

// Kinds returns the event kinds the Trainer watches: the accesses, and
// RunStart and Rollback to keep its shadow honest.
func (t *Trainer) Kinds() core.KindMask {
	return core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW, core.KindRunStart, core.KindRollback)
}

// dataIndex returns a's data word index, if a is a data word.
func (t *Trainer) dataIndex(a uint64) (int, bool) {
	if a < isa.DataBase || a%isa.WordBytes != 0 {
		return 0, false
	}
	i := (a - isa.DataBase) / isa.WordBytes
	if i >= uint64(len(t.prog.Data)) {
		return 0, false
	}
	return int(i), true
}

// value returns a word's current shadow value (0 for an unwritten heap
// word).
func (r *invRun) value(t *Trainer, a uint64) int64 {
	if i, ok := t.dataIndex(a); ok {
		return r.shadow[i]
	}
	return r.heap[a]
}

// store records a write of v to a.
func (r *invRun) store(t *Trainer, a uint64, v int64, sync bool) {
	if sync {
		r.sync[a] = true
	}
	i, ok := t.dataIndex(a)
	if !ok {
		r.heap[a] = v
		return
	}
	if d := v - r.shadow[i]; d != 0 {
		for _, f := range t.wordFam[i] {
			r.sums[f] += d
		}
	}
	r.shadow[i] = v
	if !sync && !r.wrote[i] {
		r.wrote[i] = true
		for _, f := range t.wordFam[i] {
			r.famW[f]++
		}
	}
}

// Observe consumes one event of the current training run: it checks the
// candidates of every non-sync read against the shadow, then applies
// every write to the shadow.
func (t *Trainer) Observe(e *core.Event) {
	r := &t.cur
	switch e.Kind {
	case core.KindRunStart:
		if r.seen { // a run without EndRun: discard it
			t.cur = t.newRun()
			r = &t.cur
		}
	case core.KindRollback:
		r.tainted = true
	case core.KindRead:
		if e.Flags&core.FlagSync != 0 {
			r.sync[e.Addr] = true
			break
		}
		t.read(e.PC, e.Addr, e.Value)
	case core.KindWrite:
		r.store(t, e.Addr, e.Value, e.Flags&core.FlagSync != 0)
	case core.KindRMW:
		sync := e.Flags&core.FlagSync != 0
		if !sync {
			t.read(e.PC, e.Addr, e.Old())
		}
		r.store(t, e.Addr, e.Value, sync)
	default:
		return
	}
	r.seen = true
}

// read checks the candidates of read pc, which loaded v from x.
func (t *Trainer) read(pc int32, x uint64, v int64) {
	r := &t.cur
	if r.tainted {
		return
	}
	c := r.pcs[pc]
	if c == nil {
		c = t.firstInstance(pc, x, v)
		r.pcs[pc] = c
	}
	c.support++
	if c.dead {
		return
	}
	if c.addr != x {
		c.kill()
		return
	}
	if c.constOK && c.c != v {
		c.constOK = false
	}
	eq := c.eq[:0]
	for _, y := range c.eq {
		if r.value(t, y) == v {
			eq = append(eq, y)
		}
	}
	c.eq = eq
	sums, sumW := c.sums[:0], c.sumW[:0]
	for k, f := range c.sums {
		if r.sums[f] == v {
			sums = append(sums, f)
			sumW = append(sumW, max(c.sumW[k], r.famW[f]))
		}
	}
	c.sums, c.sumW = sums, sumW
	if !c.constOK && len(c.eq) == 0 && len(c.sums) == 0 {
		c.kill()
	}
}

func (c *invCand) kill() {
	c.dead, c.constOK, c.eq, c.sums, c.sumW = true, false, nil, nil, nil
}

// firstInstance returns the run's candidate set for pc at its first
// instance: a copy of the committed set when an earlier passing run
// reached pc (the intersection only shrinks), else every word equal to v
// and every family whose sum is v (the instance itself then filters
// nothing more, so this is cheap to recheck).
func (t *Trainer) firstInstance(pc int32, x uint64, v int64) *invCand {
	r := &t.cur
	if g := t.committed[pc]; g != nil {
		c := &invCand{addr: g.addr, dead: g.dead, constOK: g.constOK, c: g.c}
		c.eq = append([]uint64(nil), g.eq...)
		c.sums = append([]int32(nil), g.sums...)
		c.sumW = append([]int32(nil), g.sumW...)
		return c
	}
	c := &invCand{addr: x, constOK: true, c: v}
	for i, w := range r.shadow {
		a := isa.DataBase + uint64(i)*isa.WordBytes
		if w == v && a != x && !r.sync[a] && !t.sync[a] {
			c.eq = append(c.eq, a)
		}
	}
	var heap []uint64
	for a, w := range r.heap {
		if w == v && a != x && !r.sync[a] && !t.sync[a] {
			heap = append(heap, a)
		}
	}
	sort.Slice(heap, func(i, j int) bool { return heap[i] < heap[j] })
	c.eq = append(c.eq, heap...)
	xi, xData := t.dataIndex(x)
	for f, s := range r.sums {
		if s != v {
			continue
		}
		if xData && invHas(t.wordFam[xi], int32(f)) {
			continue
		}
		c.sums = append(c.sums, int32(f))
		c.sumW = append(c.sumW, 0)
	}
	return c
}

func invHas(s []int32, v int32) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// EndRun ends the current training run. A passing run's candidate sets
// are intersected into the committed ones and its writes recorded; a
// failing run (pass false), or one that saw a Rollback, is discarded.
func (t *Trainer) EndRun(pass bool) {
	r := &t.cur
	if !pass || r.tainted {
		t.failRuns++
		t.cur = t.newRun()
		return
	}
	t.passRuns++
	pcs := make([]int32, 0, len(r.pcs))
	for pc := range r.pcs {
		pcs = append(pcs, pc)
	}
	sort.Slice(pcs, func(i, j int) bool { return pcs[i] < pcs[j] })
	for _, pc := range pcs {
		c := r.pcs[pc]
		g := t.committed[pc]
		if g == nil {
			g = &invCand{addr: c.addr}
			t.committed[pc] = g
		}
		// c was seeded from g, so c is already the intersection.
		g.dead, g.constOK, g.c, g.eq, g.sums, g.sumW = c.dead, c.constOK, c.c, c.eq, c.sums, c.sumW
		g.support += c.support
		g.runs++
	}
	for i, w := range r.wrote {
		if w {
			t.wrote[i] = true
		}
	}
	for a := range r.heap {
		t.heapWrote[a] = true
	}
	for a := range r.sync {
		t.sync[a] = true
	}
	t.cur = t.newRun()
}

// Runs returns the number of passing and of discarded training runs.
func (t *Trainer) Runs() (passed, discarded int) { return t.passRuns, t.failRuns }

// written reports whether a non-sync write of some passing run touched a,
// and no sync access ever did.
func (t *Trainer) written(a uint64) bool {
	if t.sync[a] {
		return false
	}
	if i, ok := t.dataIndex(a); ok {
		return t.wrote[i]
	}
	return t.heapWrote[a]
}

// Invariants returns the surviving invariants, ranked. Kept are those
//
//   - at a read that ran in at least MinRuns passing runs, always loading
//     the same word x, with at least MinSupport instances;
//   - whose x some passing run wrote with a non-sync write (x == c for a
//     word never written is the initial image, not a property of the
//     interleaving) and no sync access touched;
//   - x == c whenever it holds; then the read's x == y and x == Σ are
//     dropped (every word they mention was constant at that point too, so
//     they are implied, as Daikon suppresses equalities between constants);
//   - x == y only if y, too, was written (x == y with a never-written y is
//     x == c);
//   - x == Σ F only if, at some instance of some passing run, at least
//     two words of F had already been written in that run (otherwise the
//     sum was one word plus constants: an x == y in disguise), F does not
//     contain x, and no sync access touched F.
//
// Rank: more passing runs first, then more support, then by PC, then
// sums before equalities before constants (the multi-variable ones are
// the ones ConSeq cannot get from a single variable), then by address.
func (t *Trainer) Invariants() []Invariant {
	minRuns := t.opts.minRuns()
	pcs := make([]int32, 0, len(t.committed))
	for pc := range t.committed {
		pcs = append(pcs, pc)
	}
	sort.Slice(pcs, func(i, j int) bool { return pcs[i] < pcs[j] })
	var out []Invariant
	for _, pc := range pcs {
		g := t.committed[pc]
		if g.dead || g.runs < minRuns || g.support < t.opts.MinSupport || !t.written(g.addr) {
			continue
		}
		base := Invariant{PC: pc, Addr: g.addr, Support: g.support, Runs: g.runs, names: t.names}
		if g.constOK {
			v := base
			v.Kind, v.C = InvConst, g.c
			out = append(out, v)
			continue
		}
		for _, y := range g.eq {
			if t.written(y) {
				v := base
				v.Kind, v.Other = InvEqual, y
				out = append(out, v)
			}
		}
	fams:
		for k, f := range g.sums {
			if g.sumW[k] < 2 {
				continue
			}
			terms := t.terms(f)
			for _, a := range terms {
				if t.sync[a] {
					continue fams
				}
			}
			v := base
			v.Kind, v.Terms = InvSum, terms
			out = append(out, v)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.Runs != b.Runs {
			return a.Runs > b.Runs
		}
		if a.Support != b.Support {
			return a.Support > b.Support
		}
		if a.PC != b.PC {
			return a.PC < b.PC
		}
		if a.Kind != b.Kind {
			return a.Kind > b.Kind
		}
		if a.Other != b.Other {
			return a.Other < b.Other
		}
		return invLess(a.Terms, b.Terms)
	})
	return out
}

// invLess orders term lists: by first address, then by length.
func invLess(a, b []uint64) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// invNamer spells addresses with a program's symbols.
type invNamer struct {
	p *isa.Program
}

// sym returns the symbol whose extent holds a (the first such, preferring
// one with words), or -1.
func (n *invNamer) sym(a uint64) int {
	if n == nil || n.p == nil {
		return -1
	}
	for i, s := range n.p.Symbols {
		if s.Words > 0 && a >= s.Addr && a < s.Addr+uint64(s.Words)*isa.WordBytes {
			return i
		}
	}
	return -1
}

// word spells one word: "sym", "sym+off" or a hex address.
func (n *invNamer) word(a uint64) string {
	i := n.sym(a)
	if i < 0 {
		return fmt.Sprintf("%#x", a)
	}
	s := n.p.Symbols[i]
	if a == s.Addr {
		return s.Name
	}
	return fmt.Sprintf("%s+%d", s.Name, a-s.Addr)
}

// sum spells Σ terms: "Σ sym+off+Sk (k=0..n-1)" for a strided family
// inside one symbol, else the terms joined by " + ".
func (n *invNamer) sum(terms []uint64) string {
	if len(terms) >= 2 {
		i := n.sym(terms[0])
		stride := terms[1] - terms[0]
		strided := i >= 0 && stride > 0
		for k := 1; strided && k < len(terms); k++ {
			strided = terms[k]-terms[k-1] == stride && n.sym(terms[k]) == i
		}
		if strided {
			return fmt.Sprintf("Σ %s+%dk (k=0..%d)", n.word(terms[0]), stride, len(terms)-1)
		}
	}
	parts := make([]string, len(terms))
	for k, a := range terms {
		parts[k] = n.word(a)
	}
	if len(parts) == 0 {
		return "0"
	}
	return strings.Join(parts, " + ")
}
