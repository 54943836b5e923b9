package isa

import (
	"strings"
	"testing"
)

func TestForceDirective(t *testing.T) {
	src := ".force \"seed=14\"\n.force \"seed=3 sim.jitter_cycles=0 machine.cores=4\"\n.text\nmain: exit\n"
	p, err := Assemble("f.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Force) != 2 || p.Force[0].Seed != 14 || !p.Force[0].HasSeed || len(p.Force[0].Sets) != 0 ||
		p.Force[1].Seed != 3 || strings.Join(p.Force[1].Sets, ",") != "sim.jitter_cycles=0,machine.cores=4" {
		t.Fatalf("forcings %+v", p.Force)
	}
	back, err := Assemble("d.s", []byte(Disassemble(p)))
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Force) != 2 || back.Force[1].String() != "seed=3 sim.jitter_cycles=0 machine.cores=4" {
		t.Errorf("round trip lost forcings: %+v", back.Force)
	}
	built, err := NewBuilder("b").Force("seed=14").Label("main").Exit().Program()
	if err != nil || len(built.Force) != 1 || built.Force[0].Seed != 14 {
		t.Errorf("builder forcing: %+v, %v", built, err)
	}
}

func TestForceDirectiveErrors(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{`seed=14`, "unexpected character"},
		{`14`, "want a string"},
		{`""`, "empty forcing"},
		{`"seed=x"`, `bad seed "x"`},
		{`"seed=-1"`, `bad seed "-1"`},
		{`"seed=1 seed=2"`, "seed given twice"},
		{`"jitter"`, `bad forcing assignment "jitter"`},
		{`"=3"`, `bad forcing assignment "=3"`},
	} {
		_, err := Assemble("f.s", []byte(".text\nmain: exit\n.force "+tc.arg+"\n"))
		if err == nil || !strings.Contains(err.Error(), "f.s:3:") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf(".force %s: error %v, want f.s:3 and %q", tc.arg, err, tc.want)
		}
	}
	if _, err := NewBuilder("b").Force("seed").Label("main").Exit().Program(); err == nil {
		t.Error("builder accepted a bad forcing")
	}
}

func TestCoresDirectiveBounds(t *testing.T) {
	for _, n := range []string{"0", "65", "100"} {
		_, err := Assemble("c.s", []byte(".cores "+n+"\n.text\nmain: exit\n"))
		if err == nil || !strings.Contains(err.Error(), "c.s:1:") || !strings.Contains(err.Error(), "want 1 to 64") {
			t.Errorf(".cores %s: %v", n, err)
		}
	}
	if p, err := Assemble("c.s", []byte(".cores 64\n.text\nmain: exit\n")); err != nil || p.MinCores != 64 {
		t.Errorf(".cores 64: %v", err)
	}
}
