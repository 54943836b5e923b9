package analysis

import (
	"fmt"
	"slices"

	"weft/configs"
	"weft/detectors"
	"weft/isa"
	"weft/sim"
)

// AttachToSweep resolves a sweep's detectors key against the registry and
// sets plan.Detectors, so every run of the sweep gets fresh detectors
// configured from the first point's config. An unknown name, a detector
// whose hardware a point leaves off, and settings of conseq or falcon that
// differ between points (a sweep's detectors have one setting) are errors
// naming the file and line.
func AttachToSweep(plan *sim.SweepPlan) error {
	if len(plan.Sweep.Detectors) == 0 {
		return nil
	}
	s := make(Suite, len(plan.Sweep.Detectors))
	for i, name := range plan.Sweep.Detectors {
		d, err := detectors.Lookup(name)
		if err != nil {
			return &configs.SweepError{File: plan.Sweep.File, Line: plan.Sweep.DetectorsLine, Where: "detectors", Err: err}
		}
		s[i] = d
	}
	for _, pt := range plan.Points {
		bad := func(err error) error {
			return &configs.SweepError{File: plan.Sweep.File, Line: plan.Sweep.DetectorsLine, Where: fmt.Sprintf("point %d", pt.Index), Err: err}
		}
		if err := s.CheckHardware(pt.Config, "detectors"); err != nil {
			return bad(err)
		}
		first := plan.Points[0].Config
		if pt.Config.ConSeq != first.ConSeq && slices.Contains(plan.Sweep.Detectors, "conseq") {
			return bad(fmt.Errorf("the conseq detector's settings ([conseq]) differ between points; a sweep's detectors have one setting: sweep them in separate files"))
		}
		if (FalconOptions(pt.Config) != FalconOptions(first) || pt.Config.Falcon.Score != first.Falcon.Score) &&
			slices.Contains(plan.Sweep.Detectors, "falcon") {
			return bad(fmt.Errorf("the falcon detector's settings ([falcon], and cache.l1.line_bytes with line granularity) differ between points; a sweep's detectors have one setting: sweep them in separate files"))
		}
	}
	if len(plan.Points) > 0 {
		s = s.Configured(plan.Points[0].Config)
	}
	plan.Detectors = func(prog *isa.Program) []sim.Option { return s.Options(prog)() }
	return nil
}
