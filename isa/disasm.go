package isa

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Disassemble returns assembly text for p that Assemble turns back into an
// equal program: the same instructions, data, symbols, labels, functions,
// strings, @cp names and directives. Source line numbers and the grouping
// of unnamed code points may differ. Programs that Assemble or a Builder
// made always round-trip; a hand-made Program whose parts contradict each
// other (a jump to no label, overlapping symbols) is printed as closely as
// the syntax allows.
func Disassemble(p *Program) string {
	var b strings.Builder
	d := newDisasm(p)
	d.w = &b
	d.header()
	d.dataSection()
	d.textSection()
	return b.String()
}

// Listing is Disassemble with a comment after every instruction giving its
// PC and the source line it came from (`# pc 29, line 41`; no line for
// built programs), so that a PC in an outcome or a trace leads back to the
// source. It assembles to the same program as Disassemble's text: the
// comments are comments.
func Listing(p *Program) string {
	var b strings.Builder
	writeListing(&b, p)
	return b.String()
}

// WriteListing writes Listing's text for p to w as it goes, without
// holding the whole text (a listing of millions of instructions is
// hundreds of megabytes), and returns the first write error.
func WriteListing(w io.Writer, p *Program) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	writeListing(bw, p)
	return bw.Flush()
}

// writeListing writes Listing's text to w.
func writeListing(w textWriter, p *Program) {
	d := newDisasm(p)
	d.w = w
	d.listing = true
	d.header()
	d.dataSection()
	d.textSection()
}

// textWriter is where a disassembly goes: a strings.Builder, or a
// bufio.Writer whose first error its Flush returns.
type textWriter interface {
	io.Writer
	io.StringWriter
}

// InstrText spells the instruction at pc as the disassembler does, on one
// line with single spaces ("st r0, log_type @bug"), or "" when pc is
// outside the program.
func (p *Program) InstrText(pc int32) string {
	if pc < 0 || int(pc) >= len(p.Instrs) {
		return ""
	}
	d := newDisasm(p)
	d.compact = true
	return d.instr(&p.Instrs[pc])
}

// DescribeAddr names a data or heap address for messages: "sym" or
// "sym+off" in the data segment (SymbolAt), "heap 0x…" past it, else the
// bare address.
func (p *Program) DescribeAddr(a uint64) string {
	if s, ok := p.SymbolAt(a); ok {
		return s
	}
	if a >= p.DataEnd() {
		return fmt.Sprintf("heap %#x", a)
	}
	return fmt.Sprintf("%#x", a)
}

// SymbolAt names the data address a as sym or sym+offset: the symbol
// holding it, or for a data word outside every symbol the nearest symbol
// below. It reports false below the data segment, past its end, or when
// the program has no symbols.
func (p *Program) SymbolAt(a uint64) (string, bool) {
	if a < DataBase || a >= p.DataEnd() || len(p.Symbols) == 0 {
		return "", false
	}
	var best *Symbol
	for i := range p.Symbols {
		s := &p.Symbols[i]
		if s.Addr > a {
			continue
		}
		if a < s.Addr+uint64(max(s.Words, 0))*WordBytes {
			best = s
			break
		}
		if best == nil || s.Addr > best.Addr {
			best = s
		}
	}
	if best == nil {
		return "", false
	}
	if a == best.Addr {
		return best.Name, true
	}
	return best.Name + "+" + strconv.FormatUint(a-best.Addr, 10), true
}

// disasm holds the state of one disassembly.
type disasm struct {
	p      *Program
	w      textWriter       // where the text goes
	syms   []Symbol         // sorted by address, stably
	target map[int32]string // PC → label name for control transfers
	extra  []Label          // labels made up for targets that have none
	// listing adds a "# pc N, line L" comment to every instruction.
	listing bool
	// compact separates the mnemonic from its operands by one space
	// instead of padding it to a column.
	compact bool
}

func newDisasm(p *Program) *disasm {
	d := &disasm{p: p, target: make(map[int32]string)}
	d.syms = append([]Symbol(nil), p.Symbols...)
	sort.SliceStable(d.syms, func(i, j int) bool { return d.syms[i].Addr < d.syms[j].Addr })
	used := make(map[string]bool)
	for _, l := range p.Labels {
		used[l.Name] = true
		if _, ok := d.target[l.PC]; !ok {
			d.target[l.PC] = l.Name
		}
	}
	for _, s := range p.Symbols {
		used[s.Name] = true
	}
	for i := range p.Instrs {
		in := &p.Instrs[i]
		if !hasSlot(in.Op, slotTarget) {
			continue
		}
		if _, ok := d.target[in.Target]; ok {
			continue
		}
		name := fmt.Sprintf(".L%d", in.Target)
		for k := 0; used[name]; k++ {
			name = fmt.Sprintf(".L%d_%d", in.Target, k)
		}
		used[name] = true
		d.target[in.Target] = name
		d.extra = append(d.extra, Label{Name: name, PC: in.Target})
	}
	return d
}

func (d *disasm) printf(format string, args ...any) { fmt.Fprintf(d.w, format, args...) }

// header prints the metadata directives.
func (d *disasm) header() {
	p := d.p
	d.printf(".kernel  %s\n", kernelName(p.Name))
	if p.Desc != "" {
		d.printf(".desc    %s\n", quote(p.Desc))
	}
	if p.Class != "" {
		d.printf(".class   %s\n", p.Class)
	}
	if p.Source != "" {
		d.printf(".source  %s\n", quote(p.Source))
	}
	if p.MinCores != 0 {
		d.printf(".cores   %d\n", p.MinCores)
	}
	for _, f := range p.Force {
		d.printf(".force   %s\n", quote(f.String()))
	}
	if p.HasExpect {
		d.w.WriteString(".expect")
		for _, v := range p.Expect {
			d.printf(" %d", v)
		}
		d.w.WriteString("\n")
	}
}

// kernelName spells a program name for .kernel: bare when it lexes back
// as one name, else quoted.
func kernelName(s string) string {
	if s == "" {
		return `""`
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !identChar(c) && c != '-' && c != '+' {
			return quote(s)
		}
	}
	return s
}

// quote spells s as a string literal that the assembler reads back
// exactly.
func quote(s string) string {
	var sb strings.Builder
	sb.WriteByte('"')
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&sb, "\\x%02x", s[i])
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(byte(r))
		case r == '\n':
			sb.WriteString("\\n")
		case r == '\t':
			sb.WriteString("\\t")
		case r == '\r':
			sb.WriteString("\\r")
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&sb, "\\x%02x", r)
		default:
			sb.WriteString(s[i : i+n])
		}
		i += n
	}
	sb.WriteByte('"')
	return sb.String()
}

// dataSection prints the data image with its symbols.
func (d *disasm) dataSection() {
	p := d.p
	if len(p.Data) == 0 && len(p.Symbols) == 0 {
		return
	}
	d.w.WriteString("\n.data\n")
	cursor := uint64(DataBase)
	end := p.DataEnd()
	owned := false // a symbol has been printed: unlabelled words would join it
	for _, s := range d.syms {
		if s.Addr > cursor {
			d.gap(cursor, min(s.Addr, end), owned)
			cursor = min(s.Addr, end)
		}
		to := s.Addr + uint64(s.Words)*WordBytes
		if s.Words < 0 || to > end || to < s.Addr {
			to = end
		}
		d.words(s.Name, d.wordsIn(max(s.Addr, cursor), to))
		cursor = max(cursor, to)
		owned = true
	}
	if cursor < end {
		d.gap(cursor, end, owned)
	}
}

// wordsIn returns the data words in [from, to).
func (d *disasm) wordsIn(from, to uint64) []int64 {
	if from < DataBase || to <= from {
		return nil
	}
	i, j := (from-DataBase)/WordBytes, (to-DataBase)/WordBytes
	if j > uint64(len(d.p.Data)) {
		j = uint64(len(d.p.Data))
	}
	if i >= j {
		return nil
	}
	return d.p.Data[i:j]
}

// gap prints the words in [from, to) that belong to no symbol: as .align
// padding after a symbol when that reproduces them exactly.
func (d *disasm) gap(from, to uint64, owned bool) {
	ws := d.wordsIn(from, to)
	if len(ws) == 0 {
		return
	}
	if owned {
		zero := true
		for _, v := range ws {
			zero = zero && v == 0
		}
		if zero {
			for bsz := uint64(WordBytes); bsz <= MaxAlign; bsz <<= 1 {
				if to%bsz == 0 && to-from < bsz {
					d.printf("%-15s .align %d\n", "", bsz)
					return
				}
			}
		}
		d.w.WriteString("# the words below belong to no symbol and join the one above\n")
	}
	d.words("", ws)
}

// words prints a labelled run of data words as .word and .space lines.
func (d *disasm) words(label string, ws []int64) {
	prefix := ""
	if label != "" {
		prefix = label + ":"
	}
	line := func(s string) {
		d.printf("%-15s %s\n", prefix, s)
		prefix = ""
	}
	for i := 0; i < len(ws); {
		z := i
		for z < len(ws) && ws[z] == 0 {
			z++
		}
		if z-i >= 4 {
			line(fmt.Sprintf(".space %d", z-i))
			i = z
			continue
		}
		j := i
		var vals []string
		for j < len(ws) && len(vals) < 8 {
			z := j
			for z < len(ws) && ws[z] == 0 {
				z++
			}
			if z-j >= 4 {
				break
			}
			vals = append(vals, strconv.FormatInt(ws[j], 10))
			j++
		}
		line(".word " + strings.Join(vals, ", "))
		i = j
	}
	if prefix != "" {
		d.printf("%s\n", prefix)
	}
}

// textSection prints the code with its functions and labels.
func (d *disasm) textSection() {
	p := d.p
	d.w.WriteString("\n.text\n")
	labels := append(append([]Label(nil), p.Labels...), d.extra...)
	sort.SliceStable(labels, func(i, j int) bool { return labels[i].PC < labels[j].PC })
	funcs := append([]Func(nil), p.Funcs...)
	sort.SliceStable(funcs, func(i, j int) bool { return funcs[i].Start < funcs[j].Start })
	li, fi := 0, 0
	n := int32(len(p.Instrs))
	for pc := int32(0); pc <= n; pc++ {
		for ; fi < len(funcs) && (funcs[fi].Start <= pc || pc == n); fi++ {
			d.printf("\n.func %s\n", funcs[fi].Name)
		}
		for ; li < len(labels) && (labels[li].PC <= pc || pc == n); li++ {
			d.printf("%s:\n", labels[li].Name)
		}
		if pc < n {
			in := &p.Instrs[pc]
			text := d.instr(in)
			if d.listing {
				where := fmt.Sprintf("# pc %d", pc)
				if in.Line > 0 {
					where += fmt.Sprintf(", line %d", in.Line)
				}
				if in.Op == OpInvalid || in.Op >= NumOps || in.Op == OpLa && len(d.syms) == 0 {
					// The instruction carries its own comment (li for a
					// la without symbols): add to it.
					text += "; " + strings.TrimPrefix(where, "# ")
				} else {
					text = fmt.Sprintf("%-40s %s", text, where)
				}
			}
			d.printf("        %s\n", text)
		}
	}
}

// reg spells a register.
func reg(r uint8) string { return "r" + strconv.Itoa(int(r)) }

// signed spells an offset with its sign: "+8", "-8".
func signed(v int64) string {
	if v < 0 {
		return "-" + strconv.FormatUint(uint64(-v), 10)
	}
	return "+" + strconv.FormatInt(v, 10)
}

// instr spells one instruction with its annotations.
func (d *disasm) instr(in *Instruction) string {
	p := d.p
	if in.Op == OpInvalid || in.Op >= NumOps {
		return fmt.Sprintf("invalid # opcode %d", in.Op)
	}
	if in.Op == OpLa && len(d.syms) == 0 {
		return fmt.Sprintf("li %s, %d  # la with no data symbols", reg(in.Rd), in.Imm)
	}
	var ops []string
	for _, sl := range opSlots[in.Op] {
		var s string
		switch sl {
		case slotRd:
			s = reg(in.Rd)
		case slotRs:
			s = reg(in.Rs)
		case slotRt:
			s = reg(in.Rt)
		case slotRtImm:
			s = reg(in.Rt)
			if in.UseImm {
				s = strconv.FormatInt(in.Imm, 10)
			}
		case slotRsImm:
			s = reg(in.Rs)
			if in.UseImm {
				s = strconv.FormatInt(in.Imm, 10)
			}
		case slotImm:
			s = strconv.FormatInt(in.Imm, 10)
		case slotImm2:
			s = strconv.FormatInt(in.Imm2, 10)
		case slotMem:
			s = d.mem(in.Base, in.Off)
		case slotMem2:
			s = d.mem(in.Base2, in.Off2)
		case slotTarget:
			s = d.target[in.Target]
		case slotMsg:
			msg := ""
			if in.Msg >= 0 && int(in.Msg) < len(p.Strings) {
				msg = p.Strings[in.Msg]
			}
			s = quote(msg)
		case slotAddr:
			s = d.symRef(in.Imm)
		}
		ops = append(ops, s)
	}
	text := mnemonic(in.Op)
	if len(ops) > 0 {
		pad := 7
		if d.compact {
			pad = 0
		}
		text = fmt.Sprintf("%-*s %s", pad, text, strings.Join(ops, ", "))
	}
	if in.Bug {
		text += " @bug"
	}
	if in.CodePoint >= 0 && int(in.CodePoint) < len(p.CodePoints) {
		if name := p.CodePoints[in.CodePoint].Name; name != "" {
			text += " @cp " + name
		}
	}
	return text
}

// mem spells a memory operand base+off.
func (d *disasm) mem(base uint8, off int64) string {
	if base == 0 {
		if off >= DataBase && len(d.syms) > 0 {
			return d.symRef(off)
		}
		if off == 0 {
			return "[r0]"
		}
		return "[r0" + signed(off) + "]"
	}
	if off == 0 {
		return "[" + reg(base) + "]"
	}
	if off > 0 {
		i := sort.Search(len(d.syms), func(i int) bool { return d.syms[i].Addr >= uint64(off) })
		if i < len(d.syms) && d.syms[i].Addr == uint64(off) {
			return d.syms[i].Name + "[" + reg(base) + "]"
		}
	}
	return "[" + reg(base) + signed(off) + "]"
}

// symRef spells address a as sym, sym+k or sym-k using the nearest
// symbol at or below a (or the first symbol when none is).
func (d *disasm) symRef(a int64) string {
	if len(d.syms) == 0 {
		return strconv.FormatInt(a, 10)
	}
	i := sort.Search(len(d.syms), func(i int) bool { return a < 0 || d.syms[i].Addr > uint64(a) })
	if i == 0 {
		s := d.syms[0]
		return s.Name + "-" + strconv.FormatUint(s.Addr-uint64(a), 10)
	}
	s := d.syms[i-1]
	k := uint64(a) - s.Addr
	if k == 0 {
		return s.Name
	}
	return s.Name + "+" + strconv.FormatUint(k, 10)
}
