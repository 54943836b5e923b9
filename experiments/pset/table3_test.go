package pset

import (
	"strings"
	"testing"

	"weft/configs"
	"weft/isa"
	"weft/sim"
)

// t3Prog assembles a Table 3 test program.
func t3Prog(t *testing.T, src string) *isa.Program {
	t.Helper()
	p, err := isa.Assemble("t.s", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// t3Null is every instruction tested, with no predecessor.
func t3Null(p *isa.Program) isa.PSets {
	ps := make(isa.PSets, len(p.Instrs))
	for i := range ps {
		ps[i].Tested = true
	}
	return ps
}

// t3Count runs p once as Table 3 does and returns its count.
func t3Count(t *testing.T, p *isa.Program, ps isa.PSets) psetT3Count {
	t.Helper()
	c := configs.Default()
	c.Sim.JitterCycles = 0
	c.PSet.Recovery.StallTimeoutCycles = 2000
	js, cs := psetT3Jobs(p, c, ps, 1, 1)
	if _, err := sim.RunJobs(js, 1, nil); err != nil {
		t.Fatal(err)
	}
	return cs[0]
}

// TestT3Classification checks Table 3's observer on hand-built runs, each
// false violation counted once by how it ended (cases from an
// independent review, each of which the first observer got wrong).
func TestT3Classification(t *testing.T) {
	// One false violation no re-execution avoids (its predecessor ran
	// before the checkpoint the output forces): cannot resolve, once.
	p := t3Prog(t, `
.data
x: .word 0
.text
main:  spawn r5, t1, r0
       work 3000
       li r1, 7
       out r1
       ld r2, x
       join r5
       exit
t1:    li r3, 5
       st r3, x
       exit
`)
	if c := t3Count(t, p, t3Null(p)); c.stall != 0 || c.rollback != 0 || c.cannot != 1 || c.rollbacks == 0 {
		t.Errorf("unresolvable: stall %d, rollback %d, cannot %d (rollbacks %d); want cannot 1 after rollbacks", c.stall, c.rollback, c.cannot, c.rollbacks)
	}
	// Only true (@bug) violations: nothing counts.
	p = t3Prog(t, `
.data
x: .word 0
.text
main:  spawn r5, t1, r0
       work 100
       ld r2, x   @bug
       join r5
       exit
t1:    li r3, 5
       st r3, x   @bug
       exit
`)
	if c := t3Count(t, p, t3Null(p)); c.stall+c.rollback+c.cannot+c.rollbacks != 0 {
		t.Errorf("true violations only: stall %d, rollback %d, cannot %d, rollbacks %d", c.stall, c.rollback, c.cannot, c.rollbacks)
	}
	// A stall resolved in a span a later rollback discards counts once.
	p = t3Prog(t, `
.data
x: .word 0
pad: .space 120
z: .word 0
.text
main:  spawn r5, t1, r0
       spawn r6, t2, r0
       work 200
ml:    ld r2, x
       work 3000
       ld r3, z
       join r5
       join r6
       exit
t1:    li r3, 5
       st r3, x
       work 500
t1b:   st r3, x
       exit
t2:    li r3, 6
       st r3, z
       exit
`)
	ps := t3Null(p)
	ml, _ := p.LabelPC("ml")
	t1b, _ := p.LabelPC("t1b")
	ps[ml].Preds = []int32{int32(t1b)}
	if c := t3Count(t, p, ps); c.stall != 1 {
		t.Errorf("a stall resolved before a rollback: counted %d times", c.stall)
	}
	// Two stalls of one load in a loop, each resolved by a permitted
	// write: two, not one (the second is not the first's re-check).
	p = t3Prog(t, `
.data
x: .word 0
.text
main:  spawn r5, t1, r0
       li r7, 0
loop:  work 100
ml:    ld r2, x
       add r7, r7, 1
       blt r7, 12, loop
       join r5
       exit
t1:    li r3, 5
ta:    st r3, x
       work 300
tb:    st r3, x
       work 300
tc:    st r3, x
       work 300
td:    st r3, x
       exit
`)
	ps = t3Null(p)
	ml, _ = p.LabelPC("ml")
	tb, _ := p.LabelPC("tb")
	td, _ := p.LabelPC("td")
	ps[ml].Preds = []int32{int32(tb), int32(td)}
	for _, l := range []string{"ta", "tb", "tc", "td"} {
		pc, _ := p.LabelPC(l)
		ps[pc].Preds = []int32{int32(ml)}
	}
	if c := t3Count(t, p, ps); c.stall != 2 {
		t.Errorf("two stalls in a loop, each resolved: counted %d", c.stall)
	}
}

// The overhead comment's comparison of the machines follows the medians.
func TestOverheadCommentComparesMachines(t *testing.T) {
	for _, c := range []struct {
		atomic, split []float64
		want          string
	}{
		{[]float64{1, 2, 3}, []float64{4, 5, 6}, "the median is 5.0% (from 4.0% to 6.0%), more than on the atomic bus"},
		{[]float64{4, 5, 6}, []float64{1, 2, 3}, "the median is 2.0% (from 1.0% to 3.0%), less than on the atomic bus"},
		{[]float64{1, 2, 3}, nil, "No kernel passed both ways on the split bus"},
	} {
		if got := psetOverheadComment(c.atomic, c.split); !strings.Contains(got, c.want) {
			t.Errorf("atomic %v, split %v: comment %q lacks %q", c.atomic, c.split, got, c.want)
		}
	}
}

// Table 1's sentence on rows 16 and 17 follows what pset found.
func TestMisses16And17(t *testing.T) {
	if got := psetMisses16And17(map[int]bool{16: false, 17: false}); !strings.Contains(got, "PSet misses #16 (") || !strings.Contains(got, " and #17 (") || !strings.Contains(got, "as the paper's does") {
		t.Errorf("both missed: %q", got)
	}
	if got := psetMisses16And17(map[int]bool{16: true, 17: false}); !strings.Contains(got, "PSet misses #17 (") || !strings.Contains(got, "PSet finds #16, which the paper's misses") {
		t.Errorf("16 found: %q", got)
	}
	if got := psetMisses16And17(nil); got != "" {
		t.Errorf("no rows: %q", got)
	}
}

// The overhead's mode indices name the modes they compare.
func TestTable2ModeIndices(t *testing.T) {
	for i, want := range map[int]string{modeLogOnly: "log_only", modeOff: "off", modeSplitLogOnly: splitMode + "log_only", modeSplitOff: splitMode + "off"} {
		if table2Modes[i] != want {
			t.Errorf("table2Modes[%d] = %q, want %q", i, table2Modes[i], want)
		}
	}
}
