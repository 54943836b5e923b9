package cpu_test

import (
	"fmt"

	"weft/coherence"
	"weft/cpu"
	"weft/isa"
)

// writeCounter is a tiny hardware extension: it reserves no metadata and
// counts, in the perform phase, the accesses that wrote memory.
type writeCounter struct{ writes, rmws int }

func (x *writeCounter) Name() string                { return "writes" }
func (x *writeCounter) Meta() coherence.MetaRequest { return coherence.MetaRequest{} }
func (x *writeCounter) Attach(p *cpu.Port) error {
	p.OnPerform(func(a *cpu.Access) {
		if a.Stored {
			x.writes++
		}
		if a.RMW {
			x.rmws++
		}
	})
	return nil
}

// An extension attached to a one-core machine sees every access performed:
// three fetch-and-adds and a store write; the load does not.
func ExampleExtension() {
	prog, err := isa.Assemble("count.s", []byte(`
.data
x: .word 0
y: .word 0
.text
main:  li r1, 3
loop:  fadd r2, x, 1
       sub r1, r1, 1
       bnez r1, loop
       ld r3, x
       st r3, y
       out r3
       exit
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	x := &writeCounter{}
	m, err := cpu.New(cpu.Spec{Cores: 1, ALUCycles: 1, HitCycles: 1, MaxCycles: 1_000_000},
		coherence.Spec{Cores: 1, SizeBytes: 4096, Assoc: 4, LineBytes: 64, HitCycles: 1, BusWidth: 32,
			ArbCycles: 2, SnoopCycles: 4, C2CCycles: 10, MemCycles: 100},
		prog, 1, nil, x)
	if err != nil {
		fmt.Println(err)
		return
	}
	m.Start()
	m.Run()
	fmt.Println(m.Outcome().Kind, m.Outputs())
	fmt.Println("writes:", x.writes, "rmws:", x.rmws)
	// Output:
	// pass [3]
	// writes: 4 rmws: 3
}
