package isa

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// opByName maps mnemonics to opcodes; "roi" is handled separately.
var opByName = func() map[string]Op {
	m := make(map[string]Op, NumOps)
	for o := OpLi; o < NumOps; o++ {
		if o != OpRoiBegin && o != OpRoiEnd {
			m[opNames[o]] = o
		}
	}
	return m
}()

// listingLine matches the comment Listing writes after an instruction:
// "# pc N, line L" (or "; pc N, line L" inside an existing comment). It is
// the one comment the assembler reads: it gives the instruction source
// line L, so a listing assembled again keeps its program's lines.
var listingLine = regexp.MustCompile(`[#;] pc \d+, line (\d+)\s*$`)

// listingComment matches listingLine in text, skipping the regular
// expression on the lines that cannot match (nearly all of a source that
// is not a listing).
func listingComment(text []byte) [][]byte {
	if !bytes.Contains(text, []byte(" pc ")) {
		return nil
	}
	return listingLine.FindSubmatch(text)
}

// Assemble translates the text assembly of DESIGN.md §4 into a Program.
// file names the source in messages and gives the default program name.
// On failure the error is an ErrorList with one "file:line: message"
// entry per problem (at most about 20). Assemble never panics. A
// "# pc N, line L" comment (listingLine) sets its instruction's source
// line; every other comment is ignored.
func Assemble(file string, src []byte) (*Program, error) {
	a := &assembler{
		b:    newBuilder(defaultName(file)),
		file: file,
		sect: sectText,
		seen: make(map[string]int32),
	}
	a.b.file = file
	a.b.errs.file = file
	a.b.mainLine = 1
	// A UTF-8 byte order mark, as some editors write, is not part of the text.
	src = bytes.TrimPrefix(src, []byte("\uFEFF"))
	if line, why := binaryInput(src); why != "" {
		return nil, ErrorList{{File: file, Line: line, Msg: "binary input (" + why + ")"}}
	}
	line := int32(0)
	for len(src) > 0 && !a.b.errs.full {
		line++
		var text []byte
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			text, src = src[:i], src[i+1:]
		} else {
			text, src = src, nil
		}
		text = bytes.TrimSuffix(text, []byte{'\r'})
		a.b.line = line
		a.b.srcLine = 0
		if m := listingComment(text); m != nil {
			// A listing (Listing) keeps each instruction's source line in
			// its comment: the program it assembles to is the listed one,
			// source lines included.
			if n, err := strconv.ParseInt(string(m[1]), 10, 32); err == nil && n > 0 {
				a.b.srcLine = int32(n)
			}
		}
		a.parseLine(string(text))
	}
	a.b.line = 0
	p, err := a.b.Program()
	if err != nil {
		return nil, err
	}
	return p, nil
}

// defaultName is the file's base name without its extension.
func defaultName(file string) string {
	if file == "" {
		return ""
	}
	base := filepath.Base(file)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// binaryInput returns the line and reason when src is not text.
func binaryInput(src []byte) (int, string) {
	if i := bytes.IndexByte(src, 0); i >= 0 {
		return 1 + bytes.Count(src[:i], []byte{'\n'}), "NUL byte"
	}
	if !utf8.Valid(src) {
		for i := 0; i < len(src); {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n <= 1 {
				return 1 + bytes.Count(src[:i], []byte{'\n'}), "invalid UTF-8"
			}
			i += n
		}
	}
	return 0, ""
}

type section uint8

const (
	sectText section = iota
	sectData
)

// assembler holds the state of one assembly.
type assembler struct {
	b    *Builder
	file string
	sect section
	seen map[string]int32 // one-shot directives → line
	// toks and ops are the current line's tokens and operands, their
	// arrays reused from line to line.
	toks []token
	ops  [][]token
}

func (a *assembler) errorf(format string, args ...any) {
	a.b.errs.add(a.b.line, "", format, args...)
}

type tokKind uint8

const (
	tIdent tokKind = iota + 1
	tNum
	tStr
	tPunct
)

// token is one lexical token of a line.
type token struct {
	kind  tokKind
	text  string // source text; the decoded value for strings
	space bool   // preceded by whitespace (or the start of the line)
}

func (t token) is(p string) bool { return t.kind == tPunct && t.text == p }

// describe quotes a token for messages.
func (t token) describe() string { return strconv.Quote(t.text) }

// hasNumber reports whether toks holds a number literal.
func hasNumber(toks []token) bool {
	for _, t := range toks {
		if t.kind == tNum {
			return true
		}
	}
	return false
}

// lex splits one line into tokens, stopping at a comment, appending them
// to toks (the assembler passes the previous line's, emptied).
func lex(s string, toks []token) ([]token, string) {
	space := true
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			space = true
			i++
			continue
		case c == '#':
			return toks, ""
		case c == '"':
			val, n, err := lexString(s[i:])
			if err != "" {
				return toks, err
			}
			toks = append(toks, token{kind: tStr, text: val, space: space})
			i += n
		case identStart(c):
			j := i + 1
			for j < len(s) && identChar(s[j]) {
				j++
			}
			toks = append(toks, token{kind: tIdent, text: s[i:j], space: space})
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < len(s) && (identChar(s[j]) && s[j] != '.') {
				j++
			}
			toks = append(toks, token{kind: tNum, text: s[i:j], space: space})
			i = j
		case strings.IndexByte(",:[]+-@", c) >= 0:
			toks = append(toks, token{kind: tPunct, text: s[i : i+1], space: space})
			i++
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			return toks, fmt.Sprintf("unexpected character %q", r)
		}
		space = false
	}
	return toks, ""
}

// lexString decodes the string literal at the start of s and returns its
// value and length. Escapes: \\ \" \n \t \r \xHH.
func lexString(s string) (string, int, string) {
	var buf []byte
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			return string(buf), i + 1, ""
		case '\\':
			if i+1 >= len(s) {
				return "", 0, "unterminated string"
			}
			i++
			switch s[i] {
			case '\\', '"':
				buf = append(buf, s[i])
			case 'n':
				buf = append(buf, '\n')
			case 't':
				buf = append(buf, '\t')
			case 'r':
				buf = append(buf, '\r')
			case 'x':
				if i+2 >= len(s) {
					return "", 0, "bad escape in string: \\x needs two hex digits"
				}
				v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
				if err != nil {
					return "", 0, fmt.Sprintf("bad escape in string: \\x%s", s[i+1:i+3])
				}
				buf = append(buf, byte(v))
				i += 2
			default:
				r, _ := utf8.DecodeRuneInString(s[i:])
				return "", 0, fmt.Sprintf("bad escape in string: \\%c", r)
			}
		default:
			buf = append(buf, c)
		}
	}
	return "", 0, "unterminated string"
}

// parseLine assembles one source line.
func (a *assembler) parseLine(s string) {
	toks, err := lex(s, a.toks[:0])
	a.toks = toks
	i := 0
	for i+1 < len(toks) && toks[i].kind == tIdent && toks[i+1].is(":") {
		a.label(toks[i].text)
		i += 2
	}
	if err != "" {
		a.errorf("%s", err)
		if i == len(toks) || toks[i].kind != tIdent || toks[i].text[0] != '.' {
			a.placeholder()
		}
		return
	}
	if i == len(toks) {
		return
	}
	head := toks[i]
	rest := toks[i+1:]
	if head.kind != tIdent {
		a.errorf("expected an instruction, directive or label, got %s", head.describe())
		return
	}
	var ann []token
	for k, t := range rest {
		if t.is("@") {
			rest, ann = rest[:k], rest[k:]
			break
		}
	}
	if head.text[0] == '.' {
		if len(ann) > 0 {
			a.errorf("annotation on directive %s: @bug and @cp follow an instruction", head.text)
			return
		}
		a.directive(head.text, rest)
		return
	}
	if !a.instruction(head.text, rest, ann) {
		a.placeholder()
	}
}

// placeholder stands in for an instruction line that failed to assemble,
// so that its labels still name an instruction: the program has errors
// anyway, and "label has no instruction after it" would only bury the real
// one.
func (a *assembler) placeholder() {
	if a.sect == sectText {
		a.b.emit(pending{in: Instruction{Op: OpNop}})
	}
}

// label defines a code label or data symbol at the current position.
func (a *assembler) label(name string) {
	if a.sect == sectData {
		a.b.defineSymbol(name)
	} else {
		a.b.Label(name)
	}
}

// splitCommas splits tokens at commas, reporting empty operands. It
// appends the operands to out.
func splitCommas(toks []token, out [][]token) ([][]token, bool) {
	if len(toks) == 0 {
		return out, true
	}
	start := 0
	for i, t := range toks {
		if t.is(",") {
			if i == start {
				return nil, false
			}
			out = append(out, toks[start:i])
			start = i + 1
		}
	}
	if start == len(toks) {
		return nil, false
	}
	return append(out, toks[start:]), true
}

// splitValues splits a directive's value list: at commas when there are
// any, else at whitespace.
func splitValues(toks []token) ([][]token, bool) {
	for _, t := range toks {
		if t.is(",") {
			return splitCommas(toks, nil)
		}
	}
	var out [][]token
	for i, t := range toks {
		if i == 0 || t.space {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], t)
	}
	return out, true
}

// joinText spells tokens back for messages.
func joinText(toks []token) string {
	var sb strings.Builder
	for i, t := range toks {
		if i > 0 && t.space {
			sb.WriteByte(' ')
		}
		if t.kind == tStr {
			sb.WriteString(quote(t.text))
		} else {
			sb.WriteString(t.text)
		}
	}
	return sb.String()
}

// parseNumber parses a decimal or 0x hex literal; neg negates it. Hex
// literals may use all 64 bits (0xffffffffffffffff is -1).
func parseNumber(text string, neg bool) (int64, string) {
	digits, base := text, 10
	if len(text) > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X') {
		digits, base = text[2:], 16
	}
	u, err := strconv.ParseUint(digits, base, 64)
	if digits == "" || err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return 0, fmt.Sprintf("bad number %q: out of range", text)
		}
		return 0, fmt.Sprintf("bad number %q", text)
	}
	if neg {
		if u > 1<<63 {
			return 0, fmt.Sprintf("bad number \"-%s\": out of range", text)
		}
		return -int64(u), ""
	}
	if base == 10 && u > math.MaxInt64 {
		return 0, fmt.Sprintf("bad number %q: out of range", text)
	}
	return int64(u), ""
}

// number parses an operand that must be an integer: [-]N.
func number(toks []token) (int64, string) {
	neg := false
	t := toks
	if len(t) > 0 && t[0].is("-") {
		neg, t = true, t[1:]
	}
	if len(t) != 1 || t[0].kind != tNum {
		return 0, fmt.Sprintf("expected a number, got %q", joinText(toks))
	}
	return parseNumber(t[0].text, neg)
}

// register parses an operand that must be a register.
func register(toks []token) (uint8, string) {
	if len(toks) == 1 && toks[0].kind == tIdent {
		s := toks[0].text
		if registerLike(s) {
			n, err := strconv.Atoi(s[1:])
			if err != nil || n >= NumRegs || s != "r"+strconv.Itoa(n) {
				return 0, fmt.Sprintf("unknown register %q", s)
			}
			return uint8(n), ""
		}
	}
	return 0, fmt.Sprintf("expected a register, got %q", joinText(toks))
}

// isRegToken reports whether toks is a single register-like identifier.
func isRegToken(toks []token) bool {
	return len(toks) == 1 && toks[0].kind == tIdent && registerLike(toks[0].text)
}

// symOffset parses `sym`, `sym+N`, `sym-N` (N may itself be negative
// after +).
func symOffset(toks []token) (string, int64, string) {
	if len(toks) == 0 || toks[0].kind != tIdent || registerLike(toks[0].text) {
		return "", 0, "want sym or sym+imm"
	}
	sym := toks[0].text
	if len(toks) == 1 {
		return sym, 0, ""
	}
	switch {
	case toks[1].is("+"):
		v, err := number(toks[2:])
		return sym, v, err
	case toks[1].is("-"):
		if len(toks) != 3 || toks[2].kind != tNum {
			return "", 0, "want sym or sym+imm"
		}
		v, err := parseNumber(toks[2].text, true)
		return sym, v, err
	}
	return "", 0, "want sym or sym+imm"
}

// memOperand parses a memory operand: sym, sym+imm, [rs], [rs+imm],
// sym[rs].
func memOperand(toks []token) (m Mem, err string) {
	const want = "want sym, sym+imm, [rs], [rs+imm] or sym[rs]"
	if len(toks) == 0 {
		return m, want
	}
	if toks[0].is("[") {
		if len(toks) < 3 || !toks[len(toks)-1].is("]") {
			return m, want
		}
		r, e := register(toks[1:2])
		if e != "" {
			return m, e
		}
		m.Base = Reg(r)
		in := toks[2 : len(toks)-1]
		switch {
		case len(in) == 0:
		case in[0].is("+"):
			m.Off, e = number(in[1:])
		case in[0].is("-") && len(in) == 2 && in[1].kind == tNum:
			m.Off, e = parseNumber(in[1].text, true)
		default:
			return m, want
		}
		return m, e
	}
	if isRegToken(toks[:1]) {
		if _, e := register(toks[:1]); e != "" {
			return m, e
		}
		return m, fmt.Sprintf("register %s used as an address: write [%s]", toks[0].text, toks[0].text)
	}
	if toks[0].kind != tIdent {
		return m, want
	}
	if len(toks) == 4 && toks[1].is("[") && toks[3].is("]") {
		r, e := register(toks[2:3])
		if e != "" {
			return m, e
		}
		return Mem{Sym: toks[0].text, Base: Reg(r)}, ""
	}
	sym, off, e := symOffset(toks)
	if e == "want sym or sym+imm" {
		e = want
	}
	return Mem{Sym: sym, Off: off}, e
}

// instruction assembles one instruction line and reports whether the
// instruction was emitted.
func (a *assembler) instruction(name string, rest, ann []token) bool {
	var o Op
	if name == "roi" {
		o = OpRoiBegin
	} else if x, ok := opByName[name]; ok {
		o = x
	} else {
		if lower := strings.ToLower(name); lower != name && (lower == "roi" || opByName[lower] != OpInvalid) {
			a.errorf("unknown opcode %q: opcodes are lower case (%s)", name, lower)
		} else {
			a.errorf("unknown opcode %q", name)
		}
		return false
	}
	if a.sect != sectText {
		a.errorf("instruction %q in .data section", name)
		return false
	}
	ops, ok := splitCommas(rest, a.ops[:0])
	a.ops = ops
	if !ok {
		a.errorf("bad operand: empty operand in %q", name+" "+joinText(rest))
		return false
	}
	p := pending{in: Instruction{Op: o}}
	if o == OpRoiBegin {
		switch {
		case len(ops) != 1:
			a.errorf("wrong operand count: roi takes 1 operand (begin or end), got %d", len(ops))
			return false
		case len(ops[0]) == 1 && ops[0][0].kind == tIdent && ops[0][0].text == "begin":
		case len(ops[0]) == 1 && ops[0][0].kind == tIdent && ops[0][0].text == "end":
			p.in.Op = OpRoiEnd
		default:
			a.errorf("bad operand %q: roi takes begin or end", joinText(ops[0]))
			return false
		}
	} else {
		slots := opSlots[o]
		if len(ops) != len(slots) {
			s := "s"
			if len(slots) == 1 {
				s = ""
			}
			a.errorf("wrong operand count: %s takes %d operand%s, got %d", name, len(slots), s, len(ops))
			return false
		}
		for k, sl := range slots {
			if e := a.operand(&p, sl, ops[k]); e != "" {
				a.errorf("bad operand %d of %s: %s", k+1, name, e)
				return false
			}
		}
	}
	if !a.annotations(&p, ann) {
		return false
	}
	a.b.emit(p)
	return true
}

// operand decodes one source operand into p.
func (a *assembler) operand(p *pending, sl slot, toks []token) string {
	var e string
	switch sl {
	case slotRd:
		p.in.Rd, e = register(toks)
	case slotRs:
		p.in.Rs, e = register(toks)
	case slotRt:
		p.in.Rt, e = register(toks)
	case slotRtImm, slotRsImm:
		if isRegToken(toks) {
			var r uint8
			r, e = register(toks)
			if sl == slotRtImm {
				p.in.Rt = r
			} else {
				p.in.Rs = r
			}
			break
		}
		p.in.UseImm = true
		p.in.Imm, e = number(toks)
		if e != "" && !hasNumber(toks) {
			e = fmt.Sprintf("expected a register or number, got %q", joinText(toks))
		}
	case slotImm:
		p.in.Imm, e = number(toks)
	case slotImm2:
		p.in.Imm2, e = number(toks)
	case slotMem, slotMem2:
		var m Mem
		m, e = memOperand(toks)
		if sl == slotMem {
			*p = a.b.mem(*p, m)
		} else {
			*p = a.b.mem2(*p, m)
		}
	case slotTarget:
		if len(toks) != 1 || toks[0].kind != tIdent || registerLike(toks[0].text) {
			return fmt.Sprintf("expected a label, got %q", joinText(toks))
		}
		p.target = a.b.intern(toks[0].text)
	case slotMsg:
		if len(toks) != 1 || toks[0].kind != tStr {
			return fmt.Sprintf("expected a string, got %q", joinText(toks))
		}
		p.msg = a.b.intern(toks[0].text)
	case slotAddr:
		var sym string
		sym, p.in.Imm, e = symOffset(toks)
		p.sym = a.b.intern(sym)
		if e == "want sym or sym+imm" {
			e = fmt.Sprintf("expected sym or sym+imm, got %q", joinText(toks))
		}
	}
	return e
}

// annotations applies @bug and @cp NAME.
func (a *assembler) annotations(p *pending, ann []token) bool {
	for i := 0; i < len(ann); {
		if !ann[i].is("@") || i+1 >= len(ann) || ann[i+1].kind != tIdent {
			a.errorf("bad annotation %q: want @bug or @cp NAME", joinText(ann[i:]))
			return false
		}
		switch ann[i+1].text {
		case "bug":
			if p.in.Bug {
				a.errorf("duplicate @bug")
				return false
			}
			p.in.Bug = true
			i += 2
		case "cp":
			if i+2 >= len(ann) || ann[i+2].kind != tIdent {
				a.errorf("bad annotation: @cp needs a NAME")
				return false
			}
			if p.cp != 0 {
				a.errorf("duplicate @cp")
				return false
			}
			p.cp = a.b.intern(ann[i+2].text)
			i += 3
		default:
			a.errorf("unknown annotation @%s: want @bug or @cp NAME", ann[i+1].text)
			return false
		}
	}
	return true
}

// once reports whether a one-shot directive is seen for the first time.
func (a *assembler) once(name string) bool {
	if l, ok := a.seen[name]; ok {
		a.errorf("duplicate %s directive (first at line %d)", name, l)
		return false
	}
	a.seen[name] = a.b.line
	return true
}

// directive assembles one directive line.
func (a *assembler) directive(name string, args []token) {
	switch name {
	case ".kernel", ".desc", ".source", ".class", ".cores", ".expect":
		a.metaDirective(name, args)
	case ".force":
		if len(args) != 1 || args[0].kind != tStr {
			a.errorf("bad .force argument %q: want a string such as \"seed=14\"", joinText(args))
			return
		}
		f, err := ParseForcing(args[0].text)
		if err != nil {
			a.errorf("bad .force: %v", err)
			return
		}
		a.b.forces = append(a.b.forces, f)
	case ".data", ".text":
		if len(args) != 0 {
			a.errorf("bad %s argument %q: it takes none", name, joinText(args))
			return
		}
		a.sect = sectText
		if name == ".data" {
			a.sect = sectData
		}
	case ".func":
		if a.sect != sectText {
			a.errorf(".func in .data section")
			return
		}
		if len(args) != 1 || args[0].kind != tIdent {
			a.errorf("bad .func argument %q: want a name", joinText(args))
			return
		}
		a.b.Func(args[0].text)
	case ".word", ".space", ".align":
		if a.sect != sectData {
			a.errorf("data directive %s in .text section", name)
			return
		}
		a.dataDirective(name, args)
	default:
		a.errorf("unknown directive %q", name)
	}
}

// metaDirective handles the program metadata directives.
func (a *assembler) metaDirective(name string, args []token) {
	if !a.once(name) {
		return
	}
	str := func() (string, bool) {
		if len(args) != 1 || args[0].kind != tStr {
			a.errorf("bad %s argument %q: want a string", name, joinText(args))
			return "", false
		}
		return args[0].text, true
	}
	switch name {
	case ".kernel":
		if len(args) == 1 && args[0].kind == tStr {
			a.b.name = args[0].text
			return
		}
		for i, t := range args {
			if i > 0 && t.space || t.kind == tStr || t.kind == tPunct && t.text != "-" && t.text != "+" {
				a.errorf("bad .kernel argument %q: want one name", joinText(args))
				return
			}
		}
		if len(args) == 0 {
			a.errorf("bad .kernel argument: want a name")
			return
		}
		a.b.name = joinText(args)
	case ".desc":
		if s, ok := str(); ok {
			a.b.desc = s
		}
	case ".source":
		if s, ok := str(); ok {
			a.b.source = s
		}
	case ".class":
		if len(args) != 1 || args[0].kind != tIdent {
			a.errorf("bad .class %q: want one of %s", joinText(args), classNames)
			return
		}
		a.b.Class(args[0].text)
	case ".cores":
		n, e := number(args)
		if e == "" && (n < 1 || n > MaxCores) {
			e = fmt.Sprintf("want 1 to %d, got %d", MaxCores, n)
		}
		if e != "" {
			a.errorf("bad .cores argument: %s", e)
			return
		}
		a.b.Cores(int(n))
	case ".expect":
		items, ok := splitValues(args)
		if !ok {
			a.errorf("bad .expect argument %q: empty value", joinText(args))
			return
		}
		vals := make([]int64, 0, len(items))
		for _, it := range items {
			v, e := number(it)
			if e != "" {
				a.errorf("bad .expect argument: %s", e)
				return
			}
			vals = append(vals, v)
		}
		a.b.Expect(vals...)
	}
}

// dataDirective handles .word, .space and .align.
func (a *assembler) dataDirective(name string, args []token) {
	switch name {
	case ".word":
		items, ok := splitValues(args)
		if !ok || len(items) == 0 {
			a.errorf("bad .word argument %q: want values", joinText(args))
			return
		}
		for _, it := range items {
			if it[0].kind == tIdent {
				sym, off, e := symOffset(it)
				if e != "" {
					a.errorf("bad .word argument %q: want a number, sym or sym+imm", joinText(it))
					return
				}
				a.b.wordSym(sym, off)
				continue
			}
			v, e := number(it)
			if e != "" {
				a.errorf("bad .word argument: %s", e)
				return
			}
			a.b.Word("", v)
		}
	case ".space":
		n, e := number(args)
		if e == "" && (n < 0 || n > MaxDataWords) {
			e = fmt.Sprintf("want a word count from 0 to %d, got %d", MaxDataWords, n)
		}
		if e != "" {
			a.errorf("bad .space argument: %s", e)
			return
		}
		a.b.Space("", int(n))
	case ".align":
		n, e := number(args)
		if e != "" {
			a.errorf("bad .align argument: %s", e)
			return
		}
		if n < WordBytes || n > MaxAlign || n&(n-1) != 0 {
			a.errorf("bad .align argument %d: want a power of two from 8 to %d", n, MaxAlign)
			return
		}
		a.b.Align(int(n))
	}
}
