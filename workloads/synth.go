package workloads

import (
	"fmt"

	"weft/core"
	"weft/isa"
)

// Mixed parameterises the mixed synthetic workload: every thread runs a
// loop whose body is a fixed, randomly chosen sequence of memory slots
// (hot private words, a large cold private region, shared words; reads or
// writes), register work between them, and every LockEvery iterations a
// critical section that increments a shared counter. The program checks
// itself: it outputs the counter, which must equal the number of
// increments (.expect).
type Mixed struct {
	// Threads is the number of threads, main included (≥ 1).
	Threads int
	// Iterations is the loop count of every thread.
	Iterations int
	// Slots is the number of memory slots in the loop body.
	Slots int
	// SharedFrac is the fraction of slots that touch shared words.
	SharedFrac float64
	// ColdFrac is the fraction of private slots that touch the cold region
	// (random words of a region larger than the L1), the source of
	// capacity misses.
	ColdFrac float64
	// WriteFrac is the fraction of slots that store rather than load.
	WriteFrac float64
	// HotWords, ColdWords and SharedWords size the three regions (powers of two).
	HotWords, ColdWords, SharedWords int
	// ALUPerSlot is the number of register instructions after each slot.
	ALUPerSlot int
	// LockEvery puts a critical section every LockEvery iterations (0: none).
	LockEvery int
	// CSLen is the number of counter increments inside a critical section.
	CSLen int
	// Seed chooses the static slot sequence.
	Seed uint64
}

// BenchMixed returns the mixed workload of the reference benchmark
// (DESIGN.md §9) for the given thread count and roughly instrs simulated
// instructions in all.
func BenchMixed(threads int, instrs int) Mixed {
	m := Mixed{Threads: threads, Slots: 16, SharedFrac: 0.02, ColdFrac: 0.03, WriteFrac: 0.3,
		HotWords: 512, ColdWords: 8192, SharedWords: 256, ALUPerSlot: 1, LockEvery: 64, CSLen: 2, Seed: 1}
	m.Iterations = instrs / threads / m.InstrsPerIteration()
	if m.Iterations < 1 {
		m.Iterations = 1
	}
	return m
}

// InstrsPerIteration estimates the instructions one loop iteration runs
// (critical sections amortised), for sizing runs.
func (m Mixed) InstrsPerIteration() int {
	n := 2 + 3 + m.Slots*(1+m.ALUPerSlot) // loop control and random-number step
	n += int(float64(m.Slots) * (m.SharedFrac*2 + (1-m.SharedFrac)*m.ColdFrac*3))
	if m.LockEvery > 0 {
		n += (4 + 3*m.CSLen + 2) / m.LockEvery
	}
	return n
}

func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// Program generates the workload.
func (m Mixed) Program() (*isa.Program, error) {
	switch {
	case m.Threads < 1 || m.Threads > 64:
		return nil, fmt.Errorf("mixed: threads %d (want 1..64)", m.Threads)
	case m.Iterations < 1:
		return nil, fmt.Errorf("mixed: iterations %d (want ≥ 1)", m.Iterations)
	case m.Slots < 1:
		return nil, fmt.Errorf("mixed: slots %d (want ≥ 1)", m.Slots)
	case !isPow2(m.HotWords) || !isPow2(m.ColdWords) || !isPow2(m.SharedWords):
		return nil, fmt.Errorf("mixed: region sizes %d/%d/%d words must be powers of two", m.HotWords, m.ColdWords, m.SharedWords)
	case m.LockEvery < 0 || m.CSLen < 0 || m.ALUPerSlot < 0:
		return nil, fmt.Errorf("mixed: negative lock period, critical-section length or ALU count")
	}
	rng := core.NewRNG(m.Seed, "mixed/slots")
	const (
		rArg   = isa.R1  // thread index
		rIter  = isa.R4  // iterations left
		rRand  = isa.R5  // per-thread random state
		rOff   = isa.R6  // computed byte offset
		rVal   = isa.R7  // loaded or stored value
		rAcc   = isa.R8  // accumulator for register work
		rHot   = isa.R10 // this thread's hot region
		rCold  = isa.R11 // this thread's cold region
		rCount = isa.R12 // critical-section counter
		rTmp   = isa.R13
	)
	b := isa.NewBuilder("mixed").
		Desc("mixed synthetic workload: private hot/cold and shared accesses, locked counter").
		Class("none").
		Cores(m.Threads)
	perThread := int64(0)
	if m.LockEvery > 0 {
		perThread = int64(m.Iterations/m.LockEvery) * int64(m.CSLen)
	}
	b.Expect(perThread * int64(m.Threads))
	b.Word("counter", 0).Align(64).Word("lock", 0).Align(64)
	b.Space("shared", m.SharedWords).Align(64)
	b.Space("hot", m.HotWords*m.Threads).Align(64)
	b.Space("cold", m.ColdWords*m.Threads).Align(64)

	b.Func("main").Label("main")
	// Thread ids are assigned in spawn order, so child t has id t and the
	// joins below need not keep the ids spawn returns.
	for t := 1; t < m.Threads; t++ {
		b.Li(isa.R1, int64(t)).Spawn(isa.R2, "worker", isa.R1)
	}
	b.Li(rArg, 0).Call("work")
	for t := 1; t < m.Threads; t++ {
		b.Li(rTmp, int64(t)).Join(rTmp)
	}
	b.Ld(rVal, isa.Sym("counter")).Out(rVal).Exit()

	b.Func("worker").Label("worker").Call("work").Exit()

	b.Func("work").Label("work")
	// Per-thread region bases and random state.
	b.ALUImm(isa.OpMul, rHot, rArg, int64(m.HotWords*8)).La(rTmp, isa.Sym("hot")).ALU(isa.OpAdd, rHot, rHot, rTmp)
	b.ALUImm(isa.OpMul, rCold, rArg, int64(m.ColdWords*8)).La(rTmp, isa.Sym("cold")).ALU(isa.OpAdd, rCold, rCold, rTmp)
	b.ALUImm(isa.OpAdd, rRand, rArg, 0x9e3779b9).Li(rIter, int64(m.Iterations)).Li(rCount, int64(m.LockEvery))
	b.Label("loop")
	// One xorshift step per iteration; slots take different bit fields.
	b.ALUImm(isa.OpShl, rTmp, rRand, 13).ALU(isa.OpXor, rRand, rRand, rTmp)
	b.ALUImm(isa.OpShr, rTmp, rRand, 7).ALU(isa.OpXor, rRand, rRand, rTmp)
	b.ALUImm(isa.OpShl, rTmp, rRand, 17).ALU(isa.OpXor, rRand, rRand, rTmp)
	for s := 0; s < m.Slots; s++ {
		write := rng.Float64() < m.WriteFrac
		shift := int64(rng.Below(40))
		var mem isa.Mem
		switch {
		case rng.Float64() < m.SharedFrac:
			b.ALUImm(isa.OpShr, rOff, rRand, shift).ALUImm(isa.OpAnd, rOff, rOff, int64(m.SharedWords-1)*8)
			mem = isa.Idx("shared", rOff)
		case rng.Float64() < m.ColdFrac:
			b.ALUImm(isa.OpShr, rOff, rRand, shift).ALUImm(isa.OpAnd, rOff, rOff, int64(m.ColdWords-1)*8).ALU(isa.OpAdd, rOff, rOff, rCold)
			mem = isa.Ind(rOff, 0)
		default:
			mem = isa.Ind(rHot, int64(rng.Below(uint64(m.HotWords)))*8)
		}
		if write {
			b.St(rAcc, mem)
		} else {
			b.Ld(rVal, mem)
		}
		for a := 0; a < m.ALUPerSlot; a++ {
			b.ALU(isa.OpAdd, rAcc, rAcc, rVal)
		}
	}
	if m.LockEvery > 0 {
		b.ALUImm(isa.OpSub, rCount, rCount, 1).Bnez(rCount, "nocs").Li(rCount, int64(m.LockEvery))
		b.Lock(isa.Sym("lock"))
		for i := 0; i < m.CSLen; i++ {
			b.Ld(rVal, isa.Sym("counter")).ALUImm(isa.OpAdd, rVal, rVal, 1).St(rVal, isa.Sym("counter"))
		}
		b.Unlock(isa.Sym("lock"))
		b.Label("nocs")
	}
	b.ALUImm(isa.OpSub, rIter, rIter, 1).Bnez(rIter, "loop").Ret()
	p, err := b.Program()
	if err != nil {
		return nil, fmt.Errorf("mixed: %w", err)
	}
	return p, nil
}
