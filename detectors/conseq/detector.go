package conseq

import (
	"fmt"
	"sort"

	"weft/core"
	"weft/isa"
)

// Detector is ConSeq as a registry detector: it records the run and, when
// the run has ended and passed, reports its suspicious interleavings as
// findings (ConSeq traces correct runs only: a failing run gives none).
// Each finding is one static triple: Kind is the site's kind, PCs are the
// site, the critical read and the alternative write (the last left out
// for an uninitialised read).
type Detector struct {
	a    *Analysis
	cfg  Config
	rec  *Recorder
	err  error
	done bool
	fs   []core.Finding
}

// NewDetector returns the detector for one run of p under cfg. A program
// the static analysis refuses gives a detector with no findings; Err says
// why.
func NewDetector(p *isa.Program, cfg Config) *Detector {
	d := &Detector{cfg: cfg}
	d.a, d.err = Analyze(p, cfg.Options)
	if d.err == nil {
		d.rec = d.a.NewTraceRecorder(cfg)
	}
	return d
}

// Name returns "conseq".
func (d *Detector) Name() string { return "conseq" }

// Kinds returns RecorderKinds.
func (d *Detector) Kinds() core.KindMask { return RecorderKinds }

// Observe records one event.
func (d *Detector) Observe(e *core.Event) {
	if d.rec != nil {
		d.rec.Observe(e)
	}
}

// Err is the static analysis's error, if it refused the program.
func (d *Detector) Err() error { return d.err }

// Findings returns the run's reports once it has ended and passed.
func (d *Detector) Findings() []core.Finding {
	if d.rec == nil || !d.rec.Ended() || !d.rec.Passed() {
		return nil
	}
	if !d.done {
		d.done = true
		res := d.a.Analyse(d.rec, d.cfg)
		for _, r := range res.Reports {
			pcs := []int32{r.Site.PC, r.R.PC}
			if !r.Uninit {
				pcs = append(pcs, r.Alt.PC)
			}
			kind := r.Site.Kind.String()
			if r.Site.PC < 0 {
				kind = "BASE"
				pcs = pcs[1:]
			}
			d.fs = append(d.fs, core.Finding{Detector: "conseq", Kind: kind, PCs: pcs, Addr: r.Addr, Score: 1,
				Message: d.a.Describe(r)})
		}
		sort.SliceStable(d.fs, func(i, j int) bool { return core.CompareFindings(d.fs[i], d.fs[j]) < 0 })
	}
	return d.fs
}

// String describes the detector's configuration.
func (d *Detector) String() string {
	return fmt.Sprintf("conseq(max_distance %d, %s)", d.cfg.maxDistance(), d.cfg.Model)
}
