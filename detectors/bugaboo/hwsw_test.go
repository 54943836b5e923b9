package bugaboo_test

import (
	"slices"
	"testing"

	"weft/configs"
	"weft/core"
	"weft/detectors/bugaboo"
	"weft/isa"
	"weft/sim"
)

// BB-SW and BB-HW build the same graph, edge for edge and count for count,
// when the hardware loses nothing: word-sized lines (no false sharing), an
// L1 large enough that nothing is evicted, no NULL-source edges, and a
// kernel whose communication is all cache to cache between two threads,
// each write following the other thread's (so the hardware's records,
// which carry no thread, never make a thread its own source). Main writes
// x once before the two threads pass it back and forth.
func TestHWAndSWGraphsAgreeWhenLossless(t *testing.T) {
	p, err := isa.Assemble("pingpong.s", []byte(`
.data
x: .word 0
.text
main:  li r1, 1
       st r1, x
       spawn r2, t1, r0
       spawn r3, t2, r0
       join r2
       join r3
       exit
t1:    li r5, 6
loop1: work 1000
w1:    st r5, x
       work 2000
rd1:   ld r6, x
       work 1000
       sub r5, r5, 1
       bnez r5, loop1
       exit
t2:    li r5, 6
       work 1000
loop2: work 1000
rd2:   ld r6, x
       work 1000
w2:    st r6, x
       work 2000
       sub r5, r5, 1
       bnez r5, loop2
       exit
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, distinct := range []bool{false, true} {
		for _, size := range []int{0, 2, 5} {
			cfg := configs.Default()
			cfg.Sim.JitterCycles = 0
			cfg.Cache.L1.LineBytes = 8
			cfg.Bugaboo.Enabled = true
			cfg.Bugaboo.Context.Size = size
			cfg.Bugaboo.Context.DistinctEmpty = distinct
			cfg.Bugaboo.CT.RecordMemoryMisses = false
			sw := bugaboo.NewSW(p, bugaboo.SWOptions{ContextSize: size, NoContext: size == 0, DistinctEmpty: distinct})
			hw := bugaboo.NewHW(p)
			r, err := sim.Run(cfg, p, 1, sim.WithDetector(sw), sim.WithDetector(hw))
			if err != nil || r.Outcome != core.Pass {
				t.Fatalf("run: %v %s", err, r.Outcome)
			}
			a, b := sw.Graph(), hw.Graph()
			if a.EdgeCount() == 0 || !slices.Equal(a.Edges(), b.Edges()) {
				t.Errorf("size %d distinct %v: SW edges %v\nHW edges %v", size, distinct, a.Edges(), b.Edges())
				continue
			}
			for _, e := range a.Edges() {
				if a.Count(e) != b.Count(e) {
					t.Errorf("size %d distinct %v: edge %v counted %d by SW, %d by HW", size, distinct, e, a.Count(e), b.Count(e))
				}
			}
		}
	}
}
