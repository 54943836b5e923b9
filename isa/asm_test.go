package isa

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// binlogSrc is the example kernel of DESIGN.md §4, completed.
const binlogSrc = `.kernel  mysql-binlog                   # name, used by -w
.desc    "log rotation lets an insert skip the binlog"
.class   atomicity
.source  "pset:5 bugaboo:10 conseq:MySQL1"
.cores   2
.expect  1 1

.data
log_type:  .word 3
           .align 64                    # next datum starts a new cache line
count:     .word 0
buf:       .space 16                    # 16 zeroed words
L:         .word 0                      # a lock word

.text
.func main                              # names a function; does not define a label
main:   spawn  r2, rotator, r0
        spawn  r3, inserter, r0
        join   r2
        join   r3
        exit

.func rotator
rotator: st    r0, log_type      @bug   # closed
         delay 10, 200
         li    r4, 3
         st    r4, log_type             # reopened
         exit

.func inserter
inserter: ld   r5, log_type @bug @cp check
         beqz  r5, skip       @cp check
         lock  L
         fadd  r6, count, 1
         unlock L
         exit
skip:    fail  "binlog entry skipped"
         exit
`

// allOpsSrc uses every opcode and every operand form.
const allOpsSrc = `.kernel all-ops
.class none
.expect -1 0x10 0

.data
a:      .word 1, -2, 0x7fffffffffffffff
        .word 0xffffffffffffffff
b:      .space 5
        .align 64
c:      .word a, b+8, c-8
cv:     .word 0
lk:     .word 0
bar:    .word 0

.text
.func main
main:   li    r1, -42
        li    r2, 0x1f
        la    r3, b
        la    r4, a+16
        mov   r5, r1
        add   r6, r1, r2
        sub   r6, r1, 3
        mul   r6, r1, r2
        div   r6, r1, -7
        rem   r6, r1, r2
        and   r6, r1, 0xff
        or    r6, r1, r2
        xor   r6, r1, r2
        shl   r6, r1, 3
        shr   r6, r1, r2
        sar   r6, r1, 1
        seq   r6, r1, r2
        sne   r6, r1, 0
        slt   r6, r1, r2
        sle   r6, r1, -1
        ld    r7, a
        ld    r7, a+8
        ld    r7, [r3]
        ld    r7, [r3+16]
        ld    r7, [r3-8]
        ld    r7, a[r8]
        ld    r7, [r0+65536]
        st    r7, b+32
        cas   r8, c, r1, r2
        xchg  r8, [r4], r1
        fadd  r8, a, r1
        fadd  r8, a, -5 @bug
        alloc r9, 4
        alloc r9, r2
        free  [r9], 4
        beq   r1, r2, main
        bne   r1, 5, main
        blt   r1, r2, l1
l1:     bge   r1, -1, l1
        beqz  r1, l2
l2:     bnez  r1, l2 @cp loop2
        jmp   l3
l3:     call  f
        lock  lk
        unlock lk
        barrier bar, 2
        barrier bar, r2
        cwait cv, lk
        csignal cv
        cbcast  cv[r3]
        spawn r10, f, r1
        join  r10
        tid   r11
        assert r11, "tid \"quoted\"\t# not a comment"
        fail  "oops, @bug"
        fail  "oops, @bug"
        out   r11
        work  100
        delay 0, 10
        roi begin
        roi end
        nop
        exit @cp loop2 @bug
.func f
f:      ret
`

// mustAssemble assembles src or fails the test.
func mustAssemble(t testing.TB, file, src string) *Program {
	t.Helper()
	p, err := Assemble(file, []byte(src))
	if err != nil {
		t.Fatalf("Assemble(%s): %v", file, err)
	}
	return p
}

// diffPrograms returns the first difference between a and b, ignoring
// source lines and the grouping of unnamed code points, or "".
func diffPrograms(a, b *Program) string {
	type meta struct {
		Name, File, Desc, Class, Source string
		MinCores                        int
		Expect                          []int64
		HasExpect                       bool
	}
	ma := meta{a.Name, a.File, a.Desc, a.Class, a.Source, a.MinCores, a.Expect, a.HasExpect}
	mb := meta{b.Name, b.File, b.Desc, b.Class, b.Source, b.MinCores, b.Expect, b.HasExpect}
	if len(ma.Expect) == 0 && len(mb.Expect) == 0 {
		ma.Expect, mb.Expect = nil, nil
	}
	if !reflect.DeepEqual(ma, mb) {
		return fmt.Sprintf("metadata %+v != %+v", ma, mb)
	}
	if len(a.Instrs) != len(b.Instrs) {
		return fmt.Sprintf("%d instructions != %d", len(a.Instrs), len(b.Instrs))
	}
	cpName := func(p *Program, in Instruction) (string, int32) {
		if in.CodePoint < 0 || int(in.CodePoint) >= len(p.CodePoints) {
			return "<bad code point>", -2
		}
		cp := p.CodePoints[in.CodePoint]
		return cp.Name, cp.Func
	}
	for i := range a.Instrs {
		x, y := a.Instrs[i], b.Instrs[i]
		nx, fx := cpName(a, x)
		ny, fy := cpName(b, y)
		if nx != ny || fx != fy {
			return fmt.Sprintf("instruction %d: code point %q/%d != %q/%d", i, nx, fx, ny, fy)
		}
		x.Line, y.Line, x.CodePoint, y.CodePoint = 0, 0, 0, 0
		if x != y {
			return fmt.Sprintf("instruction %d: %+v != %+v", i, x, y)
		}
	}
	eq := func(what string, x, y any) string {
		if !reflect.DeepEqual(x, y) {
			return fmt.Sprintf("%s: %+v != %+v", what, x, y)
		}
		return ""
	}
	for _, d := range []string{
		eq("Data", a.Data, b.Data),
		eq("Symbols", a.Symbols, b.Symbols),
		eq("Labels", a.Labels, b.Labels),
		eq("Funcs", a.Funcs, b.Funcs),
		eq("Strings", a.Strings, b.Strings),
	} {
		if d != "" {
			return d
		}
	}
	named := func(p *Program) []CodePoint {
		var out []CodePoint
		for _, cp := range p.CodePoints {
			if cp.Name != "" {
				out = append(out, CodePoint{Name: cp.Name, Func: cp.Func})
			}
		}
		return out
	}
	return eq("named code points", named(a), named(b))
}

func TestAssembleDesignExample(t *testing.T) {
	p := mustAssemble(t, "kernels/binlog.s", binlogSrc)
	if p.Name != "mysql-binlog" || p.File != "kernels/binlog.s" || p.Class != "atomicity" ||
		p.Desc != "log rotation lets an insert skip the binlog" ||
		p.Source != "pset:5 bugaboo:10 conseq:MySQL1" || p.MinCores != 2 ||
		!p.HasExpect || !reflect.DeepEqual(p.Expect, []int64{1, 1}) {
		t.Errorf("metadata: %+v", p)
	}
	wantSyms := []Symbol{
		{Name: "log_type", Addr: 0x10000, Words: 1},
		{Name: "count", Addr: 0x10040, Words: 1},
		{Name: "buf", Addr: 0x10048, Words: 16},
		{Name: "L", Addr: 0x100c8, Words: 1},
	}
	if !reflect.DeepEqual(p.Symbols, wantSyms) {
		t.Errorf("symbols = %+v, want %+v", p.Symbols, wantSyms)
	}
	if len(p.Data) != 26 || p.Data[0] != 3 || p.DataEnd() != 0x100d0 {
		t.Errorf("data = %v (end %#x)", p.Data, p.DataEnd())
	}
	wantLabels := []Label{{"main", 0}, {"rotator", 5}, {"inserter", 10}, {"skip", 16}}
	if !reflect.DeepEqual(p.Labels, wantLabels) {
		t.Errorf("labels = %+v", p.Labels)
	}
	wantFuncs := []Func{{"main", 0, 5}, {"rotator", 5, 10}, {"inserter", 10, 18}}
	if !reflect.DeepEqual(p.Funcs, wantFuncs) {
		t.Errorf("funcs = %+v", p.Funcs)
	}
	if got := p.BugPCs(); !reflect.DeepEqual(got, []int32{5, 10}) {
		t.Errorf("bug PCs = %v", got)
	}
	in := p.Instrs
	if in[0].Op != OpSpawn || in[0].Rd != 2 || in[0].Target != 5 || in[0].Rs != 0 || in[0].Line != 17 {
		t.Errorf("spawn = %+v", in[0])
	}
	if in[5].Op != OpSt || in[5].Rs != 0 || in[5].Base != 0 || in[5].Off != 0x10000 || in[5].Func != 1 {
		t.Errorf("st = %+v", in[5])
	}
	if in[6].Op != OpDelay || in[6].Imm != 10 || in[6].Imm2 != 200 {
		t.Errorf("delay = %+v", in[6])
	}
	if in[13].Op != OpFadd || !in[13].UseImm || in[13].Imm != 1 || in[13].Off != 0x10040 {
		t.Errorf("fadd = %+v", in[13])
	}
	if in[16].Op != OpFail || p.Strings[in[16].Msg] != "binlog entry skipped" {
		t.Errorf("fail = %+v", in[16])
	}
	// ld and beqz share the named code point; the others have one each.
	if in[10].CodePoint != in[11].CodePoint || p.CodePoints[in[10].CodePoint].Name != "check" ||
		p.CodePoints[in[10].CodePoint].Line != 31 || p.CodePoints[in[10].CodePoint].Func != 2 {
		t.Errorf("named code point: %+v %+v", in[10], p.CodePoints)
	}
	if len(p.CodePoints) != len(in)-1 {
		t.Errorf("%d code points for %d instructions", len(p.CodePoints), len(in))
	}
	for i, x := range in {
		if cp := p.CodePoints[x.CodePoint]; cp.Name == "" && (cp.Line != x.Line || cp.Func != x.Func) {
			t.Errorf("instruction %d: code point %+v", i, cp)
		}
	}
}

func TestAssembleDefaults(t *testing.T) {
	p := mustAssemble(t, "dir/kern.v2.s", "main: exit\n")
	if p.Name != "kern.v2" || p.HasExpect || p.Class != "" || p.MinCores != 0 {
		t.Errorf("defaults: %+v", p)
	}
	if p.Instrs[0].Func != -1 || p.Instrs[0].Line != 1 || len(p.Funcs) != 0 || len(p.Data) != 0 {
		t.Errorf("instr: %+v", p.Instrs[0])
	}
	p = mustAssemble(t, "x.s", ".expect\nmain: exit")
	if !p.HasExpect || len(p.Expect) != 0 {
		t.Errorf("empty .expect: %+v", p)
	}
	p = mustAssemble(t, "x.s", `.kernel "a kernel"`+"\nmain: exit")
	if p.Name != "a kernel" {
		t.Errorf("quoted .kernel = %q", p.Name)
	}
}

func TestAssembleOperands(t *testing.T) {
	const data = ".data\nx: .word 1, 2, 3\ny: .word 4\n.text\n"
	const x, y = 0x10000, 0x10018
	tests := []struct {
		src  string
		want Instruction
	}{
		{"li r1, -5", Instruction{Op: OpLi, Rd: 1, Imm: -5}},
		{"li r1, 0xff", Instruction{Op: OpLi, Rd: 1, Imm: 255}},
		{"li r1, -0x10", Instruction{Op: OpLi, Rd: 1, Imm: -16}},
		{"li r1, 0xffffffffffffffff", Instruction{Op: OpLi, Rd: 1, Imm: -1}},
		{"li r1, -9223372036854775808", Instruction{Op: OpLi, Rd: 1, Imm: -1 << 63}},
		{"li r0, 1", Instruction{Op: OpLi, Rd: 0, Imm: 1}},
		{"la r2, y", Instruction{Op: OpLa, Rd: 2, Imm: y}},
		{"la r2, x+8", Instruction{Op: OpLa, Rd: 2, Imm: x + 8}},
		{"la r2, y-8", Instruction{Op: OpLa, Rd: 2, Imm: y - 8}},
		{"mov r3, r15", Instruction{Op: OpMov, Rd: 3, Rs: 15}},
		{"add r1, r2, r3", Instruction{Op: OpAdd, Rd: 1, Rs: 2, Rt: 3}},
		{"sub r1, r2, 7", Instruction{Op: OpSub, Rd: 1, Rs: 2, Imm: 7, UseImm: true}},
		{"sle r1, r2, -1", Instruction{Op: OpSle, Rd: 1, Rs: 2, Imm: -1, UseImm: true}},
		{"ld r1, x", Instruction{Op: OpLd, Rd: 1, Off: x}},
		{"ld r1, x+16", Instruction{Op: OpLd, Rd: 1, Off: x + 16}},
		{"ld r1, x + 16", Instruction{Op: OpLd, Rd: 1, Off: x + 16}},
		{"ld r1, y-8", Instruction{Op: OpLd, Rd: 1, Off: y - 8}},
		{"ld r1, [r2]", Instruction{Op: OpLd, Rd: 1, Base: 2}},
		{"ld r1, [ r2 + 8 ]", Instruction{Op: OpLd, Rd: 1, Base: 2, Off: 8}},
		{"ld r1, [r2-8]", Instruction{Op: OpLd, Rd: 1, Base: 2, Off: -8}},
		{"ld r1, [r2+3]", Instruction{Op: OpLd, Rd: 1, Base: 2, Off: 3}},
		{"ld r1, x[r4]", Instruction{Op: OpLd, Rd: 1, Base: 4, Off: x}},
		{"ld r1, [r0+65536]", Instruction{Op: OpLd, Rd: 1, Off: 65536}},
		{"st r5, y", Instruction{Op: OpSt, Rs: 5, Off: y}},
		{"cas r1, x, r2, r3", Instruction{Op: OpCas, Rd: 1, Off: x, Rs: 2, Rt: 3}},
		{"xchg r1, [r9], r2", Instruction{Op: OpXchg, Rd: 1, Base: 9, Rs: 2}},
		{"fadd r1, x, r2", Instruction{Op: OpFadd, Rd: 1, Off: x, Rs: 2}},
		{"fadd r1, x, -1", Instruction{Op: OpFadd, Rd: 1, Off: x, Imm: -1, UseImm: true}},
		{"alloc r1, 8", Instruction{Op: OpAlloc, Rd: 1, Imm: 8, UseImm: true}},
		{"alloc r1, r2", Instruction{Op: OpAlloc, Rd: 1, Rs: 2}},
		{"free [r1], 8", Instruction{Op: OpFree, Base: 1, Imm: 8}},
		{"beq r1, r2, main", Instruction{Op: OpBeq, Rs: 1, Rt: 2}},
		{"bge r1, 10, main", Instruction{Op: OpBge, Rs: 1, Imm: 10, UseImm: true}},
		{"bnez r1, main", Instruction{Op: OpBnez, Rs: 1}},
		{"jmp main", Instruction{Op: OpJmp}},
		{"call main", Instruction{Op: OpCall}},
		{"ret", Instruction{Op: OpRet}},
		{"lock y", Instruction{Op: OpLock, Off: y}},
		{"unlock [r3]", Instruction{Op: OpUnlock, Base: 3}},
		{"barrier y, 4", Instruction{Op: OpBarrier, Off: y, Imm: 4, UseImm: true}},
		{"barrier y, r4", Instruction{Op: OpBarrier, Off: y, Rs: 4}},
		{"cwait x+8, y", Instruction{Op: OpCwait, Off: x + 8, Off2: y}},
		{"cwait [r1], x[r2]", Instruction{Op: OpCwait, Base: 1, Base2: 2, Off2: x}},
		{"csignal x", Instruction{Op: OpCsignal, Off: x}},
		{"cbcast x", Instruction{Op: OpCbcast, Off: x}},
		{"spawn r1, main, r2", Instruction{Op: OpSpawn, Rd: 1, Rs: 2}},
		{"join r1", Instruction{Op: OpJoin, Rs: 1}},
		{"tid r1", Instruction{Op: OpTid, Rd: 1}},
		{`assert r1, "m"`, Instruction{Op: OpAssert, Rs: 1}},
		{`fail "m"`, Instruction{Op: OpFail}},
		{"out r1", Instruction{Op: OpOut, Rs: 1}},
		{"exit", Instruction{Op: OpExit}},
		{"work 12", Instruction{Op: OpWork, Imm: 12}},
		{"delay 1, 2", Instruction{Op: OpDelay, Imm: 1, Imm2: 2}},
		{"roi begin", Instruction{Op: OpRoiBegin}},
		{"roi end", Instruction{Op: OpRoiEnd}},
		{"nop", Instruction{Op: OpNop}},
		{"nop @bug", Instruction{Op: OpNop, Bug: true}},
	}
	for _, tt := range tests {
		p, err := Assemble("t.s", []byte(data+"main: "+tt.src+"\n"))
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		got := p.Instrs[0]
		want := tt.want
		want.Line, want.CodePoint, want.Func = 5, 0, -1
		if got != want {
			t.Errorf("%s:\n got %+v\nwant %+v", tt.src, got, want)
		}
	}
}

func TestAssembleData(t *testing.T) {
	p := mustAssemble(t, "d.s", `
.data
        .word 9                 # before any symbol
a:      .word 1 2 -3            # whitespace separated
        .word 4, 5              # more words for a
        .align 32
b:
c:      .space 2
        .align 64
d:      .word d, a+8, c
e:      .align 16               # a label takes the address before the padding
        .word 7
.text
main:   exit
`)
	want := []Symbol{
		{Name: "a", Addr: 0x10008, Words: 5},
		{Name: "b", Addr: 0x10040, Words: 0},
		{Name: "c", Addr: 0x10040, Words: 2},
		{Name: "d", Addr: 0x10080, Words: 3},
		{Name: "e", Addr: 0x10098, Words: 2},
	}
	if !reflect.DeepEqual(p.Symbols, want) {
		t.Fatalf("symbols:\n got %+v\nwant %+v", p.Symbols, want)
	}
	at := func(addr uint64) int64 { return p.Data[(addr-DataBase)/8] }
	if at(0x10000) != 9 || at(0x10018) != -3 || at(0x10028) != 5 {
		t.Errorf("data = %v", p.Data)
	}
	if at(0x10080) != 0x10080 || at(0x10088) != 0x10010 || at(0x10090) != 0x10040 {
		t.Errorf(".word sym: %#x %#x %#x", at(0x10080), at(0x10088), at(0x10090))
	}
	if at(0x100a0) != 7 || p.DataEnd() != 0x100a8 {
		t.Errorf("aligned word: data end %#x, data %v", p.DataEnd(), p.Data)
	}
	// The first words after .align 32 are padding (a ends at 0x10030).
	for addr := uint64(0x10030); addr < 0x10040; addr += 8 {
		if at(addr) != 0 {
			t.Errorf("padding at %#x = %d", addr, at(addr))
		}
	}
}

func TestAssembleFuncsAndCodePoints(t *testing.T) {
	p := mustAssemble(t, "f.s", `
main:   nop                     # before any .func
.func a
        nop @cp x
.func b
la:     nop @cp x
        nop @cp y @bug
.data
v: .word 0
.text
        nop
.func c
.func d
`)
	wantFuncs := []Func{{"a", 1, 2}, {"b", 2, 5}, {"c", 5, 5}, {"d", 5, 5}}
	if !reflect.DeepEqual(p.Funcs, wantFuncs) {
		t.Errorf("funcs = %+v", p.Funcs)
	}
	gotFunc := []int32{}
	for _, in := range p.Instrs {
		gotFunc = append(gotFunc, in.Func)
	}
	if !reflect.DeepEqual(gotFunc, []int32{-1, 0, 1, 1, 1}) {
		t.Errorf("Func = %v", gotFunc)
	}
	if p.Instrs[1].CodePoint != p.Instrs[2].CodePoint {
		t.Errorf("@cp x not shared")
	}
	cp := p.CodePoints[p.Instrs[1].CodePoint]
	if cp.Name != "x" || cp.Line != 4 || cp.Func != 0 {
		t.Errorf("cp x = %+v", cp)
	}
	if y := p.CodePoints[p.Instrs[3].CodePoint]; y.Name != "y" || !p.Instrs[3].Bug {
		t.Errorf("cp y = %+v", y)
	}
}

func TestAssembleErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		line int
		want string
	}{
		{"unknown opcode", "main: exit\n  frob r1\n", 2, `unknown opcode "frob"`},
		{"unknown register", "main:\n  li r16, 1\n", 2, `unknown register "r16"`},
		{"unknown register r01", "main: mov r1, r01\n", 1, `unknown register "r01"`},
		{"register as address", "main: ld r1, r2\n", 1, "register r2 used as an address"},
		{"bad operand", "main: add r1, r2, x\n", 1, "bad operand 3 of add"},
		{"bad memory operand", "main: ld r1, [r2+r3]\n", 1, "bad operand 2 of ld"},
		{"missing operand", "main: add r1, r2,\n", 1, "empty operand"},
		{"string where register", `main: out "x"` + "\n", 1, "expected a register"},
		{"bad roi", "main: roi start\n", 1, "roi takes begin or end"},
		{"bad delay", "main: delay 5, 1\n", 1, "delay wants 0 <= lo <= hi"},
		{"bad free", "main: free [r1], 0\n", 1, "free takes a word count"},
		{"wrong operand count", "main:\n\n  ld r1\n", 3, "wrong operand count: ld takes 2 operands, got 1"},
		{"wrong operand count exit", "main: exit r1\n", 1, "wrong operand count: exit takes 0"},
		{"undefined label", "main: jmp nowhere\n", 1, `undefined label "nowhere"`},
		{"label at end", "main: jmp end\nend:\n", 1, `label "end" has no instruction after it`},
		{"jump to data", ".data\nx: .word 0\n.text\nmain: jmp x\n", 4, `"x" is a data symbol`},
		{"duplicate code label", "main: nop\nmain: exit\n", 2, `duplicate label "main" (first defined at line 1)`},
		{"duplicate data label", ".data\nx: .word 1\nx: .word 2\n.text\nmain: exit\n", 3, `duplicate label "x"`},
		{"duplicate across code and data", ".data\nmain: .word 1\n.text\nmain: exit\n", 4, `duplicate label "main"`},
		{"register as label", "r3: exit\nmain: exit\n", 1, `bad label name "r3"`},
		{"undefined symbol", "main: ld r1, nosuch\n", 1, `undefined symbol "nosuch"`},
		{"undefined symbol la", "main: la r1, nosuch+8\n", 1, `undefined symbol "nosuch"`},
		{"undefined symbol word", ".data\nx: .word nosuch\n.text\nmain: exit\n", 2, `undefined symbol "nosuch"`},
		{"code label as symbol", "main: st r1, main\n", 1, `"main" is a code label`},
		{"misaligned sym+imm", ".data\nx: .word 0\n.text\nmain: ld r1, x+4\n", 4, "misaligned constant address 0x10004"},
		{"misaligned r0", "main: st r1, [r0+12]\n", 1, "misaligned constant address 0xc"},
		{"unknown directive", ".bogus 1\nmain: exit\n", 1, `unknown directive ".bogus"`},
		{"bad align", ".data\n.align 12\n.text\nmain: exit\n", 2, "bad .align argument 12"},
		{"bad align 4", ".data\n.align 4\n.text\nmain: exit\n", 2, "bad .align argument 4"},
		{"bad space", ".data\nx: .space -1\n.text\nmain: exit\n", 2, "bad .space argument"},
		{"bad cores", ".cores 0\nmain: exit\n", 1, "bad .cores argument"},
		{"bad desc", ".desc nope\nmain: exit\n", 1, "bad .desc argument"},
		{"bad func", ".func\nmain: exit\n", 1, "bad .func argument"},
		{"duplicate func", ".func f\n.func f\nmain: exit\n", 2, `duplicate .func "f"`},
		{"duplicate kernel", ".kernel a\n.kernel b\nmain: exit\n", 2, "duplicate .kernel directive"},
		{"text args", ".text foo\nmain: exit\n", 1, "bad .text argument"},
		{"bad class", ".class racy\nmain: exit\n", 1, `bad .class "racy": want one of none|race|atomicity|order|multivar|deadlock`},
		{"bad number", "main: li r1, 12ab\n", 1, `bad number "12ab"`},
		{"bad hex", "main: li r1, 0xg\n", 1, `bad number "0xg"`},
		{"huge number", "main: li r1, 99999999999999999999\n", 1, `bad number "99999999999999999999": out of range`},
		{"huge decimal", "main: li r1, 9223372036854775808\n", 1, "out of range"},
		{"huge negative", "main: li r1, -9223372036854775809\n", 1, "out of range"},
		{"huge hex", "main: li r1, 0x10000000000000000\n", 1, "out of range"},
		{"bad expect", ".expect 1 x\nmain: exit\n", 1, "bad .expect argument"},
		{"unterminated string", "main: fail \"oops\n", 1, "unterminated string"},
		{"unterminated escape", "main: fail \"oops\\", 1, "unterminated string"},
		{"bad escape", `main: fail "\q"` + "\n", 1, `bad escape`},
		{"unexpected character", "main: exit $\n", 1, "unexpected character '$'"},
		{"binary NUL", "main: exit\n\x00\x01\x02", 2, "binary input"},
		{"binary invalid UTF-8", "main:\n\n exit \xff\xfe\n", 3, "binary input"},
		{"instruction in data", ".data\n  ld r1, x\n.text\nmain: exit\n", 2, `instruction "ld" in .data`},
		{"word in text", "main: exit\n.word 3\n", 2, "data directive .word in .text"},
		{"align in text", "main: exit\n.align 8\n", 2, "data directive .align in .text"},
		{"func in data", ".data\n.func f\n.text\nmain: exit\n", 2, ".func in .data"},
		{"missing main", ".text\nstart: exit\n", 1, `no "main" label`},
		{"main in data", ".data\nmain: .word 0\n", 2, `"main" is a data symbol`},
		{"empty file", "", 1, `no "main" label`},
		{"annotation on directive", ".data @bug\nmain: exit\n", 1, "annotation on directive"},
		{"annotation alone", "main: exit\nfoo: @bug\n", 2, "expected an instruction"},
		{"unknown annotation", "main: exit @nope\n", 1, "unknown annotation @nope"},
		{"cp without name", "main: exit @cp\n", 1, "@cp needs a NAME"},
		{"label without instruction", "main: exit\n: nop\n", 2, "expected an instruction"},
		{"data too big", ".data\nx: .space 4194304\ny: .word 1\n.text\nmain: exit\n", 3, "data segment too large"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Assemble("k.s", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; program %+v", p)
			}
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %T is not an ErrorList: %v", err, err)
			}
			prefix := fmt.Sprintf("k.s:%d: ", tt.line)
			found := false
			for _, e := range list {
				if strings.HasPrefix(e.Error(), prefix) && strings.Contains(e.Msg, tt.want) {
					found = true
				}
			}
			if !found {
				t.Errorf("want %q containing %q; got:\n%v", prefix, tt.want, err)
			}
		})
	}
}

func TestAssembleCollectsErrors(t *testing.T) {
	src := "main: frob\n li r99, 1\n jmp nowhere\n ld r1, [r0+4]\n"
	_, err := Assemble("m.s", []byte(src))
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		`m.s:1: unknown opcode "frob"`,
		`m.s:2: bad operand 1 of li: unknown register "r99"`,
		`m.s:3: undefined label "nowhere"`,
		`m.s:4: misaligned constant address 0x4`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	// Many errors are capped.
	_, err = Assemble("m.s", []byte(strings.Repeat("frob\n", 100)))
	lines = strings.Split(err.Error(), "\n")
	if len(lines) != maxErrors+1 || !strings.HasSuffix(lines[len(lines)-1], "too many errors") {
		t.Errorf("got %d lines, last %q", len(lines), lines[len(lines)-1])
	}
}

func TestAssembleNeverPanics(t *testing.T) {
	inputs := []string{
		"", "\n\n\n", "#", "main:", ":", "::", "@", "@bug", "[", "]", "main: ld r1, [",
		"main: ld r1, []", "main: ld r1, [r1+]", "main: ld r1, x[", "main: ld r1, x[r1",
		"main: li r1, -", "main: li r1, 0x", ".word", ".data\n.word ,", ".data\n.word 1,,2",
		".data\nx: .word x+", ".data\nx: .word x+-", ".kernel", ".kernel \"", ".expect -",
		"main: roi", "main: fail", `main: fail "\x4"`, `main: fail "\x`, "\"", "\xef\xbb\xbfmain: exit",
		"main: exit\r\n", ".align 0x8000000000000000", ".data\n.align -8", ".data\n.space 0xffffffffffffffff",
		".cores 99999999999", "main: la r1, main", ".data\nx: .word 0\n.text\nmain: la r1, x+9223372036854775807",
		"main: ld r1, [r1-9223372036854775808]\nexit",
	}
	for _, s := range inputs {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("Assemble(%q) panicked: %v", s, r)
				}
			}()
			p, err := Assemble("x.s", []byte(s))
			if err == nil {
				checkRoundTrip(t, p)
			}
		}()
	}
}

// A bad line gives its one error, not a spurious "label has no instruction
// after it" first; long tokens are clipped; a UTF-8 BOM is no error; a
// constant shift amount outside 0..63 is.
func TestAssembleOneErrorPerProblem(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      string // the one error
	}{
		{"bad annotation after label", "main:\n  exit @bogus\n", "k.s:2: unknown annotation @bogus: want @bug or @cp NAME"},
		{"upper-case opcode", "main:\n  LI r1, 1\n  exit\n", `k.s:2: unknown opcode "LI": opcodes are lower case (li)`},
		{"upper-case last", "main: jmp L\nL: LI r1, 1\n", `k.s:2: unknown opcode "LI": opcodes are lower case (li)`},
		{"bad character after label", "main:\nL: li r1, $3\n jmp L\n", "k.s:2: unexpected character '$'"},
		{"bad operand at end", "main:\n  li r1, zz\n", `k.s:2: bad operand 2 of li: expected a number, got "zz"`},
		{"shift by 64", "main: shl r1, r1, 64\n exit\n", "k.s:1: bad operand: shl shifts by 0 to 63 bits, got 64 (a register amount uses its low 6 bits)"},
		{"shift by -1", "main: sar r1, r1, -1\n exit\n", "k.s:1: bad operand: sar shifts by 0 to 63 bits, got -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Assemble("k.s", []byte(tc.src))
			var list ErrorList
			if !errors.As(err, &list) || len(list) != 1 || !strings.HasPrefix(list[0].Error(), tc.want) {
				t.Errorf("got %v, want exactly %q", err, tc.want)
			}
		})
	}

	huge := strings.Repeat("x", 10<<20)
	_, err := Assemble("k.s", []byte("main:\n  li r1, "+huge+"\n  exit\n"))
	if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), fmt.Sprintf("…(%d bytes)", len(huge)+2)) {
		t.Errorf("a 10 MB token: error of %d bytes: %.300s", len(err.Error()), err)
	}

	p, err := Assemble("k.s", []byte("\uFEFF# a BOM\nmain: exit\n"))
	if err != nil || p.Instrs[0].Line != 2 {
		t.Errorf("with a UTF-8 BOM: %v", err)
	}
	if p, err := Assemble("k.s", []byte("main: shl r1, r1, 63\n shr r1, r1, 0\n shl r1, r1, r2\n exit\n")); err != nil || len(p.Instrs) != 4 {
		t.Errorf("shifts by 0, 63 and a register: %v", err)
	}
}
