// Package pset is PSet's hardware (Yu and Narayanasamy, ISCA 2009) as a
// machine extension: per-granule last-writer and last-reader metadata in
// the caches, carried on coherence replies, and a check unit that
// compares each access's immediate remote predecessors with the PSet of
// its instruction, logging a violation or stalling the access until
// another thread's access to its line makes the check pass (or a timeout
// releases it).
//
// Metadata. Each granule (an 8-byte word, or a whole line) keeps the last
// writer (instruction, thread) and up to Readers last readers since that
// write, one per thread, each with an ordering stamp (the position of its
// read in the machine's total order of performs: digest §2.1's "ordering
// stamp" for condition (c)). A read reply or an invalidation ack merges
// the responder's granules into the requester's: the writer (the same in
// every copy, since a write invalidates the others) and the union of the
// readers, so a write gathers the readers spread over the sharers'
// caches. A local access updates its own copy. Eviction loses the record
// (coherence.MetaLost) unless the machine keeps it (writeback, ideal).
//
// The check follows detectors/pset's definition of immediate remote
// predecessors exactly, on what the granule holds: a read's candidate is
// the last writer (remote, with neither thread having read since); a
// write's are the readers after its thread's own last read, or the last
// writer when there are none; an RMW is checked as a read. With word
// granularity, no eviction and enough reader slots the hardware reports
// every pair the software monitor reports, and almost always no other
// (tested): a read that hits a Shared copy updates only that copy, so
// another sharer's later read of the word does not know that the writer
// read it since its write (condition (c)) and may count a RAW predecessor
// the monitor does not. Line granularity merges a line's words. Evictions
// and full reader slots lose readers, which both drops WAR predecessors
// and can add RAW ones (condition (c) no longer knows the writer read the
// word since). Even with "ideal" or "writeback" eviction a sharer that
// evicts while others hold the line takes its own readers with it: memory
// keeps only the last holder's record. Frees are not cache accesses, and
// an access that faults is never checked.
//
// The snoop merge takes every holder's readers, S holders on a read miss
// included, though MESI sends them nothing and the bus charges no bytes
// for them (ours: the digest's exact reading needs the reader set; the
// metadata bytes counted are those of read replies and invalidation acks).
package pset

import (
	"fmt"
	"slices"

	"weft/coherence"
	"weft/core"
	"weft/cpu"
	"weft/isa"
)

// Mode is what the hardware does with a violation.
type Mode uint8

// The violation modes.
const (
	// LogOnly logs the violation; the access proceeds.
	LogOnly Mode = iota
	// Stall holds the violating access until another thread accesses its
	// line, then checks it again; a timeout releases it (logged).
	Stall
	// Rollback returns the run to its last checkpoint and re-executes it
	// with a perturbed schedule.
	Rollback
	// StallThenRollback stalls; a stall that times out rolls back.
	StallThenRollback
)

// Spec configures the PSet hardware.
type Spec struct {
	// PSets are the program's PSets (isa.DecodePSets).
	PSets isa.PSets
	// Gran is the metadata granularity (word or line).
	Gran coherence.Granularity
	// Readers is the number of last-reader slots per granule (1..16).
	Readers int
	// IgnoreUntested skips the check of instructions training never ran
	// (untested_policy = "ignore"); by default they are null PSets.
	IgnoreUntested bool
	// IgnoreSync leaves accesses to synchronisation words unchecked and
	// untracked.
	IgnoreSync bool
	// CheckBase and CheckPerEntry are a check's cost: CheckBase +
	// CheckPerEntry × the PSet's entries, charged to the accessing core
	// when some immediate predecessor is remote.
	CheckBase, CheckPerEntry core.Cycle
	// Mode is what a violation does.
	Mode Mode
	// StallTimeout bounds a stall (0: none).
	StallTimeout core.Cycle
	// CheckpointInterval is the instructions between the rollback modes'
	// global checkpoints.
	CheckpointInterval uint64
	// MaxRollbacks bounds the rollbacks to one checkpoint; past it the
	// violation is accepted, its pairs join the PSets and a checkpoint is
	// taken at the violation.
	MaxRollbacks int
	// Perturb is how a re-execution differs; every rollback also reseeds
	// the threads' jitter.
	Perturb Perturbation
	// PerturbDelay is the delay perturbations' hold in cycles.
	PerturbDelay core.Cycle
}

// Perturbation is how a re-execution after a rollback differs.
type Perturbation uint8

// The perturbations.
const (
	// Jitter only reseeds every thread's timing jitter.
	Jitter Perturbation = iota
	// DelayViolator also holds the violating thread at the violating
	// access for PerturbDelay cycles when the re-execution reaches it.
	DelayViolator
	// DelayPredecessor also holds the predecessor's thread at the
	// predecessor's access (its next one at that instruction) until
	// another thread touches that line, or PerturbDelay cycles: the
	// violator may then go first.
	DelayPredecessor
)

// MaxReaders is the most reader slots a granule may have.
const MaxReaders = 16

// The indices of the counters of the statistics group StatGroup.
const (
	statChecks = iota
	statCheckCycles
	statViolations
	statStalls
	statTimeouts
	statStallCycles
	numStats
)

// statNames name the counters: checks (accesses with a remote immediate
// predecessor, re-checks included), check_cycles (the cost charged to
// proceeding checks), violations (violating pairs an access proceeded
// with), stalls (stall verdicts, re-stalls after a wake included) and
// stall_timeouts (accesses a timeout let through) and stall_cycles (the
// cycles stalled accesses waited, perturbation holds included).
var statNames = [numStats]string{CounterChecks, CounterCheckCycles, CounterViolations, CounterStalls,
	CounterStallTimeouts, CounterStallCycles}

// Name is the PSet hardware's extension name; its counters are the
// statistics group StatGroup.
const Name = "pset"

// StatGroup is the name of the PSet hardware's statistics group,
// "ext.pset".
const StatGroup = cpu.ExtGroupPrefix + Name

// The names of the counters of the statistics group StatGroup (statNames,
// then rbNames).
const (
	CounterChecks             = "checks"
	CounterCheckCycles        = "check_cycles"
	CounterViolations         = "violations"
	CounterStalls             = "stalls"
	CounterStallTimeouts      = "stall_timeouts"
	CounterStallCycles        = "stall_cycles"
	CounterRollbacks          = "rollbacks"
	CounterCheckpoints        = "checkpoints"
	CounterRollbacksExhausted = "rollbacks_exhausted"
	CounterPSetUpdates        = "pset_updates"
	CounterRollbackCycles     = "rollback_cycles"
	CounterRollbackInstrs     = "rollback_instrs"
	CounterPerturbHolds       = "perturb_holds"
)

// The rollback counters (not rolled back with the run): rollbacks asked
// for, checkpoints the machine took, violations accepted without a
// rollback (no checkpoint yet, or max_rollbacks reached; the machine takes
// a checkpoint right after every output, which cannot be undone), the
// pairs those added
// to the PSets, the cycles and instructions the rollbacks discarded
// (counted when each was asked for: the actual windows), and the
// perturbation holds. The other counters describe the execution that was
// kept: a rollback restores them.
var rbNames = []string{CounterRollbacks, CounterCheckpoints, CounterRollbacksExhausted, CounterPSetUpdates,
	CounterRollbackCycles, CounterRollbackInstrs, CounterPerturbHolds}

// The indices of rb.counts.
const (
	rbRollbacks = iota
	_           // checkpoints: the machine counts them
	rbExhausted
	rbUpdates
	rbCycles
	rbInstrs
	rbHolds
	numRB
)

// Field layout of a granule: the owner (a host field, not hardware: t+1
// when every id in the granule is thread t's, else 0; the core skips the
// check of thread t's accesses there, which could find no remote
// predecessor), the writer, Readers reader ids, then their Readers stamps
// (two a word). A writer or reader id packs pc+1 (0: none) above the
// thread id, one host word: on the bus it is the paper's 32-bit
// instruction id and a 16-bit thread id (the host keeps the whole id, so
// runs of more threads stay exact).
const (
	fOwner   = 0
	fW       = 1
	fReaders = 2
	tidBits  = 16 // the hardware's thread-id width (bus bits)
)

// fIns is the index of a granule's writer instruction count (the rollback
// modes); the readers' follow it.
func (h *HW) fIns() int { return h.fStamps() + (h.spec.Readers+1)/2 }

// fStamps is the index of a granule's first stamp word: the 32-bit
// stamps are packed two to a word (reader i's in word i/2, the low half
// for even i), which keeps a word granule with 4 readers in 8 host words.
func (h *HW) fStamps() int { return fReaders + h.spec.Readers }

// stamp returns reader slot i's stamp.
func (h *HW) stamp(g []uint64, i int) uint64 {
	return g[h.fStamps()+i/2] >> (32 * (i % 2)) & stampMask
}

// setStamp sets reader slot i's stamp (its low 32 bits: the hardware's
// width; stamps compare with wraparound).
func (h *HW) setStamp(g []uint64, i int, v uint64) {
	w, sh := &g[h.fStamps()+i/2], 32*(i%2)
	*w = *w&^(stampMask<<sh) | (v&stampMask)<<sh
}

// stampMask keeps a 32-bit stamp.
const stampMask = 1<<32 - 1

// stampBefore reports whether stamp a is older than b, with wraparound
// (stamps of live readers are less than 2^31 performs apart).
func stampBefore(a, b uint64) bool { return int32(uint32(a)-uint32(b)) < 0 }

// packID packs an instruction and thread into a writer or reader id.
func packID(pc, tid int32) uint64 { return (uint64(pc)+1)<<32 | uint64(uint32(tid)) }

// idPC and idTid unpack an id (not 0).
func idPC(id uint64) int32  { return int32(id>>32) - 1 }
func idTid(id uint64) int32 { return int32(uint32(id)) }

// state is what a checkpoint copies.
type state struct {
	seq   uint64
	stats [numStats]uint64
	// stallAt is when each core's current stall began (0: none).
	stallAt []core.Cycle
	// stallSince is when each core's stalled access first stalled (0:
	// none): re-stalls after a wake keep it, so the timeout bounds the
	// whole stall, not each wait.
	stallSince []core.Cycle
	// held marks a core whose access a perturbation hold stalled: the
	// hold's timeout is not the access's own stall timeout.
	held []bool
}

// HW is the PSet hardware attached to one machine.
type HW struct {
	spec   Spec
	port   *cpu.Port
	events *core.Stream
	region coherence.Region
	st     state
	ev     core.Event
	// cands is the current check's candidates (reused).
	cands []cand
	// merge and kept are scratch for merging reader lists.
	merge, kept []reader
	// rb is the rollback modes' bookkeeping. It is not checkpointed: it
	// must survive the rollbacks it counts.
	rb struct {
		since  int           // rollbacks to the current checkpoint
		ckID   [2]uint64     // the current checkpoint's cycle and instructions
		asked  bool          // a first checkpoint was asked for
		counts [numRB]uint64 // see rbNames
		owned  bool          // psets is this machine's copy (online updates)
		hold   struct {      // the perturbation of the re-execution
			active  bool
			tid, pc int32
		}
	}
	// ins reports that granules keep each access's instruction count (the
	// rollback modes: the required rollback window).
	ins   bool
	psets isa.PSets
}

type cand struct {
	pc, tid int32
	dep     uint64 // 0 RAW, 1 WAR, 2 WAW
	ins     uint64 // the machine's instructions at the access, +1 (0: unknown)
}

type reader struct {
	pc, tid int32
	seq     uint64
	ins     uint64 // as cand.ins
}

// New returns the PSet hardware with the given spec.
func New(spec Spec) (*HW, error) {
	if spec.Readers < 1 || spec.Readers > MaxReaders {
		return nil, fmt.Errorf("pset: %d reader slots (want 1 to %d)", spec.Readers, MaxReaders)
	}
	if (spec.Mode == Rollback || spec.Mode == StallThenRollback) && spec.CheckpointInterval == 0 {
		return nil, fmt.Errorf("pset: a rollback mode needs a checkpoint interval")
	}
	return &HW{spec: spec, psets: spec.PSets, ins: spec.Mode >= Rollback}, nil
}

// Name returns Name, "pset".
func (h *HW) Name() string { return Name }

// Meta reserves each granule's writer and reader slots: 32-bit
// instruction ids (the paper's 4-bit library id and 28-bit offset), 16-bit
// thread ids and 32-bit ordering stamps.
func (h *HW) Meta() coherence.MetaRequest {
	fs := []coherence.Field{{Name: "owner", Host: true}, {Name: "writer", Bits: 32 + tidBits}}
	for i := range h.spec.Readers {
		fs = append(fs, coherence.Field{Name: fmt.Sprintf("reader%d", i), Bits: 32 + tidBits})
	}
	for i := 0; i < h.spec.Readers; i += 2 {
		if i+1 < h.spec.Readers {
			fs = append(fs, coherence.Field{Name: fmt.Sprintf("stamps%d-%d", i, i+1), Bits: 64})
		} else {
			fs = append(fs, coherence.Field{Name: fmt.Sprintf("stamp%d", i), Bits: 32})
		}
	}
	if h.ins {
		// Host fields: the machine's instruction count at the writer's and
		// each reader's access, for the required rollback window.
		fs = append(fs, coherence.Field{Name: "writer_instrs", Host: true})
		for i := range h.spec.Readers {
			fs = append(fs, coherence.Field{Name: fmt.Sprintf("instrs%d", i), Host: true})
		}
	}
	return coherence.MetaRequest{Gran: h.spec.Gran, Fields: fs}
}

// Attach hooks the snoops (the metadata merge), the check and perform
// phases, and registers the counters and state.
func (h *HW) Attach(p *cpu.Port) error {
	h.port = p
	h.events = p.Events()
	h.region = p.Region()
	h.cands = make([]cand, 0, MaxReaders+1)
	h.merge = make([]reader, 0, 2*MaxReaders)
	h.kept = make([]reader, 0, MaxReaders)
	h.st.stallAt = make([]core.Cycle, p.Cores())
	h.st.stallSince = make([]core.Cycle, p.Cores())
	h.st.held = make([]bool, p.Cores())
	names := append(statNames[:len(statNames):len(statNames)], rbNames...)
	if err := p.Stats(names, func(dst []uint64) {
		copy(dst, h.st.stats[:])
		copy(dst[numStats:], h.rb.counts[:])
		dst[numStats+1] = uint64(h.port.Machine().Checkpoints())
	}); err != nil {
		return err
	}
	p.State(h)
	if h.spec.Mode >= Rollback {
		// The rollback modes ask for checkpoints at checks: every check
		// runs. A checkpoint follows every output.
		p.OnCheck(h.check)
		p.Machine().CheckpointAfterOutputs()
	} else if err := p.OnCheckOwned(h.check, fOwner); err != nil {
		return err
	}
	p.OnPerform(h.perform)
	return p.Protocol(coherence.Hooks{OwnsMove: true, OnSnoop: h.snoop})
}

// snoop merges a responder's record into the requester's, granule by
// granule.
func (h *HW) snoop(_ *coherence.Txn, _ *coherence.Snoop, resp, req []uint64, _ *uint64) {
	n := len(h.region.Fields)
	for g := 0; g+n <= len(resp); g += n {
		h.mergeGranule(req[g:g+n], resp[g:g+n])
	}
}

// ownerOf computes a granule's owner: t+1 when every writer and reader id
// in it is thread t's, else (none, or several threads) 0.
func (h *HW) ownerOf(g []uint64) uint64 {
	o := uint64(0)
	for _, id := range g[fW : fReaders+h.spec.Readers] {
		if id == 0 {
			continue
		}
		if t := uint64(idTid(id)) + 1; o == 0 {
			o = t
		} else if o != t {
			return 0
		}
	}
	return o
}

// mergeGranule merges src's writer and readers into dst.
func (h *HW) mergeGranule(dst, src []uint64) {
	defer func() { dst[fOwner] = h.ownerOf(dst) }()
	if dst[fW] == 0 {
		dst[fW] = src[fW]
		if h.ins {
			dst[h.fIns()] = src[h.fIns()]
		}
	}
	rs := h.merge[:0]
	rs = h.readersOf(rs, dst)
	rs = h.readersOf(rs, src)
	if len(rs) == 0 {
		return
	}
	// Keep each thread's latest read, in stamp order, the newest
	// Readers of them.
	sortReaders(rs)
	out := h.kept[:0]
	for i := len(rs) - 1; i >= 0; i-- {
		dup := false
		for _, o := range out {
			if o.tid == rs[i].tid {
				dup = true
				break
			}
		}
		if !dup && len(out) < h.spec.Readers {
			out = append(out, rs[i])
		}
	}
	// out is newest first; store oldest first.
	k := h.spec.Readers
	for i := range k {
		var r reader
		if i < len(out) {
			r = out[len(out)-1-i]
			dst[fReaders+i] = packID(r.pc, r.tid)
		} else {
			dst[fReaders+i] = 0
		}
		h.setStamp(dst, i, r.seq)
		if h.ins {
			dst[h.fIns()+1+i] = r.ins
		}
	}
}

// readersOf appends a granule's readers to rs.
func (h *HW) readersOf(rs []reader, g []uint64) []reader {
	k := h.spec.Readers
	for i, id := range g[fReaders : fReaders+k] {
		if id != 0 {
			r := reader{pc: idPC(id), tid: idTid(id), seq: h.stamp(g, i)}
			if h.ins {
				r.ins = g[h.fIns()+1+i]
			}
			rs = append(rs, r)
		}
	}
	return rs
}

// sortReaders sorts by stamp (insertion sort: at most 2×MaxReaders).
func sortReaders(rs []reader) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && stampBefore(rs[j].seq, rs[j-1].seq); j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// tracked reports whether the hardware checks and records an access.
func (h *HW) tracked(a *cpu.Access) bool {
	return !(a.Sync && h.spec.IgnoreSync) && a.Addr%isa.WordBytes == 0
}

// check computes the access's immediate remote predecessors from its
// granule and checks them against its PSet.
func (h *HW) check(a *cpu.Access, v *cpu.Verdict) {
	timedOut := a.TimedOut
	if at := h.st.stallAt[a.Core]; at != 0 {
		// The re-check of a stalled access.
		h.st.stats[statStallCycles] += uint64(a.Cycle - at)
		h.st.stallAt[a.Core] = 0
		if h.st.held[a.Core] {
			h.st.held[a.Core], timedOut = false, false
		}
	} else {
		h.st.stallSince[a.Core] = 0
	}
	if h.rb.hold.active && a.Thread == h.rb.hold.tid && a.PC == h.rb.hold.pc {
		h.perturb(a, v)
		return
	}
	if !h.tracked(a) {
		return
	}
	if h.spec.Mode >= Rollback {
		h.checkpoints()
	}
	g := h.region.Granule(a.Meta, a.Addr)
	h.cands = h.cands[:0]
	if !a.Write || a.RMW {
		h.readCands(g, a.Thread)
	} else {
		h.writeCands(g, a.Thread)
	}
	if len(h.cands) == 0 {
		return
	}
	ps := h.psets.At(a.PC)
	if !ps.Tested && h.spec.IgnoreUntested {
		return
	}
	cost := h.spec.CheckBase + h.spec.CheckPerEntry*core.Cycle(len(ps.Preds))
	h.st.stats[statChecks]++
	violated := false
	for _, c := range h.cands {
		violated = violated || !ps.Has(c.pc)
	}
	if !violated {
		h.st.stats[statCheckCycles] += uint64(cost)
		v.Delay = cost
		return
	}
	// The timeout bounds the whole stall: a re-check that stalls again
	// waits only what is left of it.
	left := h.spec.StallTimeout
	if since := h.st.stallSince[a.Core]; since != 0 && left > 0 {
		if a.Cycle-since >= left {
			timedOut = true
		} else {
			left -= a.Cycle - since
		}
	}
	stall := (h.spec.Mode == Stall || h.spec.Mode == StallThenRollback) && !timedOut
	rollback := !stall && (h.spec.Mode == Rollback || h.spec.Mode == StallThenRollback)
	m := h.port.Machine()
	if rollback && (!m.HasCheckpoint() || h.rb.since >= h.spec.MaxRollbacks || len(m.Outputs()) > m.Checkpoint().Outputs) {
		// No checkpoint to return to, this one is used up, or an output
		// since it cannot be undone: accept the interleaving, learn it,
		// and checkpoint here.
		rollback = false
		h.rb.counts[rbExhausted]++
		h.rb.hold.active = false
		h.learn(a.PC)
		m.RequestCheckpoint()
	}
	var now uint64
	if h.ins {
		now = m.Instructions() + 1
	}
	first := -1
	for i, c := range h.cands {
		if !ps.Has(c.pc) {
			h.violation(a, c, stall || rollback, now)
			if first < 0 {
				first = i
			}
		}
	}
	switch {
	case stall:
		h.st.stats[statStalls]++
		h.st.stallAt[a.Core] = a.Cycle
		if h.st.stallSince[a.Core] == 0 {
			h.st.stallSince[a.Core] = a.Cycle
		}
		*v = cpu.StallOnLine(a, left)
		return
	case rollback:
		ck := m.Checkpoint()
		h.rb.since++
		h.rb.counts[rbRollbacks]++
		h.rb.counts[rbCycles] += uint64(a.Cycle - ck.Cycle)
		h.rb.counts[rbInstrs] += m.Instructions() - ck.Instructions
		switch h.spec.Perturb {
		case DelayViolator:
			h.rb.hold.active, h.rb.hold.tid, h.rb.hold.pc = true, a.Thread, a.PC
		case DelayPredecessor:
			// Hold the predecessor if the re-execution runs it again (it
			// came after the checkpoint), else the violator.
			if c := h.cands[first]; c.ins != 0 && c.ins-1 >= ck.Instructions {
				h.rb.hold.active, h.rb.hold.tid, h.rb.hold.pc = true, c.tid, c.pc
			} else {
				h.rb.hold.active, h.rb.hold.tid, h.rb.hold.pc = true, a.Thread, a.PC
			}
		}
		// A different jitter stream for every rollback of the run.
		*v = cpu.Verdict{Kind: cpu.Rollback, Reseed: h.rb.counts[rbRollbacks]*0x9E3779B97F4A7C15 | 1}
		return
	}
	if timedOut {
		h.st.stats[statTimeouts]++
	}
	h.st.stats[statCheckCycles] += uint64(cost)
	v.Delay = cost
}

// perturb holds the access the last rollback chose, once: the violating
// thread for PerturbDelay cycles, or the predecessor's until another
// thread touches its line (at most PerturbDelay cycles).
func (h *HW) perturb(a *cpu.Access, v *cpu.Verdict) {
	h.rb.hold.active = false
	h.rb.counts[rbHolds]++
	h.st.stallAt[a.Core] = a.Cycle
	h.st.held[a.Core] = true
	if h.spec.Perturb == DelayViolator {
		*v = cpu.Verdict{Kind: cpu.Stall, Wait: core.Wait{Until: core.UntilCycle, Cycle: a.Cycle + h.spec.PerturbDelay}}
		return
	}
	*v = cpu.StallOnLine(a, h.spec.PerturbDelay)
}

// checkpoints asks for the rollback modes' checkpoints: the first at the
// first check, then every CheckpointInterval instructions, and after
// every output (an output cannot be undone). It notices a new checkpoint
// by its cycle and instruction count.
func (h *HW) checkpoints() {
	m := h.port.Machine()
	ck := m.Checkpoint()
	if ck == nil {
		if !h.rb.asked {
			m.RequestCheckpoint()
			h.rb.asked = true
		}
		return
	}
	if id := [2]uint64{uint64(ck.Cycle), ck.Instructions}; id != h.rb.ckID {
		h.rb.ckID, h.rb.since = id, 0
		h.rb.hold.active = false // a hold serves the re-executions of its checkpoint
	}
	if len(m.Outputs()) > ck.Outputs || m.Instructions() >= ck.Instructions+h.spec.CheckpointInterval {
		m.RequestCheckpoint()
	}
}

// learn adds the current candidates of the access at pc to its PSet (the
// online update of a violation that could not be avoided), on this
// machine's own copy of the PSets.
func (h *HW) learn(pc int32) {
	if !h.rb.owned {
		h.psets = slices.Clone(h.psets)
		h.rb.owned = true
	}
	for int(pc) >= len(h.psets) {
		h.psets = append(h.psets, isa.PSet{})
	}
	ps := &h.psets[pc]
	ps.Tested = true
	for _, c := range h.cands {
		if !slices.Contains(ps.Preds, c.pc) {
			ps.Preds = append(slices.Clone(ps.Preds), c.pc)
			slices.Sort(ps.Preds)
			h.rb.counts[rbUpdates]++
		}
	}
}

// violation logs one violating pair of a check: stalled says the access
// stalls (it will be checked again) rather than proceeding with it; now is
// the machine's instruction count + 1 in the rollback modes (else 0), for
// the required rollback window.
func (h *HW) violation(a *cpu.Access, c cand, stalled bool, now uint64) {
	if !stalled {
		h.st.stats[statViolations]++
	}
	if h.events.Watching(core.KindPSetViolation) {
		var window int64
		if now != 0 && c.ins != 0 {
			window = int64(now - c.ins)
		}
		h.ev = core.Event{Kind: core.KindPSetViolation, Cycle: a.Cycle, Core: int32(a.Core), Thread: a.Thread, PC: a.PC, Addr: a.Addr, Value: window}
		h.ev.Words = [4]uint64{uint64(c.pc), uint64(c.tid), c.dep, b2u(stalled)}
		h.events.Emit(&h.ev)
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// readCands sets the candidate of a read by tid: the last writer, when
// remote and neither it nor tid read the granule since the write.
func (h *HW) readCands(g []uint64, tid int32) {
	if g[fW] == 0 || idTid(g[fW]) == tid {
		return
	}
	w := idTid(g[fW])
	for _, id := range g[fReaders : fReaders+h.spec.Readers] {
		if id == 0 {
			break
		}
		if t := idTid(id); t == w || t == tid {
			return
		}
	}
	h.cands = append(h.cands, cand{pc: idPC(g[fW]), tid: w, dep: 0, ins: h.writerIns(g)})
}

// writerIns returns the writer's instruction count (+1; 0: unknown).
func (h *HW) writerIns(g []uint64) uint64 {
	if !h.ins {
		return 0
	}
	return g[h.fIns()]
}

// writeCands sets the candidates of a write by tid: the readers after
// tid's own last read, or, with no readers, the last writer when remote.
func (h *HW) writeCands(g []uint64, tid int32) {
	rs := g[fReaders : fReaders+h.spec.Readers]
	n, from := 0, 0
	for i, id := range rs {
		if id == 0 {
			break
		}
		n++
		if idTid(id) == tid {
			from = i + 1
		}
	}
	if n > 0 {
		for i := from; i < n; i++ {
			c := cand{pc: idPC(rs[i]), tid: idTid(rs[i]), dep: 1}
			if h.ins {
				c.ins = g[h.fIns()+1+i]
			}
			h.cands = append(h.cands, c)
		}
		return
	}
	if g[fW] != 0 && idTid(g[fW]) != tid {
		h.cands = append(h.cands, cand{pc: idPC(g[fW]), tid: idTid(g[fW]), dep: 2, ins: h.writerIns(g)})
	}
}

// perform records the access in its granule: a read becomes its thread's
// latest read; a write (an RMW that stored) becomes the last writer and
// clears the readers.
func (h *HW) perform(a *cpu.Access) {
	if !h.tracked(a) {
		return
	}
	g := h.region.Granule(a.Meta, a.Addr)
	h.st.seq++
	own := uint64(a.Thread) + 1
	o := &g[fOwner]
	var ins uint64
	if h.ins {
		ins = h.port.Machine().Instructions() + 1
	}
	if a.Stored {
		// (An RMW's read is overwritten by its write at once.)
		g[fW] = packID(a.PC, a.Thread)
		clear(g[fReaders:])
		*o = own
		if h.ins {
			g[h.fIns()] = ins
		}
		return
	}
	if *o == own {
		// Every id here is this thread's: at most one reader, in slot 0.
		g[fReaders] = packID(a.PC, a.Thread)
		h.setStamp(g, 0, h.st.seq)
		if h.ins {
			g[h.fIns()+1] = ins
		}
		return
	}
	h.addReader(g, reader{pc: a.PC, tid: a.Thread, seq: h.st.seq, ins: ins})
	*o = h.ownerOf(g)
}

// addReader makes r its thread's latest read, dropping the oldest reader
// when the slots are full.
func (h *HW) addReader(g []uint64, r reader) {
	k := h.spec.Readers
	ids := g[fReaders : fReaders+k]
	var ins []uint64
	if h.ins {
		ins = g[h.fIns()+1 : h.fIns()+1+k]
	}
	n, drop := 0, -1
	for n < k && ids[n] != 0 {
		if idTid(ids[n]) == r.tid {
			drop = n // r.tid's earlier read
		}
		n++
	}
	if drop < 0 && n == k {
		drop = 0 // the oldest
	}
	if drop >= 0 {
		for i := drop; i < n-1; i++ {
			ids[i] = ids[i+1]
			h.setStamp(g, i, h.stamp(g, i+1))
			if ins != nil {
				ins[i] = ins[i+1]
			}
		}
		n--
	}
	ids[n] = packID(r.pc, r.tid)
	h.setStamp(g, n, r.seq)
	if ins != nil {
		ins[n] = r.ins
	}
}

// Save copies the hardware's state for a checkpoint (cpu.Stateful); the
// metadata itself is in the caches, which the machine checkpoints.
func (h *HW) Save(buf any) any {
	s, _ := buf.(*state)
	if s == nil {
		s = &state{}
	}
	stallAt := append(s.stallAt[:0], h.st.stallAt...)
	since := append(s.stallSince[:0], h.st.stallSince...)
	held := append(s.held[:0], h.st.held...)
	*s = h.st
	s.stallAt, s.stallSince, s.held = stallAt, since, held
	return s
}

// Load restores the hardware's state from a checkpoint (cpu.Stateful).
func (h *HW) Load(buf any) {
	s := buf.(*state)
	stallAt := append(h.st.stallAt[:0], s.stallAt...)
	since := append(h.st.stallSince[:0], s.stallSince...)
	held := append(h.st.held[:0], s.held...)
	h.st = *s
	h.st.stallAt, h.st.stallSince, h.st.held = stallAt, since, held
}
