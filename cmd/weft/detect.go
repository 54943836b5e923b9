package main

import (
	"fmt"
	"strings"

	"weft/analysis"
	"weft/isa"
	"weft/sim"
)

// detectorFlag is --detectors a,b: the detectors to attach.
type detectorFlag struct {
	suite analysis.Suite
	set   bool
}

func (f *detectorFlag) String() string { return strings.Join(f.suite.Names(), ",") }

// options attaches fresh detectors to each run of prog (nil when none are
// named).
func (f *detectorFlag) options(prog *isa.Program) func() []sim.Option {
	if !f.set {
		return nil
	}
	return f.suite.Options(prog)
}

func (f *detectorFlag) Set(s string) error {
	if f.set {
		return fmt.Errorf("given twice; name every detector in one list (hb,lockset)")
	}
	suite, err := analysis.Parse(s)
	if err != nil {
		return err
	}
	f.suite, f.set = suite, true
	return nil
}

// cmdDetect is `weft detect TRACE --detectors a,b [--json]`.
func cmdDetect(e env, args []string) error {
	fs := newFlagSet("detect", "weft detect TRACE --detectors NAME,... [--json]",
		`Runs detectors over a trace file written by 'weft trace -o', offline:
the findings are those the same detectors report when attached to the run
itself ('weft run --detectors'). The trace's header holds the program and
the config, so PCs map back to code. A detector that needs event kinds the
trace did not record is an error, and so is a trace without RunEnd (the
run's outcome, which the record and the learners need). Detectors that learn across runs (avio)
analyse the one run: a failing run is checked against no training.

With --json it prints one JSON object: workload, seed, outcome (with its
PC and thread), cycles, cores, config hash and findings, as 'weft run
--json --detectors' prints them; the statistics a trace does not hold are
zero.`)
	var det detectorFlag
	fs.Var(&det, "detectors", "detectors to run (`NAME,...`; weft list --detectors)")
	asJSON := fs.Bool("json", false, "print one JSON object with the findings")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef(fs, "detect: want one trace FILE, got %d arguments", len(pos))
	}
	if !det.set {
		return usagef(fs, "detect: name the detectors with --detectors NAME,... (weft list --detectors)")
	}
	r, err := analysis.ReplayTrace(pos[0], det.suite)
	if err != nil {
		return err
	}
	if *asJSON {
		lines, err := jsonLines([]sim.Result{r})
		if err != nil {
			return err
		}
		_, err = e.stdout.Write(lines)
		return err
	}
	fmt.Fprintf(e.stdout, "trace %s: %s seed %d, %s\n", pos[0], r.Workload, r.Seed, r.Outcome)
	fsum := det.suite.NewSummary()
	fsum.Add(0, r)
	return fsum.Report().WriteText(e.stdout)
}

// runOptions adds statistics groups to a run's detector options.
func runOptions(dets func() []sim.Option, groups bool) func() []sim.Option {
	if !groups {
		return dets
	}
	return func() []sim.Option {
		opts := []sim.Option{sim.WithStatGroups()}
		if dets != nil {
			opts = append(opts, dets()...)
		}
		return opts
	}
}
