package shadow_test

import (
	"testing"

	"weft/detectors/shadow"
	"weft/isa"
)

func TestMemoryGrowsAndKeepsWords(t *testing.T) {
	var m shadow.Memory[int]
	if got := m.End(); got != isa.DataBase {
		t.Fatalf("empty End = %#x, want %#x", got, isa.DataBase)
	}
	*m.Word(isa.DataBase + 8) = 7
	if got, want := m.End(), uint64(isa.DataBase+16); got != want {
		t.Fatalf("End after word 1 = %#x, want %#x", got, want)
	}
	// Touch far beyond the first allocation: the earlier word survives
	// the growth, and a word's sub-word addresses share its shadow.
	far := uint64(isa.DataBase + 1000*isa.WordBytes)
	*m.Word(far) = 9
	if *m.Word(isa.DataBase + 8) != 7 || *m.Word(isa.DataBase + 12) != 7 {
		t.Fatalf("word 1 lost across growth")
	}
	if *m.Word(far) != 9 || *m.Word(isa.DataBase) != 0 {
		t.Fatalf("words wrong after growth")
	}
	if got, want := m.End(), far+isa.WordBytes; got != want {
		t.Fatalf("End = %#x, want %#x", got, want)
	}
	// A lower word does not move the end.
	m.Word(isa.DataBase + 16)
	if got, want := m.End(), far+isa.WordBytes; got != want {
		t.Fatalf("End after a lower word = %#x, want %#x", got, want)
	}
}
