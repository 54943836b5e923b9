package cpu

import (
	"strconv"

	"weft/core"
)

// Stateful is a part of a run whose state checkpoints copy besides the
// machine's own (cores, caches and metadata, bus, engine queue, RNGs, wait
// queues): an extension, or an observer that asks to be rolled back with
// the machine.
type Stateful interface {
	// Save copies the part's state into buf and returns it. buf is nil or
	// a value an earlier Save returned, whose storage Save should reuse.
	Save(buf any) any
	// Load restores the state from a value Save returned.
	Load(buf any)
}

type statePart struct {
	name string
	s    Stateful
}

// Snapshot is a copy of a whole run's state: registers, memory, caches and
// line metadata, the bus, the event queue, RNG states, wait queues, park
// rules and every registered Stateful part.
type Snapshot struct {
	eng   core.EngineState
	mem   coherenceState
	cores []coreState
	st    machineState
	parts []any
	// Cycle is the global cycle the snapshot was taken at.
	Cycle core.Cycle
	// Instructions is the number of instructions executed by then.
	Instructions uint64
	// Outputs is the number of values the program had output by then.
	Outputs int
}

// RegisterState adds a part whose state snapshots copy. Register before
// the run starts.
func (m *Machine) RegisterState(name string, s Stateful) {
	m.parts = append(m.parts, statePart{name: name, s: s})
}

// Snapshot copies the run's state into a new snapshot.
func (m *Machine) Snapshot() *Snapshot {
	s := &Snapshot{}
	m.SnapshotInto(s)
	return s
}

// SnapshotInto copies the run's state into s, reusing its storage: taking
// a snapshot into the same value again allocates nothing.
func (m *Machine) SnapshotInto(s *Snapshot) {
	m.eng.Save(&s.eng)
	m.mem.Save(&s.mem)
	s.cores = s.cores[:0]
	for _, c := range m.cores {
		s.cores = append(s.cores, c.st)
	}
	copyMachineState(&s.st, &m.st)
	for len(s.parts) < len(m.parts) {
		s.parts = append(s.parts, nil)
	}
	for i, p := range m.parts {
		s.parts[i] = p.s.Save(s.parts[i])
	}
	s.Cycle = max(m.eng.Now(), m.st.frontier)
	s.Instructions = m.instructions()
	s.Outputs = len(m.st.outputs)
}

// Restore returns the run to a snapshot taken from it. Call it only
// between events (between RunUntil calls); from inside a callback use
// RequestRollback.
func (m *Machine) Restore(s *Snapshot) {
	m.pending = 0
	m.eng.Load(&s.eng)
	m.mem.Load(&s.mem)
	for i, c := range m.cores {
		c.st = s.cores[i]
	}
	copyMachineState(&m.st, &s.st)
	for i, p := range m.parts {
		p.s.Load(s.parts[i])
	}
}

func copyMachineState(dst, src *machineState) {
	threads := append(dst.threads[:0], src.threads...)
	outputs := append(dst.outputs[:0], src.outputs...)
	freed := append(dst.freed[:0], src.freed...)
	parks := append(dst.parks[:0], src.parks...)
	stallWaits := append(dst.stallWaits[:0], src.stallWaits...)
	roiBase := append(dst.roiBase[:0], src.roiBase...)
	roiLast := append(dst.roiLast[:0], src.roiLast...)
	*dst = *src
	dst.threads, dst.outputs, dst.freed, dst.parks, dst.stallWaits = threads, outputs, freed, parks, stallWaits
	dst.roiBase, dst.roiLast = roiBase, roiLast
}

// instructions returns the instructions executed so far by every thread.
// Instructions returns the number of instructions every thread has
// executed so far (O(threads), no allocation).
func (m *Machine) Instructions() uint64 { return m.instructions() }

func (m *Machine) instructions() uint64 {
	var n uint64
	for _, t := range m.st.threads {
		if t.Exited {
			n += t.Instrs
		}
	}
	for _, c := range m.cores {
		if c.st.Thread >= 0 && !m.st.threads[c.st.Thread].Exited {
			n += c.st.Instrs
		}
	}
	return n
}

// Requests carried out at the next safe point.
const (
	wantCheckpoint uint8 = 1 << iota
	wantRollback
)

// RequestCheckpoint asks for a checkpoint at the next safe point (between
// events), replacing the previous one. Callbacks may call it.
func (m *Machine) RequestCheckpoint() { m.pending |= wantCheckpoint }

// RequestRollback asks for a rollback to the last checkpoint at the next
// safe point. reseed, when not zero, perturbs every thread's jitter stream
// after the rollback so the re-execution takes a different schedule. It
// reports false, and does nothing, when there is no checkpoint.
func (m *Machine) RequestRollback(reseed uint64) bool {
	if !m.hasCkpt {
		return false
	}
	m.pending |= wantRollback
	m.reseed = reseed
	return true
}

// CheckpointAfterOutputs asks for a checkpoint right after every output
// (the outputting core stops after it): an output cannot be undone, so a
// rollback must find a checkpoint after the last one.
func (m *Machine) CheckpointAfterOutputs() { m.ckptOnOutput = true }

// HasCheckpoint reports whether a checkpoint has been taken.
func (m *Machine) HasCheckpoint() bool { return m.hasCkpt }

// Checkpoint returns the last checkpoint (nil before the first). It is the
// machine's own storage: read it, do not keep it across safe points.
func (m *Machine) Checkpoint() *Snapshot {
	if !m.hasCkpt {
		return nil
	}
	return &m.ckpt
}

// Rollbacks returns the number of rollbacks carried out.
func (m *Machine) Rollbacks() int { return m.rollbacks }

// Checkpoints returns the number of checkpoints taken.
func (m *Machine) Checkpoints() int { return m.checkpoints }

// safePoint carries out pending checkpoint and rollback requests. A
// rollback discards a checkpoint requested in the same span; a rollback
// requested in the event that ended the run is still carried out (the
// run goes on from the checkpoint), a checkpoint is not.
func (m *Machine) safePoint() {
	p := m.pending
	m.pending = 0
	if p&wantRollback != 0 {
		from, instrs := max(m.eng.Now(), m.st.frontier), m.instructions()
		m.Restore(&m.ckpt)
		m.rollbacks++
		if m.reseed != 0 {
			m.jitterSalt = m.reseed
			for _, c := range m.cores {
				if c.st.Thread >= 0 {
					c.st.RNG = core.NewRNG(m.seed, "jitter/thread/"+strconv.Itoa(int(c.st.Thread))+"/reseed/"+strconv.FormatUint(m.reseed, 10))
				}
			}
		}
		if m.events.Watching(core.KindRollback) {
			m.ev = core.Event{Kind: core.KindRollback, Cycle: from, Core: -1, Thread: -1, PC: core.NoPC,
				Value: int64(instrs - m.ckpt.Instructions)}
			m.ev.Words = [4]uint64{uint64(m.ckpt.Cycle), instrs, m.ckpt.Instructions, m.reseed}
			m.events.Emit(&m.ev)
		}
		return
	}
	if p&wantCheckpoint != 0 && !m.st.ended {
		m.SnapshotInto(&m.ckpt)
		m.hasCkpt = true
		m.checkpoints++
		if m.events.Watching(core.KindCheckpoint) {
			m.ev = core.Event{Kind: core.KindCheckpoint, Cycle: m.ckpt.Cycle, Core: -1, Thread: -1, PC: core.NoPC,
				Value: int64(m.ckpt.Instructions)}
			m.events.Emit(&m.ev)
		}
	}
}
