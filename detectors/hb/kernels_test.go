package hb

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

const kernelSeeds = 50

// bugKernels says, for every kernel with a bug, whether its bug is a data
// race under happens-before, from the detector columns of
// workloads/README.md (PSet Table 1's DRD column, ConSeq Table 3's Race
// column, the hb notes of the Bugaboo, Falcon and inference tables). A
// race kernel must show a race involving an @bug instruction in at least
// one of kernelSeeds seeds (passing and failing runs alike); a race-free
// one must never.
var bugKernels = map[string]struct {
	race   bool
	reason string
}{
	// PSet Table 1 (DRD column: rows 3, 7, 15, 16, 17 are race-free).
	"pbzip2-uaf":             {true, "pset:1: a consumer's poll of the queue and main's free are unordered"},
	"pset-aget":              {true, "pset:2: the handler reads bwritten without the mutex the workers store it under"},
	"pset-pfscan":            {false, "pset:3: every access holds aworker_lock"},
	"pset-apache-log":        {true, "pset:4: appends use no lock at all"},
	"mysql-binlog":           {true, "pset:5: the insert tests log_type without LOCK_log"},
	"pset-mysql-idinit":      {true, "pset:6: W and R of dynamicId are unordered"},
	"pset-moz-script":        {false, "pset:7: every access to gCurrentScript holds the lock"},
	"pset-moz-zipseek":       {true, "pset:8: the run-once test and the walk are unlocked"},
	"pset-moz-nsslock":       {true, "pset:9: the check-and-clear of the lock pointer is unlocked"},
	"pset-moz-filetransport": {true, "pset:10: the listener's read of mStatus is unlocked"},
	"pset-moz-nsthread":      {true, "pset:11: Init's store and Main's read of mThread are unordered (seen in passing runs: failing ones crash first)"},
	"pset-moz-macio":         {true, "pset:12: the callback's read and the I/O thread's store of io_pending are unordered"},
	"pset-moz-imap":          {true, "pset:13: the post/wait edge does not order the stream store before the read"},
	"pset-moz-http":          {true, "pset:14: as row 11, seen in passing runs"},
	"pset-moz-timer":         {false, "pset:15: everything holds the monitor"},
	"pset-moz-multivar":      {false, "pset:16: each variable is accessed under its own lock"},
	"pset-ldap-deadlock":     {false, "pset:17: a deadlock, no race"},

	// Bugaboo Table 1.
	"counter-race":     {true, "bugaboo:1: the balance ld/st are unlocked"},
	"bb-circular-list": {false, "bugaboo:2: every access is locked or fadd"},
	"bb-log-sweep":     {false, "bugaboo:3: every log access is locked"},
	"bb-multi-order":   {true, "bugaboo:4: slot and ack are unsynchronised in every run"},
	"bb-moz-jsstr":     {false, "bugaboo:5: every access is under the GC lock"},
	"bb-moz-jsinterp":  {true, "bugaboo:6: cache_full and cache_ent have no common lock"},
	"bb-moz-macnetio":  {true, "bugaboo:7: s_valid and s_data are unsynchronised"},
	"bb-moz-txtframe":  {true, "bugaboo:8: f_off and f_len are unsynchronised"},

	// ConSeq Table 3 (Race column: Moz2, Moz3 and MySQL3 only).
	"cq-aget1":    {false, "Aget1: every access holds bwritten_mutex"},
	"cq-fft":      {false, "FFT: every access holds Global->lock"},
	"cq-mysql1":   {false, "MySQL1: every access holds LOCK_log"},
	"cq-moz1":     {false, "Moz1: every access holds the monitor"},
	"cq-mysql2":   {false, "MySQL2: every access holds LOG_lock"},
	"cq-trans":    {false, "Trans: both accesses hold the session lock"},
	"cq-moz2":     {true, "Moz2: unlocked reads and stores of the free count"},
	"cq-moz3":     {true, "Moz3: mCount and mArray have no lock or order"},
	"cq-mysql3":   {true, "MySQL3: unlocked read-modify-writes of log_space_total"},
	"cq-mysql4":   {false, "MySQL4: every access holds LOCK_open"},
	"cq-oo":       {false, "OO: every access holds the condition's mutex"},
	"cq-click":    {false, "Click: every _depth access holds the master mutex"},
	"cq-cherokee": {false, "Cherokee: every access is locked"},

	// Falcon Table 3.
	"falcon-account":         {true, "Account: A's balance is accessed under two different locks"},
	"falcon-airlinestickets": {true, "AirlinesTickets: main reads stopSales without the sales lock"},
	"falcon-bubblesort2":     {true, "BubbleSort2: the passes share the array unsynchronised"},
	"falcon-bufwriter":       {true, "BufWriter: pos is read without the buffer lock"},
	"falcon-lottery":         {true, "Lottery: the claim's read and the next draw's store are unordered between barriers"},
	"falcon-mergesort":       {false, "MergeSort: every busy access holds the lock (the array race is a symptom, not @bug)"},
	"falcon-shop":            {true, "Shop: the look reads stock without the lock"},
	"falcon-arraylist":       {true, "ArrayList: the iterator reads modCount without l2's mutex"},
	"falcon-hashset":         {true, "HashSet: the iterator reads modCount without hs2's mutex"},
	"falcon-stringbuffer":    {false, "StringBuffer: every access holds sb2's lock"},
	"falcon-treeset":         {true, "TreeSet: the iterator reads modCount and links without ts2's mutex"},
	"falcon-vector":          {false, "Vector: every access to v2 holds v2's lock"},
	"falcon-cache4j":         {false, "Cache4j: every access holds the cache lock"},
	"falcon-hedc":            {true, "Hedc: the pool count has no lock at all"},
	"falcon-raytracer":       {true, "RayTracer: the total is updated under three different locks"},

	// Interleaving-inference scenarios (the hb notes of their table).
	"infer-k1-commutativity":  {true, "K1: y++ races when task locks first"},
	"infer-k1-loop":           {true, "K1: y++ races when task's first lock precedes main's"},
	"infer-k1-copies":         {true, "K1: y races when some copy locks before main"},
	"infer-k1-read-write":     {true, "K1: cfg races when the updater locks first"},
	"infer-k1-visible":        {true, "K1: the y++ race is unordered in every run"},
	"infer-lock-chain":        {true, "data races when the lock chain is broken"},
	"infer-different-locks":   {true, "the counter is updated under two different locks"},
	"infer-k2-lock-order":     {false, "a deadlock, no race"},
	"infer-lock-order-3":      {false, "a deadlock, no race"},
	"infer-lock-order-nested": {false, "a deadlock, no race"},
	"infer-join-holding-lock": {false, "a deadlock, no race"},
	"infer-wait-holding-lock": {false, "a deadlock, no race"},
	// The README says "every run"; under happens-before only the runs where
	// the signaller's lock does not follow the waiter's cwait release.
	"infer-lost-wakeup":          {true, "ready: unlocked read against a locked write"},
	"infer-signal-not-broadcast": {false, "a lost wake-up with everything under m, no race"},
	"infer-signal-before-data":   {true, "payload is written after the signal"},
	"infer-barrier-mismatch":     {true, "nparts is written after the fork"},
	"infer-barrier-missing":      {true, "scale is written and read in the same phase"},
	"infer-k7-path-dependent":    {true, "x or z races, by path"},
	"infer-k8-segment-races":     {true, "lo and hi race when the merger locks first"},
	"infer-k9-overlapping":       {true, "force cells are updated without the lock"},
	"infer-k10-window":           {true, "x++ races in every run (no window)"},
	"infer-write-after-fork":     {true, "cfg is written after the spawn"},
	"infer-access-before-join":   {true, "result is read before the join"},
	"infer-join-wrong-child":     {true, "res_slow is read before its child is joined"},
}

// correctRaces lists the correct kernels (class none) that really race:
// the symbols hb must report, and nothing else. Every other correct kernel
// must give no finding at all.
var correctRaces = map[string][]string{
	// Plain-load flag synchronisation, correct under SC, invisible to hb.
	"msgpass":          {"ack", "flag", "msg", "msg+8"},
	"infer-adhoc-flag": {"flag", "msg"},
	// The unlocked pruning read of minTour is a benign race.
	"falcon-tsp": {"minTour"},
}

// kernel is one kernel with its program and the config to run it on.
type kernel struct {
	name string
	prog *isa.Program
	cfg  configs.Config
}

var kernelsOnce = sync.OnceValues(func() ([]kernel, error) {
	var ks []kernel
	for _, e := range workloads.List() {
		if e.Kind != workloads.Kernel {
			continue
		}
		prog, err := workloads.Program(e.Name)
		if err != nil {
			return nil, err
		}
		cfg, _ := sim.FitCores(configs.Default(), prog)
		ks = append(ks, kernel{e.Name, prog, cfg})
	}
	return ks, nil
})

func kernels(t *testing.T) []kernel {
	t.Helper()
	ks, err := kernelsOnce()
	if err != nil {
		t.Fatal(err)
	}
	return ks
}

// detect runs k with seed under a detector made by mk and returns its
// findings and the run's outcome.
func detect(t *testing.T, k kernel, seed uint64, d *Detector) ([]core.Finding, string) {
	t.Helper()
	r, err := sim.Run(k.cfg, k.prog, seed, sim.WithObserver(d.Kinds(), d))
	if err != nil {
		t.Fatal(err)
	}
	return d.Findings(), r.Outcome.String()
}

// TestBugKernels checks every bug kernel against its expectation over
// kernelSeeds seeds.
func TestBugKernels(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range kernels(t) {
		if k.prog.Class == "" || k.prog.Class == workloads.ClassNone {
			continue
		}
		seen[k.name] = true
		want, ok := bugKernels[k.name]
		if !ok {
			t.Errorf("%s (%s): not classified in bugKernels; say whether its bug is a data race", k.name, k.prog.Class)
			continue
		}
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			bug := k.prog.BugPCs()
			hits, failing, failingHits := 0, 0, 0
			var example core.Finding
			for seed := uint64(1); seed <= kernelSeeds; seed++ {
				fs, outcome := detect(t, k, seed, New(k.prog, Options{}))
				hit := false
				for _, f := range fs {
					if f.Involves(bug) {
						hit, example = true, f
						break
					}
				}
				if outcome != "pass" {
					failing++
				}
				if hit {
					hits++
					if outcome != "pass" {
						failingHits++
					}
				}
			}
			t.Logf("%s: @bug race in %d/%d seeds (%d/%d failing runs); %s", k.name, hits, kernelSeeds, failingHits, failing, want.reason)
			switch {
			case want.race && hits == 0:
				t.Errorf("no race involving an @bug instruction in %d seeds; expected one: %s", kernelSeeds, want.reason)
			case !want.race && hits > 0:
				t.Errorf("race involving an @bug instruction in %d seeds, e.g. %s; expected none: %s", hits, example.Message, want.reason)
			}
		})
	}
	for name := range bugKernels {
		if !seen[name] {
			t.Errorf("bugKernels lists %s, which is not a bug kernel", name)
		}
	}
}

// TestCorrectKernels checks that correct kernels give no finding, except
// the few that really race, which give exactly their racing words.
func TestCorrectKernels(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range kernels(t) {
		if k.prog.Class != workloads.ClassNone {
			continue
		}
		seen[k.name] = true
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			want := correctRaces[k.name]
			got := map[string]bool{}
			for seed := uint64(1); seed <= kernelSeeds; seed++ {
				d := New(k.prog, Options{})
				fs, outcome := detect(t, k, seed, d)
				if outcome != "pass" {
					t.Fatalf("seed %d: outcome %s", seed, outcome)
				}
				for _, f := range fs {
					got[d.where(f.Addr)] = true
				}
			}
			if g := slices.Sorted(maps.Keys(got)); !slices.Equal(g, want) {
				t.Errorf("racing words %q over %d seeds, want %q", g, kernelSeeds, want)
			}
		})
	}
	for name := range correctRaces {
		if !seen[name] {
			t.Errorf("correctRaces lists %s, which is not a correct kernel", name)
		}
	}
}

// optionSets are the variants the FastTrack/full-VC comparison covers.
var optionSets = []Options{
	{},
	{RMWPlain: true},
	{NoLockEdges: true},
	{FirstRacePerVar: true},
	{NoLockEdges: true, RMWPlain: true, FirstRacePerVar: true},
}

// TestFastTrackMatchesFullVC runs both detectors side by side on every
// kernel and checks they report the same findings.
func TestFastTrackMatchesFullVC(t *testing.T) {
	for _, k := range kernels(t) {
		t.Run(k.name, func(t *testing.T) {
			t.Parallel()
			for _, opts := range optionSets {
				for seed := uint64(1); seed <= 4; seed++ {
					compare(t, k.cfg, k.prog, seed, opts)
				}
			}
		})
	}
}

func compare(t *testing.T, cfg configs.Config, prog *isa.Program, seed uint64, opts Options) int {
	t.Helper()
	ft, vc := New(prog, opts), NewFullVC(prog, opts)
	if _, err := sim.Run(cfg, prog, seed, sim.WithObserver(ft.Kinds(), ft), sim.WithObserver(vc.Kinds(), vc)); err != nil {
		t.Fatal(err)
	}
	a, b := ft.Findings(), vc.Findings()
	if !reflect.DeepEqual(a, b) {
		t.Errorf("seed %d %+v: FastTrack and full VC disagree\nfasttrack %v\nfull vc   %v", seed, opts, a, b)
	}
	return len(a)
}

// TestRandomProgramsMatchFullVC compares the two detectors on random
// programs that race heavily: four threads mixing plain, atomic and locked
// accesses to a few words, with barriers between phases, so words move
// through every shadow state.
func TestRandomProgramsMatchFullVC(t *testing.T) {
	total := 0
	for i := range 40 {
		src := randomProgram(rand.New(rand.NewPCG(uint64(i), 7)))
		prog, err := isa.Assemble("rand.s", []byte(src))
		if err != nil {
			t.Fatalf("program %d: %v\n%s", i, err, src)
		}
		cfg, _ := sim.FitCores(configs.Default(), prog)
		for _, opts := range optionSets {
			for seed := uint64(1); seed <= 3; seed++ {
				total += compare(t, cfg, prog, seed, opts)
			}
		}
	}
	if total < 1000 {
		t.Errorf("only %d findings over all random runs: the programs do not race enough to test anything", total)
	}
}

func randomProgram(r *rand.Rand) string {
	var b strings.Builder
	b.WriteString(".kernel rand\n.cores 4\n.data\nx: .space 4\n   .align 64\nL: .word 0\n   .align 64\nM: .word 0\n   .align 64\nB: .word 0\n.text\n")
	b.WriteString("main: spawn r10, t1, r0\n      spawn r11, t2, r0\n      spawn r12, t3, r0\n")
	phases := 1 + r.IntN(3)
	body := func() {
		b.WriteString("      li r3, 1\n")
		for p := range phases {
			if p > 0 {
				b.WriteString("      barrier B, 4\n")
			}
			for range 4 + r.IntN(10) {
				w := fmt.Sprintf("x+%d", 8*r.IntN(4))
				switch r.IntN(9) {
				case 0, 1:
					fmt.Fprintf(&b, "      ld r2, %s\n", w)
				case 2, 3:
					fmt.Fprintf(&b, "      st r3, %s\n", w)
				case 4:
					fmt.Fprintf(&b, "      fadd r2, %s, 1\n", w)
				case 5:
					fmt.Fprintf(&b, "      cas r2, %s, r0, r3\n", w)
				case 6:
					fmt.Fprintf(&b, "      xchg r2, %s, r3\n", w)
				case 7:
					l := []string{"L", "M"}[r.IntN(2)]
					fmt.Fprintf(&b, "      lock %s\n      ld r2, %s\n      st r3, %s\n      unlock %s\n", l, w, w, l)
				case 8:
					fmt.Fprintf(&b, "      delay 0, %d\n", 50+r.IntN(400))
				}
			}
		}
		b.WriteString("      exit\n")
	}
	b.WriteString("      li r3, 1\n")
	for range 3 + r.IntN(5) {
		fmt.Fprintf(&b, "      st r3, x+%d\n", 8*r.IntN(4))
	}
	// main is the fourth participant of the barriers.
	for p := 1; p < phases; p++ {
		b.WriteString("      barrier B, 4\n")
		fmt.Fprintf(&b, "      ld r2, x+%d\n", 8*r.IntN(4))
	}
	b.WriteString("      join r10\n      join r11\n      join r12\n      ld r2, x\n      exit\n")
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, "t%d:\n", i)
		body()
	}
	return b.String()
}

// TestPassive checks that attaching the detector leaves the run's result
// byte for byte the same.
func TestPassive(t *testing.T) {
	for _, name := range []string{"pbzip2-uaf", "msgpass", "histogram", "prodcons", "stencil", "pset-moz-nsthread", "infer-k9-overlapping"} {
		prog, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := sim.FitCores(configs.Default(), prog)
		for seed := uint64(1); seed <= 3; seed++ {
			plain, err := sim.Run(cfg, prog, seed)
			if err != nil {
				t.Fatal(err)
			}
			d := New(prog, Options{})
			watched, err := sim.Run(cfg, prog, seed, sim.WithObserver(d.Kinds(), d))
			if err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(plain)
			b, _ := json.Marshal(watched)
			if !bytes.Equal(a, b) {
				t.Errorf("%s seed %d: the result changes when hb watches:\n%s\n%s", name, seed, a, b)
			}
		}
	}
}

// TestDeterministic checks that two runs of the same seed give the same
// findings, in the same order.
func TestDeterministic(t *testing.T) {
	prog, err := workloads.Program("falcon-bubblesort2")
	if err != nil {
		t.Fatal(err)
	}
	k := kernel{"falcon-bubblesort2", prog, configs.Default()}
	a, _ := detect(t, k, 5, New(prog, Options{}))
	b, _ := detect(t, k, 5, New(prog, Options{}))
	if len(a) < 5 || !reflect.DeepEqual(a, b) {
		t.Errorf("findings differ between equal runs or are too few:\n%v\n%v", a, b)
	}
	if !slices.IsSortedFunc(a, core.CompareFindings) {
		t.Errorf("findings are not sorted")
	}
}

// TestProfiles checks that the race-free synthetic profiles give no
// finding (one seed, four cores: they are large).
func TestProfiles(t *testing.T) {
	for _, e := range workloads.List() {
		if e.Kind != workloads.Profile {
			continue
		}
		t.Run(e.Name, func(t *testing.T) {
			t.Parallel()
			prog, err := workloads.ProgramFor(e.Name, 4)
			if err != nil {
				t.Fatal(err)
			}
			cfg := configs.Default()
			cfg.Machine.Cores = 4
			fs, outcome := detect(t, kernel{e.Name, prog, cfg}, 1, New(prog, Options{}))
			if outcome != "pass" || len(fs) > 0 {
				t.Errorf("outcome %s, %d findings: %v", outcome, len(fs), fs)
			}
		})
	}
}
