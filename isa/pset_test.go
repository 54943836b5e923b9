package isa

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
	"testing"
)

// psetProg has six memory instructions (pcs 0, 1, 3, 4, 5, 6) and two
// others (2, 7).
const psetProg = `
.data
x:   .word 0
y:   .word 0
l:   .word 0
.text
main:  ld    r1, x
       st    r1, x
       add   r2, r1, 1
       ld    r3, y
       lock  l
       unlock l
       fadd  r4, y, 1
       exit
`

func psetAssemble(t testing.TB, src string) *Program {
	t.Helper()
	p, err := Assemble("p.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// psetSample is a PSets of psetProg with every type.
func psetSample() PSets {
	s := make(PSets, 8)
	s[0] = PSet{Tested: true, Preds: []int32{1, 6}}    // many: count at 23, entries at 24, 28
	s[1] = PSet{Tested: true, Preds: []int32{0}}       // one: entry at 32
	s[3] = PSet{Tested: true}                          // null
	s[4] = PSet{Tested: true, Preds: []int32{5}}       // one: entry at 36
	s[6] = PSet{Tested: true, Preds: []int32{0, 3, 6}} // many: count at 40, entries at 41, 45, 49
	return s                                           // pc 5: untested; end at 53
}

func TestPSetTypes(t *testing.T) {
	s := psetSample()
	want := map[int32]PSetType{0: PSetMany, 1: PSetOne, 2: PSetUntested, 3: PSetNull, 4: PSetOne, 5: PSetUntested, 6: PSetMany, 7: PSetUntested, 99: PSetUntested}
	for pc, ty := range want {
		if got := s.At(pc).Type(); got != ty {
			t.Errorf("pc %d: type %v, want %v", pc, got, ty)
		}
	}
	if s.Pairs() != 7 {
		t.Errorf("pairs %d, want 7", s.Pairs())
	}
	if !s.At(6).Has(3) || s.At(6).Has(1) || s.At(3).Has(0) {
		t.Error("Has")
	}
	big := PSet{Tested: true}
	for i := range int32(40) {
		big.Preds = append(big.Preds, 2*i)
	}
	if !big.Has(38) || big.Has(39) || !big.Has(78) {
		t.Error("Has on a large set")
	}
	if PSetMany.String() != "many" || PSetUntested.String() != "untested" {
		t.Error("String")
	}
}

func TestPSetsRoundTrip(t *testing.T) {
	p := psetAssemble(t, psetProg)
	for name, s := range map[string]PSets{
		"sample":   psetSample(),
		"empty":    nil,
		"all null": {{Tested: true}, {Tested: true}, {}, {Tested: true}, {Tested: true}, {Tested: true}, {Tested: true}},
		"short":    {{Tested: true, Preds: []int32{1}}},
	} {
		b, err := EncodePSets(p, s)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := DecodePSets(p, "f.pset", b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !back.Equal(s) || len(back) != len(p.Instrs) {
			t.Errorf("%s: round trip gave %v, want %v", name, back, s)
		}
		z, err := EncodedSize(p, s)
		if err != nil {
			t.Fatal(err)
		}
		if z.FileBytes != len(b) {
			t.Errorf("%s: EncodedSize says %d bytes, the encoding has %d", name, z.FileBytes, len(b))
		}
	}
	b, _ := EncodePSets(p, psetSample())
	if len(b) != 58 || b[23] != 2 || b[40] != 3 || binary.BigEndian.Uint32(b[49:]) != 6*InstrBytes || b[53] != 0 ||
		binary.BigEndian.Uint32(b[54:]) != crc32.ChecksumIEEE(b[:54]) {
		t.Fatalf("layout: % x", b)
	}
	// A version 1 file (no flags byte) reads as flags 0; the flags
	// round-trip.
	v1 := slices.Clone(b[:53])
	v1[4] = 1
	if s, f, err := DecodePSetsFlags(p, "v1.pset", v1); err != nil || f != PSetUnrecorded || !s.Equal(psetSample()) {
		t.Errorf("version 1: %v, flags %d", err, f)
	}
	nb, _ := EncodePSetsFlags(p, psetSample(), PSetNoSync)
	if _, f, err := DecodePSetsFlags(p, "nosync.pset", nb); err != nil || f != PSetNoSync {
		t.Errorf("flags: %v, %d", err, f)
	}
	// Types: pcs 0,1,3,4 = many, one, null, one; pcs 5,6 = untested, many.
	if b[21] != 0b11_10_01_10 || b[22] != 0b00_11_0000 {
		t.Errorf("types % 08b", b[21:23])
	}
}

func TestPSetSize(t *testing.T) {
	p := psetAssemble(t, psetProg)
	z, err := EncodedSize(p, psetSample())
	if err != nil {
		t.Fatal(err)
	}
	want := PSetSize{MemInstrs: 6, Untested: 1, Null: 1, One: 2, Many: 2, Pairs: 7,
		PSetBytes: 7*4 + 2, TypeBytes: 2, FileBytes: 58, CodeBytes: 8 * InstrBytes, Sizes: []int{1, 2, 1, 1}}
	if fmt.Sprint(z) != fmt.Sprint(want) || !slices.Equal(z.Sizes, want.Sizes) {
		t.Errorf("size\n%+v, want\n%+v", z, want)
	}
	if z.BytesPerPair() != 30.0/7 || z.CodeShare() != 30.0/32 {
		t.Errorf("per pair %v, share %v", z.BytesPerPair(), z.CodeShare())
	}
	if !strings.Contains(z.String(), "7 pairs, 30 bytes (4.29 per pair") {
		t.Errorf("String: %s", z)
	}
	if (PSetSize{}).BytesPerPair() != 0 || (PSetSize{}).CodeShare() != 0 {
		t.Error("zero size")
	}
}

// TestPSetsOverflow round-trips sets of 254 to 600 predecessors through
// the chained counts.
func TestPSetsOverflow(t *testing.T) {
	var src strings.Builder
	src.WriteString(".data\nx: .word 0\n.text\nmain:\n")
	for range 600 {
		src.WriteString("  st r1, x\n")
	}
	src.WriteString("  ld r2, x\n  exit\n")
	p := psetAssemble(t, src.String())
	ld := int32(600)
	for _, n := range []int{254, 255, 256, 509, 510, 511, 600} {
		s := make(PSets, len(p.Instrs))
		for i := range n {
			s[ld].Preds = append(s[ld].Preds, int32(i))
		}
		s[ld].Tested = true
		b, err := EncodePSets(p, s)
		if err != nil {
			t.Fatal(err)
		}
		counts := n/255 + 1
		if want := psetHeaderSize + 601/4 + 1 + counts + 4*n + 1 + psetCRCBytes; len(b) != want {
			t.Errorf("n=%d: %d bytes, want %d", n, len(b), want)
		}
		back, err := DecodePSets(p, "big.pset", b)
		if err != nil {
			t.Fatalf("n=%d: %v", n, err)
		}
		if !back.Equal(s) {
			t.Errorf("n=%d: round trip lost predecessors (%d back)", n, len(back.At(ld).Preds))
		}
		z, _ := EncodedSize(p, s)
		if z.FileBytes != len(b) || z.PSetBytes != counts+4*n {
			t.Errorf("n=%d: size %+v vs %d bytes", n, z, len(b))
		}
	}
}

func TestPSetsValidate(t *testing.T) {
	p := psetAssemble(t, psetProg)
	bad := func(edit func(s PSets) PSets, want string) {
		t.Helper()
		s := edit(psetSample())
		err := s.Validate(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate: %v, want %q", err, want)
		}
		if _, err := EncodePSets(p, s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("EncodePSets: %v, want %q", err, want)
		}
		if _, err := EncodedSize(p, s); err == nil {
			t.Errorf("EncodedSize accepted %q", want)
		}
	}
	bad(func(s PSets) PSets { return append(s, PSet{}) }, "PSets for 9 PCs, but the program has 8")
	bad(func(s PSets) PSets { s[2].Tested = true; return s }, "pc 2 (add r2, r1, 1) has a PSet but is not a memory instruction")
	bad(func(s PSets) PSets { s[5].Preds = []int32{4}; return s }, "pc 5 (unlock l) is untested but has 1 predecessors")
	bad(func(s PSets) PSets { s[1].Preds = []int32{7}; return s }, "pc 7 (exit) is not a memory instruction")
	bad(func(s PSets) PSets { s[1].Preds = []int32{8}; return s }, "pc 8 is outside the program (8 instructions)")
	bad(func(s PSets) PSets { s[1].Preds = []int32{-1}; return s }, "pc -1 is outside the program")
	bad(func(s PSets) PSets { s[3].Preds = []int32{0}; return s }, "pc 0 (ld r1, x) is a load, and a load never precedes a load")
	bad(func(s PSets) PSets { s[6].Preds = []int32{0, 6, 3}; return s }, "not ascending and distinct (3 after 6)")
	bad(func(s PSets) PSets { s[6].Preds = []int32{0, 0}; return s }, "not ascending and distinct (0 after 0)")
	if err := psetSample().Validate(p); err != nil {
		t.Error(err)
	}
}

// TestDecodePSetsErrors corrupts the sample's encoding in every way the
// decoder checks.
func TestDecodePSetsErrors(t *testing.T) {
	p := psetAssemble(t, psetProg)
	sealed, err := EncodePSets(p, psetSample())
	if err != nil {
		t.Fatal(err)
	}
	// The cases edit the bytes the checksum covers and seal them again, so
	// that each reaches the check it is about (TestPSetChecksum flips and
	// cuts sealed files); raw cases are not sealed again.
	good := sealed[:len(sealed)-4]
	put32 := func(off int, v uint32) func(b []byte) []byte {
		return func(b []byte) []byte { binary.BigEndian.PutUint32(b[off:], v); return b }
	}
	set := func(off int, v byte) func(b []byte) []byte {
		return func(b []byte) []byte { b[off] = v; return b }
	}
	cut := func(n int) func(b []byte) []byte { return func(b []byte) []byte { return b[:n] } }
	for _, tc := range []struct {
		name string
		edit func(b []byte) []byte
		off  int
		pc   int32
		want string
		raw  bool
	}{
		{"empty", cut(0), 0, -1, "truncated: the header needs 21 bytes, the file has 0 left", true},
		{"short header", cut(20), 0, -1, "the header needs 21 bytes, the file has 20 left", true},
		{"magic", set(0, 'X'), 0, -1, `not a PSet file: magic "XPST", want "WPST"`, false},
		{"version", set(4, 9), 4, -1, "unsupported version 9 (want 1 to 3)", false},
		{"version 1 with flags", set(4, 1), 53, -1, "1 trailing bytes after the flags", true},
		{"flags", set(53, 0x82), 53, -1, "unknown flags 0x82", false},
		{"memory count", put32(17, 7), 17, -1, "the header counts 7 memory instructions, the program has 6", false},
		{"types", cut(22), 21, -1, "truncated: the types of 6 memory instructions needs 2 bytes, the file has 1 left", false},
		{"padding", set(22, 0b00_11_0001), 22, -1, "nonzero padding bits after the last type (byte 0x31)", false},
		{"count", cut(23), 23, 0, "PSet of pc 0 (ld r1, x): truncated: a count needs 1 bytes, the file has 0 left", false},
		{"entry", cut(30), 28, 0, "PSet of pc 0 (ld r1, x): truncated: an entry needs 4 bytes, the file has 2 left", false},
		{"last entry", cut(52), 49, 6, "PSet of pc 6 (fadd r4, y, 1): truncated: an entry needs 4 bytes", false},
		{"count 1", set(23, 1), 23, 0, "PSet of pc 0 (ld r1, x): type 11 (many) with count 1, want at least 2", false},
		{"count 0", set(40, 0), 40, 6, "PSet of pc 6 (fadd r4, y, 1): type 11 (many) with count 0, want at least 2", false},
		{"library", put32(32, 3<<28), 32, 1, "PSet of pc 1 (st r1, x): entry 0x30000000 names library 3; the program is library 0", false},
		{"misaligned", put32(36, 5*4+2), 36, 4, "PSet of pc 4 (lock l): entry 0x00000016 names byte offset 22, not an instruction boundary", false},
		{"outside", put32(32, 8*4), 32, 1, "PSet of pc 1 (st r1, x): entry 0x00000020: predecessor pc 8 is outside the program (8 instructions)", false},
		{"far outside", put32(32, 0x0ffffffc), 32, 1, "predecessor pc 67108863 is outside the program", false},
		{"not memory", put32(36, 2*4), 36, 4, "PSet of pc 4 (lock l): entry 0x00000008: predecessor pc 2 (add r2, r1, 1) is not a memory instruction", false},
		{"load after load", put32(24, 3*4), 24, 0, "PSet of pc 0 (ld r1, x): entry 0x0000000c: predecessor pc 3 (ld r3, y) is a load, and a load never precedes a load", false},
		{"repeated", put32(45, 0), 45, 6, "PSet of pc 6 (fadd r4, y, 1): entry 0x00000000 names pc 0 again, after pc 0: entries must ascend", false},
		{"descending", put32(49, 1*4), 49, 6, "names pc 1 after pc 3: entries must ascend", false},
		{"trailing", func(b []byte) []byte { return append(b, 0, 0) }, 54, -1, "2 trailing bytes after the flags", false},
		{"no flags", cut(53), 53, -1, "truncated: the flags needs 1 bytes, the file has 0 left", false},
		{"type changed", set(21, 0b11_10_01_11), 36, 4, "PSet of pc 4 (lock l): type 11 (many) with count 0", false}, // its entry's first byte is the count
	} {
		b := tc.edit(slices.Clone(good))
		if !tc.raw {
			b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
		}
		_, err := DecodePSets(p, "bad.pset", b)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		var pe *PSetsError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %T %v, want a *PSetsError", tc.name, err, err)
			continue
		}
		prefix := fmt.Sprintf("bad.pset: byte %d: ", tc.off)
		if !strings.HasPrefix(err.Error(), prefix) || !strings.Contains(err.Error(), tc.want) || pe.PC != tc.pc || pe.Offset != tc.off {
			t.Errorf("%s: %v (pc %d), want %q%s (pc %d)", tc.name, err, pe.PC, prefix, tc.want, tc.pc)
		}
	}
}

// TestDecodePSetsOtherProgram rejects a file made for another program,
// naming the file and both programs.
func TestDecodePSetsOtherProgram(t *testing.T) {
	p := psetAssemble(t, psetProg)
	b, err := EncodePSets(p, psetSample())
	if err != nil {
		t.Fatal(err)
	}
	for _, other := range []string{
		strings.Replace(psetProg, "add   r2, r1, 1", "add   r2, r1, 2", 1), // same size, other code
		psetProg + "  nop\n", // one more instruction
		strings.Replace(psetProg, "x:   .word 0", "x:   .word 1", 1), // other data
	} {
		q := psetAssemble(t, other)
		_, err := DecodePSets(q, "other.pset", b)
		h, hq := psetHash(p), psetHash(q)
		want := fmt.Sprintf("other.pset: PSets of another program: the file's program has hash %x and 8 instructions, this program has hash %x and %d",
			h[:], hq[:], len(q.Instrs))
		if err == nil || err.Error() != want {
			t.Errorf("got %v\nwant %s", err, want)
		}
	}
}

// TestDecodePSetsNeverPanics decodes every prefix and every single-byte
// change of the sample's encoding: each is the sample or an error.
func TestDecodePSetsNeverPanics(t *testing.T) {
	p := psetAssemble(t, psetProg)
	good, _ := EncodePSets(p, psetSample())
	for n := range len(good) {
		if _, err := DecodePSets(p, "f", good[:n]); err == nil {
			t.Errorf("prefix of %d bytes decoded", n)
		}
	}
	for i := range good {
		for _, v := range []byte{0, 1, 2, 3, 4, 0x55, 0x80, 0xff} {
			b := slices.Clone(good)
			b[i] = v
			s, flags, err := DecodePSetsFlags(p, "f", b)
			if err == nil {
				if err := s.Validate(p); err != nil {
					t.Errorf("byte %d = %#x decoded to invalid PSets: %v", i, v, err)
				}
				if back, err := EncodePSetsFlags(p, s, flags); err != nil || string(back) != string(b) {
					t.Errorf("byte %d = %#x: decoded PSets re-encode differently", i, v)
				}
			}
		}
	}
}

func FuzzDecodePSets(f *testing.F) {
	p := psetAssemble(f, psetProg)
	good, _ := EncodePSets(p, psetSample())
	f.Add(good)
	f.Add(good[:30])
	v1 := append([]byte{}, good[:len(good)-1]...)
	v1[4] = 1
	f.Add(v1)
	f.Fuzz(func(t *testing.T, b []byte) {
		s, flags, err := DecodePSetsFlags(p, "f", b)
		if err != nil {
			return
		}
		if err := s.Validate(p); err != nil {
			t.Fatalf("decoded invalid PSets: %v", err)
		}
		want := b
		if flags&PSetUnrecorded != 0 {
			// A version 1 file re-encodes as version 2 with no flags.
			want = append(append([]byte{}, b...), 0)
			want[4] = psetVersion
			flags = 0
		}
		back, err := EncodePSetsFlags(p, s, flags)
		if err != nil || string(back) != string(want) {
			t.Fatalf("decoded PSets re-encode differently: %v", err)
		}
	})
}

// TestPSetChecksum rejects every single-bit flip and every cut of a PSet
// file, naming the file, and still reads a version 2 file (no checksum).
func TestPSetChecksum(t *testing.T) {
	p := psetAssemble(t, psetProg)
	good, err := EncodePSetsFlags(p, psetSample(), PSetNoSync)
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(good) * 8 {
		b := slices.Clone(good)
		b[i/8] ^= 1 << (i % 8)
		if _, _, err := DecodePSetsFlags(p, "flip.pset", b); err == nil || !strings.HasPrefix(err.Error(), "flip.pset") {
			t.Errorf("bit %d of byte %d flipped: %v", i%8, i/8, err)
		}
	}
	for n := range len(good) {
		if _, _, err := DecodePSetsFlags(p, "cut.pset", good[:n]); err == nil {
			t.Errorf("cut to %d of %d bytes: accepted", n, len(good))
		}
	}
	v2 := slices.Clone(good[:len(good)-4])
	v2[4] = 2
	s, flags, err := DecodePSetsFlags(p, "v2.pset", v2)
	if err != nil || !s.Equal(psetSample()) || flags != PSetNoSync {
		t.Errorf("version 2 file: %v, flags %v", err, flags)
	}
}
