// Package cpu models the processor side of the machine: in-order blocking
// cores that run one thread each (with the direct path of accesses that
// hit), the synchronisation instructions as real memory operations, the
// per-core cycle breakdown and statistics groups with the run summary
// they add up to, the extension platform hardware mechanisms attach to
// (BB-HW and PSet live in cpu/bugaboo and cpu/pset), whole-machine
// snapshots for checkpoints and rollback, and the schedule-control hook
// that testers use to force interleavings. A run's outcome is a
// core.Outcome.
package cpu

import (
	"fmt"
	"math"
	"strconv"

	"weft/coherence"
	"weft/core"
	"weft/isa"
)

// Spec is the fixed configuration of the processor side.
type Spec struct {
	// Cores is the number of cores.
	Cores int
	// ALUCycles is the latency in cycles of a non-memory instruction.
	ALUCycles core.Cycle
	// HitCycles is the latency in cycles of an L1 hit.
	HitCycles core.Cycle
	// JitterCycles is the largest random extra latency, in cycles, added to
	// each memory instruction.
	JitterCycles uint64
	// StartSkewCycles is the largest random delay, in cycles, before each
	// spawned thread starts.
	StartSkewCycles uint64
	// IrritatorProb is the probability, from 0 to 1, that a memory
	// instruction (Op.TouchesMemory) is preceded by an irritator, a random
	// delay drawn when it issues (sim.irritator_prob); 0 turns them off.
	IrritatorProb float64
	// IrritatorMaxCycles is the largest irritator in cycles; each draws
	// uniformly from 1..IrritatorMaxCycles. At least 1 when IrritatorProb
	// is above 0.
	IrritatorMaxCycles uint64
	// MaxCycles is the hang limit in cycles: a run with an event past it
	// ends as a hang.
	MaxCycles core.Cycle
	// HeapWords bounds the bump heap; an alloc past it crashes.
	HeapWords int
}

// DefaultHeapWords is the heap bound used when Spec.HeapWords is zero.
const DefaultHeapWords = 1 << 22

// Bucket is one class of the per-core cycle breakdown.
type Bucket uint8

// The cycle-breakdown classes.
const (
	Busy Bucket = iota
	MemStall
	LockWait
	BarrierWait
	CondWait
	JoinWait
	Idle
	NumBuckets
)

var bucketNames = [NumBuckets]string{"busy", "mem_stall", "lock_wait", "barrier_wait", "cond_wait", "join_wait", "idle"}

// String returns the bucket's name.
func (b Bucket) String() string { return bucketNames[b] }

// Stat names one processor-side counter.
type Stat int

// The processor-side counters.
const (
	StatInstructions Stat = iota
	StatMemOps
	StatLoads
	StatStores
	StatRMWs
	StatLockAcquires
	StatLockSpins
	StatBarriers
	StatCondWaits
	StatSignals
	StatSpawns
	NumStats
)

var cpuStatNames = [NumStats]string{"instructions", "mem_ops", "loads", "stores", "rmws",
	"lock_acquires", "lock_spins", "barriers", "cond_waits", "signals", "spawns"}

// String returns the counter's name as it appears in run JSON.
func (s Stat) String() string { return cpuStatNames[s] }

// Stats is a set of processor-side counters.
type Stats [NumStats]uint64

// ThreadInfo describes one thread of the run.
type ThreadInfo struct {
	// Core is the core the thread runs on.
	Core int32
	// Parent is the thread that spawned it, or -1 for the main thread.
	Parent int32
	// Exited reports whether the thread has exited.
	Exited bool
	// Instrs is the number of instructions the thread executed, updated
	// when it exits and when the run ends.
	Instrs uint64
	// Start is the cycle the thread started, start skew included.
	Start core.Cycle
	// End is the cycle the thread exited or the run ended (0 until then).
	End core.Cycle
}

// machineState is everything a snapshot copies besides the cores, the
// memory system and the engine.
type machineState struct {
	threads  []ThreadInfo
	outputs  []int64
	heapNext uint64
	freed    []uint64
	anyFreed bool
	outcome  core.Outcome
	errSeen  bool
	ended    bool
	live     int
	roiState uint8
	// roiBase and roiLast are every statistics group's counters when the
	// region of interest opened and closed (StatRegistry.Read order).
	roiBase  []uint64
	roiLast  []uint64
	roiStart core.Cycle
	roiEnd   core.Cycle
	waitSeq  uint64
	parks    []parkRule
	// stallWaits is each core's check-phase stall condition.
	stallWaits []core.Wait
	// waiting counts the cores parked or stalled.
	waiting int
	// irritators and irritatorCycles count the irritators drawn and
	// their cycles (the "irritators" statistics group).
	irritators      uint64
	irritatorCycles uint64
	// frontier is the latest cycle at which any core performed a global
	// operation or started a wait: cores act ahead of the engine's clock
	// (lookahead), so the end of a deadlocked run is here, not at Now.
	frontier core.Cycle
	internal error
}

// Machine is one simulated multicore running one program.
type Machine struct {
	spec   Spec
	prog   *isa.Program
	eng    *core.Engine
	mem    *coherence.System
	events *core.Stream
	cores  []*Core
	seed   uint64

	dataEnd  uint64
	heapBase uint64
	heapEnd  uint64
	// irritateBelow is Spec.IrritatorProb as a threshold on 53 random
	// bits: a memory instruction is delayed when a draw is below it. 0
	// turns irritators off, the only thing an instruction tests then.
	irritateBelow uint64

	st machineState
	ev core.Event
	// noDirect turns the direct path off (SetDirect).
	noDirect bool
	// woken is signalStep's scratch list of the waiters one signal woke.
	woken []*Core

	// exts are the hardware extensions; checks and performs their
	// check- and perform-phase callbacks; acc the access they are shown.
	exts     []Extension
	checks   []extHook
	performs []extHook
	onEnd    []func(at core.Cycle)
	onThread []func(c int, from, to int32)
	acc      Access
	verdict  Verdict // the check phase's scratch verdict

	// parts are the registered Stateful parts checkpoints copy.
	parts []statePart
	// pending holds the checkpoint and rollback requests for the next
	// safe point; reseed the requested rollback's perturbation.
	pending uint8
	// ckptOnOutput asks for a checkpoint after every output.
	ckptOnOutput bool
	reseed       uint64
	// stats are the run's statistics groups (per core, per L1, the bus,
	// extensions).
	stats core.StatRegistry
	// jitterSalt perturbs the jitter streams of threads started after a
	// reseeding rollback (0: none). Rollbacks do not restore it.
	jitterSalt uint64
	ckpt       Snapshot
	hasCkpt    bool
	rollbacks  int
	// checkpoints counts the checkpoints taken (not restored by a rollback).
	checkpoints int

	// horizon is the cycle past which the run loop and a core's loop of
	// local instructions stop to call poll: sim.max_cycles, or with
	// StopOn an earlier cycle at which to look at the stop channel. It is
	// the host's, not the run's: snapshots do not copy it, and where it
	// lies changes nothing a run computes, only when poll is called.
	horizon core.Cycle
	// stop, when not nil, interrupts the run once it is closed (StopOn);
	// every is how often it is looked at, in cycles.
	stop  <-chan struct{}
	every core.Cycle
	// stoppedAt is the cycle at which the run was interrupted; stopped
	// reports that it was.
	stoppedAt core.Cycle
	stopped   bool
}

// StopCycles is how often, in simulated cycles, a machine with a stop
// channel looks at it by default (StopOn). It is 2^16 cycles: well under
// a millisecond of host time for the cheapest instructions (a core alone
// in a register-only loop runs about 2·10^8 cycles a second), while a look
// costs about as much as one instruction.
const StopCycles core.Cycle = 1 << 16

// StopOn makes the run stop early once stop is closed (a context's Done
// channel). The machine looks at stop whenever an event, or the next of a
// core's local instructions (registers, branches, work, delay), lies more
// than every cycles (0: StopCycles) past the cycle of the last look, so a
// run stops within about every simulated cycles of the close, even in an
// endless loop that never leaves one core: at an event boundary or
// between two instructions, as ended with no outcome, and Interrupted
// reports the cycle it reached. Until stop is closed the run is the same,
// cycle for cycle, as without it: a look changes no state of the run. A
// nil stop is no stop. Call it before Run.
func (m *Machine) StopOn(stop <-chan struct{}, every core.Cycle) {
	if every == 0 {
		every = StopCycles
	}
	m.stop, m.every, m.horizon = stop, every, m.spec.MaxCycles
	if stop != nil {
		m.horizon = min(m.spec.MaxCycles, satAdd(max(m.eng.Now(), m.st.frontier), every))
	}
}

// Interrupted reports whether the run was stopped by StopOn's channel
// before it ended, and the cycle it had reached (the furthest any core had
// got). An interrupted run has no outcome and no statistics worth reading.
func (m *Machine) Interrupted() (core.Cycle, bool) { return m.stoppedAt, m.stopped }

// poll is called when cycle t, an event's or the cycle at which a core's
// next local instruction would complete, is past the horizon. It reports
// whether the run goes on past it: not when t is past sim.max_cycles (the
// caller ends the run as a hang, or has the engine do so) or when the
// stop channel is closed (the run is then interrupted: ended, with no
// outcome). Otherwise it moves the horizon every cycles past t and
// changes nothing else.
func (m *Machine) poll(t core.Cycle) bool {
	if t > m.spec.MaxCycles {
		return false
	}
	select {
	case <-m.stop:
		m.stopped = true
		m.stoppedAt = max(t, m.eng.Now(), m.st.frontier)
		m.st.ended = true
		return false
	default:
	}
	m.horizon = min(m.spec.MaxCycles, satAdd(t, m.every))
	return true
}

// satAdd is a+b, or the largest cycle when that overflows.
func satAdd(a, b core.Cycle) core.Cycle {
	if a+b < a {
		return ^core.Cycle(0)
	}
	return a + b
}

// New builds a machine for prog with the given hardware extensions. Events
// go to events (which may have no observers); the run's randomness derives
// from seed. The extensions' metadata is laid out before the caches are
// built (it sets memSpec.Layout), then each extension attaches.
func New(spec Spec, memSpec coherence.Spec, prog *isa.Program, seed uint64, events *core.Stream, exts ...Extension) (*Machine, error) {
	if spec.Cores < 1 {
		return nil, fmt.Errorf("cpu: %d cores", spec.Cores)
	}
	if len(prog.Instrs) == 0 {
		return nil, fmt.Errorf("cpu: program %q has no instructions", prog.Name)
	}
	if _, ok := prog.LabelPC("main"); !ok {
		return nil, fmt.Errorf("cpu: program %q has no main label", prog.Name)
	}
	if spec.HeapWords == 0 {
		spec.HeapWords = DefaultHeapWords
	}
	if p := spec.IrritatorProb; !(p >= 0 && p <= 1) {
		return nil, fmt.Errorf("cpu: irritator probability %v is not from 0 to 1", p)
	}
	if spec.IrritatorProb > 0 && spec.IrritatorMaxCycles == 0 {
		return nil, fmt.Errorf("cpu: irritator probability %v with a largest irritator of 0 cycles", spec.IrritatorProb)
	}
	if events == nil {
		events = &core.Stream{}
	}
	memSpec.Cores = spec.Cores
	m := &Machine{spec: spec, prog: prog, eng: &core.Engine{}, events: events, seed: seed, woken: make([]*Core, 0, spec.Cores),
		horizon: spec.MaxCycles}
	// Rounded up, so that any probability above 0 turns irritators on;
	// exact for 1 (every draw is below 2^53).
	m.irritateBelow = uint64(math.Ceil(spec.IrritatorProb * (1 << 53)))
	// At most one event per core, one bus completion and one timer per
	// core are queued at once.
	m.eng.Reserve(2*spec.Cores + 2)
	m.dataEnd = prog.DataEnd()
	m.heapBase = HeapBase(prog, memSpec.LineBytes)
	m.heapEnd = m.heapBase + uint64(spec.HeapWords)*isa.WordBytes
	if len(exts) > 0 {
		reqs, err := metaRequests(exts)
		if err != nil {
			return nil, err
		}
		if memSpec.Layout, err = coherence.NewLayout(memSpec.LineBytes, reqs); err != nil {
			return nil, err
		}
	}
	mem, err := coherence.New(memSpec, m.eng, events, isa.DataBase, int((m.heapBase-isa.DataBase)/isa.WordBytes))
	if err != nil {
		return nil, err
	}
	m.st.stallWaits = make([]core.Wait, spec.Cores)
	mem.InitMemory(prog.Data)
	m.mem = mem
	m.st.heapNext = m.heapBase
	m.st.outcome = core.Outcome{Kind: core.Pass, PC: core.NoPC, Thread: -1}
	m.cores = make([]*Core, spec.Cores)
	for i := range m.cores {
		c := &Core{m: m, id: i}
		c.st.Status = statusIdle
		c.st.Thread = -1
		c.st.ParkPC = -1
		c.target = m.eng.Register(c)
		mem.SetClient(i, c)
		m.cores[i] = c
	}
	for _, c := range m.cores {
		if err := m.stats.Register(core.StatGroup{Name: CoreGroup(c.id), Counters: cpuStatNames[:], Read: c.readStats}); err != nil {
			return nil, err
		}
	}
	if err := mem.RegisterStats(&m.stats); err != nil {
		return nil, err
	}
	if m.irritateBelow != 0 {
		// Only with irritators on, so that the groups of every other run
		// are unchanged.
		if err := m.stats.Register(core.StatGroup{Name: IrritatorsGroup, Counters: []string{"delays", "delay_cycles"},
			Read: func(dst []uint64) { dst[0], dst[1] = m.st.irritators, m.st.irritatorCycles }}); err != nil {
			return nil, err
		}
	}
	m.exts = exts
	for i, x := range exts {
		if err := x.Attach(&Port{m: m, name: x.Name(), region: i}); err != nil {
			return nil, fmt.Errorf("attach extension %s: %w", x.Name(), err)
		}
	}
	return m, nil
}

// SetDirect turns the direct path of accesses that hit on (the default)
// or off. Off, every access takes the general path; results are the same
// either way, which is what tests that call this check.
func (m *Machine) SetDirect(on bool) { m.noDirect = !on }

// Memory returns the memory system.
func (m *Machine) Memory() *coherence.System { return m.mem }

// Engine returns the event engine.
func (m *Machine) Engine() *core.Engine { return m.eng }

// Program returns the program the machine runs.
func (m *Machine) Program() *isa.Program { return m.prog }

// Events returns the event stream.
func (m *Machine) Events() *core.Stream { return m.events }

// Threads returns the threads started so far.
func (m *Machine) Threads() []ThreadInfo { return m.st.threads }

// Outputs returns the values written by out, in global order.
func (m *Machine) Outputs() []int64 { return m.st.outputs }

// Ended reports whether the run is over.
func (m *Machine) Ended() bool { return m.st.ended }

// Now returns the current global cycle.
func (m *Machine) Now() core.Cycle { return m.eng.Now() }

// Start spawns the main thread on core 0 and emits RunStart.
func (m *Machine) Start() {
	pc, _ := m.prog.LabelPC("main")
	if m.events.Watching(core.KindRunStart) {
		m.ev = core.Event{Kind: core.KindRunStart, Thread: -1, PC: core.NoPC, Core: -1}
		m.ev.Words[0] = m.seed
		m.events.Emit(&m.ev)
	}
	m.startThread(m.cores[0], pc, 0, -1, 0)
}

// startThread puts a new thread on core c at pc with r1 = arg, starting at
// cycle at (plus the configured random skew for spawned threads).
func (m *Machine) startThread(c *Core, pc int32, arg int64, parent int32, at core.Cycle) int32 {
	tid := int32(len(m.st.threads))
	name := "jitter/thread/" + strconv.Itoa(int(tid))
	if m.jitterSalt != 0 {
		name += "/reseed/" + strconv.FormatUint(m.jitterSalt, 10)
	}
	rng := core.NewRNG(m.seed, name)
	if parent >= 0 && m.spec.StartSkewCycles > 0 {
		at += core.Cycle(rng.Range(0, m.spec.StartSkewCycles))
	}
	m.st.threads = append(m.st.threads, ThreadInfo{Core: int32(c.id), Parent: parent, Start: at})
	m.st.live++
	for _, f := range m.onThread {
		f(c.id, c.st.Thread, tid)
	}
	idleSince := c.st.IdleSince
	buckets := c.st.Buckets
	gen := c.st.Gen
	stats, past := c.st.Stats, c.st.PastInstrs
	c.st = coreState{}
	c.st.Stats, c.st.PastInstrs = stats, past
	c.st.Buckets = buckets
	c.st.Buckets[Idle] += at - idleSince
	c.st.Gen = gen
	c.st.Status = statusRunning
	c.st.Thread = tid
	c.st.PC = pc
	c.st.Time = at
	c.st.Regs[1] = arg
	c.st.RNG = rng
	c.st.Start = at
	c.st.ParkPC = -1
	m.armPark(c)
	c.schedule(at)
	return tid
}

// HeapBase is the address of prog's first heap word (what the first
// alloc returns) on a machine with lines of lineBytes bytes: the first
// line boundary after the data, and one line further when the data ends
// on a boundary, so a heap object never shares a line with the last datum
// by accident.
func HeapBase(prog *isa.Program, lineBytes int) uint64 {
	line := uint64(lineBytes)
	end := prog.DataEnd()
	base := (end + line - 1) / line * line
	if base == end {
		base += line
	}
	return base
}

// RunUntil runs events until the run ends or the next event is after
// limit. It reports whether the run has ended.
func (m *Machine) RunUntil(limit core.Cycle) bool {
	for !m.st.ended {
		at, ok := m.eng.NextAt()
		if !ok {
			m.deadlock()
			break
		}
		if at > m.horizon && !m.poll(at) {
			m.pastMaxCycles()
			break
		}
		if at > limit {
			return false
		}
		m.step()
	}
	return true
}

// pastMaxCycles ends the run as a hang when the next event is past
// sim.max_cycles and poll stopped it, unless the run was interrupted
// instead (StopOn).
func (m *Machine) pastMaxCycles() {
	if !m.stopped {
		m.endHang(fmt.Sprintf("exceeded sim.max_cycles (%d)", m.spec.MaxCycles), m.spec.MaxCycles, m.overdue())
	}
}

// step fires the next event, then carries out pending checkpoint and
// rollback requests (the safe point between events).
func (m *Machine) step() {
	m.eng.Step()
	if err := m.mem.Err(); err != nil && m.st.internal == nil {
		m.st.internal = err
		m.st.ended = true
	}
	if m.pending != 0 && m.st.internal == nil && !m.stopped {
		m.safePoint()
	}
}

// Step runs the run's next event and the safe point after it. It reports
// whether the run has ended.
func (m *Machine) Step() bool {
	if m.st.ended {
		return true
	}
	at, ok := m.eng.NextAt()
	switch {
	case !ok:
		m.deadlock()
	case at > m.horizon && !m.poll(at):
		m.pastMaxCycles()
	default:
		m.step()
	}
	return m.st.ended
}

// Run runs the program to its end.
func (m *Machine) Run() {
	m.RunUntil(^core.Cycle(0))
}

// InternalError returns an internal simulator error that ended the run
// (a protocol violation), or nil. A spawn with no free core is not one:
// it is the run's crash outcome.
func (m *Machine) InternalError() error { return m.st.internal }

// Outcome returns the run's outcome (valid once the run has ended).
func (m *Machine) Outcome() core.Outcome {
	o := m.st.outcome
	if o.Kind < core.Hang && !m.st.errSeen && m.prog.HasExpect && !equalOutputs(m.st.outputs, m.prog.Expect) {
		return core.Outcome{Kind: core.WrongOutput, PC: core.NoPC, Thread: -1, Msg: fmt.Sprintf("outputs %v, expected %v", m.st.outputs, m.prog.Expect), Cycle: o.Cycle}
	}
	return o
}

func equalOutputs(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// setOutcome records an outcome if it takes precedence over the current one.
func (m *Machine) setOutcome(k core.OutcomeKind, pc int32, tid int32, msg string, at core.Cycle) {
	if k == core.Error {
		if m.st.errSeen {
			return
		}
		m.st.errSeen = true
	}
	if k > m.st.outcome.Kind || (k == m.st.outcome.Kind && m.st.outcome.Msg == "") {
		m.st.outcome = core.Outcome{Kind: k, PC: pc, Thread: tid, Msg: msg, Cycle: at}
	}
}

// endRun ends the run at cycle at.
func (m *Machine) endRun(at core.Cycle) {
	if m.st.ended {
		return
	}
	m.st.ended = true
	m.st.outcome.Cycle = at
	for _, c := range m.cores {
		if c.st.Thread >= 0 && !m.st.threads[c.st.Thread].Exited {
			m.st.threads[c.st.Thread].Instrs = c.st.Instrs
		}
	}
	if m.st.roiState == roiOpen {
		m.closeROI(at)
	}
	for _, c := range m.cores {
		c.finish(at)
	}
	for _, f := range m.onEnd {
		f(at)
	}
	if m.events.Watching(core.KindRunEnd) {
		o := m.Outcome()
		m.ev = core.Event{Kind: core.KindRunEnd, Cycle: at, Core: -1, Thread: o.Thread, PC: o.PC}
		m.ev.Words[0] = uint64(o.Kind)
		m.events.Emit(&m.ev)
	}
}

// crash ends the run at once with a crash (or assert) outcome.
func (m *Machine) crash(k core.OutcomeKind, c *Core, msg string, at core.Cycle) {
	m.crashAt(k, c, msg, at, 0)
}

// crashAt is crash for a faulting access: the Crash event carries the
// address (Addr) so a monitor can check the access offline.
func (m *Machine) crashAt(k core.OutcomeKind, c *Core, msg string, at core.Cycle, addr uint64) {
	kind := core.KindCrash
	if k == core.Assert {
		kind = core.KindAssertFail
	}
	if m.events.Watching(kind) {
		m.ev = core.Event{Kind: kind, Cycle: at, Core: int32(c.id), Thread: c.st.Thread, PC: c.st.PC, Addr: addr}
		m.events.Emit(&m.ev)
	}
	m.setOutcome(k, c.st.PC, c.st.Thread, msg, at)
	m.endRun(at)
}

// overdue returns the core whose event is the first past sim.max_cycles
// (the thread that ran out of time), or nil when that event is not a core's.
func (m *Machine) overdue() *Core {
	it, ok := m.eng.Peek()
	if !ok {
		return nil
	}
	for _, c := range m.cores {
		if c.target == it.Target {
			return c
		}
	}
	if it.Target == m.mem.Target() {
		return m.cores[m.mem.EventCore(it.Op, it.Arg)]
	}
	return nil
}

// endHang ends the run as a hang at cycle at, blaming the given core's
// thread, or else the live thread most likely to be the cause.
func (m *Machine) endHang(msg string, at core.Cycle, blame *Core) {
	pc, tid := core.NoPC, int32(-1)
	if blame != nil && blame.st.Thread >= 0 {
		pc, tid = blame.st.PC, blame.st.Thread
	} else {
		// Prefer a running thread, then one blocked on something other than
		// a join (joins wait on the real culprit), then the lowest id.
		rank := func(c *Core) int {
			switch c.st.Status {
			case statusRunning, statusMem:
				return 0
			case statusJoin:
				return 2
			}
			return 1
		}
		best := -1
		for _, c := range m.cores {
			if c.st.Status == statusIdle || c.st.Status == statusDone || c.st.Thread < 0 {
				continue
			}
			if r := rank(c); best < 0 || r < best || (r == best && c.st.Thread < tid) {
				pc, tid, best = c.st.PC, c.st.Thread, r
			}
		}
	}
	if m.events.Watching(core.KindHang) {
		m.ev = core.Event{Kind: core.KindHang, Cycle: at, Core: -1, Thread: tid, PC: pc}
		m.events.Emit(&m.ev)
	}
	m.setOutcome(core.Hang, pc, tid, msg, at)
	m.endRun(at)
}

// deadlock ends a run whose event queue is empty while threads live.
func (m *Machine) deadlock() {
	if m.st.live == 0 {
		m.endRun(max(m.eng.Now(), m.st.frontier))
		return
	}
	msg := "deadlock: every live thread is blocked:"
	for _, c := range m.cores {
		if c.st.Thread >= 0 && c.st.Status != statusIdle && c.st.Status != statusDone {
			msg += fmt.Sprintf(" thread %d %s at pc %d;", c.st.Thread, c.st.Status, c.st.PC)
		}
	}
	at := max(m.eng.Now(), m.st.frontier)
	m.endHang(msg[:len(msg)-1], at, nil)
	m.st.outcome.Deadlock = m.st.outcome.Kind == core.Hang
}

const (
	roiNone uint8 = iota
	roiOpen
	roiClosed
)

func (m *Machine) openROI(at core.Cycle) {
	m.st.roiState = roiOpen
	m.st.roiBase = m.stats.Read(m.st.roiBase[:0])
	m.st.roiStart = at
}

func (m *Machine) closeROI(at core.Cycle) {
	m.st.roiState = roiClosed
	m.st.roiLast = m.stats.Read(m.st.roiLast[:0])
	m.st.roiEnd = at
}

// StatRegistry returns the run's statistics groups: "core[i]" (the
// processor counters of core i), "l1[i]", "bus", "irritators" (with
// irritators on only: the irritators drawn, "delays", and their
// "delay_cycles"), then one "ext.NAME" per extension that registered
// counters.
func (m *Machine) StatRegistry() *core.StatRegistry { return &m.stats }

// ROIGroups returns every statistics group's counters over the region of
// interest (the whole run when the program has no roi), in StatRegistry
// order, and the region's cycles.
func (m *Machine) ROIGroups() ([]uint64, core.Cycle) {
	end := m.st.outcome.Cycle
	last := m.stats.Read(nil)
	start := core.Cycle(0)
	var base []uint64
	switch m.st.roiState {
	case roiOpen:
		base, start = m.st.roiBase, m.st.roiStart
	case roiClosed:
		base, start = m.st.roiBase, m.st.roiStart
		copy(last, m.st.roiLast)
		end = m.st.roiEnd
	}
	for i := range base {
		last[i] -= base[i]
	}
	return last, end - start
}

// Breakdown returns each core's cycle breakdown.
func (m *Machine) Breakdown() [][NumBuckets]core.Cycle {
	out := make([][NumBuckets]core.Cycle, len(m.cores))
	for i, c := range m.cores {
		out[i] = c.st.Buckets
	}
	return out
}

// ThreadInstructions returns each thread's instruction count.
func (m *Machine) ThreadInstructions() []uint64 {
	out := make([]uint64, len(m.st.threads))
	for i, t := range m.st.threads {
		out[i] = t.Instrs
	}
	for _, c := range m.cores {
		if c.st.Thread >= 0 && !m.st.threads[c.st.Thread].Exited {
			out[c.st.Thread] = c.st.Instrs
		}
	}
	return out
}

type coherenceState = coherence.SysState
