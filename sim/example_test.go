package sim_test

import (
	"fmt"

	"weft/configs"
	"weft/isa"
	"weft/sim"
)

// Two threads add to a counter under a lock; main prints the total, which
// .expect checks.
const counterSrc = `
.kernel counter
.expect 3
.data
n:      .word 0
L:      .word 0
.text
main:   spawn  r2, add, r0
        lock   L
        fadd   r3, n, 1
        unlock L
        join   r2
        ld     r4, n
        out    r4
        exit
add:    lock   L
        fadd   r3, n, 2
        unlock L
        exit
`

// Run assembles a program and runs it once on the default machine. The
// result is a function of the config, the program and the seed.
func ExampleRun() {
	prog, err := isa.Assemble("counter.s", []byte(counterSrc))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := sim.Run(configs.Default(), prog, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Workload, r.Outcome, r.Outputs, r.ThreadInstructions)
	// Output: counter pass [3] [8 4]
}
