package cpu_test

import (
	"fmt"
	"testing"

	"weft/coherence"
	"weft/core"
	"weft/cpu"
	"weft/cpu/bugaboo"
	"weft/cpu/pset"
	"weft/isa"
	"weft/workloads"
)

// spec is a test machine: the processor's and the memory system's specs.
type spec struct {
	cpu cpu.Spec
	mem coherence.Spec
}

// defaultSpec is the machine of weft's default config (configs.Default,
// as sim.Specs converts it): 8 cores, 1-cycle ALU and L1 hits, 4 cycles of
// jitter, 32 KiB 8-way L1s of 64-byte lines, a 32-byte bus (2 arbitration,
// 4 snoop, 10 cache-to-cache cycles) and 100-cycle memory.
func defaultSpec() spec {
	return spec{
		cpu: cpu.Spec{Cores: 8, ALUCycles: 1, HitCycles: 1, JitterCycles: 4, MaxCycles: 100_000_000},
		mem: coherence.Spec{Cores: 8, SizeBytes: 32768, Assoc: 8, LineBytes: 64, HitCycles: 1, BusWidth: 32,
			ArbCycles: 2, SnoopCycles: 4, C2CCycles: 10, MemCycles: 100},
	}
}

// withCores returns s with n cores.
func (s spec) withCores(n int) spec {
	s.cpu.Cores, s.mem.Cores = n, n
	return s
}

// fit returns s with at least the program's .cores cores (sim.FitCores).
func (s spec) fit(p *isa.Program) spec {
	if p.MinCores > s.cpu.Cores {
		return s.withCores(p.MinCores)
	}
	return s
}

// bugabooSpec is BB-HW as weft's default [bugaboo] table configures it.
func bugabooSpec() bugaboo.Spec {
	return bugaboo.Spec{Code: core.ContextCode{Size: 5}, PCBits: 64, Entries: 16384, RecordMemoryMisses: true,
		TrapCycles: 5000, DrainCyclesPerEntry: 10}
}

// psetSpec is the PSet hardware as weft's default [pset] table configures
// it, checking against ps.
func psetSpec(ps isa.PSets) pset.Spec {
	return pset.Spec{PSets: ps, Gran: coherence.PerWord, Readers: 4, CheckBase: 2, CheckPerEntry: 1, Mode: pset.Stall,
		StallTimeout: 100_000, CheckpointInterval: 100_000, MaxRollbacks: 3, Perturb: pset.DelayPredecessor, PerturbDelay: 5000}
}

// newBugaboo builds BB-HW from s.
func newBugaboo(t *testing.T, s bugaboo.Spec) cpu.Extension {
	t.Helper()
	x, err := bugaboo.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// newPSet builds the PSet hardware from s.
func newPSet(t *testing.T, s pset.Spec) cpu.Extension {
	t.Helper()
	x, err := pset.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// option adjusts one test run, as sim's options do.
type option func(*runOpts)

type runOpts struct {
	stream *core.Stream
	exts   []cpu.Extension
	rules  []core.ParkRule
	res    []*core.ParkResult
	groups bool
	setup  []func(m *cpu.Machine)
}

// withObserver attaches o for the kinds in mask.
func withObserver(mask core.KindMask, o core.Observer) option {
	return func(op *runOpts) { op.stream.Attach(mask, o) }
}

// withExtension attaches a hardware extension.
func withExtension(x cpu.Extension) option {
	return func(op *runOpts) { op.exts = append(op.exts, x) }
}

// withPark adds a park rule; res (if not nil) receives its result.
func withPark(rule core.ParkRule, res *core.ParkResult) option {
	return func(op *runOpts) { op.rules, op.res = append(op.rules, rule), append(op.res, res) }
}

// withGroups fills result.Groups with every statistics group's counters.
func withGroups() option {
	return func(op *runOpts) { op.groups = true }
}

// withSetup runs f on the machine before it starts.
func withSetup(f func(m *cpu.Machine)) option {
	return func(op *runOpts) { op.setup = append(op.setup, f) }
}

// result is what a finished run shows: what sim.Collect reads from the
// machine.
type result struct {
	core.Outcome
	Outputs            []int64
	ThreadInstructions []uint64
	Instructions       uint64
	// Stats are run JSON's statistics (cpu.Summary), by name.
	Stats     map[string]float64
	Breakdown [][cpu.NumBuckets]core.Cycle
	// Groups holds every statistics group's counters (withGroups only).
	Groups []core.Named
}

// group returns counter name of statistics group g (withGroups).
func (r result) group(t *testing.T, g, name string) uint64 {
	t.Helper()
	for _, n := range r.Groups {
		if n.Name == g+"."+name {
			return n.Value
		}
	}
	t.Fatalf("no counter %s.%s", g, name)
	return 0
}

// digest is the whole result as text, for comparing runs.
func (r result) digest() string { return fmt.Sprintf("%+v", r) }

// collect reads a finished run's result.
func collect(m *cpu.Machine, groups bool) result {
	r := result{Outcome: m.Outcome(), Outputs: m.Outputs(), ThreadInstructions: m.ThreadInstructions(), Breakdown: m.Breakdown()}
	for _, n := range r.ThreadInstructions {
		r.Instructions += n
	}
	r.Stats = map[string]float64{}
	for i, v := range m.ROISummary(nil) {
		r.Stats[cpu.Summary().Name(i)] = v
	}
	if groups {
		vals, _ := m.ROIGroups()
		r.Groups = m.StatRegistry().List(vals)
	}
	return r
}

// build builds a machine for p (not started), emitting on events (nil:
// none).
func build(t *testing.T, s spec, p *isa.Program, seed uint64, events *core.Stream, exts ...cpu.Extension) *cpu.Machine {
	t.Helper()
	m, err := cpu.New(s.cpu, s.mem, p, seed, events, exts...)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// runErr runs p on s to its end, as sim.Run does: an error is a machine
// that cannot be built or set up, or an internal error.
func runErr(s spec, p *isa.Program, seed uint64, opts ...option) (result, error) {
	op := runOpts{stream: &core.Stream{}}
	for _, o := range opts {
		o(&op)
	}
	m, err := cpu.New(s.cpu, s.mem, p, seed, op.stream, op.exts...)
	if err != nil {
		return result{}, err
	}
	idx := make([]int, len(op.rules))
	for i, r := range op.rules {
		if idx[i], err = m.Park(r); err != nil {
			return result{}, err
		}
	}
	for _, f := range op.setup {
		f(m)
	}
	m.Start()
	m.Run()
	if err := m.InternalError(); err != nil {
		return result{}, fmt.Errorf("internal error: %w", err)
	}
	for i, res := range op.res {
		if res != nil {
			*res = m.ParkResult(idx[i])
		}
	}
	return collect(m, op.groups), nil
}

// run is runErr for runs that must not fail.
func run(t *testing.T, s spec, p *isa.Program, seed uint64, opts ...option) result {
	t.Helper()
	r, err := runErr(s, p, seed, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func assemble(t *testing.T, src string) *isa.Program {
	t.Helper()
	p, err := isa.Assemble("test.s", []byte(src))
	if err != nil {
		t.Fatalf("assemble: %v", err)
	}
	return p
}

func kernel(t *testing.T, name string) *isa.Program {
	t.Helper()
	p, err := workloads.Program(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// pcOf returns the PC of a code label.
func pcOf(t *testing.T, p *isa.Program, label string) int32 {
	t.Helper()
	pc, ok := p.LabelPC(label)
	if !ok {
		t.Fatalf("no label %q", label)
	}
	return pc
}
