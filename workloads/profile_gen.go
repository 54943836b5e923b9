package workloads

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"

	"weft/core"
	"weft/isa"
)

// Gen parameterises the phased synthetic workload generator behind the
// named profiles (workloads/README.md). Every thread warms its caches, meets
// the others at a barrier, opens the region of interest and runs Phases
// phases separated by barriers. A phase is a loop whose body is a fixed,
// seeded sequence of Slots memory operations drawn from these kinds:
//
//   - hot: a word of the thread's hot set, through a window that slides one
//     line per iteration (hits once warm);
//   - working set: a random word of the thread's private working set (capacity
//     misses when it is larger than the L1);
//   - stream: the next word of a private stream that is never reused (one
//     compulsory miss per line);
//   - shared: a random word of the shared buffer the phase reads, or of the
//     thread's own partition of the buffer the next phase reads (the two
//     buffers swap roles at every barrier, so there is no data race and a
//     reader sees the writes of the previous phase: coherence misses).
//
// A kind's share of the memory operations is a fraction of the slots; the
// whole part becomes fixed slots and the remainder one slot that takes the
// kind with that probability (in 1/1024 steps, from the thread's random
// stream) and otherwise a hot access, so small rates are exact on average.
// Every LockEvery iterations a critical section increments words guarded
// by one of Locks locks, and every FalseShareEvery iterations the thread
// increments its own word of an array packed with the other threads'
// words (false sharing); the threads' periods are staggered so they do not
// all arrive in the same iteration.
//
// The program checks itself: shared reads assert they never see a value
// from a later phase; thread 0 asserts each phase's reduction (every thread
// stores (tid+1)·(phase+1)) after the barrier; and main prints the total of
// the reductions, of the lock-protected words and of the false-sharing
// words, which .expect fixes.
type Gen struct {
	// Name is the program name.
	Name string
	// Desc is the program's one-line description.
	Desc string
	// Threads is the number of threads, main included (1..64).
	Threads int
	// Phases is the number of barrier-separated phases in the region of
	// interest (≥ 1); Phases-1 barriers fall inside it.
	Phases int
	// OpsPerThread is the number of loop memory operations each thread runs
	// in the region of interest, rounded down to whole iterations (at least
	// one per phase).
	OpsPerThread int
	// Slots is the number of memory operations in the loop body (1..256).
	Slots int
	// HotWords is the size of each thread's hot set in words (a power of two
	// ≥ 16); slots address its lower half plus a window offset that slides
	// over the whole set.
	HotWords int
	// HotWriteFrac is the fraction of hot accesses that store.
	HotWriteFrac float64
	// WSWords is the size of each thread's private working set in words (a
	// power of two ≥ 8; 0 when unused).
	WSWords int
	// WSReadFrac and WSWriteFrac are the fractions of memory operations that
	// load and store a random word of the working set.
	WSReadFrac, WSWriteFrac float64
	// StreamReadFrac and StreamWriteFrac are the fractions of memory
	// operations that read and write the next element of the thread's
	// input and output streams.
	StreamReadFrac, StreamWriteFrac float64
	// StreamStride is the distance between consecutive stream elements in
	// bytes (a multiple of 8): with 64-byte lines, 8 misses once per 8
	// accesses and 64 on every access.
	StreamStride int
	// SharedWords is the size of each of the two shared buffers in words (a
	// power of two ≥ 8; 0 when unused). Each thread writes only its own
	// partition: the largest power of two of words, at least 8, that fits
	// Threads times in SharedWords (a buffer grows to Threads·8 words when
	// it is smaller).
	SharedWords int
	// SharedReadFrac and SharedWriteFrac are the fractions of memory
	// operations that read a random word of the current buffer and write a
	// random word of the thread's partition of the next one.
	SharedReadFrac, SharedWriteFrac float64
	// WarmShared makes the warm-up load every line of both shared buffers
	// (for buffers that fit the L1 and are reused from phase to phase).
	WarmShared bool
	// LockEvery puts a critical section every LockEvery iterations (0: none).
	LockEvery int
	// Locks is the number of locks (a power of two; 0 means 1), each on its
	// own line with the seven words it guards; a critical section takes one
	// at random.
	Locks int
	// CSLen is the number of guarded-word increments in a critical section.
	CSLen int
	// FalseShareEvery increments the thread's word of the packed array every
	// FalseShareEvery iterations (0: none).
	FalseShareEvery int
	// ALUPerLoad is the number of register instructions consuming each load.
	ALUPerLoad int
	// Work is the cycles of computation (`work`) at the end of every
	// iteration (0: none).
	Work int
	// Seed chooses the slot sequence, the hot offsets and the threads'
	// random streams.
	Seed uint64
}

// Registers of the generated code.
const (
	gTid   = isa.R1  // thread index (spawn argument)
	gTmp2  = isa.R2  // in the loop: this thread's stagger; elsewhere scratch
	gPhase = isa.R3  // phase index
	gIter  = isa.R4  // iterations left in the phase
	gRand  = isa.R5  // xorshift64 state
	gOff   = isa.R6  // computed offset or address
	gVal   = isa.R7  // loaded value
	gAcc   = isa.R8  // accumulator, the value stores write
	gPriv  = isa.R9  // this thread's private block (hot set, then working set)
	gHot   = isa.R10 // hot window address
	gShR   = isa.R11 // byte offset of the buffer this phase reads
	gShW   = isa.R12 // byte offset of this thread's partition of the buffer it writes
	gSR    = isa.R13 // next input-stream address
	gSW    = isa.R14 // next output-stream address
	gSel   = isa.R15 // scratch: slot choices, sums
)

// probScale is the resolution of a dynamic slot's probability.
const probScale = 1024

// stagger spreads the threads' periodic events: thread t runs its critical
// sections and false-sharing increments when (iterations left +
// t·stagger) is a multiple of the period, so the threads do not all reach
// them in the same iteration.
const stagger = 977

// periodic returns how many of the iterations n, n-1, …, 1 of thread t are
// multiples of period after the stagger.
func periodic(n, t, period int) int64 {
	off := t * stagger
	return int64((n+off)/period - off/period)
}

// slotKind is what one memory slot of the loop body touches.
type slotKind uint8

const (
	slotHotRead slotKind = iota
	slotHotWrite
	slotWSRead
	slotWSWrite
	slotStreamRead
	slotStreamWrite
	slotSharedRead
	slotSharedWrite
)

func (k slotKind) write() bool {
	return k == slotHotWrite || k == slotWSWrite || k == slotStreamWrite || k == slotSharedWrite
}

// slot is one memory operation of the loop body. A slot with prob in
// 1..probScale-1 takes kind with probability prob/probScale and is a hot
// access of the same direction otherwise.
type slot struct {
	kind   slotKind
	prob   int
	hotOff int64 // byte offset in the hot window
}

// log2 returns log2(n) for a power of two n.
func log2(n int) int { return bits.TrailingZeros(uint(n)) }

// partWords returns the words of one thread's partition of a shared buffer.
func (g Gen) partWords() int {
	if g.SharedWords == 0 {
		return 0
	}
	p := 8
	for p*2*g.Threads <= g.SharedWords {
		p *= 2
	}
	return p
}

// bufWords returns the words of one shared buffer, large enough for every
// thread's partition.
func (g Gen) bufWords() int { return max(g.SharedWords, g.partWords()*g.Threads) }

// Iterations returns the loop iterations of each phase.
func (g Gen) Iterations() int {
	if g.Slots < 1 || g.Phases < 1 {
		return 1
	}
	return max(1, g.OpsPerThread/(g.Slots*g.Phases))
}

func (g Gen) locks() int { return max(g.Locks, 1) }

func (g Gen) check() error {
	frac := func(f float64) bool { return f >= 0 && f <= 1 && !math.IsNaN(f) }
	switch {
	case g.Threads < 1 || g.Threads > 64:
		return fmt.Errorf("threads %d (want 1..64)", g.Threads)
	case g.Phases < 1 || g.Phases > 4096:
		return fmt.Errorf("phases %d (want 1..4096)", g.Phases)
	case g.OpsPerThread < 1:
		return fmt.Errorf("ops per thread %d (want ≥ 1)", g.OpsPerThread)
	case g.Slots < 1 || g.Slots > 256:
		return fmt.Errorf("slots %d (want 1..256)", g.Slots)
	case !isPow2(g.HotWords) || g.HotWords < 16:
		return fmt.Errorf("hot set %d words (want a power of two ≥ 16)", g.HotWords)
	case g.WSWords != 0 && (!isPow2(g.WSWords) || g.WSWords < 8):
		return fmt.Errorf("working set %d words (want 0 or a power of two ≥ 8)", g.WSWords)
	case g.SharedWords != 0 && (!isPow2(g.SharedWords) || g.SharedWords < 8):
		return fmt.Errorf("shared buffer %d words (want 0 or a power of two ≥ 8)", g.SharedWords)
	case !frac(g.HotWriteFrac) || !frac(g.WSReadFrac) || !frac(g.WSWriteFrac) || !frac(g.StreamReadFrac) ||
		!frac(g.StreamWriteFrac) || !frac(g.SharedReadFrac) || !frac(g.SharedWriteFrac):
		return fmt.Errorf("fractions must lie in [0, 1]")
	case g.WSWords == 0 && g.WSReadFrac+g.WSWriteFrac > 0:
		return fmt.Errorf("working-set accesses need WSWords")
	case g.SharedWords == 0 && g.SharedReadFrac+g.SharedWriteFrac > 0:
		return fmt.Errorf("shared accesses need SharedWords")
	case g.StreamReadFrac+g.StreamWriteFrac > 0 && (g.StreamStride < 8 || g.StreamStride%8 != 0):
		return fmt.Errorf("stream stride %d bytes (want a positive multiple of 8)", g.StreamStride)
	case g.LockEvery < 0 || g.FalseShareEvery < 0 || g.CSLen < 0 || g.Work < 0 || g.ALUPerLoad < 0:
		return fmt.Errorf("negative lock period, false-sharing period, critical-section length, work or ALU count")
	case g.LockEvery > 0 && g.CSLen < 1:
		return fmt.Errorf("critical sections need CSLen ≥ 1")
	case g.Locks < 0 || g.Locks > 4096 || !isPow2(g.locks()):
		return fmt.Errorf("locks %d (want a power of two up to 4096)", g.Locks)
	}
	return nil
}

// plan returns the loop body: the slots in their seeded order.
func (g Gen) plan() ([]slot, error) {
	rng := core.NewRNG(g.Seed, "gen/slots")
	var body []slot
	for _, k := range []struct {
		kind slotKind
		frac float64
	}{
		{slotWSRead, g.WSReadFrac}, {slotWSWrite, g.WSWriteFrac},
		{slotStreamRead, g.StreamReadFrac}, {slotStreamWrite, g.StreamWriteFrac},
		{slotSharedRead, g.SharedReadFrac}, {slotSharedWrite, g.SharedWriteFrac},
	} {
		e := k.frac * float64(g.Slots)
		n := int(math.Floor(e + 1e-9))
		prob := int(math.Round((e - float64(n)) * probScale))
		if prob >= probScale {
			n, prob = n+1, 0
		}
		for range n {
			body = append(body, slot{kind: k.kind, prob: probScale})
		}
		if prob > 0 {
			body = append(body, slot{kind: k.kind, prob: prob})
		}
	}
	if len(body) > g.Slots {
		return nil, fmt.Errorf("the working-set, stream and shared fractions need %d of %d slots", len(body), g.Slots)
	}
	hot := g.Slots - len(body)
	writes := int(math.Round(float64(hot) * g.HotWriteFrac))
	for i := range hot {
		k := slotHotRead
		if i < writes {
			k = slotHotWrite
		}
		body = append(body, slot{kind: k, prob: probScale})
	}
	for i := len(body) - 1; i > 0; i-- {
		j := int(rng.Below(uint64(i + 1)))
		body[i], body[j] = body[j], body[i]
	}
	window := uint64(g.HotWords / 2)
	for i := range body {
		body[i].hotOff = int64(rng.Below(window)) * 8
	}
	return body, nil
}

// streamWords returns the words of one thread's stream of kind k: enough
// for every access the plan can make, plus a line.
func (g Gen) streamWords(body []slot, k slotKind) int {
	n := 0
	for _, s := range body {
		if s.kind == k {
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return g.Phases*g.Iterations()*n*g.StreamStride/8 + 8
}

// Expected returns the outputs the program prints: the total of the phase
// reductions, of the lock-protected words and of the false-sharing words.
func (g Gen) Expected() []int64 {
	t, p, n := int64(g.Threads), int64(g.Phases), g.Iterations()
	red := t * (t + 1) / 2 * (p * (p + 1) / 2)
	var locked, fs int64
	for i := range g.Threads {
		if g.LockEvery > 0 {
			locked += p * periodic(n, i, g.LockEvery) * int64(g.CSLen)
		}
		if g.FalseShareEvery > 0 {
			fs += p * periodic(n, i, g.FalseShareEvery)
		}
	}
	return []int64{red, locked, fs}
}

// genEmitter emits the loop body, handing out bit fields of the random
// state and stepping it when they run out.
type genEmitter struct {
	b      *isa.Builder
	pos    int // next free bit of gRand; 64 when used up
	labels int
}

func (e *genEmitter) label(what string) string {
	e.labels++
	return what + strconv.Itoa(e.labels)
}

// fields returns the positions of fields of the given widths, stepping the
// xorshift64 state first if they do not fit in its unused bits. Bits 0–2
// are never handed out, so a word-index field can be scaled by a right shift.
func (e *genEmitter) fields(widths ...int) []int {
	total := 0
	for _, w := range widths {
		total += w
	}
	if e.pos+total > 64 {
		b := e.b
		b.ALUImm(isa.OpShl, gSel, gRand, 13).ALU(isa.OpXor, gRand, gRand, gSel)
		b.ALUImm(isa.OpShr, gSel, gRand, 7).ALU(isa.OpXor, gRand, gRand, gSel)
		b.ALUImm(isa.OpShl, gSel, gRand, 17).ALU(isa.OpXor, gRand, gRand, gSel)
		e.pos = 3
	}
	out := make([]int, len(widths))
	for i, w := range widths {
		out[i] = e.pos
		e.pos += w
	}
	return out
}

// extract emits rd = ((gRand >> pos) & (2^width-1)) << scale.
func (e *genEmitter) extract(rd isa.Reg, pos, width, scale int) {
	b := e.b
	if width == 0 {
		b.Li(rd, 0)
		return
	}
	src := gRand
	switch {
	case pos > scale:
		b.ALUImm(isa.OpShr, rd, gRand, int64(pos-scale))
		src = rd
	case pos < scale:
		b.ALUImm(isa.OpShl, rd, gRand, int64(scale-pos))
		src = rd
	}
	b.ALUImm(isa.OpAnd, rd, src, int64((1<<width)-1)<<scale)
}

// Program generates the workload.
func (g Gen) Program() (*isa.Program, error) {
	name := g.Name
	if name == "" {
		name = "gen"
	}
	if err := g.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	body, err := g.plan()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	t := g.Threads
	n := g.Iterations()
	hotBytes := int64(g.HotWords) * 8
	privBytes := int64(g.HotWords+g.WSWords) * 8
	blockWords := (g.Phases + 7) / 8 * 8 // one thread's phase partials, whole lines
	blockBytes := int64(blockWords) * 8
	bufWords := g.bufWords()
	bufBytes := int64(bufWords) * 8
	partBytes := int64(g.partWords()) * 8
	srWords, swWords := g.streamWords(body, slotStreamRead), g.streamWords(body, slotStreamWrite)
	locks := g.locks()

	b := isa.NewBuilder(name).Desc(g.Desc).Class(ClassNone).Cores(t)
	b.Expect(g.Expected()...)
	b.Word("bar", 0).Align(64)
	b.Space("fs", t).Align(64)
	b.Space("locks", locks*8).Align(64)
	b.Space("partial", t*blockWords).Align(64)
	b.Space("shared", 2*bufWords).Align(64)
	b.Space("priv", t*(g.HotWords+g.WSWords)).Align(64)
	b.Space("sr", t*srWords).Align(64)
	b.Space("sw", t*swWords).Align(64)

	// main: spawn the workers, work as thread 0, join, close the region of
	// interest and print the three totals.
	b.Func("main").Label("main")
	for i := 1; i < t; i++ {
		b.Li(gTid, int64(i)).Spawn(gTmp2, "worker", gTid)
	}
	b.Li(gTid, 0).Call("work")
	for i := 1; i < t; i++ {
		b.Li(gSel, int64(i)).Join(gSel)
	}
	b.RoiEnd()
	sum := func(sym string, words int, lbl string) {
		b.Li(gSel, 0)
		if words > 0 {
			b.Li(gOff, 0).Li(gTmp2, int64(words)).Label(lbl)
			b.Ld(gVal, isa.Idx(sym, gOff)).ALU(isa.OpAdd, gSel, gSel, gVal)
			b.ALUImm(isa.OpAdd, gOff, gOff, 8).ALUImm(isa.OpSub, gTmp2, gTmp2, 1).Bnez(gTmp2, lbl)
		}
		b.Out(gSel)
	}
	sum("partial", t*blockWords, "sum_partial")
	sum("locks", locks*8, "sum_locks")
	sum("fs", t, "sum_fs")
	b.Exit()

	b.Func("worker").Label("worker").Call("work").Exit()

	b.Func("work").Label("work")
	base := func(rd isa.Reg, sym string, bytes int64) {
		b.ALUImm(isa.OpMul, rd, gTid, bytes).La(gSel, isa.Sym(sym)).ALU(isa.OpAdd, rd, rd, gSel)
	}
	base(gPriv, "priv", privBytes)
	base(gSR, "sr", int64(srWords)*8)
	base(gSW, "sw", int64(swWords)*8)
	// A nonzero xorshift state per thread: both constants are positive and
	// below 2^40.
	rs := core.NewRNG(g.Seed, "gen/threads")
	b.Li(gRand, int64(rs.Uint64()>>24|1)).ALUImm(isa.OpMul, gSel, gTid, int64(rs.Uint64()>>24|1)).ALU(isa.OpAdd, gRand, gRand, gSel)

	// Warm-up, outside the region of interest: load every line of the
	// working set, the shared buffers (WarmShared) and then the hot set, and
	// own this thread's partial lines.
	touch := func(lbl string, from isa.Reg, sym string, off int64, lines int) {
		if lines == 0 {
			return
		}
		if sym != "" {
			b.La(gOff, isa.SymOff(sym, off))
		} else {
			b.ALUImm(isa.OpAdd, gOff, from, off)
		}
		b.Li(gTmp2, int64(lines)).Label(lbl)
		b.Ld(gVal, isa.Ind(gOff, 0)).ALUImm(isa.OpAdd, gOff, gOff, 64)
		b.ALUImm(isa.OpSub, gTmp2, gTmp2, 1).Bnez(gTmp2, lbl)
	}
	touch("warm_ws", gPriv, "", hotBytes, g.WSWords/8)
	if g.WarmShared {
		touch("warm_shared", 0, "shared", 0, 2*bufWords/8)
	}
	touch("warm_hot", gPriv, "", 0, g.HotWords/8)
	b.ALUImm(isa.OpMul, gOff, gTid, blockBytes).La(gSel, isa.Sym("partial")).ALU(isa.OpAdd, gOff, gOff, gSel)
	for l := 0; l < blockWords/8; l++ {
		b.St(isa.R0, isa.Ind(gOff, int64(l)*64))
	}
	b.Barrier(isa.Sym("bar"), int64(t)).RoiBegin()

	b.Li(gPhase, 0).Label("phase")
	b.ALUImm(isa.OpAnd, gSel, gPhase, 1).ALUImm(isa.OpMul, gShR, gSel, bufBytes)
	b.ALUImm(isa.OpXor, gSel, gSel, 1).ALUImm(isa.OpMul, gShW, gSel, bufBytes)
	b.ALUImm(isa.OpMul, gSel, gTid, partBytes).ALU(isa.OpAdd, gShW, gShW, gSel)
	b.Li(gIter, int64(n)).Mov(gHot, gPriv).ALUImm(isa.OpMul, gTmp2, gTid, stagger)

	b.Label("loop")
	e := &genEmitter{b: b, pos: 64}
	for _, s := range body {
		g.emitSlot(e, s)
	}
	if g.LockEvery > 0 {
		// Take the lock's field before the branch: stepping the random
		// state must not depend on whether the section runs.
		pos := e.fields(log2(locks))[0]
		b.ALU(isa.OpAdd, gSel, gIter, gTmp2).ALUImm(isa.OpRem, gSel, gSel, int64(g.LockEvery)).Bnez(gSel, "nolock")
		e.extract(gOff, pos, log2(locks), 6)
		b.La(gSel, isa.Sym("locks")).ALU(isa.OpAdd, gOff, gOff, gSel)
		b.Lock(isa.Ind(gOff, 0))
		for i := 0; i < g.CSLen; i++ {
			w := isa.Ind(gOff, int64(1+i%7)*8)
			b.Ld(gVal, w).ALUImm(isa.OpAdd, gVal, gVal, 1).St(gVal, w)
		}
		b.Unlock(isa.Ind(gOff, 0))
		b.Label("nolock")
	}
	if g.FalseShareEvery > 0 {
		b.ALU(isa.OpAdd, gSel, gIter, gTmp2).ALUImm(isa.OpRem, gSel, gSel, int64(g.FalseShareEvery)).Bnez(gSel, "nofs")
		b.ALUImm(isa.OpShl, gOff, gTid, 3)
		b.Ld(gVal, isa.Idx("fs", gOff)).ALUImm(isa.OpAdd, gVal, gVal, 1).St(gVal, isa.Idx("fs", gOff))
		b.Label("nofs")
	}
	if g.Work > 0 {
		b.Work(int64(g.Work))
	}
	// Slide the hot window one line over the hot set.
	b.ALU(isa.OpSub, gSel, gHot, gPriv).ALUImm(isa.OpAdd, gSel, gSel, 64)
	b.ALUImm(isa.OpAnd, gSel, gSel, hotBytes/2-1).ALU(isa.OpAdd, gHot, gPriv, gSel)
	b.ALUImm(isa.OpSub, gIter, gIter, 1).Bnez(gIter, "loop")

	// End of phase: store this thread's partial, (tid+1)·(phase+1).
	b.ALUImm(isa.OpAdd, gSel, gTid, 1).ALUImm(isa.OpAdd, gVal, gPhase, 1).ALU(isa.OpMul, gVal, gVal, gSel)
	b.ALUImm(isa.OpMul, gOff, gTid, blockBytes).ALUImm(isa.OpShl, gSel, gPhase, 3).ALU(isa.OpAdd, gOff, gOff, gSel)
	b.St(gVal, isa.Idx("partial", gOff))
	b.ALUImm(isa.OpAdd, gPhase, gPhase, 1).BranchImm(isa.OpBeq, gPhase, int64(g.Phases), "done")
	b.Barrier(isa.Sym("bar"), int64(t)).Bnez(gTid, "phase")
	// Thread 0 checks the phase just ended: its partials sum to
	// (phase+1)·T(T+1)/2.
	b.ALUImm(isa.OpShl, gOff, gPhase, 3).ALUImm(isa.OpSub, gOff, gOff, 8)
	b.Li(gSel, 0).Li(gTmp2, int64(t)).Label("check")
	b.Ld(gVal, isa.Idx("partial", gOff)).ALU(isa.OpAdd, gSel, gSel, gVal)
	b.ALUImm(isa.OpAdd, gOff, gOff, blockBytes).ALUImm(isa.OpSub, gTmp2, gTmp2, 1).Bnez(gTmp2, "check")
	b.ALUImm(isa.OpMul, gVal, gPhase, int64(t*(t+1)/2)).ALU(isa.OpSeq, gVal, gVal, gSel)
	b.Assert(gVal, "phase reduction does not add up: a barrier let a thread through early")
	b.Jmp("phase")
	b.Label("done").Ret()

	p, err := b.Program()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// emitSlot emits one memory slot of the loop body.
func (g Gen) emitSlot(e *genEmitter, s slot) {
	b := e.b
	width := 0
	switch s.kind {
	case slotWSRead, slotWSWrite:
		width = log2(g.WSWords)
	case slotSharedRead:
		width = log2(g.SharedWords)
	case slotSharedWrite:
		width = log2(g.partWords())
	}
	dynamic := s.prob < probScale
	var pos []int
	if dynamic {
		pos = e.fields(width, 10)
	} else if width > 0 {
		pos = e.fields(width)
	}
	hot := func() {
		if s.kind.write() {
			b.St(gAcc, isa.Ind(gHot, s.hotOff))
		} else {
			b.Ld(gVal, isa.Ind(gHot, s.hotOff))
			g.consume(b)
		}
	}
	var skip, end string
	if dynamic {
		skip, end = e.label("hot"), e.label("slot")
		b.ALUImm(isa.OpShr, gSel, gRand, int64(pos[1])).ALUImm(isa.OpAnd, gSel, gSel, probScale-1)
		b.ALUImm(isa.OpSlt, gSel, gSel, int64(s.prob)).Beqz(gSel, skip)
	}
	switch s.kind {
	case slotHotRead, slotHotWrite:
		hot()
	case slotWSRead, slotWSWrite:
		e.extract(gOff, pos[0], width, 3)
		b.ALU(isa.OpAdd, gOff, gOff, gPriv)
		if s.kind == slotWSWrite {
			b.St(gAcc, isa.Ind(gOff, int64(g.HotWords)*8))
		} else {
			b.Ld(gVal, isa.Ind(gOff, int64(g.HotWords)*8))
			g.consume(b)
		}
	case slotStreamRead:
		b.Ld(gVal, isa.Ind(gSR, 0)).ALUImm(isa.OpAdd, gSR, gSR, int64(g.StreamStride))
		g.consume(b)
	case slotStreamWrite:
		b.St(gAcc, isa.Ind(gSW, 0)).ALUImm(isa.OpAdd, gSW, gSW, int64(g.StreamStride))
	case slotSharedRead:
		e.extract(gOff, pos[0], width, 3)
		b.ALU(isa.OpAdd, gOff, gOff, gShR).Ld(gVal, isa.Idx("shared", gOff))
		// The buffer was last written in an earlier phase, with values ≤ phase.
		b.ALU(isa.OpSle, gSel, gVal, gPhase).Assert(gSel, "shared read saw a write from a later phase")
		g.consume(b)
	case slotSharedWrite:
		e.extract(gOff, pos[0], width, 3)
		b.ALU(isa.OpAdd, gOff, gOff, gShW).ALUImm(isa.OpAdd, gSel, gPhase, 1).St(gSel, isa.Idx("shared", gOff))
	}
	if dynamic {
		b.Jmp(end).Label(skip)
		hot()
		b.Label(end)
	}
}

// consume emits the register instructions that use a loaded value.
func (g Gen) consume(b *isa.Builder) {
	for range g.ALUPerLoad {
		b.ALU(isa.OpAdd, gAcc, gAcc, gVal)
	}
}
