package core_test

import (
	"os"
	"strings"
	"testing"

	"weft/core"
)

// The README's event-contract table is the contract itself: a change to
// one must be made to the other.
func TestContractInReadme(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), core.ContractMarkdown()) {
		t.Errorf("README.md's event contract table differs from core.ContractMarkdown(); paste its output under \"## Event contract\"")
	}
}

// Every kind has a contract row, and every used field has a label and a
// description.
func TestContractComplete(t *testing.T) {
	for k := core.Kind(1); k < core.NumKinds; k++ {
		c := core.ContractOf(k)
		if c.Kind != k || c.Doc == "" || c.Group == "" {
			t.Errorf("%s: contract row %+v", k, c)
		}
		for _, f := range append([]core.Field{c.Core, c.Thread, c.PC, c.Addr, c.Value, c.List}, c.Words[:]...) {
			if f.Used() && f.Doc == "" || !f.Used() && f.Doc != "" {
				t.Errorf("%s: field %+v has a label without a description or the reverse", k, f)
			}
		}
	}
	e := core.Event{Kind: core.KindRead, Core: 0, Thread: 1, PC: 3, Addr: 0x10000, Words: [4]uint64{0, 5}, Flags: core.FlagC2C}
	err := core.ContractOf(core.KindRead).Check(&e)
	if err == nil || !strings.Contains(err.Error(), "Words[1] is 5, want 0 (unused)") || !strings.Contains(err.Error(), "Flags 0x4") {
		t.Errorf("Check of a bad Read: %v", err)
	}
}
