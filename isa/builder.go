package isa

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Reg names a general register, r0..r15.
type Reg uint8

// The general registers. R0 reads as zero.
const (
	R0 Reg = iota
	R1
	R2
	R3
	R4
	R5
	R6
	R7
	R8
	R9
	R10
	R11
	R12
	R13
	R14
	R15
)

// String returns the register's assembly name ("r3").
func (r Reg) String() string { return "r" + strconv.Itoa(int(r)) }

// Mem is a memory operand for the Builder: the address is the address of
// Sym (when set) plus the value of register Base plus Off bytes. With Base
// R0 the address is a constant and must be 8-byte aligned.
type Mem struct {
	// Sym is the data symbol whose address is added ("" for none).
	Sym string
	// Base is the register whose value is added (R0 for none).
	Base Reg
	// Off is the offset in bytes.
	Off int64
}

// Sym is the memory operand `sym`.
func Sym(name string) Mem { return Mem{Sym: name} }

// SymOff is the memory operand `sym+off`.
func SymOff(name string, off int64) Mem { return Mem{Sym: name, Off: off} }

// Ind is the memory operand `[base+off]`.
func Ind(base Reg, off int64) Mem { return Mem{Base: base, Off: off} }

// Idx is the memory operand `sym[base]`: sym plus base bytes.
func Idx(name string, base Reg) Mem { return Mem{Sym: name, Base: base} }

// Limits the assembler and the Builder enforce.
const (
	// MaxDataWords bounds the data segment (32 MiB).
	MaxDataWords = 1 << 22
	// MaxAlign is the largest .align argument in bytes.
	MaxAlign = 1 << 20
	// maxErrors is how many errors one assembly or build reports.
	maxErrors = 20
)

// classNames lists the valid .class values.
const classNames = "none|race|atomicity|order|multivar|deadlock"

// validClass reports whether c is a valid .class value.
func validClass(c string) bool {
	for _, n := range strings.Split(classNames, "|") {
		if c == n {
			return true
		}
	}
	return false
}

// PosError is one assembly or build error. Line is the 1-based source line,
// or 0 when there is none (built programs, whose Msg then names the
// instruction or object).
type PosError struct {
	// File is the source file, or `builder "NAME"` for a built program.
	File string
	// Line is the 1-based source line, or 0.
	Line int
	// Msg says what is wrong.
	Msg string
}

// Error formats the error as "file:line: message".
func (e *PosError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// ErrorList is every error of one assembly or build, in source order. Its
// Error method joins them with newlines.
type ErrorList []*PosError

// Error returns the errors, one a line.
func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

// errSink collects errors up to maxErrors.
type errSink struct {
	file string
	list ErrorList
	full bool
}

// add records an error at line (0 for none); what names the object for
// line-less errors.
func (s *errSink) add(line int32, what, format string, args ...any) {
	if s.full {
		return
	}
	if len(s.list) >= maxErrors {
		s.full = true
		s.list = append(s.list, &PosError{File: s.file, Line: int(line), Msg: "too many errors"})
		return
	}
	msg := clipLong(fmt.Sprintf(format, args...))
	if line <= 0 && what != "" {
		msg = what + ": " + msg
	}
	s.list = append(s.list, &PosError{File: s.file, Line: int(line), Msg: msg})
}

// clipLong shortens every run of more than 64 non-blank bytes in a message
// (a 10 MB token quoted back) to its first 48 bytes, "…" and its length,
// and the whole message to about 1000 bytes, so an error stays one
// readable line.
func clipLong(msg string) string {
	const run, keep, total = 64, 48, 1000
	var b strings.Builder
	for i := 0; i < len(msg); {
		j := i
		for j < len(msg) && msg[j] != ' ' && msg[j] != '\t' && msg[j] != '\n' {
			j++
		}
		if j-i > run {
			cut := i + keep
			for cut > i && !utf8.RuneStart(msg[cut]) {
				cut--
			}
			fmt.Fprintf(&b, "%s…(%d bytes)", msg[i:cut], j-i)
		} else {
			b.WriteString(msg[i:j])
		}
		if j < len(msg) {
			b.WriteByte(msg[j])
			j++
		}
		i = j
		if b.Len() > total {
			b.WriteString("…")
			break
		}
	}
	return b.String()
}

// slot says where one source operand of an instruction goes.
type slot uint8

const (
	slotRd     slot = iota + 1 // register → Rd
	slotRs                     // register → Rs
	slotRt                     // register → Rt
	slotRtImm                  // register → Rt, or number → Imm with UseImm
	slotRsImm                  // register → Rs, or number → Imm with UseImm
	slotImm                    // number → Imm
	slotImm2                   // number → Imm2
	slotMem                    // memory operand → Base, Off
	slotMem2                   // memory operand → Base2, Off2
	slotTarget                 // code label → Target
	slotMsg                    // string → Msg
	slotAddr                   // sym or sym±imm → Imm (la)
)

// opSlots gives each opcode's source operands, in order. The roi forms
// take the word begin or end, handled by the assembler and disassembler.
var opSlots = [NumOps][]slot{
	OpLi:       {slotRd, slotImm},
	OpLa:       {slotRd, slotAddr},
	OpMov:      {slotRd, slotRs},
	OpAdd:      {slotRd, slotRs, slotRtImm},
	OpSub:      {slotRd, slotRs, slotRtImm},
	OpMul:      {slotRd, slotRs, slotRtImm},
	OpDiv:      {slotRd, slotRs, slotRtImm},
	OpRem:      {slotRd, slotRs, slotRtImm},
	OpAnd:      {slotRd, slotRs, slotRtImm},
	OpOr:       {slotRd, slotRs, slotRtImm},
	OpXor:      {slotRd, slotRs, slotRtImm},
	OpShl:      {slotRd, slotRs, slotRtImm},
	OpShr:      {slotRd, slotRs, slotRtImm},
	OpSar:      {slotRd, slotRs, slotRtImm},
	OpSeq:      {slotRd, slotRs, slotRtImm},
	OpSne:      {slotRd, slotRs, slotRtImm},
	OpSlt:      {slotRd, slotRs, slotRtImm},
	OpSle:      {slotRd, slotRs, slotRtImm},
	OpLd:       {slotRd, slotMem},
	OpSt:       {slotRs, slotMem},
	OpCas:      {slotRd, slotMem, slotRs, slotRt},
	OpXchg:     {slotRd, slotMem, slotRs},
	OpFadd:     {slotRd, slotMem, slotRsImm},
	OpAlloc:    {slotRd, slotRsImm},
	OpFree:     {slotMem, slotImm},
	OpBeq:      {slotRs, slotRtImm, slotTarget},
	OpBne:      {slotRs, slotRtImm, slotTarget},
	OpBlt:      {slotRs, slotRtImm, slotTarget},
	OpBge:      {slotRs, slotRtImm, slotTarget},
	OpBeqz:     {slotRs, slotTarget},
	OpBnez:     {slotRs, slotTarget},
	OpJmp:      {slotTarget},
	OpCall:     {slotTarget},
	OpRet:      {},
	OpLock:     {slotMem},
	OpUnlock:   {slotMem},
	OpBarrier:  {slotMem, slotRsImm},
	OpCwait:    {slotMem, slotMem2},
	OpCsignal:  {slotMem},
	OpCbcast:   {slotMem},
	OpSpawn:    {slotRd, slotTarget, slotRs},
	OpJoin:     {slotRs},
	OpTid:      {slotRd},
	OpAssert:   {slotRs, slotMsg},
	OpFail:     {slotMsg},
	OpOut:      {slotRs},
	OpExit:     {},
	OpWork:     {slotImm},
	OpDelay:    {slotImm, slotImm2},
	OpRoiBegin: {},
	OpRoiEnd:   {},
	OpNop:      {},
}

// hasSlot reports whether op has an operand of kind s.
func hasSlot(op Op, s slot) bool {
	if op >= NumOps {
		return false
	}
	for _, x := range opSlots[op] {
		if x == s {
			return true
		}
	}
	return false
}

// mnemonic returns the assembly spelling of op, "roi begin" and "roi end"
// included.
func mnemonic(op Op) string {
	switch op {
	case OpRoiBegin:
		return "roi begin"
	case OpRoiEnd:
		return "roi end"
	}
	return op.String()
}

// checkInstr returns what is wrong with the already decoded fields of in,
// or "" when they are fine.
func checkInstr(in *Instruction) string {
	if in.Op == OpInvalid || in.Op >= NumOps {
		return fmt.Sprintf("invalid opcode %d", in.Op)
	}
	for _, r := range [...]uint8{in.Rd, in.Rs, in.Rt, in.Base, in.Base2} {
		if r >= NumRegs {
			return fmt.Sprintf("unknown register \"r%d\"", r)
		}
	}
	switch in.Op {
	case OpWork:
		if in.Imm < 0 {
			return fmt.Sprintf("bad operand: work takes a cycle count >= 0, got %d", in.Imm)
		}
	case OpDelay:
		if in.Imm < 0 || in.Imm2 < in.Imm {
			return fmt.Sprintf("bad operand: delay wants 0 <= lo <= hi, got %d, %d", in.Imm, in.Imm2)
		}
	case OpFree:
		if in.Imm < 1 {
			return fmt.Sprintf("bad operand: free takes a word count >= 1, got %d", in.Imm)
		}
	case OpAlloc:
		if in.UseImm && in.Imm < 1 {
			return fmt.Sprintf("bad operand: alloc takes a word count >= 1, got %d", in.Imm)
		}
	case OpBarrier:
		if in.UseImm && in.Imm < 1 {
			return fmt.Sprintf("bad operand: barrier takes a thread count >= 1, got %d", in.Imm)
		}
	case OpShl, OpShr, OpSar:
		// A shift by a register uses the amount's low 6 bits, as in
		// RISC-V and x86-64; a constant amount outside 0..63 can only be
		// a mistake.
		if in.UseImm && (in.Imm < 0 || in.Imm > 63) {
			return fmt.Sprintf("bad operand: %s shifts by 0 to 63 bits, got %d (a register amount uses its low 6 bits)", opNames[in.Op], in.Imm)
		}
	}
	return ""
}

// isIdent reports whether s is a valid label, symbol, function or code
// point name: [A-Za-z_.][A-Za-z0-9_.]*.
func isIdent(s string) bool {
	if s == "" || !identStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !identChar(s[i]) {
			return false
		}
	}
	return true
}

func identStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '.'
}

func identChar(c byte) bool { return identStart(c) || c >= '0' && c <= '9' }

// registerLike reports whether s spells a register name, valid or not
// ("r" followed by digits).
func registerLike(s string) bool {
	if len(s) < 2 || s[0] != 'r' {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// pending is an instruction whose names are not yet resolved. Its names
// are interned (nameID) rather than held as strings, so an instruction
// waiting for Program takes 88 bytes, not 144: a listing of millions of
// instructions is assembled in a few hundred bytes per instruction.
type pending struct {
	in     Instruction
	target nameID // code label for Target
	sym    nameID // data symbol added to Off (memory) or Imm (la)
	sym2   nameID // data symbol added to Off2
	msg    nameID // assert/fail message
	cp     nameID // @cp name, or none for the default code point
}

// nameID indexes Builder.strs, the names and messages of the pending
// instructions, each stored once; 0 is none ("").
type nameID int32

// intern returns s's nameID, adding it to b.strs the first time.
func (b *Builder) intern(s string) nameID {
	if s == "" {
		return 0
	}
	if id, ok := b.strIDs[s]; ok {
		return id
	}
	if len(b.strs) == 0 {
		b.strs = append(b.strs, "")
	}
	id := nameID(len(b.strs))
	s = strings.Clone(s) // not the rest of the source line it was cut from
	b.strs = append(b.strs, s)
	b.strIDs[s] = id
	return id
}

// str returns the string of id ("" for none).
func (b *Builder) str(id nameID) string {
	if id == 0 {
		return ""
	}
	return b.strs[id]
}

// pendingChunk is the number of instructions in one chunk of a
// pendingList.
const pendingChunk = 1024

// pendingList holds the pending instructions in fixed-size chunks, so
// growing it never copies what it holds nor leaves a quarter of it spare,
// as appending to one slice would.
type pendingList struct {
	chunks [][]pending
	n      int
}

// len returns the number of instructions.
func (l *pendingList) len() int { return l.n }

// at returns instruction i.
func (l *pendingList) at(i int) *pending { return &l.chunks[i/pendingChunk][i%pendingChunk] }

// add appends p.
func (l *pendingList) add(p pending) {
	if l.n%pendingChunk == 0 {
		l.chunks = append(l.chunks, make([]pending, 0, pendingChunk))
	}
	c := &l.chunks[len(l.chunks)-1]
	*c = append(*c, p)
	l.n++
}

// dataFix is a data word that holds a symbol's address plus off.
type dataFix struct {
	idx  int
	sym  string
	off  int64
	line int32
}

// nameDef records what a name defines.
type nameDef struct {
	code bool  // a code label (else a data symbol)
	idx  int   // index in labels or symbols
	line int32 // defining line, 0 for built programs
}

// Builder builds a Program from Go calls; synthetic workload generators use
// it and the assembler drives it. Instruction methods append one
// instruction and return the Builder, so calls chain:
//
//	b := isa.NewBuilder("counter")
//	b.Word("count", 0).Word("L", 0)
//	b.Func("main").Label("main")
//	b.Lock(isa.Sym("L")).Ld(isa.R1, isa.Sym("count")).Bug()
//
// Names are resolved and every error is reported by Program. The zero
// Builder is not usable; call NewBuilder.
type Builder struct {
	name      string
	file      string
	desc      string
	class     string
	source    string
	minCores  int
	forces    []Forcing
	expect    []int64
	hasExpect bool
	instrs    pendingList
	strs      []string // interned names (nameID)
	strIDs    map[string]nameID
	data      []int64
	fixes     []dataFix
	symbols   []Symbol
	curSym    int // symbol receiving data words, -1 for none
	labels    []Label
	funcs     []Func
	names     map[string]nameDef
	funcNames map[string]int32
	errs      errSink
	line      int32 // source line of the next definition (assembler only)
	srcLine   int32 // a listing's recorded source line for it, or 0
	mainLine  int32 // line for a missing main (assembler only)
	dataFull  bool
}

// NewBuilder returns a Builder for a program called name.
func NewBuilder(name string) *Builder {
	b := newBuilder(name)
	b.errs.file = "builder " + strconv.Quote(name)
	return b
}

func newBuilder(name string) *Builder {
	return &Builder{
		name:      name,
		curSym:    -1,
		names:     make(map[string]nameDef),
		funcNames: make(map[string]int32),
		strIDs:    make(map[string]nameID),
	}
}

// instrWhat names instruction i for errors without a source line.
func (b *Builder) instrWhat(i int, op Op) string {
	return fmt.Sprintf("instruction %d (%s)", i, mnemonic(op))
}

// Desc sets the program's description (.desc).
func (b *Builder) Desc(s string) *Builder { b.desc = s; return b }

// Class sets the bug class (.class): none, race, atomicity, order,
// multivar or deadlock.
func (b *Builder) Class(c string) *Builder {
	if !validClass(c) {
		b.errs.add(b.line, "class", "bad .class %q: want one of %s", c, classNames)
	}
	b.class = c
	return b
}

// Source sets the program's provenance (.source).
func (b *Builder) Source(s string) *Builder { b.source = s; return b }

// Cores sets the minimum number of cores the program needs (.cores).
func (b *Builder) Cores(n int) *Builder {
	if n < 1 || n > MaxCores {
		b.errs.add(b.line, "cores", "bad .cores %d: want 1 to %d", n, MaxCores)
	}
	b.minCores = n
	return b
}

// Force adds a .force directive: a seed and/or config assignments under
// which the bug shows (see ParseForcing).
func (b *Builder) Force(spec string) *Builder {
	f, err := ParseForcing(spec)
	if err != nil {
		b.errs.add(b.line, "force", "bad .force: %v", err)
		return b
	}
	b.forces = append(b.forces, f)
	return b
}

// Expect sets the expected outputs (.expect), in order.
func (b *Builder) Expect(vals ...int64) *Builder {
	b.hasExpect = true
	b.expect = nil
	if len(vals) > 0 {
		b.expect = append([]int64(nil), vals...)
	}
	return b
}

// define records a new name, reporting duplicates and bad names.
func (b *Builder) define(name string, code bool, idx int) bool {
	kind := "symbol"
	if code {
		kind = "label"
	}
	if !isIdent(name) {
		b.errs.add(b.line, kind, "bad %s name %q", kind, name)
		return false
	}
	if registerLike(name) {
		b.errs.add(b.line, kind, "bad %s name %q: it is a register name", kind, name)
		return false
	}
	if d, ok := b.names[name]; ok {
		if d.line > 0 {
			b.errs.add(b.line, kind, "duplicate label %q (first defined at line %d)", name, d.line)
		} else {
			b.errs.add(b.line, kind, "duplicate label %q", name)
		}
		return false
	}
	b.names[name] = nameDef{code: code, idx: idx, line: b.line}
	return true
}

// Label defines a code label at the next instruction.
func (b *Builder) Label(name string) *Builder {
	if b.define(name, true, len(b.labels)) {
		b.labels = append(b.labels, Label{Name: name, PC: int32(b.instrs.len())})
	}
	return b
}

// Func starts a function region (.func) at the next instruction; it runs
// until the next Func or the end of the code. It does not define a label.
func (b *Builder) Func(name string) *Builder {
	if !isIdent(name) {
		b.errs.add(b.line, "func", "bad .func name %q", name)
		return b
	}
	if l, ok := b.funcNames[name]; ok {
		if l > 0 {
			b.errs.add(b.line, "func", "duplicate .func %q (first at line %d)", name, l)
		} else {
			b.errs.add(b.line, "func", "duplicate .func %q", name)
		}
		return b
	}
	b.funcNames[name] = b.line
	b.funcs = append(b.funcs, Func{Name: name, Start: int32(b.instrs.len())})
	return b
}

// PC returns the PC the next instruction will have.
func (b *Builder) PC() int32 { return int32(b.instrs.len()) }

// dataAddr returns the address of the next data word.
func (b *Builder) dataAddr() uint64 { return DataBase + uint64(len(b.data))*WordBytes }

// defineSymbol starts a data symbol at the next data word.
func (b *Builder) defineSymbol(name string) {
	if b.define(name, false, len(b.symbols)) {
		b.symbols = append(b.symbols, Symbol{Name: name, Addr: b.dataAddr()})
		b.curSym = len(b.symbols) - 1
	}
}

// grow appends n zero words, reporting an oversized data segment.
func (b *Builder) grow(n int64) bool {
	if n < 0 || n > int64(MaxDataWords-len(b.data)) {
		if !b.dataFull {
			b.errs.add(b.line, "data", "data segment too large (more than %d words)", MaxDataWords)
			b.dataFull = true
		}
		return false
	}
	old := len(b.data)
	b.data = slices.Grow(b.data, int(n))[:old+int(n)]
	clear(b.data[old:])
	return true
}

// extend makes the current symbol cover every word so far.
func (b *Builder) extend() {
	if b.curSym >= 0 {
		s := &b.symbols[b.curSym]
		s.Words = int((b.dataAddr() - s.Addr) / WordBytes)
	}
}

// Word defines data symbol name holding vals (.word); an empty name adds
// the words to the current symbol.
func (b *Builder) Word(name string, vals ...int64) *Builder {
	if name != "" {
		b.defineSymbol(name)
	}
	if b.grow(int64(len(vals))) {
		copy(b.data[len(b.data)-len(vals):], vals)
		b.extend()
	}
	return b
}

// WordAddr defines data symbol name holding addresses, one word per ref
// (.word sym or sym+imm): each ref names a symbol and an offset and has no
// base register. An empty name adds the words to the current symbol.
func (b *Builder) WordAddr(name string, refs ...Mem) *Builder {
	if name != "" {
		b.defineSymbol(name)
	}
	for _, r := range refs {
		if r.Sym == "" || r.Base != R0 {
			b.errs.add(b.line, "data", "bad WordAddr reference %+v: want a symbol and an offset", r)
			continue
		}
		b.wordSym(r.Sym, r.Off)
	}
	return b
}

// wordSym appends a word holding the address of sym plus off.
func (b *Builder) wordSym(sym string, off int64) {
	if b.grow(1) {
		b.fixes = append(b.fixes, dataFix{idx: len(b.data) - 1, sym: sym, off: off, line: b.line})
		b.extend()
	}
}

// Space defines data symbol name as n zeroed words (.space); an empty name
// adds the words to the current symbol.
func (b *Builder) Space(name string, n int) *Builder {
	if name != "" {
		b.defineSymbol(name)
	}
	if n < 0 {
		b.errs.add(b.line, "space", "bad .space argument %d: want a word count >= 0", n)
		return b
	}
	if b.grow(int64(n)) {
		b.extend()
	}
	return b
}

// Align pads the data with zero words to a multiple of bytes (.align),
// a power of two from 8 to MaxAlign. The padding belongs to no symbol
// unless more words follow without a new symbol.
func (b *Builder) Align(bytes int) *Builder {
	if bytes < WordBytes || bytes > MaxAlign || bytes&(bytes-1) != 0 {
		b.errs.add(b.line, "align", "bad .align argument %d: want a power of two from 8 to %d", bytes, MaxAlign)
		return b
	}
	a := b.dataAddr()
	pad := (uint64(bytes) - a%uint64(bytes)) % uint64(bytes)
	b.grow(int64(pad / WordBytes))
	return b
}

// emit appends an instruction.
func (b *Builder) emit(p pending) *Builder {
	p.in.Line = b.line
	if b.srcLine > 0 {
		p.in.Line = b.srcLine
	}
	p.in.Func = int32(len(b.funcs)) - 1
	if msg := checkInstr(&p.in); msg != "" {
		b.errs.add(b.line, b.instrWhat(b.instrs.len(), p.in.Op), "%s", msg)
	}
	b.instrs.add(p)
	return b
}

// mem stores m as the first memory operand of p.
func (b *Builder) mem(p pending, m Mem) pending {
	p.in.Base, p.in.Off, p.sym = uint8(m.Base), m.Off, b.intern(m.Sym)
	return p
}

// mem2 stores m as the second memory operand of p.
func (b *Builder) mem2(p pending, m Mem) pending {
	p.in.Base2, p.in.Off2, p.sym2 = uint8(m.Base), m.Off, b.intern(m.Sym)
	return p
}

func op(o Op) pending { return pending{in: Instruction{Op: o}} }

// last returns the most recent instruction, reporting when there is none.
func (b *Builder) last(what string) *pending {
	if b.instrs.len() == 0 {
		b.errs.add(b.line, what, "%s with no instruction before it", what)
		return nil
	}
	return b.instrs.at(b.instrs.len() - 1)
}

// Bug marks the most recent instruction as part of the ground-truth bug
// (@bug).
func (b *Builder) Bug() *Builder {
	if p := b.last("Bug"); p != nil {
		p.in.Bug = true
	}
	return b
}

// CP puts the most recent instruction in the named code point (@cp NAME);
// instructions with the same name share one code point.
func (b *Builder) CP(name string) *Builder {
	if !isIdent(name) {
		b.errs.add(b.line, "cp", "bad code point name %q", name)
		return b
	}
	if p := b.last("CP"); p != nil {
		p.cp = b.intern(name)
	}
	return b
}

// Li emits `li rd, imm`.
func (b *Builder) Li(rd Reg, imm int64) *Builder {
	p := op(OpLi)
	p.in.Rd, p.in.Imm = uint8(rd), imm
	return b.emit(p)
}

// La emits `la rd, sym+off`: rd gets the address m.Sym plus m.Off. m must
// name a symbol and have no base register.
func (b *Builder) La(rd Reg, m Mem) *Builder {
	p := op(OpLa)
	p.in.Rd, p.in.Imm, p.sym = uint8(rd), m.Off, b.intern(m.Sym)
	if m.Sym == "" || m.Base != R0 {
		b.errs.add(b.line, b.instrWhat(b.instrs.len(), OpLa), "bad operand: la takes sym or sym+imm")
	}
	return b.emit(p)
}

// Mov emits `mov rd, rs`.
func (b *Builder) Mov(rd, rs Reg) *Builder {
	p := op(OpMov)
	p.in.Rd, p.in.Rs = uint8(rd), uint8(rs)
	return b.emit(p)
}

// isALU3 reports whether o is a three-operand data instruction (add..sle).
func isALU3(o Op) bool { return o >= OpAdd && o <= OpSle }

// ALU emits a three-register data instruction, `op rd, rs, rt`, for op
// one of add sub mul div rem and or xor shl shr sar seq sne slt sle.
func (b *Builder) ALU(o Op, rd, rs, rt Reg) *Builder {
	if !isALU3(o) {
		b.errs.add(b.line, b.instrWhat(b.instrs.len(), o), "ALU takes add..sle, not %s", o)
	}
	p := op(o)
	p.in.Rd, p.in.Rs, p.in.Rt = uint8(rd), uint8(rs), uint8(rt)
	return b.emit(p)
}

// ALUImm emits a data instruction with an immediate, `op rd, rs, imm`.
func (b *Builder) ALUImm(o Op, rd, rs Reg, imm int64) *Builder {
	if !isALU3(o) {
		b.errs.add(b.line, b.instrWhat(b.instrs.len(), o), "ALUImm takes add..sle, not %s", o)
	}
	p := op(o)
	p.in.Rd, p.in.Rs, p.in.Imm, p.in.UseImm = uint8(rd), uint8(rs), imm, true
	return b.emit(p)
}

// Ld emits `ld rd, mem`.
func (b *Builder) Ld(rd Reg, m Mem) *Builder {
	p := b.mem(op(OpLd), m)
	p.in.Rd = uint8(rd)
	return b.emit(p)
}

// St emits `st rs, mem`.
func (b *Builder) St(rs Reg, m Mem) *Builder {
	p := b.mem(op(OpSt), m)
	p.in.Rs = uint8(rs)
	return b.emit(p)
}

// Cas emits `cas rd, mem, rexp, rnew`.
func (b *Builder) Cas(rd Reg, m Mem, rexp, rnew Reg) *Builder {
	p := b.mem(op(OpCas), m)
	p.in.Rd, p.in.Rs, p.in.Rt = uint8(rd), uint8(rexp), uint8(rnew)
	return b.emit(p)
}

// Xchg emits `xchg rd, mem, rs`.
func (b *Builder) Xchg(rd Reg, m Mem, rs Reg) *Builder {
	p := b.mem(op(OpXchg), m)
	p.in.Rd, p.in.Rs = uint8(rd), uint8(rs)
	return b.emit(p)
}

// Fadd emits `fadd rd, mem, rs`.
func (b *Builder) Fadd(rd Reg, m Mem, rs Reg) *Builder {
	p := b.mem(op(OpFadd), m)
	p.in.Rd, p.in.Rs = uint8(rd), uint8(rs)
	return b.emit(p)
}

// FaddImm emits `fadd rd, mem, imm`.
func (b *Builder) FaddImm(rd Reg, m Mem, imm int64) *Builder {
	p := b.mem(op(OpFadd), m)
	p.in.Rd, p.in.Imm, p.in.UseImm = uint8(rd), imm, true
	return b.emit(p)
}

// Alloc emits `alloc rd, n`: n fresh zeroed words.
func (b *Builder) Alloc(rd Reg, n int64) *Builder {
	p := op(OpAlloc)
	p.in.Rd, p.in.Imm, p.in.UseImm = uint8(rd), n, true
	return b.emit(p)
}

// AllocReg emits `alloc rd, rs`: rs fresh zeroed words.
func (b *Builder) AllocReg(rd, rs Reg) *Builder {
	p := op(OpAlloc)
	p.in.Rd, p.in.Rs = uint8(rd), uint8(rs)
	return b.emit(p)
}

// Free emits `free mem, n`.
func (b *Builder) Free(m Mem, n int64) *Builder {
	p := b.mem(op(OpFree), m)
	p.in.Imm = n
	return b.emit(p)
}

// Branch emits a two-register conditional branch, `op rs, rt, label`, for
// op one of beq bne blt bge.
func (b *Builder) Branch(o Op, rs, rt Reg, label string) *Builder {
	if o < OpBeq || o > OpBge {
		b.errs.add(b.line, b.instrWhat(b.instrs.len(), o), "Branch takes beq, bne, blt or bge, not %s", o)
	}
	p := op(o)
	p.in.Rs, p.in.Rt, p.target = uint8(rs), uint8(rt), b.intern(label)
	return b.emit(p)
}

// BranchImm emits a conditional branch against an immediate,
// `op rs, imm, label`.
func (b *Builder) BranchImm(o Op, rs Reg, imm int64, label string) *Builder {
	if o < OpBeq || o > OpBge {
		b.errs.add(b.line, b.instrWhat(b.instrs.len(), o), "BranchImm takes beq, bne, blt or bge, not %s", o)
	}
	p := op(o)
	p.in.Rs, p.in.Imm, p.in.UseImm, p.target = uint8(rs), imm, true, b.intern(label)
	return b.emit(p)
}

// Beqz emits `beqz rs, label`.
func (b *Builder) Beqz(rs Reg, label string) *Builder {
	p := op(OpBeqz)
	p.in.Rs, p.target = uint8(rs), b.intern(label)
	return b.emit(p)
}

// Bnez emits `bnez rs, label`.
func (b *Builder) Bnez(rs Reg, label string) *Builder {
	p := op(OpBnez)
	p.in.Rs, p.target = uint8(rs), b.intern(label)
	return b.emit(p)
}

// Jmp emits `jmp label`.
func (b *Builder) Jmp(label string) *Builder {
	p := op(OpJmp)
	p.target = b.intern(label)
	return b.emit(p)
}

// Call emits `call label`.
func (b *Builder) Call(label string) *Builder {
	p := op(OpCall)
	p.target = b.intern(label)
	return b.emit(p)
}

// Ret emits `ret`.
func (b *Builder) Ret() *Builder { return b.emit(op(OpRet)) }

// Lock emits `lock mem`.
func (b *Builder) Lock(m Mem) *Builder { return b.emit(b.mem(op(OpLock), m)) }

// Unlock emits `unlock mem`.
func (b *Builder) Unlock(m Mem) *Builder { return b.emit(b.mem(op(OpUnlock), m)) }

// Barrier emits `barrier mem, n`.
func (b *Builder) Barrier(m Mem, n int64) *Builder {
	p := b.mem(op(OpBarrier), m)
	p.in.Imm, p.in.UseImm = n, true
	return b.emit(p)
}

// BarrierReg emits `barrier mem, rs`.
func (b *Builder) BarrierReg(m Mem, rs Reg) *Builder {
	p := b.mem(op(OpBarrier), m)
	p.in.Rs = uint8(rs)
	return b.emit(p)
}

// Cwait emits `cwait cv, lock`.
func (b *Builder) Cwait(cv, lock Mem) *Builder { return b.emit(b.mem2(b.mem(op(OpCwait), cv), lock)) }

// Csignal emits `csignal cv`.
func (b *Builder) Csignal(cv Mem) *Builder { return b.emit(b.mem(op(OpCsignal), cv)) }

// Cbcast emits `cbcast cv`.
func (b *Builder) Cbcast(cv Mem) *Builder { return b.emit(b.mem(op(OpCbcast), cv)) }

// Spawn emits `spawn rd, label, rs`.
func (b *Builder) Spawn(rd Reg, label string, rs Reg) *Builder {
	p := op(OpSpawn)
	p.in.Rd, p.in.Rs, p.target = uint8(rd), uint8(rs), b.intern(label)
	return b.emit(p)
}

// Join emits `join rs`.
func (b *Builder) Join(rs Reg) *Builder {
	p := op(OpJoin)
	p.in.Rs = uint8(rs)
	return b.emit(p)
}

// Tid emits `tid rd`.
func (b *Builder) Tid(rd Reg) *Builder {
	p := op(OpTid)
	p.in.Rd = uint8(rd)
	return b.emit(p)
}

// Assert emits `assert rs, "msg"`.
func (b *Builder) Assert(rs Reg, msg string) *Builder {
	p := op(OpAssert)
	p.in.Rs, p.msg = uint8(rs), b.intern(msg)
	return b.emit(p)
}

// Fail emits `fail "msg"`.
func (b *Builder) Fail(msg string) *Builder {
	p := op(OpFail)
	p.msg = b.intern(msg)
	return b.emit(p)
}

// Out emits `out rs`.
func (b *Builder) Out(rs Reg) *Builder {
	p := op(OpOut)
	p.in.Rs = uint8(rs)
	return b.emit(p)
}

// Exit emits `exit`.
func (b *Builder) Exit() *Builder { return b.emit(op(OpExit)) }

// Work emits `work n`.
func (b *Builder) Work(n int64) *Builder {
	p := op(OpWork)
	p.in.Imm = n
	return b.emit(p)
}

// Delay emits `delay lo, hi`.
func (b *Builder) Delay(lo, hi int64) *Builder {
	p := op(OpDelay)
	p.in.Imm, p.in.Imm2 = lo, hi
	return b.emit(p)
}

// RoiBegin emits `roi begin`.
func (b *Builder) RoiBegin() *Builder { return b.emit(op(OpRoiBegin)) }

// RoiEnd emits `roi end`.
func (b *Builder) RoiEnd() *Builder { return b.emit(op(OpRoiEnd)) }

// Nop emits `nop`.
func (b *Builder) Nop() *Builder { return b.emit(op(OpNop)) }

// addAddr returns addr+off, or false when it overflows int64.
func addAddr(addr uint64, off int64) (int64, bool) {
	if addr > math.MaxInt64 {
		return 0, false
	}
	a := int64(addr)
	if off > 0 && a > math.MaxInt64-off {
		return 0, false
	}
	return a + off, true
}

// symAddr resolves a data symbol, reporting errors.
func (b *Builder) symAddr(s *errSink, name string, line int32, what string) (uint64, bool) {
	d, ok := b.names[name]
	switch {
	case !ok:
		s.add(line, what, "undefined symbol %q", name)
		return 0, false
	case d.code:
		s.add(line, what, "%q is a code label, not a data symbol", name)
		return 0, false
	}
	return b.symbols[d.idx].Addr, true
}

// Program resolves labels and symbols and returns the program, or an
// ErrorList of everything wrong. It may be called more than once.
func (b *Builder) Program() (*Program, error) {
	s := errSink{file: b.errs.file, list: append(ErrorList(nil), b.errs.list...), full: b.errs.full}
	p := &Program{
		Name:      b.name,
		File:      b.file,
		Desc:      b.desc,
		Class:     b.class,
		Source:    b.source,
		MinCores:  b.minCores,
		Force:     b.forces,
		HasExpect: b.hasExpect,
	}
	if len(b.expect) > 0 {
		p.Expect = append([]int64(nil), b.expect...)
	}
	n := int32(b.instrs.len())
	if n > 0 {
		p.Instrs = make([]Instruction, n)
	}
	strIdx := make(map[nameID]int32)
	cpIdx := make(map[nameID]int32)
	if n > 0 {
		// An instruction without @cp is a code point of its own: most are.
		p.CodePoints = make([]CodePoint, 0, n)
	}
	for i := range b.instrs.len() {
		pi := b.instrs.at(i)
		in := pi.in
		line := in.Line
		what := "" // used only without a source line (errSink.add)
		if line <= 0 {
			what = b.instrWhat(i, in.Op)
		}
		if pi.target != 0 {
			target := b.str(pi.target)
			d, ok := b.names[target]
			switch {
			case !ok:
				s.add(line, what, "undefined label %q", target)
			case !d.code:
				s.add(line, what, "%q is a data symbol, not a code label", target)
			case b.labels[d.idx].PC >= n:
				s.add(line, what, "label %q has no instruction after it", target)
			default:
				in.Target = b.labels[d.idx].PC
			}
		}
		if in.Op == OpLa {
			if a, ok := b.symAddr(&s, b.str(pi.sym), line, what); ok {
				if v, ok := addAddr(a, in.Imm); ok {
					in.Imm = v
				} else {
					s.add(line, what, "address out of range")
				}
			}
		}
		if hasSlot(in.Op, slotMem) {
			in.Off = b.resolveMem(&s, b.str(pi.sym), in.Base, in.Off, line, what)
		}
		if hasSlot(in.Op, slotMem2) {
			in.Off2 = b.resolveMem(&s, b.str(pi.sym2), in.Base2, in.Off2, line, what)
		}
		if in.Op == OpAssert || in.Op == OpFail {
			k, ok := strIdx[pi.msg]
			if !ok {
				k = int32(len(p.Strings))
				strIdx[pi.msg] = k
				p.Strings = append(p.Strings, b.str(pi.msg))
			}
			in.Msg = k
		}
		if pi.cp != 0 {
			k, ok := cpIdx[pi.cp]
			if !ok {
				k = int32(len(p.CodePoints))
				cpIdx[pi.cp] = k
				p.CodePoints = append(p.CodePoints, CodePoint{Name: b.str(pi.cp), Line: line, Func: in.Func})
			}
			in.CodePoint = k
		} else {
			in.CodePoint = int32(len(p.CodePoints))
			p.CodePoints = append(p.CodePoints, CodePoint{Line: line, Func: in.Func})
		}
		p.Instrs[i] = in
	}
	if d, ok := b.names["main"]; !ok {
		s.add(b.mainLine, "program", "no \"main\" label: the first thread starts at main")
	} else if !d.code {
		s.add(d.line, "program", "\"main\" is a data symbol: the first thread starts at code label main")
	} else if b.labels[d.idx].PC >= n {
		s.add(d.line, "program", "label \"main\" has no instruction after it")
	}
	if len(b.data) > 0 {
		p.Data = append([]int64(nil), b.data...)
	}
	for _, f := range b.fixes {
		what := fmt.Sprintf("data word %d", f.idx)
		if a, ok := b.symAddr(&s, f.sym, f.line, what); ok {
			if v, ok := addAddr(a, f.off); ok {
				p.Data[f.idx] = v
			} else {
				s.add(f.line, what, "address out of range")
			}
		}
	}
	if len(b.symbols) > 0 {
		p.Symbols = append([]Symbol(nil), b.symbols...)
	}
	if len(b.labels) > 0 {
		p.Labels = append([]Label(nil), b.labels...)
	}
	if len(b.funcs) > 0 {
		p.Funcs = append([]Func(nil), b.funcs...)
		for i := range p.Funcs {
			if i+1 < len(p.Funcs) {
				p.Funcs[i].End = p.Funcs[i+1].Start
			} else {
				p.Funcs[i].End = n
			}
		}
	}
	if len(s.list) > 0 {
		sortErrors(s.list)
		return nil, s.list
	}
	return p, nil
}

// resolveMem adds the symbol's address to off and checks that a constant
// address is aligned.
func (b *Builder) resolveMem(s *errSink, sym string, base uint8, off int64, line int32, what string) int64 {
	if sym != "" {
		a, ok := b.symAddr(s, sym, line, what)
		if !ok {
			return off
		}
		v, ok := addAddr(a, off)
		if !ok {
			s.add(line, what, "address out of range")
			return off
		}
		off = v
	}
	if base == 0 && off%WordBytes != 0 {
		s.add(line, what, "misaligned constant address %#x", off)
	}
	return off
}

// sortErrors orders errors by line, stably, keeping "too many errors" last.
func sortErrors(l ErrorList) {
	// Insertion sort: lists are short (at most maxErrors+1).
	end := len(l)
	if end > 0 && l[end-1].Msg == "too many errors" {
		end--
	}
	for i := 1; i < end; i++ {
		for j := i; j > 0 && l[j-1].Line > l[j].Line; j-- {
			l[j-1], l[j] = l[j], l[j-1]
		}
	}
}
