package analysis

import (
	"fmt"
	"slices"

	"weft/configs"
	"weft/core"
	"weft/detectors"
	"weft/detectors/conseq"
	"weft/detectors/falcon"
	"weft/isa"
)

// Configured returns the suite with each detector that has settings in
// the config given them (falcon: [falcon], conseq: [conseq]); the others
// are as the registry has them.
func (s Suite) Configured(cfg configs.Config) Suite {
	out := slices.Clone(s)
	for i, d := range out {
		switch d.Name {
		case "falcon":
			out[i] = detectors.Falcon(FalconOptions(cfg), FalconScore(cfg))
		case "conseq":
			out[i] = detectors.ConSeq(ConSeqConfig(cfg))
		}
	}
	return out
}

// ConSeqConfig converts the [conseq] table (valid) to the detector's
// configuration (its invariants are learned by weft conseq only).
func ConSeqConfig(cfg configs.Config) conseq.Config {
	q := cfg.ConSeq
	c := conseq.Config{Options: conseq.Options{MaxDistance: q.MaxDistance,
		AssertRoutines: configs.SplitList(q.AssertRoutines), ErrorRoutines: configs.SplitList(q.ErrorRoutines),
		OutputRoutines: configs.SplitList(q.OutputRoutines)}, NoAdHocSync: !q.AdHocSync}
	if q.Model == "instruction" {
		c.Model = conseq.Instruction
	}
	on := map[string]bool{}
	for _, k := range configs.SplitList(q.Sites) {
		on[k] = true
	}
	for k := conseq.Kind(0); k < conseq.NumKinds; k++ {
		if !on[k.String()] {
			c.Disabled |= k.Mask()
		}
	}
	return c
}

// FalconOptions converts the [falcon] table (valid) to the detector's
// options.
func FalconOptions(cfg configs.Config) falcon.Options {
	f := cfg.Falcon
	return falcon.Options{Window: f.Window, Line: f.Granularity == "line", LineBytes: cfg.Cache.L1.LineBytes,
		AllCode: f.Scope == "all", KeyByAddr: f.KeyByAddr}
}

// FalconScore converts falcon.score (valid).
func FalconScore(cfg configs.Config) falcon.Score {
	s, _ := falcon.ParseScore(cfg.Falcon.Score)
	return s
}

// CheckOracle rejects falcon on a program that cannot fail (no assert,
// fail or .expect): its ranking needs failing runs.
func (s Suite) CheckOracle(prog *isa.Program) error {
	if !slices.ContainsFunc(s, func(d detectors.Info) bool { return d.Name == "falcon" }) || prog.HasExpect {
		return nil
	}
	for _, in := range prog.Instrs {
		if in.Op == isa.OpAssert || in.Op == isa.OpFail {
			return nil
		}
	}
	return fmt.Errorf("falcon ranks patterns by the runs that fail, but %s has no oracle (no assert, fail or .expect): no run can fail", prog.Name)
}

// CheckHardware rejects detectors that read events a hardware extension
// makes when cfg leaves it off (bbhw reads BB-HW's drained graphs); where
// starts the message.
func (s Suite) CheckHardware(cfg configs.Config, where string) error {
	for _, d := range s {
		if d.Kinds.Has(core.KindCTDrain) && !cfg.Bugaboo.Enabled {
			return fmt.Errorf("%s: %s reads the graphs Bugaboo's hardware drains, which is off: add --set bugaboo.enabled=true", where, d.Name)
		}
	}
	return nil
}

// Check runs every detector's own Check on prog (a ConSeq routine the
// program lacks, …).
func (s Suite) Check(prog *isa.Program) error { return detectors.CheckAll(s, prog) }
