package conseq

import (
	"slices"

	"weft/core"
	"weft/isa"
)

// The dynamic side of ConSeq (the paper's Step 3, §7): a Recorder observes
// one correct run and keeps what Algorithm 1 needs: every execution of a
// critical read (its value and the write it read from), every write to a
// data or heap word, and the synchronisation that orders threads.
//
// Happens-before is built from spawn, join, barrier and condition-variable
// signal→wake (a message, like the paper's pipe), and from recognised
// spin-flag synchronisation, never from locks: locks give mutual exclusion,
// which Algorithm 1 uses through each access's held critical sections.
// Reads-from is exact: the simulator performs accesses in one global (SC)
// order, so a read's source is the last write to its word before it (the
// program's initial data image, a virtual write, when there is none).

// vclock is a vector clock indexed by thread id; a shared one is never
// changed (threads copy on change).
type vclock []uint32

func (v vclock) get(t int32) uint32 {
	if int(t) < len(v) {
		return v[t]
	}
	return 0
}

// joined returns the pointwise maximum of v and o, reusing v when o adds
// nothing.
func (v vclock) joined(o vclock) vclock {
	grow := false
	if len(o) > len(v) {
		grow = true
	} else {
		for i, x := range o {
			if x > v[i] {
				grow = true
				break
			}
		}
	}
	if !grow {
		return v
	}
	n := len(v)
	if len(o) > n {
		n = len(o)
	}
	out := make(vclock, n)
	copy(out, v)
	for i, x := range o {
		if x > out[i] {
			out[i] = x
		}
	}
	return out
}

// heldCS is one lock a thread holds, with the dynamic critical section's id.
type heldCS struct {
	lock uint64
	cs   uint32
	// acqPC and acqInst name the acquire that entered it: its lock
	// instruction and how many earlier acquires the thread made there.
	acqPC   int32
	acqInst uint32
}

// lockState is the set of critical sections a thread is in; a shared one
// is never changed.
type lockState []heldCS

// access is one recorded read or write.
type access struct {
	thread int32
	pc     int32
	addr   uint64
	value  int64
	// clk is the thread's own clock at the access; vc indexes
	// Recorder.vcs: its knowledge of the other threads (vc[thread] is not
	// used).
	clk uint32
	vc  uint32
	// locks indexes Recorder.locksets: the critical sections the thread
	// was in.
	locks uint32
	// inst is the access's dynamic instance: how many earlier executions of
	// pc the thread performed.
	inst uint32
	// src is, for a read, the index of the write it read from (-1: the
	// initial image); for a write, the word's previous write (-1: none).
	src   int32
	write bool
}

// wordInfo is one word's part of the trace.
type wordInfo struct {
	last   int32 // its last write plus one (0: none)
	sharer int32 // the one thread that touched it plus one, -1 when two did, 0 none
}

// wordWrites is a word's writes in order, built after the run for the
// word's last write then.
type wordWrites struct {
	last int32
	list []int32
}

// accChunk is the number of accesses per chunk of the trace.
const accChunk = 1 << 14

// at returns access i.
func (r *Recorder) at(i int32) *access { return &r.chunks[i/accChunk][i%accChunk] }

// count returns the number of accesses recorded.
func (r *Recorder) count() int32 { return r.n }

// push appends an access and returns its index.
func (r *Recorder) push(a access) int32 {
	if int(r.n/accChunk) == len(r.chunks) {
		r.chunks = append(r.chunks, make([]access, 0, accChunk))
	}
	c := &r.chunks[len(r.chunks)-1]
	*c = append(*c, a)
	r.n++
	return r.n - 1
}

// word returns a's part of the trace (nil for a heap word never touched
// when add is false).
func (r *Recorder) word(a uint64, add bool) *wordInfo {
	if a >= isa.DataBase {
		if i := (a - isa.DataBase) / isa.WordBytes; i < uint64(len(r.data)) {
			return &r.data[i]
		}
	}
	w := r.heap[a]
	if w == nil && add {
		w = &wordInfo{}
		r.heap[a] = w
	}
	return w
}

// writesOf returns word a's writes in order. A write's src links it to
// the word's previous write, so the list is built on demand, after the
// run, by following the links back from the last.
func (r *Recorder) writesOf(a uint64) []int32 {
	w := r.word(a, false)
	if w == nil || w.last == 0 {
		return nil
	}
	c := r.built[a]
	if c.last != w.last {
		c.list = c.list[:0]
		for j := w.last - 1; j >= 0; j = r.at(j).src {
			c.list = append(c.list, j)
		}
		slices.Reverse(c.list)
		c.last = w.last
		r.built[a] = c
	}
	return c.list
}

// recorded reports whether the trace follows word a's writes (the word
// filter keeps it), so its value at any point is known.
func (r *Recorder) recorded(a uint64) bool {
	if r.watch == nil {
		return true
	}
	if i := (a - isa.DataBase) / isa.WordBytes; a >= isa.DataBase && i < uint64(len(r.watch)) {
		return r.watch[i]
	}
	return r.watchHeap
}

// shared reports whether two threads touched word a.
func (r *Recorder) shared(a uint64) bool {
	w := r.word(a, false)
	return w != nil && w.sharer < 0
}

// lockset returns access x's critical sections.
func (r *Recorder) lockset(x *access) lockState { return r.locksets[x.locks] }

// vcOf returns s's vector clock's index, interning it on first use.
func (r *Recorder) vcOf(s *threadState) uint32 {
	if s.vcIdx == 0 && len(s.vc) > 0 {
		s.vcIdx = uint32(len(r.vcs))
		r.vcs = append(r.vcs, s.vc)
	}
	return s.vcIdx
}

// setVC sets s's vector clock (to be interned anew).
func (s *threadState) setVC(v vclock) {
	if len(v) != len(s.vc) || len(v) > 0 && &v[0] != &s.vc[0] {
		s.vc, s.vcIdx = v, 0
	}
}

// setLocks sets s's critical sections, interning them.
func (r *Recorder) setLocks(s *threadState, l lockState) {
	s.locks = l
	if len(l) == 0 {
		s.lsIdx = 0
		return
	}
	s.lsIdx = uint32(len(r.locksets))
	r.locksets = append(r.locksets, l)
}

// threadState is one thread's clocks and critical sections.
type threadState struct {
	started bool
	clk     uint32
	vc      vclock
	vcIdx   uint32 // vc's index in Recorder.vcs (0: not yet interned)
	locks   lockState
	lsIdx   uint32 // locks' index in Recorder.locksets
	// spinSrc is the write the thread's last spin-flag read took its value
	// from (-1: none pending); spinLoop the loop of that read.
	spinSrc  int32
	spinLoop int
	exit     vclock // the full clock at exit (for join)
	insts    []uint32
	acqs     []uint32 // per PC, the acquires made there
}

// full returns t's full clock: vc with its own entry.
func (s *threadState) full(t int32) vclock {
	out := make(vclock, max(len(s.vc), int(t)+1))
	copy(out, s.vc)
	out[t] = s.clk
	return out
}

// Recorder is the trace collector: a core.Observer of one run.
type Recorder struct {
	prog *isa.Program
	// critical[pc] marks the PCs whose reads are recorded (every data read
	// when nil).
	critical []bool
	// spinLoopOf[pc] is, for a recognised spin-flag read, its loop's index
	// in spinBody; -1 otherwise (nil: the recogniser is off).
	spinLoopOf []int
	spinBody   [][]bool // per recognised loop, the PCs of its body

	// watch, when not nil, marks the data words the critical reads may
	// touch (indexed from isa.DataBase); accesses to other words are not
	// recorded. watchHeap says they may touch heap words too.
	watch     []bool
	watchHeap bool

	// The trace: accesses in chunks (no copying as it grows), the vector
	// clocks and lock sets they index, and per word its writes.
	chunks   [][]access
	n        int32
	vcs      []vclock
	locksets []lockState
	data     []wordInfo            // the data segment's words
	heap     map[uint64]*wordInfo  // heap words
	built    map[uint64]wordWrites // words' write lists, built after the run
	threads  []threadState
	barrier  map[[2]uint64]vclock
	signal   map[int32]vclock // per signalling thread, its clock at its last signal
	nextCS   uint32

	// Counts for Table 6.
	records, syncRecords uint64
	outcome              int64 // RunEnd's outcome (-1 before the end)
	outputs              []int64
}

// Record sizes in bytes, as a PIN-style tracer would write them: PC,
// address, value and thread for an access; PC, object and thread for a
// synchronisation record.
const (
	accessRecordBytes = 24
	syncRecordBytes   = 16
)

// NewRecorder returns a recorder for one run of prog that keeps the reads
// at the PCs critical marks (every data read when critical is nil) and
// recognises the spin-flag loops spins finds (none when spins is nil).
func NewRecorder(prog *isa.Program, critical []bool, spins []SpinLoop) *Recorder {
	r := &Recorder{prog: prog, critical: critical, data: make([]wordInfo, len(prog.Data)), heap: map[uint64]*wordInfo{},
		built: map[uint64]wordWrites{},
		vcs:   []vclock{nil}, locksets: []lockState{nil},
		barrier: map[[2]uint64]vclock{}, signal: map[int32]vclock{}, outcome: -1}
	if spins != nil {
		r.spinLoopOf = make([]int, len(prog.Instrs))
		for i := range r.spinLoopOf {
			r.spinLoopOf[i] = -1
		}
		for i, s := range spins {
			body := make([]bool, len(prog.Instrs))
			for _, pc := range s.Body {
				body[pc] = true
			}
			r.spinBody = append(r.spinBody, body)
			for _, pc := range s.Reads {
				r.spinLoopOf[pc] = i
			}
		}
	}
	return r
}

// RecorderKinds are the event kinds a Recorder observes.
const RecorderKinds = core.KindMask(1<<core.KindRead | 1<<core.KindWrite | 1<<core.KindRMW |
	1<<core.KindSpawn | 1<<core.KindJoin | 1<<core.KindThreadExit | 1<<core.KindAcquire |
	1<<core.KindRelease | 1<<core.KindBarrierArrive | 1<<core.KindBarrierLeave |
	1<<core.KindCondWait | 1<<core.KindCondWake | 1<<core.KindCondSignal | 1<<core.KindOutput |
	1<<core.KindRunEnd)

// Kinds returns RecorderKinds.
func (r *Recorder) Kinds() core.KindMask { return RecorderKinds }

func (r *Recorder) thread(t int32) *threadState {
	for int(t) >= len(r.threads) {
		r.threads = append(r.threads, threadState{spinSrc: -1})
	}
	s := &r.threads[t]
	if !s.started {
		s.started = true
		s.clk = 1
		s.insts = make([]uint32, len(r.prog.Instrs))
		s.acqs = make([]uint32, len(r.prog.Instrs))
	}
	return s
}

// Observe records one event.
func (r *Recorder) Observe(e *core.Event) {
	if e.Kind == core.KindRunEnd {
		r.outcome = int64(e.Outcome())
		return
	}
	if e.Thread < 0 {
		return
	}
	op := e.Op()
	if op == core.OpSpawn {
		if e.Child() < 0 {
			return // names no thread
		}
		r.thread(e.Child()) // before s: it may grow r.threads
	}
	s := r.thread(e.Thread)
	if s.spinSrc >= 0 && (e.PC < 0 || int(e.PC) >= len(r.prog.Instrs) || !r.spinBody[s.spinLoop][e.PC]) {
		// The thread left a recognised spin loop: its last flag read
		// synchronised with the write it read.
		w := r.at(s.spinSrc)
		full := append(vclock(nil), r.vcs[w.vc]...)
		for int(w.thread) >= len(full) {
			full = append(full, 0)
		}
		full[w.thread] = w.clk
		s.setVC(s.vc.joined(full))
		s.spinSrc = -1
	}
	switch op {
	case core.OpRead, core.OpWrite, core.OpAtomic, core.OpSyncAccess:
		r.access(e, s)
		return
	case core.OpSpawn:
		r.threads[e.Child()].setVC(s.full(e.Thread))
	case core.OpJoin:
		if j := e.Joined(); j >= 0 && int(j) < len(r.threads) {
			s.setVC(s.vc.joined(r.threads[j].exit))
		}
	case core.OpExit:
		s.exit = s.full(e.Thread)
	case core.OpAcquire:
		r.nextCS++
		h := heldCS{lock: e.Addr, cs: r.nextCS, acqPC: e.PC}
		if e.PC >= 0 && int(e.PC) < len(s.acqs) {
			h.acqInst = s.acqs[e.PC]
			s.acqs[e.PC]++
		}
		l := make(lockState, len(s.locks), len(s.locks)+1)
		copy(l, s.locks)
		r.setLocks(s, append(l, h))
	case core.OpRelease:
		var l lockState
		for _, h := range s.locks {
			if h.lock != e.Addr {
				l = append(l, h)
			}
		}
		r.setLocks(s, l)
	case core.OpArrive:
		k := [2]uint64{e.Addr, e.Generation()}
		r.barrier[k] = r.barrier[k].joined(s.full(e.Thread))
	case core.OpLeave:
		s.setVC(s.vc.joined(r.barrier[[2]uint64{e.Addr, e.Generation()}]))
	case core.OpSignal:
		r.signal[e.Thread] = s.full(e.Thread)
	case core.OpWake:
		s.setVC(s.vc.joined(r.signal[e.Signaller()]))
	case core.OpWait:
	default:
		if e.Kind == core.KindOutput {
			r.outputs = append(r.outputs, e.Value)
		}
		return
	}
	r.syncRecords++
	s.clk++
}

// access records a read, write or RMW of a data or heap word.
func (r *Recorder) access(e *core.Event, s *threadState) {
	pc := e.PC
	inst := uint32(0)
	if pc >= 0 && int(pc) < len(s.insts) {
		inst = s.insts[pc]
		s.insts[pc]++
	}
	if e.Op() == core.OpSyncAccess {
		return
	}
	a := e.Addr
	if r.watch != nil {
		if i := (a - isa.DataBase) / isa.WordBytes; a >= isa.DataBase && i < uint64(len(r.watch)) {
			if !r.watch[i] {
				return
			}
		} else if !r.watchHeap {
			return
		}
	}
	wi := r.word(a, true)
	switch who := e.Thread + 1; {
	case wi.sharer == 0:
		wi.sharer = who
	case wi.sharer > 0 && wi.sharer != who:
		wi.sharer = -1
	}
	read, write := e.Reads(), e.Writes()
	src := wi.last - 1
	keepRead := read && (r.critical == nil || pc >= 0 && int(pc) < len(r.critical) && r.critical[pc])
	if !keepRead && !write {
		return
	}
	vc := r.vcOf(s)
	if keepRead {
		v := e.Value
		if e.Kind == core.KindRMW {
			v = e.Old()
		}
		r.push(access{thread: e.Thread, pc: pc, addr: a, value: v, clk: s.clk, vc: vc,
			locks: s.lsIdx, inst: inst, src: src})
		r.records++
		if r.spinLoopOf != nil && pc >= 0 && int(pc) < len(r.spinLoopOf) && r.spinLoopOf[pc] >= 0 {
			if src >= 0 && r.at(src).thread != e.Thread {
				s.spinSrc, s.spinLoop = src, r.spinLoopOf[pc]
			} else {
				s.spinSrc = -1
			}
		}
	}
	if write {
		if keepRead {
			// An RMW's write comes after its read: its own tick, so the
			// read happens before it and never counts it as w'.
			s.clk++
		}
		idx := r.push(access{thread: e.Thread, pc: pc, addr: a, value: e.Value, clk: s.clk, vc: vc,
			locks: s.lsIdx, inst: inst, src: wi.last - 1, write: true})
		wi.last = idx + 1
		r.records++
	}
	s.clk++
}

// hb reports whether access a happens before access b.
func (r *Recorder) hb(a, b *access) bool {
	if a.thread == b.thread {
		return a.clk < b.clk
	}
	return a.clk <= r.vcs[b.vc].get(a.thread)
}

// TraceStats are the recorder's Table 6 counts.
type TraceStats struct {
	// Records are the access records (critical-read executions and
	// writes); SyncRecords the synchronisation records.
	Records, SyncRecords uint64
	// Bytes is the trace size at accessRecordBytes per access and
	// syncRecordBytes per synchronisation record.
	Bytes uint64
}

// Stats returns the trace's counts.
func (r *Recorder) Stats() TraceStats {
	return TraceStats{Records: r.records, SyncRecords: r.syncRecords,
		Bytes: r.records*accessRecordBytes + r.syncRecords*syncRecordBytes}
}

// Passed reports whether the run ended and passed.
func (r *Recorder) Passed() bool { return r.outcome == 0 }

// Ended reports whether the run's end was observed.
func (r *Recorder) Ended() bool { return r.outcome >= 0 }

// initial returns the initial value of word a: the data image's, or 0.
func (r *Recorder) initial(a uint64) int64 {
	if a >= isa.DataBase && a < r.prog.DataEnd() {
		return r.prog.Data[(a-isa.DataBase)/isa.WordBytes]
	}
	return 0
}

// valueBefore returns word a's value just before access index i.
func (r *Recorder) valueBefore(a uint64, i int32) int64 {
	ws := r.writesOf(a)
	lo, hi := 0, len(ws)
	for lo < hi {
		m := (lo + hi) / 2
		if ws[m] < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo == 0 {
		return r.initial(a)
	}
	return r.at(ws[lo-1]).value
}
