package sweep

import (
	"fmt"
	"slices"

	"weft/analysis"
	"weft/isa"
	"weft/sim"
)

// AttachDetectors resolves the spec's detectors key against the registry
// (through analysis, the detection pipeline) and sets p.Detectors, so
// every run of the sweep gets fresh detectors configured from the first
// point's config. An unknown name, a detector whose hardware a point
// leaves off, and settings of conseq or falcon that differ between points
// (a sweep's detectors have one setting) are errors naming the file and
// line. A spec without detectors leaves the plan as it is.
func (p *Plan) AttachDetectors() error {
	if len(p.Spec.Detectors) == 0 {
		return nil
	}
	s, err := analysis.Lookup(p.Spec.Detectors...)
	if err != nil {
		return &Error{File: p.Spec.File, Line: p.Spec.DetectorsLine, Where: "detectors", Err: err}
	}
	for _, pt := range p.Points {
		bad := func(err error) error {
			return &Error{File: p.Spec.File, Line: p.Spec.DetectorsLine, Where: fmt.Sprintf("point %d", pt.Index), Err: err}
		}
		if err := s.CheckHardware(pt.Config, "detectors"); err != nil {
			return bad(err)
		}
		first := p.Points[0].Config
		if pt.Config.ConSeq != first.ConSeq && slices.Contains(p.Spec.Detectors, "conseq") {
			return bad(fmt.Errorf("the conseq detector's settings ([conseq]) differ between points; a sweep's detectors have one setting: sweep them in separate files"))
		}
		if (analysis.FalconOptions(pt.Config) != analysis.FalconOptions(first) || pt.Config.Falcon.Score != first.Falcon.Score) &&
			slices.Contains(p.Spec.Detectors, "falcon") {
			return bad(fmt.Errorf("the falcon detector's settings ([falcon], and cache.l1.line_bytes with line granularity) differ between points; a sweep's detectors have one setting: sweep them in separate files"))
		}
	}
	if len(p.Points) > 0 {
		s = s.Configured(p.Points[0].Config)
	}
	p.Detectors = func(prog *isa.Program) []sim.Option { return s.Options(prog)() }
	return nil
}
