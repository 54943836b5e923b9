package isa

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
)

// buildBinlog builds binlogSrc with the Builder.
func buildBinlog() *Builder {
	b := NewBuilder("mysql-binlog").
		Desc("log rotation lets an insert skip the binlog").
		Class("atomicity").
		Source("pset:5 bugaboo:10 conseq:MySQL1").
		Cores(2).
		Expect(1, 1)
	b.Word("log_type", 3).Align(64).Word("count", 0).Space("buf", 16).Word("L", 0)
	b.Func("main").Label("main").
		Spawn(R2, "rotator", R0).
		Spawn(R3, "inserter", R0).
		Join(R2).Join(R3).Exit()
	b.Func("rotator").Label("rotator").
		St(R0, Sym("log_type")).Bug().
		Delay(10, 200).
		Li(R4, 3).
		St(R4, Sym("log_type")).
		Exit()
	b.Func("inserter").Label("inserter").
		Ld(R5, Sym("log_type")).Bug().CP("check").
		Beqz(R5, "skip").CP("check").
		Lock(Sym("L")).
		FaddImm(R6, Sym("count"), 1).
		Unlock(Sym("L")).
		Exit().
		Label("skip").
		Fail("binlog entry skipped").
		Exit()
	return b
}

// buildAllOps builds allOpsSrc with the Builder.
func buildAllOps() *Builder {
	b := NewBuilder("all-ops").Class("none").Expect(-1, 0x10, 0)
	b.Word("a", 1, -2, math.MaxInt64).Word("", -1).
		Space("b", 5).
		Align(64).
		WordAddr("c", Sym("a"), SymOff("b", 8), SymOff("c", -8)).
		Word("cv", 0).Word("lk", 0).Word("bar", 0)
	b.Func("main").Label("main").
		Li(R1, -42).
		Li(R2, 0x1f).
		La(R3, Sym("b")).
		La(R4, SymOff("a", 16)).
		Mov(R5, R1).
		ALU(OpAdd, R6, R1, R2).
		ALUImm(OpSub, R6, R1, 3).
		ALU(OpMul, R6, R1, R2).
		ALUImm(OpDiv, R6, R1, -7).
		ALU(OpRem, R6, R1, R2).
		ALUImm(OpAnd, R6, R1, 0xff).
		ALU(OpOr, R6, R1, R2).
		ALU(OpXor, R6, R1, R2).
		ALUImm(OpShl, R6, R1, 3).
		ALU(OpShr, R6, R1, R2).
		ALUImm(OpSar, R6, R1, 1).
		ALU(OpSeq, R6, R1, R2).
		ALUImm(OpSne, R6, R1, 0).
		ALU(OpSlt, R6, R1, R2).
		ALUImm(OpSle, R6, R1, -1).
		Ld(R7, Sym("a")).
		Ld(R7, SymOff("a", 8)).
		Ld(R7, Ind(R3, 0)).
		Ld(R7, Ind(R3, 16)).
		Ld(R7, Ind(R3, -8)).
		Ld(R7, Idx("a", R8)).
		Ld(R7, Ind(R0, 65536)).
		St(R7, SymOff("b", 32)).
		Cas(R8, Sym("c"), R1, R2).
		Xchg(R8, Ind(R4, 0), R1).
		Fadd(R8, Sym("a"), R1).
		FaddImm(R8, Sym("a"), -5).Bug().
		Alloc(R9, 4).
		AllocReg(R9, R2).
		Free(Ind(R9, 0), 4).
		Branch(OpBeq, R1, R2, "main").
		BranchImm(OpBne, R1, 5, "main").
		Branch(OpBlt, R1, R2, "l1").
		Label("l1").BranchImm(OpBge, R1, -1, "l1").
		Beqz(R1, "l2").
		Label("l2").Bnez(R1, "l2").CP("loop2").
		Jmp("l3").
		Label("l3").Call("f").
		Lock(Sym("lk")).
		Unlock(Sym("lk")).
		Barrier(Sym("bar"), 2).
		BarrierReg(Sym("bar"), R2).
		Cwait(Sym("cv"), Sym("lk")).
		Csignal(Sym("cv")).
		Cbcast(Idx("cv", R3)).
		Spawn(R10, "f", R1).
		Join(R10).
		Tid(R11).
		Assert(R11, "tid \"quoted\"\t# not a comment").
		Fail("oops, @bug").
		Fail("oops, @bug").
		Out(R11).
		Work(100).
		Delay(0, 10).
		RoiBegin().
		RoiEnd().
		Nop().
		Exit().CP("loop2").Bug()
	b.Func("f").Label("f").Ret()
	return b
}

func TestBuilderMatchesAssembly(t *testing.T) {
	tests := []struct {
		name string
		b    *Builder
		src  string
	}{
		{"binlog", buildBinlog(), binlogSrc},
		{"allops", buildAllOps(), allOpsSrc},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			built, err := tt.b.Program()
			if err != nil {
				t.Fatal(err)
			}
			asm := mustAssemble(t, "", tt.src)
			if d := diffPrograms(built, asm); d != "" {
				t.Fatalf("built != assembled: %s", d)
			}
			for i, in := range built.Instrs {
				if in.Line != 0 || built.CodePoints[in.CodePoint].Line != 0 {
					t.Errorf("instruction %d has a line: %+v", i, in)
				}
			}
			again, err := tt.b.Program()
			if err != nil || diffPrograms(built, again) != "" {
				t.Errorf("second Program differs: %v", err)
			}
			checkRoundTrip(t, built)
		})
	}
}

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		name  string
		build func(b *Builder)
		want  string
	}{
		{"undefined label", func(b *Builder) { b.Label("main").Jmp("nowhere") }, `instruction 0 (jmp): undefined label "nowhere"`},
		{"undefined symbol", func(b *Builder) { b.Label("main").Ld(R1, Sym("x")) }, `instruction 0 (ld): undefined symbol "x"`},
		{"undefined word symbol", func(b *Builder) { b.WordAddr("p", Sym("x")).Label("main").Exit() }, `data word 0: undefined symbol "x"`},
		{"duplicate label", func(b *Builder) { b.Label("main").Exit().Label("main") }, `label: duplicate label "main"`},
		{"duplicate symbol", func(b *Builder) { b.Word("x", 1).Space("x", 1).Label("main").Exit() }, `symbol: duplicate label "x"`},
		{"bad name", func(b *Builder) { b.Word("a b", 1).Label("main").Exit() }, `bad symbol name "a b"`},
		{"register name", func(b *Builder) { b.Label("r1").Label("main").Exit() }, `bad label name "r1"`},
		{"bad ALU op", func(b *Builder) { b.Label("main").ALU(OpLd, R1, R2, R3) }, "ALU takes add..sle, not ld"},
		{"bad branch op", func(b *Builder) { b.Label("main").Branch(OpJmp, R1, R2, "main") }, "Branch takes beq, bne, blt or bge"},
		{"bad register", func(b *Builder) { b.Label("main").Mov(R1, Reg(16)) }, `instruction 0 (mov): unknown register "r16"`},
		{"misaligned", func(b *Builder) { b.Label("main").Ld(R1, Ind(R0, 4)) }, "misaligned constant address 0x4"},
		{"misaligned sym", func(b *Builder) { b.Word("x", 0).Label("main").St(R1, SymOff("x", 1)) }, "misaligned constant address 0x10001"},
		{"missing main", func(b *Builder) { b.Label("start").Exit() }, `no "main" label`},
		{"bad class", func(b *Builder) { b.Class("bogus").Label("main").Exit() }, `bad .class "bogus"`},
		{"bad cores", func(b *Builder) { b.Cores(0).Label("main").Exit() }, "bad .cores 0"},
		{"bug first", func(b *Builder) { b.Bug().Label("main").Exit() }, "Bug with no instruction before it"},
		{"bad cp", func(b *Builder) { b.Label("main").Exit().CP("two words") }, `bad code point name "two words"`},
		{"la register", func(b *Builder) { b.Word("x", 0).Label("main").La(R1, Ind(R2, 0)) }, "la takes sym or sym+imm"},
		{"bad space", func(b *Builder) { b.Space("x", -1).Label("main").Exit() }, "bad .space argument -1"},
		{"bad align", func(b *Builder) { b.Align(24).Label("main").Exit() }, "bad .align argument 24"},
		{"bad delay", func(b *Builder) { b.Label("main").Delay(-1, 3) }, "delay wants 0 <= lo <= hi"},
		{"duplicate func", func(b *Builder) { b.Func("f").Func("f").Label("main").Exit() }, `duplicate .func "f"`},
		{"too much data", func(b *Builder) { b.Space("x", MaxDataWords+1).Label("main").Exit() }, "data segment too large"},
		{"la code label", func(b *Builder) { b.Label("main").La(R1, Sym("main")) }, `"main" is a code label`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder("gen")
			tt.build(b)
			_, err := b.Program()
			if err == nil {
				t.Fatal("no error")
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("%T is not an ErrorList", err)
			}
			if !strings.HasPrefix(err.Error(), `builder "gen": `) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestBuilderDataAndPC(t *testing.T) {
	b := NewBuilder("d")
	b.Word("x", 1, 2).Word("", 3).Align(32).Word("y", 4)
	if pc := b.Label("main").PC(); pc != 0 {
		t.Errorf("PC = %d", pc)
	}
	b.Nop()
	if pc := b.PC(); pc != 1 {
		t.Errorf("PC = %d", pc)
	}
	b.Exit()
	p, err := b.Program()
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprint([]Symbol{{"x", 0x10000, 3}, {"y", 0x10020, 1}})
	if got := fmt.Sprint(p.Symbols); got != want || len(p.Data) != 5 || p.Data[4] != 4 {
		t.Errorf("symbols %s data %v", got, p.Data)
	}
	if len(p.CodePoints) != 2 || p.Instrs[1].CodePoint != 1 {
		t.Errorf("code points %+v", p.CodePoints)
	}
}

// A generator builds a counter kernel: a worker thread increments a shared
// counter under a lock, and main prints it.
func ExampleBuilder() {
	b := NewBuilder("counter").Class("none").Expect(1)
	b.Word("count", 0).Align(64).Word("L", 0)
	b.Func("main").Label("main").
		Spawn(R2, "worker", R0).
		Join(R2).
		Ld(R1, Sym("count")).
		Out(R1).
		Exit()
	b.Func("worker").Label("worker").
		Lock(Sym("L")).
		Ld(R3, Sym("count")).CP("update").
		ALUImm(OpAdd, R3, R3, 1).
		St(R3, Sym("count")).CP("update").
		Unlock(Sym("L")).
		Exit()
	p, err := b.Program()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(Disassemble(p))
	// Output:
	// .kernel  counter
	// .class   none
	// .expect 1
	//
	// .data
	// count:          .word 0
	//                 .align 64
	// L:              .word 0
	//
	// .text
	//
	// .func main
	// main:
	//         spawn   r2, worker, r0
	//         join    r2
	//         ld      r1, count
	//         out     r1
	//         exit
	//
	// .func worker
	// worker:
	//         lock    L
	//         ld      r3, count @cp update
	//         add     r3, r3, 1
	//         st      r3, count @cp update
	//         unlock  L
	//         exit
}
