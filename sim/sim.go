// Package sim wires a machine from a config (the specs, the hardware
// extensions the config turns on), runs one program on it (Run) and
// builds the run record (Result, its statistics from the machine's run
// summary, its JSON), runs batches of seeds and job lists on the one
// worker pool (Stream, StreamBatch, RunJobs) with results in index order,
// and runs the probes of the detectors that re-run a program under
// schedule control (Runner). A run is a pure function of (config,
// program, seed).
package sim

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"weft/internal/numfmt"

	"weft/coherence"
	"weft/configs"
	"weft/core"
	"weft/cpu"
	"weft/cpu/bugaboo"
	psethw "weft/cpu/pset"
	"weft/internal/version"
	"weft/isa"
)

// Option adjusts one run: attaches observers or prepares the machine.
type Option func(*options)

type options struct {
	psets  isa.PSets
	groups bool
	stream *core.Stream
	setup  []func(m *cpu.Machine) error
	exts   []cpu.Extension
	parks  []park
	dets   []core.Detector
	states []state
	ctx    context.Context
}

type park struct {
	rule core.ParkRule
	res  *core.ParkResult
}

type state struct {
	name string
	s    cpu.Stateful
}

// WithObserver attaches an observer for the kinds in mask.
func WithObserver(mask core.KindMask, o core.Observer) Option {
	return func(op *options) { op.stream.Attach(mask, o) }
}

// WithStatGroups fills Result.Groups: every statistics group's counters
// over the region of interest (per core, per L1, the bus, extensions).
func WithStatGroups() Option {
	return func(op *options) { op.groups = true }
}

// WithExtension attaches a hardware extension to the run, after those the
// config enables.
func WithExtension(x cpu.Extension) Option {
	return func(op *options) { op.exts = append(op.exts, x) }
}

// WithPSets gives the run the program's PSets, which the PSet hardware
// checks against when the config turns it on (pset.enabled).
func WithPSets(ps isa.PSets) Option {
	return func(op *options) { op.psets = ps }
}

// WithPark adds a schedule-control rule: the rule's thread is held just
// before PC until its wait ends. When res is not nil it receives what
// became of the rule when the run ends. Schedule-forcing detectors use
// this with core's types alone.
func WithPark(rule core.ParkRule, res *core.ParkResult) Option {
	return func(op *options) { op.parks = append(op.parks, park{rule: rule, res: res}) }
}

// counted is a detector with the statistics group "det.NAME": the events
// it observed and the findings it made (WithStatGroups only).
type counted struct {
	core.Detector
	events uint64
}

func (c *counted) Observe(e *core.Event) {
	c.events++
	c.Detector.Observe(e)
}

// WithDetector attaches a detector to the run: it observes its kinds, and
// its findings land in Result.Findings when the run ends.
func WithDetector(d core.Detector) Option {
	return func(op *options) { op.dets = append(op.dets, d) }
}

// WithState registers a part whose state checkpoints copy and rollbacks
// restore (an observer that wants to be rolled back with the machine). s
// implements Save(buf any) any and Load(buf any) (cpu.Stateful).
func WithState(name string, s cpu.Stateful) Option {
	return func(op *options) { op.states = append(op.states, state{name: name, s: s}) }
}

// WithSetup runs f on the machine after it is built and before it starts:
// the place to add park rules, a check hook or protocol hooks.
func WithSetup(f func(m *cpu.Machine) error) Option {
	return func(op *options) { op.setup = append(op.setup, f) }
}

// WithContext makes the run stop early when ctx is cancelled: within
// cpu.StopCycles simulated cycles, even inside a long loop of one core's
// local instructions, Run returns an *InterruptedError (which wraps
// context.Cause(ctx)) instead of a result. A run whose context is not
// cancelled is the same, cycle for cycle, as one without it. A run that
// ends before it would next look at ctx returns its result as usual.
func WithContext(ctx context.Context) Option {
	return func(op *options) { op.ctx = ctx }
}

// InterruptedError is the error of a run stopped by its context
// (WithContext) before it ended: such a run has no result. Run wraps it
// with the program and the seed.
type InterruptedError struct {
	// Cycle is the cycle the run had reached: the furthest any core had
	// got.
	Cycle uint64
	// Cause is context.Cause of the run's context.
	Cause error
}

func (e *InterruptedError) Error() string {
	return fmt.Sprintf("interrupted at cycle %d: %v", e.Cycle, e.Cause)
}

// Unwrap returns the cause: errors.Is(err, context.Canceled) holds for a
// run stopped by a cancelled context.
func (e *InterruptedError) Unwrap() error { return e.Cause }

// Specs converts a config to the processor and memory-system specs.
func Specs(cfg configs.Config) (cpu.Spec, coherence.Spec) {
	cs, ms := cpu.Spec{
		Cores:              cfg.Machine.Cores,
		ALUCycles:          core.Cycle(cfg.CPU.ALUCycles),
		HitCycles:          core.Cycle(cfg.Cache.L1.HitCycles),
		JitterCycles:       cfg.Sim.JitterCycles,
		StartSkewCycles:    cfg.Sim.StartSkewCycles,
		MaxCycles:          core.Cycle(cfg.Sim.MaxCycles),
		IrritatorProb:      cfg.Sim.IrritatorProb,
		IrritatorMaxCycles: cfg.Sim.IrritatorMaxCycles,
	}, coherence.Spec{
		Cores:       cfg.Machine.Cores,
		SizeBytes:   cfg.Cache.L1.SizeBytes,
		Assoc:       cfg.Cache.L1.Assoc,
		LineBytes:   cfg.Cache.L1.LineBytes,
		HitCycles:   core.Cycle(cfg.Cache.L1.HitCycles),
		BusWidth:    cfg.Bus.WidthBytes,
		ArbCycles:   core.Cycle(cfg.Bus.ArbitrationCycles),
		SnoopCycles: core.Cycle(cfg.Bus.SnoopCycles),
		C2CCycles:   core.Cycle(cfg.Bus.C2CCycles),
		MemCycles:   core.Cycle(cfg.Memory.LatencyCycles),

		Split:           cfg.Bus.Kind == configs.BusSplit,
		SeparateDataBus: cfg.Bus.DataBus == configs.DataBusSeparate,
		L2SizeBytes:     cfg.Cache.L2.SizeBytes,
		L2Assoc:         cfg.Cache.L2.Assoc,
		L2HitCycles:     core.Cycle(cfg.Cache.L2.HitCycles),
	}
	if cfg.Bugaboo.Enabled {
		switch cfg.Bugaboo.Metadata.MemoryFill {
		case "memory":
			ms.MetaEvict = coherence.MetaWriteback
		case "ideal":
			ms.MetaEvict = coherence.MetaIdeal
		}
	}
	if cfg.PSet.Enabled {
		// Validate makes this agree with Bugaboo's when both are on.
		switch cfg.PSet.MetadataOnEvict {
		case "writeback":
			ms.MetaEvict = coherence.MetaWriteback
		case "ideal":
			ms.MetaEvict = coherence.MetaIdeal
		}
	}
	return cs, ms
}

// Extensions builds the hardware extensions cfg turns on, in a fixed
// order: BB-HW ([bugaboo]), then PSet's ([pset]), which checks against
// psets, the program's PSets (WithPSets).
func Extensions(cfg configs.Config, psets isa.PSets) ([]cpu.Extension, error) {
	var out []cpu.Extension
	if b := cfg.Bugaboo; b.Enabled {
		hw, err := bugaboo.New(BugabooSpec(b))
		if err != nil {
			return nil, fmt.Errorf("[bugaboo]: %w", err)
		}
		out = append(out, hw)
	}
	if p := cfg.PSet; p.Enabled {
		if psets == nil {
			return nil, fmt.Errorf("pset.enabled = true needs the program's PSets (weft run --psets FILE; sim.WithPSets)")
		}
		hw, err := psethw.New(PSetSpec(p, psets))
		if err != nil {
			return nil, fmt.Errorf("[pset]: %w", err)
		}
		out = append(out, hw)
	}
	return out, nil
}

// PSetSpec converts the [pset] config table and the program's PSets to
// the PSet hardware's spec.
func PSetSpec(p configs.PSet, psets isa.PSets) psethw.Spec {
	gran := coherence.PerWord
	if p.Granularity == "line" {
		gran = coherence.PerLine
	}
	mode := map[string]psethw.Mode{"log_only": psethw.LogOnly, "stall": psethw.Stall, "rollback": psethw.Rollback,
		"stall_then_rollback": psethw.StallThenRollback}[p.Recovery.Mode]
	return psethw.Spec{PSets: psets, Gran: gran, Readers: p.MaxReadersTracked, IgnoreUntested: p.UntestedPolicy == "ignore",
		IgnoreSync: !p.IncludeSyncOps, CheckBase: core.Cycle(p.CheckBaseCycles), CheckPerEntry: core.Cycle(p.CheckPerEntryCycles),
		Mode: mode, StallTimeout: core.Cycle(p.Recovery.StallTimeoutCycles),
		CheckpointInterval: p.Recovery.CheckpointIntervalInstrs, MaxRollbacks: p.Recovery.MaxRollbacksPerCheckpoint,
		Perturb: map[string]psethw.Perturbation{"jitter": psethw.Jitter, "delay_violator": psethw.DelayViolator,
			"delay_predecessor": psethw.DelayPredecessor}[p.Recovery.Perturbation],
		PerturbDelay: core.Cycle(p.Recovery.PerturbDelayCycles)}
}

// PSetMetaBits returns the PSet hardware's metadata per line of lineBytes
// bytes, in bits: what p's hardware adds to each line and carries on a
// read reply or an invalidation ack.
func PSetMetaBits(p configs.PSet, lineBytes int) (int, error) {
	hw, err := psethw.New(PSetSpec(p, nil))
	if err != nil {
		return 0, fmt.Errorf("[pset]: %w", err)
	}
	l, err := coherence.NewLayout(lineBytes, []coherence.MetaRequest{hw.Meta()})
	if err != nil {
		return 0, fmt.Errorf("[pset] metadata: %w", err)
	}
	return l.Bits, nil
}

// BugabooSpec converts the [bugaboo] config table to BB-HW's spec.
func BugabooSpec(b configs.Bugaboo) bugaboo.Spec {
	return bugaboo.Spec{
		Code:                core.ContextCode{Size: b.Context.Size, DistinctEmpty: b.Context.DistinctEmpty},
		LcRdOnMemoryMiss:    b.Context.LcRdOnMemoryMiss,
		RmRdAny:             b.Context.RmRdStates == "any",
		SaveOnSwitch:        b.Context.SaveOnSwitch,
		PCBits:              b.Metadata.PCBits,
		UpdateEveryWrite:    b.Metadata.UpdateOn == "every_write",
		ReadFillNone:        b.Metadata.ReadFill == "none",
		Central:             b.CT.Organization == "central",
		Entries:             b.CT.Entries,
		RecordMemoryMisses:  b.CT.RecordMemoryMisses,
		DedupAcks:           b.CT.InvalAckEntries == "dedup",
		WaitDuringTrap:      !b.CT.DropDuringTrap,
		TrapCycles:          core.Cycle(b.CT.TrapCycles),
		DrainCyclesPerEntry: core.Cycle(b.CT.DrainCyclesPerEntry),
		SpareCore:           b.CT.SpareCoreDrain,
	}
}

// Build validates cfg and builds a machine for prog with the given seed and
// hardware extensions, emitting on events (nil for none). It does not
// start the run. A program that declares more cores (.cores) than
// machine.cores is an error (see Run).
func Build(cfg configs.Config, prog *isa.Program, seed uint64, events *core.Stream, exts ...cpu.Extension) (*cpu.Machine, error) {
	m, err := build(cfg, prog, seed, events, nil, exts)
	if err != nil {
		return nil, fmt.Errorf("build machine for %s: %w", prog.Name, err)
	}
	return m, nil
}

// build is Build without the program's name in its errors.
func build(cfg configs.Config, prog *isa.Program, seed uint64, events *core.Stream, psets isa.PSets, exts []cpu.Extension) (*cpu.Machine, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if prog.MinCores > cfg.Machine.Cores {
		return nil, fmt.Errorf("the program needs %d cores (.cores) but machine.cores is %d: raise machine.cores (sim.FitCores does, as weft run does)",
			prog.MinCores, cfg.Machine.Cores)
	}
	cs, ms := Specs(cfg)
	hw, err := Extensions(cfg, psets)
	if err != nil {
		return nil, err
	}
	return cpu.New(cs, ms, prog, seed, events, append(hw, exts...)...)
}

// FitCores returns cfg with machine.cores raised to the program's .cores
// minimum, and a note saying so ("" when nothing changed).
func FitCores(cfg configs.Config, prog *isa.Program) (configs.Config, string) {
	if prog.MinCores > cfg.Machine.Cores {
		note := fmt.Sprintf("weft: %s needs %d cores (.cores); raising machine.cores from %d to %d", prog.Name, prog.MinCores, cfg.Machine.Cores, prog.MinCores)
		cfg.Machine.Cores = prog.MinCores
		return cfg, note
	}
	return cfg, ""
}

// Run runs prog on the machine cfg describes with the given seed.
//
// Whatever the program does under this seed is the run's outcome, never
// an error: a fail, an assert, a crash (a spawn with no free core among
// them: the message names machine.cores), a hang. An error means bad input
// (an invalid config, a program that does not fit the machine, a setup
// option that fails) or an internal error of the simulator; it names the
// program and the seed.
//
// Run runs exactly the config it is given: it does not raise
// machine.cores to the program's .cores as weft run does, because the
// result records that config (Cores, ConfigHash) and a caller that chose
// machine.cores (a sweep axis, an experiment's machine) must not get runs
// of another machine under its name. A program that declares more cores
// than the config has is therefore an error, the same for every seed;
// call FitCores first to raise machine.cores, as the command line does.
func Run(cfg configs.Config, prog *isa.Program, seed uint64, opts ...Option) (Result, error) {
	r, err := run(cfg, prog, seed, opts)
	if err != nil {
		return Result{}, fmt.Errorf("run %s seed %d: %w", prog.Name, seed, err)
	}
	return r, nil
}

// run is Run without the program and seed in its errors.
func run(cfg configs.Config, prog *isa.Program, seed uint64, opts []Option) (Result, error) {
	op := options{stream: &core.Stream{}}
	for _, o := range opts {
		o(&op)
	}
	var groups []core.StatGroup
	for _, d := range op.dets {
		if !op.groups {
			op.stream.Attach(d.Kinds(), d)
			continue
		}
		c := &counted{Detector: d}
		op.stream.Attach(d.Kinds(), c)
		groups = append(groups, core.StatGroup{Name: "det." + d.Name(), Counters: []string{"events", "findings"},
			Read: func(dst []uint64) { dst[0], dst[1] = c.events, uint64(len(c.Findings())) }})
	}
	m, err := build(cfg, prog, seed, op.stream, op.psets, op.exts)
	if err != nil {
		return Result{}, err
	}
	for _, g := range groups {
		if err := m.StatRegistry().Register(g); err != nil {
			return Result{}, fmt.Errorf("set up run of %s: %w", prog.Name, err)
		}
	}
	for _, s := range op.states {
		m.RegisterState(s.name, s.s)
	}
	idx := make([]int, len(op.parks))
	for i, p := range op.parks {
		if idx[i], err = m.Park(p.rule); err != nil {
			return Result{}, fmt.Errorf("set up the run: %w", err)
		}
	}
	for _, f := range op.setup {
		if err := f(m); err != nil {
			return Result{}, fmt.Errorf("set up the run: %w", err)
		}
	}
	if op.ctx != nil {
		m.StopOn(op.ctx.Done(), cpu.StopCycles)
	}
	m.Start()
	m.Run()
	if err := m.InternalError(); err != nil {
		return Result{}, fmt.Errorf("internal error: %w", err)
	}
	if at, ok := m.Interrupted(); ok {
		return Result{}, &InterruptedError{Cycle: uint64(at), Cause: context.Cause(op.ctx)}
	}
	for i, p := range op.parks {
		if p.res != nil {
			*p.res = m.ParkResult(idx[i])
		}
	}
	r := Collect(m, cfg, seed)
	r.Detectors = op.dets
	if op.groups {
		r.Groups = CollectGroups(m)
	}
	if len(op.dets) > 0 {
		r.Findings = Findings{}
		for _, d := range op.dets {
			r.Findings = append(r.Findings, d.Findings()...)
		}
	}
	return r, nil
}

// Result is the record of one run, as printed by `weft run --json`. It holds
// no host times, so equal runs give equal bytes.
type Result struct {
	// Workload is the program's name.
	Workload string `json:"workload"`
	// Seed is the run's seed.
	Seed uint64 `json:"seed"`
	// Outcome is how the run ended (written by name: pass, wrong_output,
	// …).
	Outcome core.OutcomeKind `json:"outcome"`
	// OutcomePC is the PC of the instruction that caused the outcome, or -1.
	OutcomePC int32 `json:"outcome_pc"`
	// OutcomeThread is the thread that caused the outcome, or -1.
	OutcomeThread int32 `json:"outcome_thread"`
	// OutcomeMsg explains the outcome ("" for a pass).
	OutcomeMsg string `json:"outcome_msg"`
	// Deadlock marks a hang in which every live thread was blocked on
	// the program's synchronisation (not in the run's JSON: the message
	// says so).
	Deadlock bool `json:"-"`
	// Cycles is the run's length in cycles: the cycle it ended.
	Cycles uint64 `json:"cycles"`
	// Instructions is the number of instructions all threads executed.
	Instructions uint64 `json:"instructions"`
	// ThreadInstructions is each thread's instruction count, by thread id.
	ThreadInstructions []uint64 `json:"thread_instructions"`
	// Outputs are the values written by out, in global order.
	Outputs []int64 `json:"outputs"`
	// Stats are the region-of-interest statistics (cpu.Summary): counters
	// summed over the statistics groups, rates per 10k memory operations,
	// miss rate, bus utilisation and IPC.
	Stats Stats `json:"stats"`
	// Breakdown is each core's cycle breakdown, by core.
	Breakdown []CoreTime `json:"cycle_breakdown"`
	// Cores is the number of cores (machine.cores).
	Cores int `json:"cores"`
	// ConfigHash is the hash of the run's canonical config.
	ConfigHash string `json:"config_hash"`
	// WeftVersion is the version of weft that made the run: the module
	// version and VCS revision of the binary (internal/version). It is the
	// same for every run of one binary.
	WeftVersion string `json:"weft_version"`
	// Groups are the region-of-interest counters of every statistics group
	// (core[i], l1[i], bus, ext.NAME), with WithStatGroups only.
	Groups Groups `json:"groups,omitempty"`
	// Findings are the attached detectors' findings; absent when no
	// detector was attached, empty when none found anything.
	Findings Findings `json:"findings,omitzero"`
	// Detectors are the detectors attached with WithDetector, after the
	// run, for what their findings do not hold (a learner across runs
	// reads Bugaboo's graphs from them). Not part of run JSON.
	Detectors []core.Detector `json:"-"`
}

// Group is one statistics group's counters.
type Group struct {
	// Name names the part: "core[3]", "l1[3]", "bus", "ext.pset".
	Name string
	// Stats are its counters over the region of interest.
	Stats Stats
}

// Groups is a run's statistics groups, written as one JSON object of
// objects in registration order.
type Groups []Group

// MarshalJSON writes the groups as {"core[0]":{...},...} in order.
func (g Groups) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, x := range g {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, x.Name)
		b = append(b, ':')
		inner, err := x.Stats.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("group %s: %w", x.Name, err)
		}
		b = append(b, inner...)
	}
	return append(b, '}'), nil
}

// Get returns the named group.
func (g Groups) Get(name string) (Group, bool) {
	for _, x := range g {
		if x.Name == name {
			return x, true
		}
	}
	return Group{}, false
}

// Findings is a run's detector findings. Nil (no detector attached) is
// left out of run JSON; empty is written as [].
type Findings []core.Finding

// IsZero reports whether no detector was attached (encoding/json's
// omitzero).
func (f Findings) IsZero() bool { return f == nil }

// Stat is one named statistic.
type Stat struct {
	// Name is the statistic's JSON key, e.g. "l1_miss_rate".
	Name string
	// Value is its value: a count, cycles, a rate per 10k memory operations
	// (names ending _per_10k) or a ratio.
	Value float64
}

// Stats is an ordered list of statistics, written as one JSON object in
// a fixed order.
type Stats []Stat

// MarshalJSON writes the statistics as an object in list order. Numbers
// are spelled as encoding/json spells a float64, so counters are integers
// however large ("roi_cycles":5754931, never 5.754931e+06) and rates are
// plain decimals (exponent form only below 1e-6). A NaN or infinite value
// is an error, as it is for encoding/json.
func (s Stats) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 32*len(s)+2)
	b = append(b, '{')
	for i, st := range s {
		if math.IsNaN(st.Value) || math.IsInf(st.Value, 0) {
			return nil, fmt.Errorf("stats: %s is %v, which JSON cannot hold", st.Name, st.Value)
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, st.Name)
		b = append(b, ':')
		b = numfmt.Append(b, st.Value)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads a statistics object, keeping its key order.
func (s *Stats) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return fmt.Errorf("stats: want a JSON object")
	}
	var out Stats
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("stats: %w", err)
		}
		name, ok := tok.(string)
		if !ok {
			return fmt.Errorf("stats: key %v is not a string", tok)
		}
		var v float64
		if err := dec.Decode(&v); err != nil {
			return fmt.Errorf("stats: %s: %w", name, err)
		}
		out = append(out, Stat{Name: name, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	*s = out
	return nil
}

// Get returns the named statistic.
func (s Stats) Get(name string) (float64, bool) {
	for _, st := range s {
		if st.Name == name {
			return st.Value, true
		}
	}
	return 0, false
}

// CoreTime is one core's cycle breakdown.
type CoreTime struct {
	// Busy is the cycles not spent in any other bucket.
	Busy uint64 `json:"busy"`
	// MemStall is the cycles stalled on memory: jitter, irritators,
	// check-phase stalls and misses outside lock, barrier and cwait.
	MemStall uint64 `json:"mem_stall"`
	// LockWait is the cycles acquiring locks (cwait's reacquire too),
	// misses and spinning included.
	LockWait uint64 `json:"lock_wait"`
	// BarrierWait is the cycles in barriers, misses and waiting included.
	BarrierWait uint64 `json:"barrier_wait"`
	// CondWait is the cycles cwait spends releasing its lock and waiting
	// for a signal, misses included.
	CondWait uint64 `json:"cond_wait"`
	// JoinWait is the cycles waiting in join for a thread to exit.
	JoinWait uint64 `json:"join_wait"`
	// Idle is the cycles with no thread on the core, or its thread parked
	// by a cpu.ParkRule.
	Idle uint64 `json:"idle"`
}

// RanThread reports whether a thread ever ran on the core: some of its
// cycles are in a bucket other than idle. A core that never ran a thread
// is idle throughout, and plots of where cycles went leave it out (eight
// cores for a two-thread kernel would otherwise show mostly idle time).
func (c CoreTime) RanThread() bool {
	return c.Busy+c.MemStall+c.LockWait+c.BarrierWait+c.CondWait+c.JoinWait > 0
}

// Collect builds the result of a finished run.
func Collect(m *cpu.Machine, cfg configs.Config, seed uint64) Result {
	o := m.Outcome()
	threads := m.ThreadInstructions()
	var total uint64
	for _, n := range threads {
		total += n
	}
	outs := append([]int64{}, m.Outputs()...)
	r := Result{
		Workload:           m.Program().Name,
		Seed:               seed,
		Outcome:            o.Kind,
		OutcomePC:          o.PC,
		OutcomeThread:      o.Thread,
		OutcomeMsg:         o.Msg,
		Deadlock:           o.Deadlock,
		Cycles:             uint64(o.Cycle),
		Instructions:       total,
		ThreadInstructions: threads,
		Outputs:            outs,
		Cores:              cfg.Machine.Cores,
		ConfigHash:         cfg.Hash(),
		WeftVersion:        version.String(),
	}
	sum := cpu.Summary()
	vals := m.ROISummary(nil)
	stats := make(Stats, sum.Len())
	for i, v := range vals {
		stats[i] = Stat{Name: sum.Name(i), Value: v}
	}
	r.Stats = append(stats, timingStats(m, stats)...)
	for _, b := range m.Breakdown() {
		r.Breakdown = append(r.Breakdown, CoreTime{
			Busy: uint64(b[cpu.Busy]), MemStall: uint64(b[cpu.MemStall]), LockWait: uint64(b[cpu.LockWait]),
			BarrierWait: uint64(b[cpu.BarrierWait]), CondWait: uint64(b[cpu.CondWait]), JoinWait: uint64(b[cpu.JoinWait]),
			Idle: uint64(b[cpu.Idle]),
		})
	}
	return r
}

// The run statistics of the timing model's optional parts (timingStats).
const (
	StatL2Hits            = "l2_hits"
	StatL2Misses          = "l2_misses"
	StatL2Writebacks      = "l2_writebacks"
	StatL2MissRate        = "l2_miss_rate"
	StatDataBusBusyCycles = "data_bus_busy_cycles"
	StatDataBusUtil       = "data_bus_utilization"
)

// timingStats returns the run statistics of the timing model's optional
// parts, after the run summary's and only on a machine that has them (so a
// machine without them records what it always did): the shared L2's hits,
// misses, writebacks and miss rate (misses over fills that looked it up),
// and the separate data bus's busy cycles and utilisation over the region
// of interest. sum is the run summary's statistics.
func timingStats(m *cpu.Machine, sum Stats) Stats {
	reg := m.StatRegistry()
	l2, data := reg.Offset(coherence.L2Group), reg.Offset(coherence.DataBusGroup)
	if l2 < 0 && data < 0 {
		return nil
	}
	vals, _ := m.ROIGroups()
	var out Stats
	if l2 >= 0 {
		h := float64(vals[l2+int(coherence.StatL2Hits)])
		mi := float64(vals[l2+int(coherence.StatL2Misses)])
		wb := float64(vals[l2+int(coherence.StatL2Writebacks)])
		out = append(out, Stat{Name: StatL2Hits, Value: h}, Stat{Name: StatL2Misses, Value: mi},
			Stat{Name: StatL2Writebacks, Value: wb}, Stat{Name: StatL2MissRate, Value: core.Ratio(mi, h+mi)})
	}
	if data >= 0 {
		roi, _ := sum.Get(core.ROICycles)
		b := float64(vals[data])
		out = append(out, Stat{Name: StatDataBusBusyCycles, Value: b}, Stat{Name: StatDataBusUtil, Value: min(core.Ratio(b, roi), 1)})
	}
	return out
}

// CollectGroups returns the region-of-interest counters of every
// statistics group of a finished run.
func CollectGroups(m *cpu.Machine) Groups {
	reg := m.StatRegistry()
	vals, _ := m.ROIGroups()
	var out Groups
	off := 0
	for _, g := range reg.Groups() {
		st := make(Stats, len(g.Counters))
		for i, c := range g.Counters {
			st[i] = Stat{Name: c, Value: float64(vals[off+i])}
		}
		out = append(out, Group{Name: g.Name, Stats: st})
		off += len(g.Counters)
	}
	return out
}

// OutcomeCount is how many runs of a batch ended in one outcome, and the
// index of the first.
type OutcomeCount struct {
	// Outcome is the outcome.
	Outcome core.OutcomeKind
	// Count is the number of runs that ended in it.
	Count int
	// First is the index in the batch of the first such run.
	First int
}

// CountOutcomes counts a batch's outcomes, in order of precedence (pass
// first, crash last).
func CountOutcomes(rs []Result) []OutcomeCount {
	var c OutcomeCounter
	for i, r := range rs {
		c.Add(i, r.Outcome)
	}
	return c.Counts()
}

// OutcomeCounter counts a batch's outcomes as its runs arrive, in memory
// that does not grow with the number of runs (CountOutcomes for a slice).
// The zero value is empty.
type OutcomeCounter struct {
	n     [core.NumOutcomes]int
	first [core.NumOutcomes]int
}

// Add counts run i of the batch, which ended in outcome k. Runs may arrive
// in any order; First is the smallest index added for each outcome.
func (c *OutcomeCounter) Add(i int, k core.OutcomeKind) {
	if c.n[k] == 0 || i < c.first[k] {
		c.first[k] = i
	}
	c.n[k]++
}

// Count returns the number of runs added that ended in outcome k.
func (c *OutcomeCounter) Count(k core.OutcomeKind) int { return c.n[k] }

// Counts returns the counts so far of the outcomes seen, in order of
// precedence (pass first, crash last).
func (c *OutcomeCounter) Counts() []OutcomeCount {
	var out []OutcomeCount
	for k := range core.NumOutcomes {
		if c.n[k] > 0 {
			out = append(out, OutcomeCount{Outcome: k, Count: c.n[k], First: c.first[k]})
		}
	}
	return out
}
