package hb_test

import (
	"fmt"

	"weft/configs"
	"weft/detectors/hb"
	"weft/isa"
	"weft/sim"
)

// Two threads add to a counter without a lock.
const racySrc = `
.data
n:      .word 0
.text
main:   spawn  r2, add, r0
        ld     r3, n
        add    r3, r3, 1
        st     r3, n
        join   r2
        exit
add:    ld     r4, n
        add    r4, r4, 1
        st     r4, n
        exit
`

// New makes a detector for one run of a program; sim.WithDetector attaches
// it, and the run's result holds its findings.
func ExampleNew() {
	prog, err := isa.Assemble("racy.s", []byte(racySrc))
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := sim.Run(configs.Default(), prog, 1, sim.WithDetector(hb.New(prog, hb.Options{})))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range r.Findings {
		fmt.Printf("%s %s at pcs %v: %s / %s\n", f.Detector, f.Kind, f.PCs, prog.InstrText(f.PCs[0]), prog.InstrText(f.PCs[1]))
	}
	// Output:
	// hb race at pcs [3 6]: st r3, n / ld r4, n
	// hb race at pcs [3 8]: st r3, n / st r4, n
}
