// Package isa defines weft's instruction set: the instructions and their
// operand fields, programs with their data and source metadata (code
// points, functions, @bug marks, .force seeds), the text assembler and
// disassembler, a Go builder for generated programs, a control-flow graph
// for static analyses, and the PSet section of a program binary in the
// paper's encoding (PSets, EncodePSets, DecodePSets), which the PSet
// hardware and the PSet learner share.
//
// isa is a leaf: it imports nothing else from weft.
package isa

import (
	"fmt"
	"iter"
	"strconv"
	"strings"
)

// Memory layout constants (DESIGN.md §4).
const (
	// DataBase is the address of the first data word.
	DataBase = 0x10000
	// NullPageEnd bounds the null page: any access below it crashes.
	NullPageEnd = 4096
	// WordBytes is the size of a machine word.
	WordBytes = 8
	// InstrBytes is the size of one instruction for code-size accounting.
	InstrBytes = 4
	// NumRegs is the number of general registers; r0 reads as zero.
	NumRegs = 16
	// ReturnStackDepth bounds call nesting; overflow is a crash.
	ReturnStackDepth = 256
	// MaxCores is the most cores a machine has, and so the largest .cores.
	MaxCores = 64
)

// Op is an instruction opcode.
type Op uint8

// The opcodes, grouped as in DESIGN.md §4.
const (
	OpInvalid Op = iota
	// data
	OpLi
	OpLa
	OpMov
	OpAdd
	OpSub
	OpMul
	OpDiv
	OpRem
	OpAnd
	OpOr
	OpXor
	OpShl
	OpShr
	OpSar
	OpSeq
	OpSne
	OpSlt
	OpSle
	// memory
	OpLd
	OpSt
	OpCas
	OpXchg
	OpFadd
	OpAlloc
	OpFree
	// control
	OpBeq
	OpBne
	OpBlt
	OpBge
	OpBeqz
	OpBnez
	OpJmp
	OpCall
	OpRet
	// sync
	OpLock
	OpUnlock
	OpBarrier
	OpCwait
	OpCsignal
	OpCbcast
	OpSpawn
	OpJoin
	OpTid
	// outcome
	OpAssert
	OpFail
	OpOut
	OpExit
	// time
	OpWork
	OpDelay
	OpRoiBegin
	OpRoiEnd
	OpNop

	// NumOps is one past the last opcode.
	NumOps
)

var opNames = [NumOps]string{
	"invalid",
	"li", "la", "mov", "add", "sub", "mul", "div", "rem", "and", "or", "xor",
	"shl", "shr", "sar", "seq", "sne", "slt", "sle",
	"ld", "st", "cas", "xchg", "fadd", "alloc", "free",
	"beq", "bne", "blt", "bge", "beqz", "bnez", "jmp", "call", "ret",
	"lock", "unlock", "barrier", "cwait", "csignal", "cbcast", "spawn", "join", "tid",
	"assert", "fail", "out", "exit",
	"work", "delay", "roi", "roi", "nop",
}

// String returns the opcode's mnemonic ("roi" for both roi forms).
func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return "invalid"
}

// IsALU reports whether o is a register-only data instruction.
func (o Op) IsALU() bool { return o >= OpLi && o <= OpSle }

// IsBranch reports whether o is a conditional branch.
func (o Op) IsBranch() bool { return o >= OpBeq && o <= OpBnez }

// IsSync reports whether o is a synchronisation instruction that accesses
// a sync word (lock, unlock, barrier, cwait, csignal, cbcast).
func (o Op) IsSync() bool { return o >= OpLock && o <= OpCbcast }

// IsRMW reports whether o is an atomic read-modify-write of an ordinary
// word (cas, xchg, fadd); the sync instructions' updates are IsSync.
func (o Op) IsRMW() bool { return o == OpCas || o == OpXchg || o == OpFadd }

// Words returns the addresses of the n words from addr, in order (none
// when n ≤ 0): the words a free names, say.
func Words(addr uint64, n int64) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		for i := int64(0); i < n; i++ {
			if !yield(addr + uint64(i)*WordBytes) {
				return
			}
		}
	}
}

// TouchesMemory reports whether o reads or writes a data word (including
// synchronisation words).
func (o Op) TouchesMemory() bool {
	switch o {
	case OpLd, OpSt, OpCas, OpXchg, OpFadd, OpFree,
		OpLock, OpUnlock, OpBarrier, OpCwait, OpCsignal, OpCbcast:
		return true
	}
	return false
}

// Instruction is one decoded instruction. Which fields an opcode uses:
//
//	data     Rd, Rs, and Rt or Imm (UseImm); li/la: Rd, Imm
//	ld       Rd, mem          st    Rs (value), mem
//	cas      Rd, mem, Rs (expected), Rt (new)
//	xchg     Rd, mem, Rs      fadd  Rd, mem, Rs or Imm
//	alloc    Rd, Rs or Imm    free  mem, Imm (words)
//	branch   Rs, Rt or Imm, Target; beqz/bnez: Rs, Target
//	jmp/call Target
//	lock, unlock, csignal, cbcast: mem; barrier: mem, Rs or Imm
//	cwait    mem (condition variable), mem2 (lock)
//	spawn    Rd, Target, Rs   join Rs   tid Rd
//	assert   Rs, Msg          fail  Msg   out Rs
//	work     Imm              delay Imm (lo), Imm2 (hi)
//
// A memory operand is Base + Off (a register plus a byte offset); every
// source form (sym, sym+imm, [rs], [rs+imm], sym[rs]) reduces to it. The
// second memory operand of cwait is Base2 + Off2.
type Instruction struct {
	// Op is the opcode.
	Op Op
	// Rd is the destination register.
	Rd uint8
	// Rs is the first source register.
	Rs uint8
	// Rt is the second source register.
	Rt uint8
	// Base is the register of the memory operand.
	Base uint8
	// Base2 is the register of cwait's second (lock) memory operand.
	Base2 uint8
	// UseImm says Imm stands in for the register of an "Rt or Imm" or
	// "Rs or Imm" operand.
	UseImm bool
	// Bug marks the instruction as part of the ground-truth bug (@bug).
	Bug bool
	// Imm is the immediate: a value or address, or a count of words (alloc,
	// free), threads (barrier) or cycles (work, delay's lower bound).
	Imm int64
	// Imm2 is delay's upper bound in cycles.
	Imm2 int64
	// Off is the memory operand's offset in bytes, symbol address included.
	Off int64
	// Off2 is the offset in bytes of cwait's second memory operand.
	Off2 int64
	// Target is the PC of a branch, jmp or call target, or where a spawned
	// thread starts.
	Target int32
	// Msg indexes Program.Strings for assert and fail.
	Msg int32
	// Line is the 1-based source line (0 for built programs).
	Line int32
	// CodePoint indexes Program.CodePoints.
	CodePoint int32
	// Func indexes Program.Funcs, or is -1 outside every .func region.
	Func int32
}

// Symbol is a named data object.
type Symbol struct {
	// Name is the symbol's name.
	Name string
	// Addr is the byte address of its first word.
	Addr uint64
	// Words is its size in words.
	Words int
}

// Label names a code position.
type Label struct {
	// Name is the label's name.
	Name string
	// PC is the instruction it names.
	PC int32
}

// Func is a .func region: instructions [Start, End).
type Func struct {
	// Name is the .func name.
	Name string
	// Start is the PC of its first instruction.
	Start int32
	// End is the PC one past its last instruction.
	End int32
}

// CodePoint is a source-level location that one or more instructions map
// to: a source line by default, or a name given with @cp.
type CodePoint struct {
	// Name is the @cp name, or "" for a source-line code point.
	Name string
	// Line is the 1-based source line of its first instruction (0 for built
	// programs).
	Line int32
	// Func is its first instruction's Instruction.Func.
	Func int32
}

// Forcing is one .force directive: run with Seed (when HasSeed) and the
// config assignments Sets ("key=value", as for --set) and the kernel's bug
// shows.
type Forcing struct {
	// Seed is the seed to run with, when HasSeed is set.
	Seed uint64
	// HasSeed reports whether the directive names a seed.
	HasSeed bool
	// Sets are the config assignments, "key=value" as for --set.
	Sets []string
}

// String spells the forcing as the .force directive's argument.
func (f Forcing) String() string {
	var parts []string
	if f.HasSeed {
		parts = append(parts, "seed="+strconv.FormatUint(f.Seed, 10))
	}
	parts = append(parts, f.Sets...)
	return strings.Join(parts, " ")
}

// ParseForcing parses a .force argument: space-separated key=value
// assignments, where seed=N names the seed and every other key is a config
// key (checked when the forcing is applied, not here).
func ParseForcing(text string) (Forcing, error) {
	var f Forcing
	fields := strings.Fields(text)
	if len(fields) == 0 {
		return f, fmt.Errorf("empty forcing: want seed=N and/or key=value assignments")
	}
	for _, fld := range fields {
		k, v, ok := strings.Cut(fld, "=")
		if !ok || k == "" || v == "" {
			return f, fmt.Errorf("bad forcing assignment %q: want key=value", fld)
		}
		if k == "seed" {
			if f.HasSeed {
				return f, fmt.Errorf("seed given twice")
			}
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return f, fmt.Errorf("bad seed %q: want a non-negative integer", v)
			}
			f.Seed, f.HasSeed = n, true
			continue
		}
		f.Sets = append(f.Sets, fld)
	}
	return f, nil
}

// Program is an assembled program with its data image and source metadata.
type Program struct {
	// Name is the .kernel name (default: the file name without extension).
	Name string
	// File is the source file name, for messages.
	File string
	// Desc is the program's description (.desc).
	Desc string
	// Class is the bug class (.class): none, race, atomicity, order,
	// multivar or deadlock ("" when absent).
	Class string
	// Source is the program's provenance (.source).
	Source string
	// MinCores is the .cores directive (0 when absent).
	MinCores int
	// Force lists the .force directives: seeds (and config overrides) under
	// which the kernel's bug shows deterministically.
	Force []Forcing
	// Expect holds the expected outputs when HasExpect is set.
	Expect []int64
	// HasExpect reports whether the program has an .expect directive.
	HasExpect bool

	// Instrs are the instructions, indexed by PC.
	Instrs []Instruction
	// Data is the initial image of the data segment, one value per word,
	// starting at DataBase.
	Data []int64

	// Symbols are the data symbols in definition order.
	Symbols []Symbol
	// Labels are the code labels in definition order.
	Labels []Label
	// Funcs are the .func regions in source order.
	Funcs []Func
	// CodePoints are the code points Instruction.CodePoint indexes.
	CodePoints []CodePoint
	// Strings are the assert and fail messages Instruction.Msg indexes.
	Strings []string
}

// DataEnd returns the first address past the data segment.
func (p *Program) DataEnd() uint64 { return DataBase + uint64(len(p.Data))*WordBytes }

// FaultOp returns the op of the instruction at pc, for a Crash event of
// that pc whose address addr names a data word below hi (an exclusive byte
// bound): the access the faulting instruction attempted, which detectors
// count as made. ok is false for a pc outside the program (or no program)
// and for an address that names no such word.
func (p *Program) FaultOp(pc int32, addr, hi uint64) (op Op, ok bool) {
	if p == nil || pc < 0 || int(pc) >= len(p.Instrs) || addr < DataBase || addr%WordBytes != 0 || addr >= hi {
		return 0, false
	}
	return p.Instrs[pc].Op, true
}

// LabelPC returns the PC of a code label.
func (p *Program) LabelPC(name string) (int32, bool) {
	for _, l := range p.Labels {
		if l.Name == name {
			return l.PC, true
		}
	}
	return 0, false
}

// SymbolAddr returns the address of a data symbol.
func (p *Program) SymbolAddr(name string) (uint64, bool) {
	for _, s := range p.Symbols {
		if s.Name == name {
			return s.Addr, true
		}
	}
	return 0, false
}

// BugPCs returns the PCs marked @bug, in order.
func (p *Program) BugPCs() []int32 {
	var pcs []int32
	for i := range p.Instrs {
		if p.Instrs[i].Bug {
			pcs = append(pcs, int32(i))
		}
	}
	return pcs
}
