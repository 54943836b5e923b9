package isa

import (
	"slices"
	"testing"
)

// TestFaultOp checks the decoding of a faulting access: the op of a pc in
// the program for an aligned data word below the bound, nothing otherwise.
func TestFaultOp(t *testing.T) {
	p := &Program{Instrs: []Instruction{{Op: OpLd}, {Op: OpSt}, {Op: OpCas}}}
	hi := uint64(DataBase + 4*WordBytes)
	cases := []struct {
		name string
		p    *Program
		pc   int32
		addr uint64
		op   Op
		ok   bool
	}{
		{"load", p, 0, DataBase, OpLd, true},
		{"store", p, 1, DataBase + 3*WordBytes, OpSt, true},
		{"cas", p, 2, DataBase + WordBytes, OpCas, true},
		{"at the bound", p, 0, hi, 0, false},
		{"below the data", p, 0, DataBase - WordBytes, 0, false},
		{"unaligned", p, 0, DataBase + 4, 0, false},
		{"negative pc", p, -1, DataBase, 0, false},
		{"pc past the end", p, 3, DataBase, 0, false},
		{"no program", nil, 0, DataBase, 0, false},
	}
	for _, c := range cases {
		op, ok := c.p.FaultOp(c.pc, c.addr, hi)
		if op != c.op || ok != c.ok {
			t.Errorf("%s: FaultOp(%d, %#x) = %v, %v; want %v, %v", c.name, c.pc, c.addr, op, ok, c.op, c.ok)
		}
	}
}

// TestIsRMWAndWords checks the RMW opcodes and the word iterator.
func TestIsRMWAndWords(t *testing.T) {
	for op := Op(0); op < NumOps; op++ {
		want := op == OpCas || op == OpXchg || op == OpFadd
		if op.IsRMW() != want || op.IsRMW() && op.IsSync() {
			t.Errorf("%s: IsRMW %v", op, op.IsRMW())
		}
	}
	var got []uint64
	for a := range Words(DataBase, 3) {
		got = append(got, a)
	}
	if want := []uint64{DataBase, DataBase + 8, DataBase + 16}; !slices.Equal(got, want) {
		t.Errorf("Words: %#x, want %#x", got, want)
	}
	for range Words(DataBase, -2) {
		t.Errorf("Words of -2 yields")
	}
	n := 0
	for range Words(DataBase, 1<<62) {
		if n++; n == 2 {
			break
		}
	}
}
