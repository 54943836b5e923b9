package conseq

import (
	"strings"
	"testing"

	"weft/isa"
	"weft/workloads"
)

// asm assembles a test program.
func asm(t *testing.T, src string) *isa.Program {
	t.Helper()
	p, err := isa.Assemble("t.s", []byte(src))
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	return p
}

// analyze runs Analyze and fails the test on an error.
func analyze(t *testing.T, p *isa.Program, o Options) *Analysis {
	t.Helper()
	a, err := Analyze(p, o)
	if err != nil {
		t.Fatalf("Analyze: %v", err)
	}
	return a
}

// pcOf returns the PC of the only instruction whose text contains sub.
func pcOf(t *testing.T, p *isa.Program, sub string) int32 {
	t.Helper()
	found := int32(-1)
	for pc := range p.Instrs {
		if strings.Contains(p.InstrText(int32(pc)), sub) {
			if found >= 0 {
				t.Fatalf("%q matches PCs %d and %d", sub, found, pc)
			}
			found = int32(pc)
		}
	}
	if found < 0 {
		t.Fatalf("no instruction matches %q", sub)
	}
	return found
}

// readsOf returns a site's critical reads as pc → distance.
func readsOf(t *testing.T, a *Analysis, pc int32) map[int32]int {
	t.Helper()
	s, ok := a.Site(pc)
	if !ok {
		t.Fatalf("no site at %d (%s)", pc, a.Prog.InstrText(pc))
	}
	m := map[int32]int{}
	for _, r := range s.Reads {
		m[r.PC] = r.Distance
	}
	return m
}

const kindsSrc = `
.data
x:  .word 0
y:  .word 0
z:  .word 0
.text
main:   spawn r10, other, r0
        ld    r1, x
        assert r1, "x set"
        ld    r2, y
        beqz  r2, ok
        fail  "y clear"
ok:     ld    r3, z
        out   r3
        li    r4, 0
spin:   ld    r5, x
        add   r4, r4, 1
        beqz  r5, spin
        li    r6, 0
count:  add   r6, r6, 1
        blt   r6, 5, count
        join  r10
        exit
other:  li    r1, 1
        st    r1, x
        exit
`

func TestSiteKinds(t *testing.T) {
	p := asm(t, kindsSrc)
	a := analyze(t, p, Options{})
	want := map[int32]Kind{
		pcOf(t, p, "assert"):  ASS,
		pcOf(t, p, "fail"):    ERR,
		pcOf(t, p, "out"):     OUT,
		pcOf(t, p, "beqz r5"): LOOP,
	}
	if len(a.Sites) != len(want) {
		t.Fatalf("sites %v, want %d (the register-only count loop is no LOOP site)", a.Sites, len(want))
	}
	for _, s := range a.Sites {
		if want[s.Site.PC] != s.Site.Kind {
			t.Errorf("site %v: want kind %v", s.Site, want[s.Site.PC])
		}
	}
	// Each kind has its read at the right distance.
	if got := readsOf(t, a, pcOf(t, p, "assert")); got[pcOf(t, p, "ld r1")] != 1 {
		t.Errorf("ASS reads %v", got)
	}
	if got := readsOf(t, a, pcOf(t, p, "fail")); got[pcOf(t, p, "ld r2")] != 1 {
		t.Errorf("ERR reads %v", got)
	}
	if got := readsOf(t, a, pcOf(t, p, "out")); got[pcOf(t, p, "ld r3")] != 1 {
		t.Errorf("OUT reads %v", got)
	}
	loop := readsOf(t, a, pcOf(t, p, "beqz r5"))
	if d, ok := loop[pcOf(t, p, "ld r5")]; !ok || d != 0 {
		t.Errorf("LOOP reads %v: want the spin load at 0", loop)
	}
	// Only members inside the loop: ld r1 (before the loop) is out even
	// though other's store of x is not followed (another thread) anyway.
	for pc := range loop {
		if pc != pcOf(t, p, "ld r5") {
			t.Errorf("LOOP read %d (%s) is outside the loop", pc, p.InstrText(pc))
		}
	}
	// Per-kind switches (INV sites come from Config.Invariants only).
	for k := Kind(0); k < INV; k++ {
		b := analyze(t, p, Options{Disabled: k.Mask()})
		for _, s := range b.Sites {
			if s.Site.Kind == k {
				t.Errorf("kind %v disabled but found %v", k, s.Site)
			}
		}
		if len(b.Sites) != len(want)-1 {
			t.Errorf("kind %v disabled: %d sites, want %d", k, len(b.Sites), len(want)-1)
		}
	}
	all := analyze(t, p, Options{Disabled: OUT.Mask() | ASS.Mask() | ERR.Mask() | LOOP.Mask()})
	if len(all.Sites) != 0 || all.Empty == "" {
		t.Errorf("all disabled: %v, empty %q", all.Sites, all.Empty)
	}
}

const depsSrc = `
.data
a:  .word 0
b:  .word 0
c:  .word 0
d:  .word 0
e:  .word 0
arr: .word 0, 0, 0, 0
.text
main:   spawn r10, other, r0
        ld    r1, a           # control: guards the store of c
        beqz  r1, skip
        li    r2, 1
        st    r2, c           # memory: c store -> c load
skip:   ld    r3, b           # register, cross block: feeds the add below
        work  1
        beqz  r0, next
next:   ld    r4, c
        add   r5, r3, r4
        la    r6, d
        ld    r7, [r6]        # static address through a register base
        add   r5, r5, r7
        li    r8, 16
        st    r5, arr[r8]     # a constant byte index: arr+16 exactly
        ld    r9, arr+16
        ld    r11, e
        tid   r12
        st    r11, arr[r12]   # unknown index: may alias arr only
        ld    r13, arr+8
        add   r9, r9, r13
        out   r9
        join  r10
        exit
other:  li    r1, 5
        st    r1, b           # another thread's store: never followed
        exit
`

func TestDependenceKinds(t *testing.T) {
	p := asm(t, depsSrc)
	a := analyze(t, p, Options{MaxDistance: 8})
	got := readsOf(t, a, pcOf(t, p, "out"))
	want := map[string]int{
		"ld r9":    1, // the argument
		"ld r13":   1, // same block as the argument's add
		"ld r11":   2, // arr[r12] may-alias store -> arr+8 load; r11 feeds it in its block
		"ld r4":    2, // ld r9 <- st r5 (2) <- adds in its block
		"ld r7":    2,
		"ld r3":    3, // cross-block register edge from the add
		"ld r1, a": 4, // st c (3) <- control dependence on beqz r1 (4)
	}
	for sub, d := range want {
		if g, ok := got[pcOf(t, p, sub)]; !ok || g != d {
			t.Errorf("%s: distance %d (present %v), want %d; all %v", sub, g, ok, d, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("reads %v, want exactly %v", got, want)
	}
	// The instruction model counts every register hop.
	ai := analyze(t, p, Options{MaxDistance: 8, Model: Instruction})
	gi := readsOf(t, ai, pcOf(t, p, "out"))
	if gi[pcOf(t, p, "ld r9")] != 2 || gi[pcOf(t, p, "ld r13")] != 2 || gi[pcOf(t, p, "ld r3")] != 6 {
		t.Errorf("instruction model: %v", gi)
	}
	// The bound cuts the slice.
	a2 := analyze(t, p, Options{MaxDistance: 2})
	g2 := readsOf(t, a2, pcOf(t, p, "out"))
	if _, ok := g2[pcOf(t, p, "ld r3")]; ok || len(g2) != 5 {
		t.Errorf("MaxDistance 2: %v", g2)
	}
}

func TestCallsAndReturns(t *testing.T) {
	p := asm(t, `
.data
g:  .word 0
h:  .word 0
.text
main:   call  get
        mov   r3, r1
        out   r3
        ld    r1, h
        call  nop1
        out   r1
        exit
get:    ld    r1, g
        ret
nop1:   ret
`)
	a := analyze(t, p, Options{})
	// The callee's definition reaches the caller through the return.
	got := readsOf(t, a, pcOf(t, p, "out r3"))
	if got[pcOf(t, p, "ld r1, g")] != 2 {
		t.Errorf("out r3 reads %v, want g at 2 (mov at 1, cross-block ld)", got)
	}
	// A value passes over a call that does not define it, and the first
	// caller's g is not mixed in through nop1's return.
	got = readsOf(t, a, pcOf(t, p, "out r1"))
	if _, ok := got[pcOf(t, p, "ld r1, h")]; !ok {
		t.Errorf("out r1 reads %v, want h", got)
	}
}

func TestBadInput(t *testing.T) {
	p := asm(t, kindsSrc)
	for _, md := range []int{-1, MaxMaxDistance + 1} {
		if _, err := Analyze(p, Options{MaxDistance: md}); err == nil || !strings.Contains(err.Error(), "max_distance") {
			t.Errorf("MaxDistance %d: err %v", md, err)
		}
	}
	if _, err := Analyze(p, Options{Model: 9}); err == nil {
		t.Error("bad model accepted")
	}
	if _, err := Analyze(nil, Options{}); err == nil {
		t.Error("nil program accepted")
	}
	a := analyze(t, &isa.Program{}, Options{})
	if len(a.Sites) != 0 || a.Empty == "" {
		t.Errorf("empty program: %v %q", a.Sites, a.Empty)
	}
	b := analyze(t, asm(t, ".text\nmain: li r1, 1\n exit\n"), Options{})
	if len(b.Sites) != 0 || !strings.Contains(b.Empty, "no failure site") {
		t.Errorf("no sites: %v %q", b.Sites, b.Empty)
	}
	// A hand-made program with wild targets does not panic.
	bad := &isa.Program{Instrs: []isa.Instruction{
		{Op: isa.OpLd, Rd: 1, Base: 7, Off: 99},
		{Op: isa.OpBeqz, Rs: 1, Target: 1000},
		{Op: isa.OpCall, Target: -4},
		{Op: isa.OpAssert, Rs: 1},
		{Op: isa.OpJmp, Target: 0},
	}}
	analyze(t, bad, Options{})
}

// TestMoz1Figure5 is the paper's Figure 5 distance example.
func TestMoz1Figure5(t *testing.T) {
	p, err := workloads.Program("cq-moz1")
	if err != nil {
		t.Fatal(err)
	}
	a := analyze(t, p, Options{})
	got := readsOf(t, a, pcOf(t, p, "assert"))
	for sub, d := range map[string]int{"ld r5, runningUrl": 1, "ld r4, isBusy": 2, "ld r2, InProgress": 4} {
		if got[pcOf(t, p, sub)] != d {
			t.Errorf("%s at %d, want %d", sub, got[pcOf(t, p, sub)], d)
		}
	}
	sl := a.Slice(Site{PC: pcOf(t, p, "assert"), Kind: ASS, Loop: -1})
	if sl[pcOf(t, p, "st r3, isBusy")] != 3 {
		t.Errorf("isBusy store at %d, want 3", sl[pcOf(t, p, "st r3, isBusy")])
	}
	if _, ok := sl[pcOf(t, p, "st r0, runningUrl")]; ok {
		t.Error("the IMAP thread's store is in the slice: cross-thread edge followed")
	}
	// The instruction model spreads the chain out.
	ai := analyze(t, p, Options{Model: Instruction, MaxDistance: 8})
	gi := readsOf(t, ai, pcOf(t, p, "assert"))
	if gi[pcOf(t, p, "ld r5, runningUrl")] != 1 || gi[pcOf(t, p, "ld r2, InProgress")] != 5 {
		t.Errorf("instruction model: %v", gi)
	}
}

// designed are workloads/README.md's ConSeq distances: the kernel, the
// site kind and the critical read (an instruction-text fragment).
var designed = []struct {
	kernel string
	kind   Kind
	read   string
	dist   int
}{
	{"cq-aget1", OUT, "ld r3, wthread @bug", 6},
	{"cq-aget1", OUT, "ld r3, bwritten", 6},
	{"cq-fft", OUT, "ld r8, transtime", 2},
	{"cq-mysql1", OUT, "log_type", 1},
	{"cq-moz1", ASS, "ld r5, runningUrl", 1},
	{"cq-moz1", ASS, "ld r2, InProgress", 4},
	{"cq-mysql2", ASS, "ld r6, pos", 1},
	{"cq-trans", ASS, "ld r4, bandwidth", 1},
	{"cq-moz2", ERR, "ld r4, free_count", 1},
	{"cq-moz3", ERR, "mCount", 1},
	{"cq-moz3", ERR, "mArray", 1},
	{"cq-mysql3", ERR, "ld r5, log_space_total", 3},
	{"cq-mysql4", LOOP, "ld r4, refresh_pending", 2},
	{"cq-oo", LOOP, "ld r5, [r11+8]", 4},
	{"cq-click", ERR, "ld r2, depth", 1},
	{"cq-cherokee", OUT, "ld r2, bogo_now", 1},
}

// TestDesignedDistances checks every distance workloads/README.md states
// for the cq-* kernels: the read's shortest distance over the sites of the
// stated kind.
func TestDesignedDistances(t *testing.T) {
	for _, c := range designed {
		p, err := workloads.Program(c.kernel)
		if err != nil {
			t.Fatal(err)
		}
		a := analyze(t, p, Options{MaxDistance: 8})
		var pcs []int32
		for pc := range p.Instrs {
			text := p.InstrText(int32(pc)) + " "
			if p.Instrs[pc].Op == isa.OpLd && strings.Contains(text, c.read) {
				pcs = append(pcs, int32(pc))
			}
		}
		if len(pcs) == 0 {
			t.Fatalf("%s: no load matches %q", c.kernel, c.read)
		}
		best := -1
		for _, s := range a.Sites {
			if s.Site.Kind != c.kind {
				continue
			}
			for _, r := range s.Reads {
				for _, pc := range pcs {
					if r.PC == pc && (best < 0 || r.Distance < best) {
						best = r.Distance
					}
				}
			}
		}
		if best != c.dist {
			t.Errorf("%s %v %q: distance %d, want %d", c.kernel, c.kind, c.read, best, c.dist)
		}
	}
}

// TestMaxDistanceCurve checks that the designed critical reads of the
// eleven Table 3 rows are critical at MaxDistance 1..5 for 6/8/9/10/10
// rows (the static half of the paper's detection curve).
func TestMaxDistanceCurve(t *testing.T) {
	want := []int{6, 8, 9, 10, 10}
	for md := 1; md <= 5; md++ {
		found := map[string]bool{}
		for _, c := range designed {
			if c.kernel == "cq-click" || c.kernel == "cq-cherokee" {
				continue
			}
			found[c.kernel] = found[c.kernel] || false
			p, _ := workloads.Program(c.kernel)
			a := analyze(t, p, Options{MaxDistance: md})
			for _, s := range a.Sites {
				for _, r := range s.Reads {
					if s.Site.Kind == c.kind && p.Instrs[r.PC].Op == isa.OpLd &&
						strings.Contains(p.InstrText(r.PC)+" ", c.read) {
						found[c.kernel] = true
					}
				}
			}
		}
		n := 0
		for _, ok := range found {
			if ok {
				n++
			}
		}
		if len(found) != 11 || n != want[md-1] {
			t.Errorf("MaxDistance %d: %d of %d rows have their critical read, want %d of 11", md, n, len(found), want[md-1])
		}
	}
}

// TestAllKernels runs the analysis on every kernel: no panic, no error,
// and every LOOP site has a read inside its loop.
func TestAllKernels(t *testing.T) {
	for _, e := range workloads.List() {
		if e.Kind != workloads.Kernel {
			continue
		}
		p, err := workloads.Program(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		a := analyze(t, p, Options{MaxDistance: 5})
		for _, s := range a.Sites {
			if s.Site.Kind == LOOP && len(s.Reads) == 0 {
				t.Errorf("%s: LOOP site %v without reads", e.Name, s.Site)
			}
		}
	}
}

// wantReads checks a site's critical reads: exactly want, by
// instruction-text fragment, at the given distances.
func wantReads(t *testing.T, a *Analysis, site string, want map[string]int) {
	t.Helper()
	p := a.Prog
	got := readsOf(t, a, pcOf(t, p, site))
	for sub, d := range want {
		if g, ok := got[pcOf(t, p, sub)]; !ok || g != d {
			t.Errorf("%s (%v): %s at %d (present %v), want %d; all %v", site, a.Options.Model, sub, g, ok, d, got)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s (%v): reads %v, want exactly %v", site, a.Options.Model, got, want)
	}
}

// TestCallSiteControl: a site in a routine called under a guard depends,
// through the call, on the guard (review miss 1).
func TestCallSiteControl(t *testing.T) {
	p := asm(t, `
.data
x:  .word 0
y:  .word 0
z:  .word 0
.text
main:   ld    r1, x
        bnez  r1, skip
        call  report
skip:   ld    r2, y
        beqz  r2, done
        call  check
done:   exit
report: fail  "x clear"           # top level of report: under the call
        call  deeper
        ret
deeper: ld    r4, z
        beqz  r4, dd
        fail  "z clear"           # guarded inside deeper, which is under report's call
dd:     ret
check:  ld    r3, z
        assert r3, "z set"
        ret
`)
	a := analyze(t, p, Options{})
	// The call and the callee's entry statement are one step: the call's
	// guard is 1 from a fail at the start of the callee.
	wantReads(t, a, `fail "x clear"`, map[string]int{"ld r1, x": 1})
	// Through two calls: deeper's guard at 1, report's caller's guard at 2.
	wantReads(t, a, `fail "z clear"`, map[string]int{"ld r4, z": 1, "ld r1, x": 2})
	// An assert is its own guard: its operand at 1, the guard of its
	// routine's call at 2, as for an assert's control dependence inline.
	wantReads(t, a, "assert", map[string]int{"ld r3, z": 1, "ld r2, y": 2})
	// The instruction model counts the call edge.
	ai := analyze(t, p, Options{Model: Instruction})
	wantReads(t, ai, `fail "x clear"`, map[string]int{"ld r1, x": 3})
	wantReads(t, ai, "assert", map[string]int{"ld r3, z": 1, "ld r2, y": 3})
}

// TestThreadEntryRegisters: a register some path leaves undefined since
// its thread's entry (main's, or a spawned thread's, whose r1 is the
// spawn argument) is an unknown address base, not the value of the
// definitions on the other paths (review miss 2).
func TestThreadEntryRegisters(t *testing.T) {
	p := asm(t, `
.data
a:    .word 0
b:    .word 0
c:    .word 0
e:    .word 0
flag: .word 0
.text
main:   ld    r9, e
        st    r9, b
        ld    r3, flag
        beqz  r3, m1
        la    r7, a
m1:     ld    r8, [r7]            # r7: a, or undefined since main's entry
        out   r8
        call  mk                  # mk always sets r12
        ld    r11, [r12]          # exactly a: not b's store
        out   r11
        la    r2, b
        spawn r10, worker, r2
        join  r10
        exit
mk:     la    r12, a
        ret
worker: ld    r6, c
        st    r6, b
        ld    r4, flag
        beqz  r4, use
        la    r1, a
use:    ld    r5, [r1]            # r1: a, or the spawn argument (b)
        out   r5
        exit
`)
	a := analyze(t, p, Options{})
	// b's store is in the slice through the load's unknown address; the
	// flag load guards the la defining the base.
	wantReads(t, a, "out r5", map[string]int{"ld r5": 1, "ld r6, c": 2, "ld r4, flag": 3})
	wantReads(t, a, "out r8", map[string]int{"ld r8": 1, "ld r9, e": 2, "ld r3, flag": 3})
	// A register the callee defines on every path to its ret is exact
	// after the call.
	wantReads(t, a, "out r11", map[string]int{"ld r11": 1})
}

// TestIrreducibleLoop: a cycle entered at two blocks (no natural loop)
// has LOOP sites at its exit branches, and so does one nested in a
// natural loop (review miss 3).
func TestIrreducibleLoop(t *testing.T) {
	p := asm(t, `
.data
x:  .word 0
y:  .word 0
z:  .word 0
.text
main:   ld    r1, x
        bnez  r1, inb             # enters the cycle at inb
ina:    ld    r2, y               # ... or at ina
        bnez  r2, done            # leaves it
inb:    ld    r3, z
        beqz  r3, ina             # back to ina, or leaves it
done:   exit
`)
	a := analyze(t, p, Options{})
	if len(a.CFG.Loops) != 0 {
		t.Fatalf("natural loops %v: the test wants none", a.CFG.Loops)
	}
	// Only members inside the cycle: x is read before it.
	wantReads(t, a, "bnez r2", map[string]int{"ld r2, y": 0, "ld r3, z": 1})
	wantReads(t, a, "beqz r3", map[string]int{"ld r3, z": 0, "ld r2, y": 1})
	for _, s := range a.Sites {
		if s.Site.Kind != LOOP || s.Site.Loop != 0 {
			t.Errorf("site %v loop %d, want LOOP sites of region 0", s.Site, s.Site.Loop)
		}
	}

	// The same cycle inside a natural loop: the natural loop's body holds
	// it, but its exits (to the latch) leave only the cycle.
	p = asm(t, `
.data
x:  .word 0
y:  .word 0
z:  .word 0
.text
main:   li    r6, 0
outer:  ld    r1, x
        bnez  r1, inb
ina:    ld    r2, y
        bnez  r2, next
inb:    ld    r3, z
        beqz  r3, ina
next:   add   r6, r6, 1
        blt   r6, 10, outer
        exit
`)
	a = analyze(t, p, Options{})
	if len(a.CFG.Loops) != 1 {
		t.Fatalf("natural loops %v: the test wants one", a.CFG.Loops)
	}
	wantReads(t, a, "bnez r2", map[string]int{"ld r2, y": 0, "ld r3, z": 1})
	s, _ := a.Site(pcOf(t, p, "bnez r2"))
	if s.Site.Loop < len(a.CFG.Loops) {
		t.Errorf("site %v: loop %d is a natural loop, want the irreducible region", s.Site, s.Site.Loop)
	}
}

// TestNonReturningCall: a call whose callee cannot return (it exits, or
// only calls such routines, or loops forever) does not fall through, so
// what follows depends on the branch that avoids it and sees no
// definition made before it (review miss 4).
func TestNonReturningCall(t *testing.T) {
	p := asm(t, `
.data
x:  .word 0
y:  .word 0
z:  .word 0
u:  .word 0
v:  .word 0
w:  .word 0
.text
main:   ld    r3, w
        ld    r1, x
        bnez  r1, ok
        ld    r3, v               # dead: die2 never returns
        call  die2
ok:     out   r3
        ld    r4, u
        call  maybe               # maybe can return
        out   r4
        ld    r6, y
        beqz  r6, fin
        call  spin
fin:    ld    r7, z
        out   r7
        exit
die2:   call  die                 # die never returns, so neither does die2
        ret
die:    fail  "fatal"
        exit
maybe:  ld    r5, y
        beqz  r5, mret
        call  die
mret:   ret
spin:   jmp   spin
`)
	a := analyze(t, p, Options{})
	// Everything after ok runs only when x is set.
	wantReads(t, a, "out r3", map[string]int{"ld r3, w": 1, "ld r1, x": 1})
	wantReads(t, a, "out r4", map[string]int{"ld r4, u": 1, "ld r1, x": 1})
	wantReads(t, a, "out r7", map[string]int{"ld r7, z": 1, "ld r6, y": 1, "ld r1, x": 2})
}

// TestNestedLoopExit: a branch that leaves an inner and an outer loop is
// a LOOP site for each, the outer one keeping the outer body's reads
// (review miss 5).
func TestNestedLoopExit(t *testing.T) {
	p := asm(t, `
.data
run: .word 1
x:   .word 0
.text
main:   li    r2, 0
outer:  ld    r1, run             # outer body only
inner:  ld    r3, x
        add   r4, r3, r1
        beqz  r4, done            # leaves both loops
        add   r2, r2, 1
        blt   r2, 5, inner        # leaves the inner loop only
        jmp   outer
done:   exit
`)
	a := analyze(t, p, Options{})
	if len(a.CFG.Loops) != 2 {
		t.Fatalf("natural loops %v: the test wants two", a.CFG.Loops)
	}
	pc := pcOf(t, p, "beqz r4")
	var got []SiteReads
	for _, s := range a.Sites {
		if s.Site.PC == pc {
			got = append(got, s)
		}
	}
	if len(got) != 2 {
		t.Fatalf("sites at the branch: %v, want one per loop", got)
	}
	inner, outer := got[0], got[1]
	if li, lo := len(a.CFG.Loops[inner.Site.Loop].Body), len(a.CFG.Loops[outer.Site.Loop].Body); li != 2 || lo != 4 {
		t.Errorf("loops of the sites have %d and %d blocks, want the inner (2) then the outer (4)", li, lo)
	}
	m := func(s SiteReads) map[int32]int {
		r := map[int32]int{}
		for _, c := range s.Reads {
			r[c.PC] = c.Distance
		}
		return r
	}
	if r := m(inner); len(r) != 1 || r[pcOf(t, p, "ld r3")] != 0 {
		t.Errorf("inner site reads %v, want x at 0 only", r)
	}
	if r := m(outer); len(r) != 2 || r[pcOf(t, p, "ld r3")] != 0 || r[pcOf(t, p, "ld r1")] != 1 {
		t.Errorf("outer site reads %v, want x at 0 and run at 1", r)
	}
	if s, ok := a.Site(pc); !ok || s.Site.Loop != inner.Site.Loop {
		t.Errorf("Site(pc) = %v, want the inner loop's", s.Site)
	}
	sl := a.Slice(outer.Site)
	if sl[pcOf(t, p, "ld r1")] != 1 {
		t.Errorf("outer slice %v: want run at 1", sl)
	}
	if _, ok := a.Slice(inner.Site)[pcOf(t, p, "ld r1")]; ok {
		t.Error("inner slice keeps the outer body's read")
	}
	// The inner-only exit is one site.
	n := 0
	for _, s := range a.Sites {
		if s.Site.PC == pcOf(t, p, "blt r2") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("%d sites at the inner-only exit, want 1", n)
	}
}
