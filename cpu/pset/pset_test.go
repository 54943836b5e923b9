package pset_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/detectors/pset"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// hwLog collects the hardware's violations: (predecessor, instruction)
// pairs the run proceeded with, and the stalls.
type hwLog struct {
	pairs  map[[2]int32]bool
	raw    map[[2]int32]bool // the pairs some RAW check reported
	stalls int
}

func (l *hwLog) Observe(e *core.Event) {
	if e.Kind != core.KindPSetViolation {
		return
	}
	if e.Words[3] != 0 {
		l.stalls++
		return
	}
	p := [2]int32{int32(e.Words[0]), e.PC}
	l.pairs[p] = true
	if e.Words[2] == 0 {
		l.raw[p] = true
	}
}

// train learns PSets in software from the passing runs of seeds 1..n.
func train(t *testing.T, cfg configs.Config, prog *isa.Program, n int) isa.PSets {
	t.Helper()
	tr := pset.NewTrainer(prog, pset.Options{})
	for s := uint64(1); s <= uint64(n); s++ {
		rec := tr.NewRun()
		r, err := sim.Run(cfg, prog, s, sim.WithDetector(rec))
		if err != nil {
			t.Fatal(err)
		}
		if r.Outcome == core.Pass {
			tr.Add(rec)
		}
	}
	return tr.PSets()
}

// train0 learns a kernel's PSets from the passing runs of seeds 1..n on
// its default machine.
func train0(t *testing.T, name string, n int) isa.PSets {
	t.Helper()
	prog, err := workloads.Program(name)
	if err != nil {
		t.Fatal(err)
	}
	return train(t, kernelConfig(prog), prog, n)
}

// pairList lists a pair set in order, for messages.
func pairList(m map[[2]int32]bool) [][2]int32 {
	return slices.SortedFunc(maps.Keys(m), func(a, b [2]int32) int {
		if a[0] != b[0] {
			return int(a[0] - b[0])
		}
		return int(a[1] - b[1])
	})
}

// kernelConfig is the default machine fitted to prog.
func kernelConfig(prog *isa.Program) configs.Config {
	cfg, _ := sim.FitCores(configs.Default(), prog)
	return cfg
}

// With word granularity, metadata kept on eviction and more reader slots
// than threads, the hardware checker reports every pair the software
// monitor reports, run for run, on every PSet Table 1 kernel, and the same
// pairs in nearly every run. The one difference is the package's: a read
// that hits a Shared copy updates only that copy, so another sharer that
// later reads the word does not know the writer read it since its write
// (condition (c)) and counts a RAW predecessor the monitor does not. Runs
// that crash are left out: the monitor counts the faulting access, which
// the hardware never performs.
func TestHardwareAgreesWithMonitor(t *testing.T) {
	compared, withViolations, differ := 0, 0, 0
	for n := 1; n <= 17; n++ {
		name := workloads.RowKernels()[fmt.Sprintf("pset:%d", n)][0]
		prog, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := kernelConfig(prog)
		ps := train(t, cfg, prog, 15)
		hw := cfg
		hw.PSet.Enabled = true
		hw.PSet.Recovery.Mode = "log_only"
		hw.PSet.MetadataOnEvict = "ideal"
		hw.PSet.MaxReadersTracked = 16
		hw.PSet.CheckBaseCycles, hw.PSet.CheckPerEntryCycles = 0, 0
		for s := uint64(16); s <= 40; s++ {
			log := &hwLog{pairs: map[[2]int32]bool{}, raw: map[[2]int32]bool{}}
			mon := pset.NewMonitor(prog, ps, pset.Options{})
			r, err := sim.Run(hw, prog, s, sim.WithPSets(ps), sim.WithObserver(core.MaskOf(core.KindPSetViolation), log), sim.WithDetector(mon))
			if err != nil {
				t.Fatal(err)
			}
			if r.Outcome == core.Crash {
				continue
			}
			compared++
			sw := map[[2]int32]bool{}
			for _, f := range mon.Findings() {
				sw[[2]int32{f.PCs[0], f.PCs[1]}] = true
			}
			if len(sw) > 0 {
				withViolations++
			}
			if maps.Equal(sw, log.pairs) {
				continue
			}
			differ++
			for p := range sw {
				if !log.pairs[p] {
					t.Errorf("%s seed %d (%s): the hardware missed %v; software %v, hardware %v", name, s, r.Outcome, p, pairList(sw), pairList(log.pairs))
				}
			}
			for p := range log.pairs {
				if !sw[p] && !log.raw[p] {
					t.Errorf("%s seed %d (%s): the hardware's extra %v is not a RAW pair", name, s, r.Outcome, p)
				}
			}
		}
	}
	if compared < 300 || withViolations < 20 || differ*20 > compared {
		t.Errorf("compared %d runs, %d with violations, %d differ; want many of both and at most 5%% differing", compared, withViolations, differ)
	}
	t.Logf("compared %d runs, %d with violations, %d with an extra hardware RAW pair", compared, withViolations, differ)
}

// A run with the PSet hardware is a pure function of (config, program,
// seed, PSets), and watching its violations changes nothing.
func TestDeterministic(t *testing.T) {
	prog, err := workloads.Program("mysql-binlog")
	if err != nil {
		t.Fatal(err)
	}
	cfg := kernelConfig(prog)
	ps := train(t, cfg, prog, 20)
	cfg.PSet.Enabled = true
	for _, mode := range []string{"log_only", "stall", "rollback", "stall_then_rollback"} {
		cfg.PSet.Recovery.Mode = mode
		var outs []string
		for i := range 3 {
			var opts []sim.Option
			if i == 2 {
				opts = append(opts, sim.WithObserver(core.MaskOf(core.KindPSetViolation), &hwLog{pairs: map[[2]int32]bool{}, raw: map[[2]int32]bool{}}))
			}
			r, err := sim.Run(cfg, prog, 7, append(opts, sim.WithPSets(ps), sim.WithStatGroups())...)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(r)
			outs = append(outs, string(b))
		}
		if outs[0] != outs[1] || outs[0] != outs[2] {
			t.Errorf("%s: runs differ", mode)
		}
		if !strings.Contains(outs[0], `"ext.pset"`) {
			t.Errorf("%s: no ext.pset group in %s", mode, outs[0][:200])
		}
	}
}

// verdicts records a run's PSet violation events.
type verdicts struct{ evs []string }

func (v *verdicts) Observe(e *core.Event) {
	v.evs = append(v.evs, fmt.Sprintf("%d t%d pc%d %#x %v", e.Cycle, e.Thread, e.PC, e.Addr, e.Words))
}

// BB-HW beside the PSet hardware changes no PSet verdict: on a bus wide
// enough that neither extension's metadata adds a transfer cycle, and with
// BB-HW's traps free (a long stall storm fills its tables), the
// interleaving is the same, and every Table 1 kernel's violations are the
// same event for event with BB-HW on and off, in log_only and in stall
// mode.
func TestBugabooBesidePSet(t *testing.T) {
	compared := 0
	for n := 1; n <= 17; n++ {
		name := workloads.RowKernels()[fmt.Sprintf("pset:%d", n)][0]
		prog, err := workloads.Program(name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := kernelConfig(prog)
		ps := train(t, cfg, prog, 15)
		cfg.Bus.WidthBytes = 4096
		cfg.Bugaboo.CT.TrapCycles, cfg.Bugaboo.CT.DrainCyclesPerEntry = 0, 0
		cfg.Sim.MaxCycles = 300_000 // a deadlocked stall (#3) spins to the hang limit
		cfg.PSet.Enabled = true
		for _, mode := range []string{"log_only", "stall"} {
			cfg.PSet.Recovery.Mode = mode
			for s := uint64(16); s <= 25; s++ {
				var got [2]verdicts
				for i, bb := range []bool{false, true} {
					c := cfg
					c.Bugaboo.Enabled = bb
					if _, err := sim.Run(c, prog, s, sim.WithPSets(ps), sim.WithObserver(core.MaskOf(core.KindPSetViolation), &got[i])); err != nil {
						t.Fatal(err)
					}
				}
				if !slices.Equal(got[0].evs, got[1].evs) {
					i := 0
					for i < min(len(got[0].evs), len(got[1].evs)) && got[0].evs[i] == got[1].evs[i] {
						i++
					}
					t.Errorf("%s %s seed %d: %d violations alone, %d beside BB-HW, first difference at %d", name, mode, s, len(got[0].evs), len(got[1].evs), i)
				}
				if len(got[0].evs) > 0 {
					compared++
				}
			}
		}
	}
	if compared < 50 {
		t.Errorf("only %d runs with violations compared", compared)
	}
}
