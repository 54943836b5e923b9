package isa

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
)

// PSetType is a memory instruction's 2-bit PSet type (Figure 7).
type PSetType uint8

// The PSet types.
const (
	// PSetUntested (00): the instruction never ran in a training run.
	PSetUntested PSetType = 0
	// PSetNull (01): it ran, and never had a remote immediate predecessor.
	PSetNull PSetType = 1
	// PSetOne (10): exactly one predecessor.
	PSetOne PSetType = 2
	// PSetMany (11): more than one predecessor, with a count.
	PSetMany PSetType = 3
)

// String names the type: "untested", "null", "one" or "many".
func (t PSetType) String() string {
	switch t {
	case PSetUntested:
		return "untested"
	case PSetNull:
		return "null"
	case PSetOne:
		return "one"
	case PSetMany:
		return "many"
	}
	return fmt.Sprintf("PSetType(%d)", uint8(t))
}

// PSet is one static memory instruction's predecessor set: the static
// instructions that were, in some correct training run, its immediate
// remote predecessor on a location.
type PSet struct {
	// Tested reports whether the instruction ran in at least one training
	// run. An untested PSet has no predecessors.
	Tested bool
	// Preds are the predecessor PCs, ascending and distinct.
	Preds []int32
}

// Type returns the set's 2-bit type.
func (s PSet) Type() PSetType {
	switch {
	case !s.Tested:
		return PSetUntested
	case len(s.Preds) == 0:
		return PSetNull
	case len(s.Preds) == 1:
		return PSetOne
	}
	return PSetMany
}

// Has reports whether pc is in the set.
func (s PSet) Has(pc int32) bool {
	if len(s.Preds) <= 8 {
		for _, p := range s.Preds {
			if p == pc {
				return true
			}
		}
		return false
	}
	_, ok := slices.BinarySearch(s.Preds, pc)
	return ok
}

// PSets is the PSet section of a program (Yu and Narayanasamy, ISCA 2009),
// indexed by PC. It may be shorter than the program: the missing PCs are
// untested. Only memory instructions (Op.TouchesMemory) may be tested or
// have predecessors. EncodePSets and DecodePSets convert it to and from
// the paper's binary encoding.
type PSets []PSet

// At returns pc's PSet (untested when pc is past the end).
func (s PSets) At(pc int32) PSet {
	if pc < 0 || int(pc) >= len(s) {
		return PSet{}
	}
	return s[pc]
}

// Pairs returns the number of (predecessor, instruction) pairs.
func (s PSets) Pairs() int {
	n := 0
	for i := range s {
		n += len(s[i].Preds)
	}
	return n
}

// Equal reports whether s and o hold the same PSets (a missing PC equals
// an untested one).
func (s PSets) Equal(o PSets) bool {
	for pc := range max(len(s), len(o)) {
		a, b := s.At(int32(pc)), o.At(int32(pc))
		if a.Tested != b.Tested || !slices.Equal(a.Preds, b.Preds) {
			return false
		}
	}
	return true
}

// Validate checks s against p: no PSet past the program's end, only memory
// instructions tested, no predecessors of an untested instruction, every
// predecessor a memory instruction of p, ascending and distinct, and never
// a load preceding a load (a dependency needs a write). Errors name the PC
// and its text.
func (s PSets) Validate(p *Program) error {
	if len(s) > len(p.Instrs) {
		return fmt.Errorf("PSets for %d PCs, but the program has %d instructions", len(s), len(p.Instrs))
	}
	for i := range s {
		pc := int32(i)
		ps := &s[i]
		if !ps.Tested && len(ps.Preds) == 0 {
			continue
		}
		if !p.Instrs[pc].Op.TouchesMemory() {
			return fmt.Errorf("pc %d (%s) has a PSet but is not a memory instruction", pc, p.InstrText(pc))
		}
		if !ps.Tested {
			return fmt.Errorf("pc %d (%s) is untested but has %d predecessors", pc, p.InstrText(pc), len(ps.Preds))
		}
		for j, pred := range ps.Preds {
			if why := predProblem(p, pc, pred); why != "" {
				return fmt.Errorf("pc %d (%s): predecessor %s", pc, p.InstrText(pc), why)
			}
			if j > 0 && pred <= ps.Preds[j-1] {
				return fmt.Errorf("pc %d (%s): predecessors not ascending and distinct (%d after %d)", pc, p.InstrText(pc), pred, ps.Preds[j-1])
			}
		}
	}
	return nil
}

// predProblem says what is wrong with pred as a predecessor of pc in p,
// or "" when nothing is.
func predProblem(p *Program, pc, pred int32) string {
	if pred < 0 || int(pred) >= len(p.Instrs) {
		return fmt.Sprintf("pc %d is outside the program (%d instructions)", pred, len(p.Instrs))
	}
	if !p.Instrs[pred].Op.TouchesMemory() {
		return fmt.Sprintf("pc %d (%s) is not a memory instruction", pred, p.InstrText(pred))
	}
	if p.Instrs[pred].Op == OpLd && p.Instrs[pc].Op == OpLd {
		return fmt.Sprintf("pc %d (%s) is a load, and a load never precedes a load", pred, p.InstrText(pred))
	}
	return ""
}

// PSet file layout constants.
const (
	psetMagic      = "WPST"
	psetVersion    = 3
	psetCRCBytes   = 4
	psetHashBytes  = 8
	psetHeaderSize = 4 + 1 + psetHashBytes + 4 + 4
	psetEntryBytes = 4
	psetMaxCount   = 255
	psetLibBits    = 4
	psetOffBits    = 28
	psetOffMask    = 1<<psetOffBits - 1
)

// PSetFlags record how a PSet file's sets were learned, so that checks
// use the same definition (the file's last byte since version 2).
type PSetFlags uint8

// The PSet file flags.
const (
	// PSetNoSync says accesses to synchronisation words were left out.
	PSetNoSync     PSetFlags = 1 << iota
	psetKnownFlags           = PSetNoSync
	// PSetUnrecorded, only from DecodePSetsFlags, says the file is
	// version 1, which recorded no flags.
	PSetUnrecorded PSetFlags = 1 << 7
)

// PSetMaxInstrs is the most instructions a program can have for its PSets
// to be encodable: 28-bit byte offsets of 4-byte instructions.
const PSetMaxInstrs = 1 << psetOffBits / InstrBytes

// psetHash is the header's program hash.
func psetHash(p *Program) [psetHashBytes]byte {
	sum := sha256.Sum256([]byte(Disassemble(p)))
	return [psetHashBytes]byte(sum[:psetHashBytes])
}

// memInstrs returns the PCs of p's memory instructions, in order.
func memInstrs(p *Program) []int32 {
	var pcs []int32
	for i := range p.Instrs {
		if p.Instrs[i].Op.TouchesMemory() {
			pcs = append(pcs, int32(i))
		}
	}
	return pcs
}

// EncodePSets encodes s, the PSets of p, as the PSet section of the
// paper's Figure 7 (digest §1.6). s must pass Validate; p must have at
// most PSetMaxInstrs instructions.
//
// The encoded section is:
//
//	offset  size   field
//	0       4      magic "WPST"
//	4       1      version (3; version 2 files, without the checksum,
//	               and version 1 files, without the flags byte either,
//	               are read too)
//	5       8      program hash: the first 8 bytes of the SHA-256 of
//	               Disassemble(p), the program the PCs belong to
//	13      4      the program's instruction count (big-endian)
//	17      4      its memory-instruction count M (big-endian)
//	21      ⌈M/4⌉  the 2-bit PSet types, one per memory instruction in PC
//	               order, four to a byte, the first in the high bits; the
//	               padding bits of the last byte are zero
//	…              the PSet bodies, in PC order:
//	                 00 untested, 01 null: nothing
//	                 10 one predecessor: one 4-byte entry
//	                 11 more than one: a 1-byte count n, then n entries
//	                    (chained past 255, below)
//	…       1      flags (PSetFlags: bit 0, sync accesses left out)
//	last    4      CRC-32 (IEEE, big-endian) of every byte before it, so
//	               a flipped bit or a cut anywhere is an error
//
// A memory instruction is one whose Op.TouchesMemory (loads, stores,
// atomics, free and the sync instructions); nothing is stored for the
// others. An entry is a big-endian 32-bit word: a 4-bit library id (0, the
// program itself: weft programs are one module) and a 28-bit byte offset
// of the predecessor instruction in it (PC × InstrBytes), so programs of
// up to 2^26 instructions are encodable. Entries are in ascending order.
//
// Overflow policy (the paper gives none): chaining. A count byte of 255
// says that 255 entries follow and then another count byte, which may be
// 0; any other count ends the set. A set of more than 255 predecessors
// thus stays exact at the cost of one byte per 255 entries. The first
// count of a type-11 set is at least 2 (one predecessor is type 10).
//
// Size accounting as in the paper's Table 4 (EncodedSize): the type bits
// live in spare opcode bits and cost nothing; a PSet costs its count bytes
// and 4 bytes per entry.
func EncodePSets(p *Program, s PSets) ([]byte, error) { return EncodePSetsFlags(p, s, 0) }

// EncodePSetsFlags is EncodePSets with the file's flags.
func EncodePSetsFlags(p *Program, s PSets, flags PSetFlags) ([]byte, error) {
	if flags&^psetKnownFlags != 0 {
		return nil, fmt.Errorf("encode PSets: unknown flags %#x", uint8(flags))
	}
	if len(p.Instrs) > PSetMaxInstrs {
		return nil, fmt.Errorf("encode PSets: the program has %d instructions; 28-bit offsets hold at most %d", len(p.Instrs), PSetMaxInstrs)
	}
	if err := s.Validate(p); err != nil {
		return nil, fmt.Errorf("encode PSets: %w", err)
	}
	mem := memInstrs(p)
	h := psetHash(p)
	b := make([]byte, 0, psetHeaderSize+(len(mem)+3)/4+psetEntryBytes*s.Pairs())
	b = append(b, psetMagic...)
	b = append(b, psetVersion)
	b = append(b, h[:]...)
	b = binary.BigEndian.AppendUint32(b, uint32(len(p.Instrs)))
	b = binary.BigEndian.AppendUint32(b, uint32(len(mem)))
	types := make([]byte, (len(mem)+3)/4)
	for i, pc := range mem {
		types[i/4] |= byte(s.At(pc).Type()) << (6 - 2*(i%4))
	}
	b = append(b, types...)
	for _, pc := range mem {
		ps := s.At(pc)
		switch ps.Type() {
		case PSetOne:
			b = binary.BigEndian.AppendUint32(b, psetEntry(ps.Preds[0]))
		case PSetMany:
			rest := ps.Preds
			for {
				n := min(len(rest), psetMaxCount)
				b = append(b, byte(n))
				for _, pred := range rest[:n] {
					b = binary.BigEndian.AppendUint32(b, psetEntry(pred))
				}
				rest = rest[n:]
				if n < psetMaxCount {
					break
				}
			}
		}
	}
	b = append(b, byte(flags))
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), nil
}

// psetEntry encodes a predecessor: library 0, byte offset PC × InstrBytes.
func psetEntry(pc int32) uint32 { return uint32(pc) * InstrBytes }

// PSetsError is an error in an encoded PSet file: its name, the byte
// offset of the problem, and the instruction concerned (PC -1: none).
type PSetsError struct {
	// File names the file.
	File string
	// Offset is the byte offset of the problem.
	Offset int
	// PC is the instruction whose PSet holds the problem, or -1.
	PC int32
	// Msg says what is wrong.
	Msg string
}

// Error reads "FILE: byte OFFSET: MSG".
func (e *PSetsError) Error() string {
	return fmt.Sprintf("%s: byte %d: %s", e.File, e.Offset, e.Msg)
}

// psetDecoder reads an encoded PSet file.
type psetDecoder struct {
	p    *Program
	name string
	b    []byte
	off  int
}

// fail returns an error at byte off about pc's PSet (pc -1: none).
func (d *psetDecoder) fail(off int, pc int32, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if pc >= 0 {
		msg = fmt.Sprintf("PSet of pc %d (%s): %s", pc, d.p.InstrText(pc), msg)
	}
	return &PSetsError{File: d.name, Offset: off, PC: pc, Msg: msg}
}

// need reports a truncation when fewer than n bytes remain.
func (d *psetDecoder) need(n int, pc int32, what string) error {
	if len(d.b)-d.off < n {
		return d.fail(d.off, pc, "truncated: %s needs %d bytes, the file has %d left", what, n, len(d.b)-d.off)
	}
	return nil
}

// DecodePSets decodes an encoded PSet file b of program p; name names the
// file in errors. A file made for another program (its header's hash or
// instruction count differs) is an error naming the file and both
// programs' hash and size. Every other error is a *PSetsError naming the
// file and the byte offset, and the instruction whose PSet holds the
// problem (its PC and text): a bad magic or version, a truncated file,
// trailing bytes, nonzero type padding, a type-11 count below 2, an entry
// naming another library, an offset that is not an instruction boundary,
// a PC outside the program or not a memory instruction, a load preceding
// a load, entries out of order or repeated. The header holds no program
// name (detectors must not read Program.Name), so a caller that wants the
// name in the mismatch error adds it.
func DecodePSets(p *Program, name string, b []byte) (PSets, error) {
	s, _, err := DecodePSetsFlags(p, name, b)
	return s, err
}

// DecodePSetsFlags is DecodePSets that also returns the file's flags
// (PSetUnrecorded for a version 1 file). Unknown flag bits are an error.
func DecodePSetsFlags(p *Program, name string, b []byte) (PSets, PSetFlags, error) {
	s, err := decodePSets(p, name, b)
	if err != nil {
		return nil, 0, err
	}
	if b[4] == 1 {
		return s, PSetUnrecorded, nil
	}
	at := len(b) - 1
	if b[4] >= 3 {
		at -= psetCRCBytes
	}
	f := PSetFlags(b[at])
	if f&^psetKnownFlags != 0 {
		return nil, 0, &PSetsError{File: name, Offset: at, PC: -1, Msg: fmt.Sprintf("unknown flags %#x", uint8(f))}
	}
	return s, f, nil
}

func decodePSets(p *Program, name string, b []byte) (PSets, error) {
	d := &psetDecoder{p: p, name: name, b: b}
	if err := d.need(psetHeaderSize, -1, "the header"); err != nil {
		return nil, err
	}
	if string(b[:4]) != psetMagic {
		return nil, d.fail(0, -1, "not a PSet file: magic %q, want %q", b[:4], psetMagic)
	}
	if b[4] < 1 || b[4] > psetVersion {
		return nil, d.fail(4, -1, "unsupported version %d (want 1 to %d)", b[4], psetVersion)
	}
	if b[4] >= 3 {
		// The checksum covers everything before it: check it first, so a
		// flipped bit is reported as what it is.
		if err := d.need(psetHeaderSize+psetCRCBytes, -1, "the header and the checksum"); err != nil {
			return nil, err
		}
		end := len(b) - psetCRCBytes
		if want, got := binary.BigEndian.Uint32(b[end:]), crc32.ChecksumIEEE(b[:end]); want != got {
			return nil, d.fail(end, -1, "checksum %08x, but the bytes before it sum to %08x: the file is corrupt or cut short", want, got)
		}
		d.b = b[:end]
		b = d.b
	}
	h := psetHash(p)
	fileHash := b[5 : 5+psetHashBytes]
	ninstr := binary.BigEndian.Uint32(b[13:])
	if string(fileHash) != string(h[:]) || ninstr != uint32(len(p.Instrs)) {
		return nil, fmt.Errorf("%s: PSets of another program: the file's program has hash %s and %d instructions, this program has hash %s and %d",
			name, hex.EncodeToString(fileHash), ninstr, hex.EncodeToString(h[:]), len(p.Instrs))
	}
	mem := memInstrs(p)
	if nmem := binary.BigEndian.Uint32(b[17:]); nmem != uint32(len(mem)) {
		return nil, d.fail(17, -1, "the header counts %d memory instructions, the program has %d", nmem, len(mem))
	}
	d.off = psetHeaderSize
	ntypes := (len(mem) + 3) / 4
	if err := d.need(ntypes, -1, fmt.Sprintf("the types of %d memory instructions", len(mem))); err != nil {
		return nil, err
	}
	types := b[d.off : d.off+ntypes]
	if pad := len(mem) % 4; pad != 0 && types[ntypes-1]&(1<<(8-2*pad)-1) != 0 {
		return nil, d.fail(d.off+ntypes-1, -1, "nonzero padding bits after the last type (byte 0x%02x)", types[ntypes-1])
	}
	d.off += ntypes
	s := make(PSets, len(p.Instrs))
	for i, pc := range mem {
		t := PSetType(types[i/4] >> (6 - 2*(i%4)) & 3)
		ps := &s[pc]
		ps.Tested = t != PSetUntested
		switch t {
		case PSetOne:
			pred, err := d.entry(pc, nil)
			if err != nil {
				return nil, err
			}
			ps.Preds = []int32{pred}
		case PSetMany:
			for first := true; ; first = false {
				if err := d.need(1, pc, "a count"); err != nil {
					return nil, err
				}
				n := int(b[d.off])
				if first && n < 2 {
					return nil, d.fail(d.off, pc, "type 11 (many) with count %d, want at least 2", n)
				}
				d.off++
				for range n {
					pred, err := d.entry(pc, ps.Preds)
					if err != nil {
						return nil, err
					}
					ps.Preds = append(ps.Preds, pred)
				}
				if n < psetMaxCount {
					break
				}
			}
		}
	}
	if b[4] != 1 {
		if err := d.need(1, -1, "the flags"); err != nil {
			return nil, err
		}
		d.off++
	}
	if d.off != len(b) {
		return nil, d.fail(d.off, -1, "%d trailing bytes after the flags", len(b)-d.off)
	}
	return s, nil
}

// entry reads one predecessor entry of pc's PSet, whose entries so far
// are prev.
func (d *psetDecoder) entry(pc int32, prev []int32) (int32, error) {
	if err := d.need(psetEntryBytes, pc, "an entry"); err != nil {
		return 0, err
	}
	at := d.off
	w := binary.BigEndian.Uint32(d.b[at:])
	d.off += psetEntryBytes
	if lib := w >> psetOffBits; lib != 0 {
		return 0, d.fail(at, pc, "entry 0x%08x names library %d; the program is library 0, the only one", w, lib)
	}
	off := w & psetOffMask
	if off%InstrBytes != 0 {
		return 0, d.fail(at, pc, "entry 0x%08x names byte offset %d, not an instruction boundary (%d bytes each)", w, off, InstrBytes)
	}
	pred := int32(off / InstrBytes)
	if why := predProblem(d.p, pc, pred); why != "" {
		return 0, d.fail(at, pc, "entry 0x%08x: predecessor %s", w, why)
	}
	if len(prev) > 0 && pred <= prev[len(prev)-1] {
		rel := "after"
		if slices.Contains(prev, pred) {
			rel = "again, after"
		}
		return 0, d.fail(at, pc, "entry 0x%08x names pc %d %s pc %d: entries must ascend", w, pred, rel, prev[len(prev)-1])
	}
	return pred, nil
}

// PSetSize is the encoded size of a program's PSets, for the paper's
// Table 4 (binary size increase) and Figure 9 (PSet sizes).
type PSetSize struct {
	// MemInstrs is the number of static memory instructions.
	MemInstrs int `json:"mem_instrs"`
	// Untested, Null, One and Many count the memory instructions of each
	// type.
	Untested int `json:"untested"`
	Null     int `json:"null"`
	One      int `json:"one"`
	Many     int `json:"many"`
	// Pairs is the number of (predecessor, instruction) pairs.
	Pairs int `json:"pairs"`
	// PSetBytes is the paper's accounting: count bytes plus 4 bytes per
	// entry (the type bits are free, in spare opcode bits).
	PSetBytes int `json:"pset_bytes"`
	// TypeBytes is the packed 2-bit types (⌈MemInstrs/4⌉ bytes).
	TypeBytes int `json:"type_bytes"`
	// FileBytes is the whole encoded file: header, types, PSets, flags
	// and checksum.
	FileBytes int `json:"file_bytes"`
	// CodeBytes is the program's code: InstrBytes per instruction.
	CodeBytes int `json:"code_bytes"`
	// Sizes[k] is the number of tested memory instructions with k
	// predecessors (Figure 9's histogram).
	Sizes []int `json:"sizes"`
}

// BytesPerPair is PSetBytes per pair (0 without pairs); the paper's
// programs show 4.2 to 4.3.
func (z PSetSize) BytesPerPair() float64 {
	if z.Pairs == 0 {
		return 0
	}
	return float64(z.PSetBytes) / float64(z.Pairs)
}

// CodeShare is PSetBytes as a share of the code (0.05 is 5%; 0 without
// code), the paper's "overhead w.r.t. app".
func (z PSetSize) CodeShare() float64 {
	if z.CodeBytes == 0 {
		return 0
	}
	return float64(z.PSetBytes) / float64(z.CodeBytes)
}

// String summarises the size in one line.
func (z PSetSize) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d memory instructions (%d untested, %d null, %d one, %d many), %d pairs, %d bytes (%.2f per pair, %.2f%% of %d code bytes), file %d bytes",
		z.MemInstrs, z.Untested, z.Null, z.One, z.Many, z.Pairs, z.PSetBytes, z.BytesPerPair(), 100*z.CodeShare(), z.CodeBytes, z.FileBytes)
	return b.String()
}

// EncodedSize returns the encoded size of s, the PSets of p. s must pass
// Validate.
func EncodedSize(p *Program, s PSets) (PSetSize, error) {
	if err := s.Validate(p); err != nil {
		return PSetSize{}, fmt.Errorf("PSet size: %w", err)
	}
	mem := memInstrs(p)
	z := PSetSize{MemInstrs: len(mem), TypeBytes: (len(mem) + 3) / 4, CodeBytes: len(p.Instrs) * InstrBytes}
	for _, pc := range mem {
		ps := s.At(pc)
		switch ps.Type() {
		case PSetUntested:
			z.Untested++
			continue
		case PSetNull:
			z.Null++
		case PSetOne:
			z.One++
			z.PSetBytes += psetEntryBytes
		case PSetMany:
			z.Many++
			z.PSetBytes += len(ps.Preds)/psetMaxCount + 1 + psetEntryBytes*len(ps.Preds)
		}
		n := len(ps.Preds)
		z.Pairs += n
		for len(z.Sizes) <= n {
			z.Sizes = append(z.Sizes, 0)
		}
		z.Sizes[n]++
	}
	z.FileBytes = psetHeaderSize + z.TypeBytes + z.PSetBytes + 1 + psetCRCBytes
	return z, nil
}
