package infer

import (
	"fmt"

	"weft/core"
	"weft/detectors/hb"
	"weft/isa"
)

// Verdict is what a replay made of a counterexample.
type Verdict uint8

// The replay verdicts (digest §1.8).
const (
	// Discarded: the schedule was enforced and nothing went wrong.
	Discarded Verdict = iota
	// Confirmed: happens-before reported a race on the replay, or the
	// replay deadlocked.
	Confirmed
	// Dropped: the schedule could not be enforced (a thread did a sync
	// operation the schedule did not predict, or waited for its turn
	// longer than the timeout): infeasible.
	Dropped
)

// String returns "discarded", "confirmed" or "dropped".
func (v Verdict) String() string {
	return [...]string{"discarded", "confirmed", "dropped"}[v]
}

// ParkTimeout is how long a thread waits for its turn in a replay before
// the schedule counts as infeasible.
const ParkTimeout = 200_000

// Enforcer holds a run to a counterexample's schedule through schedule
// control (park rules: a thread waits before a sync instruction until the
// schedule's earlier events happened) and watches the run's sync events
// for divergence. Its parks are not synchronisation: a happens-before
// detector on the same run never sees them.
type Enforcer struct {
	sched []SyncEvent
	rec   *Recorder
	seen  int
	done  []bool
	next  int
	// Diverged says how the run left the schedule ("" while it follows
	// it).
	Diverged string
	results  []core.ParkResult
	// parks[j] is the index in results of the probe's park rule j.
	parks []int
	// needs[i] are the schedule steps park i waits for; doneAt[k] is one
	// more than the cycle step k was performed (0: not yet).
	needs  [][]int
	doneAt []core.Cycle
}

// parkable reports whether a sync event starts an instruction, so a park
// before its PC holds it (the later phases of a cwait or barrier, a
// wake, a start and a wait-loop exit are not).
func parkable(prog *isa.Program, s SyncEvent) bool {
	if s.PC < 0 || int(s.PC) >= len(prog.Instrs) {
		return false
	}
	op := prog.Instrs[s.PC].Op
	switch s.Kind {
	case SyncAcquire:
		return op == isa.OpLock
	case SyncRelease:
		return op == isa.OpUnlock || op == isa.OpCwait
	case SyncSpawn, SyncJoin, SyncArrive, SyncSignal, SyncExit:
		return true
	}
	return false
}

// NewEnforcer returns the enforcer of c's schedule on a run of prog, with
// the probe that attaches it and its parks (its Seed is left to the
// caller); hand the probe's result to SetParks. trace is the recorded
// trace c came from (for each thread's first event after the schedule,
// where it waits for the schedule's end).
func NewEnforcer(prog *isa.Program, trace *Trace, c *Counterexample) (*Enforcer, core.Probe) {
	e := &Enforcer{sched: c.Schedule, rec: NewRecorder(prog), done: make([]bool, len(c.Schedule))}
	n := len(c.Schedule)
	e.results = make([]core.ParkResult, n+trace.Threads)
	e.needs = make([][]int, n+trace.Threads)
	e.doneAt = make([]core.Cycle, n)
	probe := core.Probe{Watch: []core.Watch{{Kinds: e.rec.Kinds(), Observer: e}}}
	park := func(i int, r core.ParkRule) {
		probe.Parks = append(probe.Parks, r)
		e.parks = append(e.parks, i)
	}
	// Main's start is recorded at its first event, which may be a parked
	// one: it counts as done from the beginning.
	for k, s := range c.Schedule {
		if s.Kind == SyncStart && s.Thread == 0 {
			e.done[k], e.doneAt[k] = true, 1
		}
	}
	for e.next < n && e.done[e.next] {
		e.next++
	}
	count := make([]int, trace.Threads) // each thread's scheduled events
	for k, s := range c.Schedule {
		count[s.Thread]++
		if !parkable(prog, s) {
			continue
		}
		// The park waits for every earlier step but its own thread's
		// unparkable steps recorded by the parked instruction itself (a
		// wait loop's exit is recorded at the first instruction after the
		// loop).
		var need []int
		for j := 0; j < k; j++ {
			x := c.Schedule[j]
			if x.Thread == s.Thread && !parkable(prog, x) && x.PC == s.PC {
				continue
			}
			need = append(need, j)
		}
		e.needs[k] = need
		park(k, core.ParkRule{Thread: int32(s.Thread), PC: s.PC,
			Wait: core.Wait{Until: core.UntilPredicate, Pred: func(core.View) bool { return e.allDone(need) }, Timeout: ParkTimeout}})
	}
	// After its scheduled events, a thread waits for the schedule's end
	// before its next sync operation that a park can hold (in the trace).
	for t := range trace.Threads {
		i := count[t]
		for i < len(trace.ThreadSyncs[t]) && !parkable(prog, trace.Syncs[trace.ThreadSyncs[t][i]]) {
			i++
		}
		if i >= len(trace.ThreadSyncs[t]) {
			continue
		}
		s := trace.Syncs[trace.ThreadSyncs[t][i]]
		var need []int
		for j := range n {
			if x := c.Schedule[j]; !(x.Thread == t && !parkable(prog, x) && x.PC == s.PC) {
				need = append(need, j)
			}
		}
		e.needs[n+t] = need
		park(n+t, core.ParkRule{Thread: int32(t), PC: s.PC,
			Wait: core.Wait{Until: core.UntilPredicate, Pred: func(core.View) bool { return e.allDone(need) }, Timeout: ParkTimeout}})
	}
	return e, probe
}

// SetParks records what became of the probe's park rules (its result's
// Parks, in rule order), which TimedOut reads.
func (e *Enforcer) SetParks(rs []core.ParkResult) {
	for j, r := range rs {
		e.results[e.parks[j]] = r
	}
}

// Observe follows the run's sync events against the schedule.
func (e *Enforcer) Observe(ev *core.Event) {
	e.rec.Observe(ev)
	for ; e.seen < len(e.rec.syncs); e.seen++ {
		e.match(e.rec.syncs[e.seen])
	}
}

// match consumes one sync event of the run: it must be its thread's next
// scheduled event (threads' events interleave as the parks let them; the
// events no park holds may come early).
func (e *Enforcer) match(s SyncEvent) {
	if e.Diverged != "" || e.next >= len(e.sched) || s.Kind == SyncStart && s.Thread == 0 {
		return
	}
	for k := e.next; k < len(e.sched); k++ {
		x := e.sched[k]
		if e.done[k] || x.Thread != s.Thread {
			continue
		}
		if x.Kind != s.Kind || x.Obj != s.Obj || (x.Kind == SyncSpawn || x.Kind == SyncJoin) && x.Peer != s.Peer {
			e.Diverged = fmt.Sprintf("thread %d did %v where the schedule has %v", s.Thread, s, x)
			return
		}
		e.done[k], e.doneAt[k] = true, s.Cycle+1
		for e.next < len(e.sched) && e.done[e.next] {
			e.next++
		}
		return
	}
	// No scheduled event is left for this thread: it went past its part
	// of the schedule before the schedule's end (a child's start at its
	// spawn, or a sync operation where no park could hold it: the park
	// after a thread's part sits at its next sync instruction in the
	// trace, and this replay may reach another first). That is not a
	// divergence from the schedule; if it breaks the schedule, a thread
	// waits for its turn past the timeout and the replay is dropped.
}

// TimedOut reports whether some thread's wait for its turn ended by its
// timeout before its turn came: the schedule was not enforced. (A park
// whose turn had come but that no retiring instruction re-checked, and
// that its timeout then released, is only a delay.)
func (e *Enforcer) TimedOut() bool {
	for i, r := range e.results {
		if !r.TimedOut {
			continue
		}
		for _, j := range e.needs[i] {
			if at := e.doneAt[j]; at == 0 || at-1 > r.ReleasedAt {
				return true
			}
		}
	}
	return false
}

// allDone reports whether the schedule steps need were performed.
func (e *Enforcer) allDone(need []int) bool {
	for _, j := range need {
		if !e.done[j] {
			return false
		}
	}
	return true
}

// Enforced reports how many of the schedule's events the run performed.
func (e *Enforcer) Enforced() int { return e.next }

// ReplayResult is a replay's outcome.
type ReplayResult struct {
	Verdict Verdict
	// Races are happens-before's reports on the replay (the localisation
	// of a confirmed race).
	Races []core.Finding
	// Deadlock reports that the replay hung with every live thread
	// blocked on the program's own synchronisation.
	Deadlock bool
	// Outcome is the replay's outcome.
	Outcome core.OutcomeKind
	// Reason says why it was dropped.
	Reason string
	// Seed is the replay's seed: with the schedule it reproduces it.
	Seed uint64
}

// Runner runs the traced program on the traced run's machine: the
// replays. The analysis package provides one over the simulator.
type Runner interface {
	// Run runs the program as p says.
	Run(p core.Probe) (core.ProbeResult, error)
}

// Replay runs prog (run runs it on the traced run's machine) with seed,
// enforcing c's schedule with happens-before attached (which sees none of
// the enforcement), and judges it.
func Replay(run Runner, prog *isa.Program, seed uint64, trace *Trace, c *Counterexample) (ReplayResult, error) {
	e, probe := NewEnforcer(prog, trace, c)
	probe.Seed = seed
	det := hb.New(prog, hb.Options{})
	probe.Watch = append(probe.Watch, core.Watch{Kinds: det.Kinds(), Observer: det})
	r, err := run.Run(probe)
	if err != nil {
		return ReplayResult{}, fmt.Errorf("infer: replay: %w", err)
	}
	e.SetParks(r.Parks)
	res := ReplayResult{Outcome: r.Outcome.Kind, Seed: seed}
	switch {
	case e.Diverged != "":
		res.Verdict, res.Reason = Dropped, e.Diverged
	case e.TimedOut():
		res.Verdict, res.Reason = Dropped, fmt.Sprintf("a thread waited more than %d cycles for its turn (%d of %d scheduled events enforced)", ParkTimeout, e.Enforced(), len(c.Schedule))
	default:
		// A race is confirmed by a report on its object, a deadlock by the
		// run's deadlock (every live thread blocked), not by a hang at the
		// cycle limit or by a report elsewhere.
		res.Races = det.Findings()
		res.Deadlock = r.Outcome.Deadlock
		if c.Deadlock {
			if res.Deadlock {
				res.Verdict = Confirmed
			}
			break
		}
		for _, f := range res.Races {
			if f.Addr >= c.Addr && f.Addr < c.Addr+uint64(c.Words)*isa.WordBytes {
				res.Verdict = Confirmed
			}
		}
	}
	return res, nil
}
