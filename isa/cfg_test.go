package isa

import (
	"fmt"
	"reflect"
	"testing"
)

// cfgWant is the expected shape of a CFG.
type cfgWant struct {
	blocks  [][2]int32 // [Start, End)
	succs   [][]int
	idom    []int
	ipdom   []int
	loops   []Loop
	entries []int
}

func checkCFG(t *testing.T, src string, w cfgWant) *CFG {
	t.Helper()
	g := BuildCFG(mustAssemble(t, "cfg.s", src))
	var blocks [][2]int32
	var succs [][]int
	for _, b := range g.Blocks {
		blocks = append(blocks, [2]int32{b.Start, b.End})
		succs = append(succs, b.Succs)
	}
	if !reflect.DeepEqual(blocks, w.blocks) {
		t.Errorf("blocks = %v, want %v", blocks, w.blocks)
	}
	if !reflect.DeepEqual(succs, w.succs) {
		t.Errorf("succs = %v, want %v", succs, w.succs)
	}
	// Preds mirror succs.
	for i, b := range g.Blocks {
		for _, s := range b.Succs {
			if !containsInt(g.Blocks[s].Preds, i) {
				t.Errorf("block %d -> %d missing from preds %v", i, s, g.Blocks[s].Preds)
			}
		}
	}
	if !reflect.DeepEqual(g.IDom, w.idom) {
		t.Errorf("idom = %v, want %v", g.IDom, w.idom)
	}
	if !reflect.DeepEqual(g.IPDom, w.ipdom) {
		t.Errorf("ipdom = %v, want %v", g.IPDom, w.ipdom)
	}
	if len(g.Loops) != 0 || len(w.loops) != 0 {
		if !reflect.DeepEqual(g.Loops, w.loops) {
			t.Errorf("loops = %+v, want %+v", g.Loops, w.loops)
		}
	}
	if w.entries != nil && !reflect.DeepEqual(g.Entries, w.entries) {
		t.Errorf("entries = %v, want %v", g.Entries, w.entries)
	}
	for pc := range g.BlockOf {
		b := g.Blocks[g.BlockOf[pc]]
		if int32(pc) < b.Start || int32(pc) >= b.End {
			t.Errorf("BlockOf[%d] = %d %+v", pc, g.BlockOf[pc], b)
		}
	}
	return g
}

func TestCFGDiamond(t *testing.T) {
	g := checkCFG(t, `
main:   beqz r1, else
        li   r2, 1
        jmp  join
else:   li   r2, 2
join:   out  r2
        exit
`, cfgWant{
		blocks:  [][2]int32{{0, 1}, {1, 3}, {3, 4}, {4, 6}},
		succs:   [][]int{{1, 2}, {3}, {3}, nil},
		idom:    []int{VirtualEntry, 0, 0, 0},
		ipdom:   []int{3, 3, 3, VirtualExit},
		entries: []int{0},
	})
	if !g.Dominates(0, 3) || g.Dominates(1, 3) || !g.Dominates(3, 3) {
		t.Error("Dominates")
	}
	if !g.PostDominates(3, 0) || g.PostDominates(1, 0) || g.PostDominates(0, 3) {
		t.Error("PostDominates")
	}
	if !reflect.DeepEqual(g.Blocks[3].Preds, []int{1, 2}) || !g.Blocks[3].Exit || g.Blocks[0].Exit {
		t.Errorf("join block %+v", g.Blocks[3])
	}
}

func TestCFGNestedLoops(t *testing.T) {
	g := checkCFG(t, `
main:   li   r1, 0
outer:  li   r2, 0
inner:  add  r2, r2, 1
        blt  r2, 10, inner
        add  r1, r1, 1
        blt  r1, 10, outer
        exit
`, cfgWant{
		blocks: [][2]int32{{0, 1}, {1, 2}, {2, 4}, {4, 6}, {6, 7}},
		succs:  [][]int{{1}, {2}, {2, 3}, {1, 4}, nil},
		idom:   []int{VirtualEntry, 0, 1, 2, 3},
		ipdom:  []int{1, 2, 3, 4, VirtualExit},
		loops: []Loop{
			{Header: 1, Latches: []int{3}, Body: []int{1, 2, 3}, Parent: -1, Depth: 1},
			{Header: 2, Latches: []int{2}, Body: []int{2}, Parent: 0, Depth: 2},
		},
	})
	if g.LoopOf(2) != 1 || g.LoopOf(3) != 0 || g.LoopOf(4) != -1 {
		t.Errorf("LoopOf: %d %d %d", g.LoopOf(2), g.LoopOf(3), g.LoopOf(4))
	}
}

func TestCFGLoopWithEarlyExit(t *testing.T) {
	checkCFG(t, `
.data
flag:   .word 0
.text
main:   li   r1, 0
loop:   ld   r2, flag
        bnez r2, done
        add  r1, r1, 1
        blt  r1, 100, loop
        out  r1
done:   exit
`, cfgWant{
		blocks: [][2]int32{{0, 1}, {1, 3}, {3, 5}, {5, 6}, {6, 7}},
		succs:  [][]int{{1}, {2, 4}, {1, 3}, {4}, nil},
		idom:   []int{VirtualEntry, 0, 1, 2, 1},
		ipdom:  []int{1, 4, 4, 4, VirtualExit},
		loops:  []Loop{{Header: 1, Latches: []int{2}, Body: []int{1, 2}, Parent: -1, Depth: 1}},
	})
}

func TestCFGCallsSpawnsAndEndlessLoops(t *testing.T) {
	g := checkCFG(t, `
.func main
main:   spawn r1, spin, r0
        call  f
        exit
.func spin
spin:   jmp   spin
.func f
f:      beqz  r1, f2
        ret
f2:     ret
        nop                     # unreachable
`, cfgWant{
		blocks:  [][2]int32{{0, 3}, {3, 4}, {4, 5}, {5, 6}, {6, 7}, {7, 8}},
		succs:   [][]int{nil, {1}, {3, 4}, nil, nil, nil},
		idom:    []int{VirtualEntry, VirtualEntry, VirtualEntry, 2, 2, NoBlock},
		ipdom:   []int{VirtualExit, NoBlock, VirtualExit, VirtualExit, VirtualExit, VirtualExit},
		loops:   []Loop{{Header: 1, Latches: []int{1}, Body: []int{1}, Parent: -1, Depth: 1}},
		entries: []int{0, 1, 2},
	})
	if want := []Site{{PC: 1, Block: 0, Target: 2}}; !reflect.DeepEqual(g.Calls, want) {
		t.Errorf("calls = %+v", g.Calls)
	}
	if want := []Site{{PC: 0, Block: 0, Target: 1}}; !reflect.DeepEqual(g.Spawns, want) {
		t.Errorf("spawns = %+v", g.Spawns)
	}
	if g.PostDominates(0, 1) || g.PostDominates(1, 1) || g.Dominates(5, 5) {
		t.Error("a block that cannot exit or be reached has no (post-)dominators")
	}
}

func TestCFGIrreducible(t *testing.T) {
	// a and b form a cycle entered at both: neither dominates the other, so
	// there is no natural loop.
	checkCFG(t, `
main:   beqz r1, b
a:      nop
b:      bnez r2, a
        exit
`, cfgWant{
		blocks: [][2]int32{{0, 1}, {1, 2}, {2, 3}, {3, 4}},
		succs:  [][]int{{1, 2}, {2}, {1, 3}, nil},
		idom:   []int{VirtualEntry, 0, 0, 2},
		ipdom:  []int{2, 2, 3, VirtualExit},
	})
}

func TestCFGHandMade(t *testing.T) {
	// Targets out of range and no main must not panic.
	p := &Program{Instrs: []Instruction{
		{Op: OpBeq, Target: 99},
		{Op: OpJmp, Target: -3},
		{Op: OpCall, Target: 1000},
		{Op: OpNop},
	}}
	g := BuildCFG(p)
	if len(g.Blocks) != 3 || !g.Blocks[0].Exit || !g.Blocks[1].Exit || !g.Blocks[2].Exit {
		t.Errorf("blocks %+v", g.Blocks)
	}
	if g := BuildCFG(&Program{}); len(g.Blocks) != 0 || g.Dominates(0, 0) {
		t.Error("empty program")
	}
}

func ExampleBuildCFG() {
	p, err := Assemble("loop.s", []byte(`
main:   li   r1, 0
loop:   add  r1, r1, 1
        blt  r1, 10, loop
        out  r1
        exit
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	g := BuildCFG(p)
	for i, b := range g.Blocks {
		fmt.Printf("block %d: pcs [%d,%d) succs %v ipdom %d\n", i, b.Start, b.End, b.Succs, g.IPDom[i])
	}
	for _, l := range g.Loops {
		fmt.Printf("loop at block %d: body %v\n", l.Header, l.Body)
	}
	// Output:
	// block 0: pcs [0,1) succs [1] ipdom 1
	// block 1: pcs [1,3) succs [1 2] ipdom 2
	// block 2: pcs [3,5) succs [] ipdom -1
	// loop at block 1: body [1]
}
