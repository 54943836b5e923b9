package sweep

import (
	"errors"
	"fmt"
	"strings"

	"weft/configs"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// Point is one expanded, validated point of a sweep, ready to run.
type Point struct {
	// Index is the point's number in expansion order (Spec.PointConfigs).
	Index int
	// Axes holds the point's value of every axis, in axis order.
	Axes AxisValues
	// Workload is the workload's label (Workload.Label).
	Workload string
	// WorkloadIndex indexes Spec.Workloads.
	WorkloadIndex int
	// Config is the point's config: base, axis values, machine.cores raised
	// to the program's .cores when no axis or override sets it.
	Config configs.Config
	// Program is the workload built for Config's cores, shared (read-only)
	// by every run of the point.
	Program *isa.Program
}

// Plan is a sweep expanded and validated against its base config and
// the workload registry: every point is known to build and run.
type Plan struct {
	// Spec is the parsed sweep file.
	Spec Spec
	// Base is the resolved base config (Spec.BaseConfig).
	Base configs.Config
	// Hash identifies the sweep (Spec.Hash); a sweep directory
	// holds the runs of one hash.
	Hash string
	// Points are the points to run, in expansion order.
	Points []Point
	// Notes are messages for the user, such as cores raised for a kernel.
	Notes []string
	// Detectors, when set, builds the detectors attached to each run of a
	// point's program: the spec's detectors key, resolved by
	// AttachDetectors.
	Detectors func(prog *isa.Program) []sim.Option
}

// Runs is the total number of runs: points × runs per point.
func (p *Plan) Runs() int { return len(p.Points) * p.Spec.Runs }

// Load loads the sweep file at path and plans it (NewPlan).
func Load(path string) (*Plan, error) {
	s, err := LoadSpec(path)
	if err != nil {
		return nil, err
	}
	return NewPlan(s)
}

// NewPlan resolves the sweep's base config, expands its points and checks
// every one before anything runs: each axis value applied to the base
// validates, every workload exists in the registry and builds for each
// point's cores with its params. A kernel that needs more cores than an
// axis gives it is an error; otherwise machine.cores is raised as in
// `weft run` (with a note). Errors name the file, line and axis or workload.
func NewPlan(s Spec) (*Plan, error) {
	base, err := s.BaseConfig()
	if err != nil {
		return nil, err
	}
	points, err := s.PointConfigs(base)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, w := range s.Workloads {
		if _, err := workloads.Lookup(w.Name); err != nil {
			errs = append(errs, &Error{File: s.File, Line: w.Line, Where: fmt.Sprintf("workload %q", w.Name),
				Err: errors.New(strings.TrimPrefix(err.Error(), "workloads: "))})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	coresAxis := -1
	for i, a := range s.Axes {
		if a.Key == "machine.cores" {
			coresAxis = i
		}
	}
	type progKey struct{ workload, cores int }
	progs := map[progKey]*isa.Program{}
	plan := &Plan{Spec: s, Base: base, Hash: s.Hash(base)}
	seenErr := map[string]bool{}
	seenNote := map[string]bool{}
	for _, pt := range points {
		w := s.Workloads[pt.Workload]
		cfg := pt.Config
		k := progKey{pt.Workload, cfg.Machine.Cores}
		prog, ok := progs[k]
		if !ok {
			prog, err = workloads.ProgramWithParams(w.Name, cfg.Machine.Cores, w.Params)
			if err != nil {
				e := &Error{File: s.File, Line: w.Line, Where: fmt.Sprintf("workload %q", w.Label()),
					Err: fmt.Errorf("for %d cores: %s", cfg.Machine.Cores, strings.TrimPrefix(err.Error(), "workloads: "))}
				if !seenErr[e.Error()] {
					seenErr[e.Error()] = true
					errs = append(errs, e)
				}
				continue
			}
			progs[k] = prog
		}
		if prog.MinCores > cfg.Machine.Cores {
			if coresAxis >= 0 {
				e := &Error{File: s.File, Line: w.Line, Where: fmt.Sprintf("workload %q", w.Label()),
					Err: fmt.Errorf("needs %d cores (.cores) but axis \"machine.cores\" value %d gives it %d", prog.MinCores, cfg.Machine.Cores, cfg.Machine.Cores)}
				if !seenErr[e.Error()] {
					seenErr[e.Error()] = true
					errs = append(errs, e)
				}
				continue
			}
			var note string
			cfg, note = sim.FitCores(cfg, prog)
			if !seenNote[note] {
				seenNote[note] = true
				plan.Notes = append(plan.Notes, note)
			}
		}
		axes := make(AxisValues, len(s.Axes))
		for i, a := range s.Axes {
			axes[i] = AxisValue{Key: a.Key, Value: pt.Values[i]}
		}
		plan.Points = append(plan.Points, Point{Index: pt.Index, Axes: axes, Workload: w.Label(),
			WorkloadIndex: pt.Workload, Config: cfg, Program: prog})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return plan, nil
}
