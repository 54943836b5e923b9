package isa

import (
	"strconv"
	"strings"
	"testing"
)

// checkRoundTrip disassembles p, assembles the text again and checks that
// the program and its disassembly are unchanged.
func checkRoundTrip(t testing.TB, p *Program) {
	t.Helper()
	text := Disassemble(p)
	q, err := Assemble(p.File, []byte(text))
	if err != nil {
		t.Fatalf("disassembly does not assemble: %v\n%s", err, text)
	}
	if d := diffPrograms(p, q); d != "" {
		t.Fatalf("round trip changed the program: %s\n%s", d, text)
	}
	if text2 := Disassemble(q); text2 != text {
		t.Fatalf("disassembly is not stable:\n%s\n---\n%s", text, text2)
	}
}

// roundTripSrcs are programs for the round-trip tests and fuzz seeds.
var roundTripSrcs = map[string]string{
	"binlog.s": binlogSrc,
	"allops.s": allOpsSrc,
	"min.s":    "main: exit\n",
	"data.s": `
.kernel "odd name #1"
.desc "line1\nline2\t\"q\" \\ \x01 é"
.data
        .word 5, 6                      # no symbol yet
x:      .word 1
        .align 128
y:      .space 0
z:      .word 0, 0, 0, 0, 0, 0, 7, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10
        .align 16
w:      .word 0
        .align 64
v:
.text
main:   ld r1, x
        ld r2, z+48
        ld r3, y[r1]
        ld r4, [r2-16]
        la r5, v
        la r6, x-8
        la r7, z+8000
        ld r8, [r0]
        ld r8, [r0+8]
        ld r8, [r0-8]
        exit
`,
	"labels.s": `
.func a
.func b
main:
start:  nop
.func c
        jmp start
again:
x1: x2: bnez r1, x2 @cp p
        beq r1, r2, again @cp q @bug
        jmp main @cp p
end:
`,
}

func TestRoundTrip(t *testing.T) {
	for name, src := range roundTripSrcs {
		t.Run(name, func(t *testing.T) {
			checkRoundTrip(t, mustAssemble(t, name, src))
		})
	}
}

func TestDisassembleText(t *testing.T) {
	p := mustAssemble(t, "k.s", binlogSrc)
	text := Disassemble(p)
	for _, want := range []string{
		".kernel  mysql-binlog\n",
		`.desc    "log rotation lets an insert skip the binlog"`,
		".class   atomicity\n",
		".cores   2\n",
		".expect 1 1\n",
		"log_type:       .word 3\n",
		"                .align 64\n",
		"buf:            .space 16\n",
		"\n.func rotator\nrotator:\n        st      r0, log_type @bug\n",
		"        ld      r5, log_type @bug @cp check\n",
		"        beqz    r5, skip @cp check\n",
		"        fadd    r6, count, 1\n",
		`        fail    "binlog entry skipped"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("disassembly lacks %q:\n%s", want, text)
		}
	}
	q := mustAssemble(t, "k.s", allOpsSrc)
	text = Disassemble(q)
	for _, want := range []string{
		"ld      r7, a+8\n", "ld      r7, [r3+16]\n", "ld      r7, [r3-8]\n", "ld      r7, a[r8]\n",
		"ld      r7, a\n", "la      r4, a+16\n", "cbcast  cv[r3]\n", "cwait   cv, lk\n", "roi begin\n", "roi end\n",
		"exit @bug @cp loop2\n", `assert  r11, "tid \"quoted\"\t# not a comment"`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("disassembly lacks %q:\n%s", want, text)
		}
	}
}

func TestDisassembleHandMade(t *testing.T) {
	// A program whose parts do not come from Assemble: a jump to a PC with
	// no label, an empty name, no main. It must print without panicking.
	p := &Program{
		Instrs: []Instruction{
			{Op: OpJmp, Target: 1},
			{Op: OpLa, Rd: 1, Imm: 99},
			{Op: OpAssert, Rs: 1, Msg: 7},
			{Op: Op(200)},
			{Op: OpNop, CodePoint: 99},
		},
		Data:    []int64{1, 2, 3},
		Symbols: []Symbol{{Name: "s", Addr: 0x10008, Words: 9}},
	}
	text := Disassemble(p)
	for _, want := range []string{".L1:\n", "jmp     .L1", `assert  r1, ""`, "invalid"} {
		if !strings.Contains(text, want) {
			t.Errorf("lacks %q:\n%s", want, text)
		}
	}
	_ = Disassemble(&Program{})
	_ = BuildCFG(p)
	_ = BuildCFG(&Program{})
}

func FuzzAssemble(f *testing.F) {
	for _, src := range roundTripSrcs {
		f.Add([]byte(src))
	}
	for _, s := range []string{
		"", "main:", "main: exit", "\x00\x01binary\xff", "\xff\xfe", "main: li r1, 99999999999999999999999",
		"main: fail \"unterminated", ".data\nx: .space 3\n.align 64\n.text\nmain: ld r1, x+4\n",
		"main: jmp main\n", ".kernel a-b.c\nmain: beq r1, -1, main @bug @cp x\n",
		".data\na: .word a, a+8, a-8\n.text\nmain: cwait a[r1], [r2+8]\n exit",
		"main: add r1, r2, r3 # comment\nloop: bnez r1, loop\n call f\n exit\n.func f\nf: ret\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		p, err := Assemble("fuzz.s", src)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.s:") {
					t.Fatalf("error without position: %q", line)
				}
			}
			return
		}
		checkRoundTrip(t, p)
		g := BuildCFG(p)
		if len(p.Instrs) > 0 && len(g.Blocks) == 0 {
			t.Fatal("no blocks")
		}
	})
}

// The listing gives every instruction its PC and source line as a
// comment, and assembles to the same program as the disassembly.
func TestListing(t *testing.T) {
	src := `.data
log_type: .word 3
buf:      .space 4
.text
main:   li r1, 1   # first
        fail "a # b,  c"

loop:   st r0, log_type @bug
        st r1, buf+8
        beqz r0, loop
        exit
`
	p, err := Assemble("l.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	text := Listing(p)
	for pc, line := range []int{5, 6, 8, 9, 10, 11} {
		if !strings.Contains(text, "# pc "+strconv.Itoa(pc)+", line "+strconv.Itoa(line)+"\n") {
			t.Errorf("listing lacks pc %d, line %d:\n%s", pc, line, text)
		}
	}
	q, err := Assemble("l.s", []byte(text))
	if err != nil {
		t.Fatalf("listing does not assemble: %v\n%s", err, text)
	}
	if d := diffPrograms(p, q); d != "" && !strings.Contains(d, "Line") {
		t.Errorf("listing assembles to another program: %s", d)
	}
	if Disassemble(q) != Disassemble(p) {
		t.Error("listing and disassembly assemble to different programs")
	}
	for pc, want := range []string{"li r1, 1", `fail "a # b,  c"`, "st r0, log_type @bug", "st r1, buf+8", "beqz r0, loop", "exit"} {
		if got := p.InstrText(int32(pc)); got != want {
			t.Errorf("InstrText(%d) = %q, want %q", pc, got, want)
		}
	}
	if p.InstrText(6) != "" || p.InstrText(-1) != "" {
		t.Error("InstrText outside the program is not empty")
	}
	for _, c := range []struct {
		addr uint64
		want string
	}{{DataBase, "log_type"}, {DataBase + 8, "buf"}, {DataBase + 24, "buf+16"}, {DataBase + 40, ""}, {4, ""}} {
		got, ok := p.SymbolAt(c.addr)
		if got != c.want || ok != (c.want != "") {
			t.Errorf("SymbolAt(%#x) = %q, %v; want %q", c.addr, got, ok, c.want)
		}
	}
	// Built programs have no lines: the PC alone.
	b := NewBuilder("built")
	b.Label("main")
	b.Exit()
	bp, err := b.Program()
	if err != nil {
		t.Fatal(err)
	}
	if l := Listing(bp); !strings.Contains(l, "exit") || !strings.Contains(l, "# pc 0\n") {
		t.Errorf("listing of a built program:\n%s", l)
	}
}

// A listing assembles to the listed program, source lines included: PCs
// and code points map back to the original source offline.
func TestListingKeepsSourceLines(t *testing.T) {
	src := "# a comment\n\n.data\nx: .word 0\n.text\nmain: li r1, 2\n\n  st r1, x @bug\n la r2, x\n exit\n"
	p, err := Assemble("s.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	q, err := Assemble("listing.s", []byte(Listing(p)))
	if err != nil {
		t.Fatal(err)
	}
	for pc := range p.Instrs {
		if p.Instrs[pc].Line != q.Instrs[pc].Line {
			t.Errorf("pc %d: line %d in the source, %d from the listing", pc, p.Instrs[pc].Line, q.Instrs[pc].Line)
		}
	}
	for cp := range p.CodePoints {
		if p.CodePoints[cp] != q.CodePoints[cp] {
			t.Errorf("code point %d: %+v, from the listing %+v", cp, p.CodePoints[cp], q.CodePoints[cp])
		}
	}
}
