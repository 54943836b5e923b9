package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"weft/analysis"
	"weft/core"
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

With --json it prints one JSON object with what the trace holds:
trace, workload, seed, outcome (with its PC and thread), cycles, cores,
config hash, findings (as 'weft run --json --detectors' prints them) and
the findings report (what the learners concluded). What a trace does not
hold — instructions, statistics, the outcome's message, the weft version
that made the run — is left out, never printed as zero.`)
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
	fsum := det.suite.NewSummary()
	fsum.Add(0, r)
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(detectRecord{Trace: pos[0], Workload: r.Workload, Seed: r.Seed, Outcome: r.Outcome,
			OutcomePC: r.OutcomePC, OutcomeThread: r.OutcomeThread, Cycles: r.Cycles, Cores: r.Cores,
			ConfigHash: r.ConfigHash, Findings: r.Findings, Report: fsum.Report()})
	}
	fmt.Fprintf(e.stdout, "trace %s: %s seed %d, %s\n", pos[0], r.Workload, r.Seed, r.Outcome)
	return fsum.Report().WriteText(e.stdout)
}

// detectRecord is `weft detect --json`'s object: what a trace holds, the
// findings, and the findings report. It has no field for what a trace
// does not record.
type detectRecord struct {
	Trace         string           `json:"trace"`
	Workload      string           `json:"workload"`
	Seed          uint64           `json:"seed"`
	Outcome       core.OutcomeKind `json:"outcome"`
	OutcomePC     int32            `json:"outcome_pc"`
	OutcomeThread int32            `json:"outcome_thread"`
	Cycles        uint64           `json:"cycles"`
	Cores         int              `json:"cores"`
	ConfigHash    string           `json:"config_hash"`
	Findings      sim.Findings     `json:"findings"`
	Report        *analysis.Report `json:"report"`
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
