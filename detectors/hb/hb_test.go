package hb

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
)

// The hand-built programs below put the interesting accesses on labels
// (r_ for reads, w_ for writes, ...) and order them with `work`, long
// against the machine's memory latency, so each run has one interleaving.
// Findings are compared as "earlier-label later-label" pairs.

// run runs src with the FastTrack detector and the full-VC oracle
// attached and checks they agree. It returns the findings, the program and
// the run's outcome.
func run(t *testing.T, src string, opts Options) ([]core.Finding, *isa.Program, string) {
	t.Helper()
	prog, err := isa.Assemble("t.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), prog)
	d, o := New(prog, opts), NewFullVC(prog, opts)
	r, err := sim.Run(cfg, prog, 1, sim.WithObserver(d.Kinds(), d), sim.WithObserver(o.Kinds(), o))
	if err != nil {
		t.Fatal(err)
	}
	fs := d.Findings()
	if of := o.Findings(); !reflect.DeepEqual(fs, of) {
		t.Errorf("FastTrack and full VC disagree:\nfasttrack %v\nfull vc   %v", fs, of)
	}
	return fs, prog, r.Outcome.String()
}

// pairs names each finding's PCs by their labels.
func pairs(prog *isa.Program, fs []core.Finding) []string {
	name := map[int32]string{}
	for _, l := range prog.Labels {
		name[l.PC] = l.Name
	}
	var out []string
	for _, f := range fs {
		var s []string
		for _, pc := range f.PCs {
			n, ok := name[pc]
			if !ok {
				n = fmt.Sprintf("pc%d", pc)
			}
			s = append(s, n)
		}
		out = append(out, strings.Join(s, " "))
	}
	slices.Sort(out)
	return out
}

// prog3 is a program of main and two threads a and b, each running its
// body; main joins both and exits.
func prog3(data, a, b string) string {
	return `.kernel t
.cores 3
.data
x:  .space 2
    .align 64
y:  .word 0
    .align 64
L:  .word 0
    .align 64
M:  .word 0
    .align 64
B:  .word 0
    .align 64
cv: .word 0
` + data + `
.text
main: spawn r10, ta, r0
      spawn r11, tb, r0
      join  r10
      join  r11
      exit
ta:   li r3, 1
` + a + `
      exit
tb:   li r3, 1
` + b + `
      exit
`
}

// firstRaceProg races twice on x at w_c (with the concurrent reads r_a and
// r_b), twice more at w_a (with r_b and w_c), and once on y.
const firstRaceProg = `.kernel t
.cores 4
.data
x:  .word 0
    .align 64
y:  .word 0
.text
main: spawn r10, ta, r0
      spawn r11, tb, r0
      spawn r12, tc, r0
      join r10
      join r11
      join r12
      exit
ta:
r_a:  ld r2, x
      work 1500
w_a:  st r0, x
y_a:  st r0, y
      exit
tb:   work 200
r_b:  ld r2, x
      work 1800
y_b:  ld r2, y
      exit
tc:   work 1000
w_c:  st r0, x
      exit
`

func TestHandBuilt(t *testing.T) {
	casLock := func(p string) string {
		return p + `_spin: cas r2, L, r0, r3
      bnez r2, ` + p + `_spin
`
	}
	tests := []struct {
		name    string
		src     string
		opts    Options
		want    []string // "earlier later" label pairs, sorted
		outcome string   // "" means pass
	}{
		{
			name: "plain write then read races",
			src:  prog3("", "w_a:  st r3, x", "      work 1000\nr_b:  ld r2, x"),
			want: []string{"w_a r_b"},
		},
		{
			name: "read then write races, on x+8",
			src:  prog3("", "r_a:  ld r2, x+8", "      work 1000\nw_b:  st r3, x+8"),
			want: []string{"r_a w_b"},
		},
		{
			name: "two reads do not race",
			src:  prog3("", "r_a:  ld r2, x", "      work 1000\nr_b:  ld r2, x"),
		},
		{
			name: "different words do not race",
			src:  prog3("", "w_a:  st r3, x", "      work 1000\nw_b:  st r3, x+8"),
		},
		{
			name: "lock orders",
			src:  prog3("", "      lock L\nw_a:  st r3, x\n      unlock L", "      work 1000\n      lock L\nr_b:  ld r2, x\n      unlock L"),
		},
		{
			name: "lock orders nothing without lock edges",
			src:  prog3("", "      lock L\nw_a:  st r3, x\n      unlock L", "      work 1000\n      lock L\nr_b:  ld r2, x\n      unlock L"),
			opts: Options{NoLockEdges: true},
			want: []string{"w_a r_b"},
		},
		{
			name: "different locks do not order",
			src:  prog3("", "      lock L\nw_a:  st r3, x\n      unlock L", "      work 1000\n      lock M\nr_b:  ld r2, x\n      unlock M"),
			want: []string{"w_a r_b"},
		},
		{
			name: "write after the unlock races",
			src:  prog3("", "      lock L\n      unlock L\n      work 1000\nw_a:  st r3, x", "      work 500\n      lock L\nr_b:  ld r2, x\n      unlock L"),
			want: []string{"r_b w_a"},
		},
		{
			name: "barrier orders",
			src:  prog3("", "w_a:  st r3, x\n      barrier B, 2", "      barrier B, 2\nr_b:  ld r2, x"),
			opts: Options{NoLockEdges: true},
		},
		{
			name: "reused barrier orders each generation",
			src: prog3("",
				"w_a:  st r3, x\n      barrier B, 2\n      barrier B, 2\nr_a:  ld r2, y",
				"      barrier B, 2\nr_b:  ld r2, x\nw_b:  st r3, y\n      barrier B, 2"),
		},
		{
			name: "accesses in the same phase race",
			src:  prog3("", "      barrier B, 2\nw_a:  st r3, x", "      barrier B, 2\n      work 1000\nr_b:  ld r2, x"),
			want: []string{"w_a r_b"},
		},
		{
			name: "signal to wake orders without lock edges",
			src: prog3("",
				"      work 1000\nw_a:  st r3, x\n      lock M\n      csignal cv\n      unlock M",
				"      lock M\n      cwait cv, M\n      unlock M\nr_b:  ld r2, x"),
			opts: Options{NoLockEdges: true},
		},
		{
			name: "write after the signal races without lock edges",
			src: prog3("",
				"      work 1000\n      lock M\n      csignal cv\nw_a:  st r3, x\n      unlock M",
				"      lock M\n      cwait cv, M\n      unlock M\nr_b:  ld r2, x"),
			opts: Options{NoLockEdges: true},
			want: []string{"w_a r_b"},
		},
		{
			name: "write after the signal is ordered by the reacquire",
			src: prog3("",
				"      work 1000\n      lock M\n      csignal cv\nw_a:  st r3, x\n      unlock M",
				"      lock M\n      cwait cv, M\n      unlock M\nr_b:  ld r2, x"),
		},
		{
			name: "broadcast orders every waiter",
			src: prog3("",
				"      work 1000\nw_a:  st r3, x\n      lock M\n      cbcast cv\n      unlock M",
				"      lock M\n      cwait cv, M\n      unlock M\nr_b:  ld r2, x"),
			opts: Options{NoLockEdges: true},
		},
		{
			name: "cas spinlock orders",
			src: prog3("",
				casLock("a")+"w_a:  st r3, x\nx_a:  xchg r2, L, r0",
				"      work 1000\n"+casLock("b")+"r_b:  ld r2, x\nx_b:  xchg r2, L, r0"),
		},
		{
			name: "cas spinlock orders nothing without lock edges",
			src: prog3("",
				casLock("a")+"w_a:  st r3, x\nx_a:  xchg r2, L, r0",
				"      work 1000\n"+casLock("b")+"r_b:  ld r2, x\nx_b:  xchg r2, L, r0"),
			opts: Options{NoLockEdges: true},
			want: []string{"w_a r_b"},
		},
		{
			name: "cas spinlock races on the lock word when RMWs are plain",
			src: prog3("",
				casLock("a")+"w_a:  st r3, x\nx_a:  xchg r2, L, r0",
				"      work 1000\n"+casLock("b")+"r_b:  ld r2, x\nx_b:  xchg r2, L, r0"),
			opts: Options{RMWPlain: true},
			want: []string{"w_a r_b", "x_a b_spin", "x_a x_b"},
		},
		{
			name: "atomic counters do not race",
			src:  prog3("", "f_a:  fadd r2, y, 1", "      work 1000\nf_b:  fadd r2, y, 1"),
		},
		{
			name: "plain counters race",
			src:  prog3("", "f_a:  fadd r2, y, 1", "      work 1000\nf_b:  fadd r2, y, 1"),
			opts: Options{RMWPlain: true},
			want: []string{"f_a f_b"},
		},
		{
			name: "a plain read races with an atomic write",
			src:  prog3("", "f_a:  fadd r2, y, 1", "      work 1000\nr_b:  ld r2, y"),
			want: []string{"f_a r_b"},
		},
		{
			name: "an atomic write races with a plain read",
			src:  prog3("", "r_a:  ld r2, y", "      work 1000\nf_b:  fadd r2, y, 1"),
			want: []string{"r_a f_b"},
		},
		{
			name: "a failed cas is an atomic read",
			src:  prog3("", "r_a:  ld r2, y\n      work 2000\nc_a:  cas r2, y, r3, r3", "      work 1000\nc_b:  cas r2, y, r3, r3"),
			// c_b fails (y is 0, expected 1): it races with neither r_a
			// (both read) nor c_a (both atomic).
		},
		{
			name: "a failed cas reads, a plain write races with it",
			src:  prog3("", "c_a:  cas r2, y, r3, r3", "      work 1000\nw_b:  st r3, y"),
			want: []string{"c_a w_b"},
		},
		{
			name: "a failed plain cas is a read",
			src:  prog3("", "r_a:  ld r2, y", "      work 1000\nc_b:  cas r2, y, r3, r3"),
			opts: Options{RMWPlain: true},
		},
		{
			name: "an earlier access that happens before a closer race is not reported",
			src:  prog3("", "w_a1: st r3, x\n      work 500\nw_a2: st r3, x", "      work 1500\nr_b:  ld r2, x"),
			want: []string{"w_a2 r_b"},
		},
		{
			name: "every concurrent last write is reported",
			src: `.kernel t
.cores 4
.data
x:  .word 0
.text
main: spawn r10, ta, r0
      spawn r11, tb, r0
      spawn r12, tc, r0
      join r10
      join r11
      join r12
      exit
ta:
w_a:  st r0, x
      exit
tb:   work 500
w_b:  st r0, x
      exit
tc:   work 1000
r_c:  ld r2, x
      exit
`,
			want: []string{"w_a r_c", "w_a w_b", "w_b r_c"},
		},
		{
			name: "every race per word",
			src:  firstRaceProg,
			want: []string{"r_a w_c", "r_b w_a", "r_b w_c", "w_c w_a", "y_a y_b"},
		},
		{
			name: "first race per word only",
			src:  firstRaceProg,
			opts: Options{FirstRacePerVar: true},
			want: []string{"r_a w_c", "y_a y_b"},
		},
		{
			name: "spawn and join order",
			src: `.kernel t
.cores 2
.data
x:  .word 0
.text
main:
w_m:  st r0, x
      spawn r10, ta, r0
      join r10
r_m:  ld r2, x
      exit
ta:
r_a:  ld r2, x
w_a:  st r0, x
      exit
`,
			opts: Options{NoLockEdges: true},
		},
		{
			name: "write after the spawn races",
			src: `.kernel t
.cores 2
.data
x:  .word 0
.text
main: spawn r10, ta, r0
w_m:  st r0, x
      join r10
      exit
ta:   work 1000
r_a:  ld r2, x
      exit
`,
			want: []string{"w_m r_a"},
		},
		{
			name: "free is a write to every freed word",
			src: `.kernel t
.cores 2
.text
main: alloc r10, 2
      spawn r11, ta, r10
      work 1000
f_m:  free [r10], 2
      join r11
      exit
ta:
r_a:  ld r2, [r1+8]
      exit
`,
			want: []string{"r_a f_m"},
		},
		{
			name: "free after join does not race",
			src: `.kernel t
.cores 2
.text
main: alloc r10, 2
      spawn r11, ta, r10
      join r11
f_m:  free [r10], 2
      exit
ta:
r_a:  ld r2, [r1+8]
      exit
`,
		},
		{
			name: "a faulting load of freed memory races with the free",
			src: `.kernel t
.cores 2
.text
main: alloc r10, 2
      spawn r11, ta, r10
f_m:  free [r10], 2
      join r11
      exit
ta:   work 1000
r_a:  ld r2, [r1+8]
      exit
`,
			want:    []string{"f_m r_a"},
			outcome: "crash",
		},
		{
			name: "a faulting store of freed memory races with the free",
			src: `.kernel t
.cores 2
.text
main: alloc r10, 2
      spawn r11, ta, r10
f_m:  free [r10], 2
      join r11
      exit
ta:   work 1000
w_a:  st r0, [r1]
      exit
`,
			want:    []string{"f_m w_a"},
			outcome: "crash",
		},
		{
			name: "a null-page crash is no access",
			src: `.kernel t
.cores 2
.data
x:  .word 0
.text
main: spawn r11, ta, r0
w_m:  st r0, x
      join r11
      exit
ta:   work 1000
      ld r2, [r0+8]
      exit
`,
			outcome: "crash",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fs, prog, outcome := run(t, tc.src, tc.opts)
			want := tc.outcome
			if want == "" {
				want = "pass"
			}
			if outcome != want {
				t.Fatalf("outcome %s, want %s: the program does not run as the test means", outcome, want)
			}
			if got := pairs(prog, fs); !slices.Equal(got, tc.want) {
				t.Errorf("races %q, want %q\n%v", got, tc.want, fs)
			}
		})
	}
}

// TestFinding checks one finding's fields and message.
func TestFinding(t *testing.T) {
	fs, prog, _ := run(t, prog3("", "r_a:  ld r2, x+8", "      work 1000\nw_b:  fadd r2, x+8, 1"), Options{})
	ra, _ := prog.LabelPC("r_a")
	wb, _ := prog.LabelPC("w_b")
	x, _ := prog.SymbolAddr("x")
	want := []core.Finding{{
		Detector: "hb",
		Kind:     "race",
		PCs:      []int32{ra, wb},
		Addr:     x + 8,
		Score:    1,
		Message:  fmt.Sprintf("race on x+8: ld by thread 1 (pc %d) and atomic fadd by thread 2 (pc %d) are not ordered by happens-before", ra, wb),
	}}
	if !reflect.DeepEqual(fs, want) {
		t.Errorf("findings\n%+v\nwant\n%+v", fs, want)
	}
	fs, _, _ = run(t, prog3("", "r_a:  ld r2, x+8", "      work 1000\nw_b:  fadd r2, x+8, 1"), Options{RMWPlain: true})
	if len(fs) != 1 || !strings.Contains(fs[0].Message, " and fadd by thread 2") {
		t.Errorf("plain RMW message: %v", fs)
	}
}

// TestOnePerPair checks that a pair racing many times is one finding, and
// that the two orders of a pair are two.
func TestOnePerPair(t *testing.T) {
	src := prog3("",
		"      li r4, 0\nloop_a: work 300\nw_a:  st r3, y\n      add r4, r4, 1\n      blt r4, 5, loop_a",
		"      li r4, 0\nloop_b: work 300\nr_b:  ld r2, y\n      add r4, r4, 1\n      blt r4, 5, loop_b")
	fs, prog, _ := run(t, src, Options{})
	got := pairs(prog, fs)
	if !slices.Equal(got, []string{"r_b w_a", "w_a r_b"}) {
		t.Errorf("races %q, want both orders once", got)
	}
}

func TestKinds(t *testing.T) {
	prog := &isa.Program{}
	for _, tc := range []struct {
		opts    Options
		lockSet bool
	}{{Options{}, true}, {Options{NoLockEdges: true}, false}, {Options{RMWPlain: true, FirstRacePerVar: true}, true}} {
		m := New(prog, tc.opts).Kinds()
		for _, k := range []core.Kind{core.KindRead, core.KindWrite, core.KindRMW, core.KindSpawn, core.KindJoin,
			core.KindCondSignal, core.KindCondWake, core.KindBarrierArrive, core.KindBarrierLeave, core.KindFree, core.KindCrash} {
			if !m.Has(k) {
				t.Errorf("%+v: Kinds lacks %s", tc.opts, k)
			}
		}
		if m.Has(core.KindAcquire) != tc.lockSet || m.Has(core.KindRelease) != tc.lockSet {
			t.Errorf("%+v: Acquire/Release in Kinds is %v, want %v", tc.opts, m.Has(core.KindAcquire), tc.lockSet)
		}
		for k := core.KindBusRd; k < core.NumKinds; k++ {
			if m.Has(k) {
				t.Errorf("%+v: Kinds has %s", tc.opts, k)
			}
		}
		if m.Has(core.KindCondWait) || m.Has(core.KindThreadExit) || m.Has(core.KindOutput) {
			t.Errorf("%+v: Kinds has kinds it does not need: %b", tc.opts, m)
		}
	}
	if n := New(prog, Options{}).Name(); n != "hb" {
		t.Errorf("Name %q", n)
	}
}
