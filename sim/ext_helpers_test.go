package sim_test

import (
	"weft/coherence"
	"weft/cpu"
)

// checkExt is a test extension with no metadata that runs a check function
// in the check phase of every access.
type checkExt struct {
	name  string
	check func(*cpu.Access) cpu.Verdict
	port  *cpu.Port
}

func (x *checkExt) Name() string                { return x.name }
func (x *checkExt) Meta() coherence.MetaRequest { return coherence.MetaRequest{} }
func (x *checkExt) Attach(p *cpu.Port) error {
	x.port = p
	p.OnCheck(verdictOf(func(a *cpu.Access) cpu.Verdict { return x.check(a) }))
	return nil
}
func withCheck(f func(*cpu.Access) cpu.Verdict) *checkExt {
	return &checkExt{name: "check", check: f}
}

// verdictOf adapts a check that returns its verdict.
func verdictOf(f func(*cpu.Access) cpu.Verdict) cpu.CheckFunc {
	return func(a *cpu.Access, v *cpu.Verdict) { *v = f(a) }
}
