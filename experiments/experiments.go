// Package experiments holds what every experiment shares: Experiment, Env,
// the Report with its sections, tables and plots, the report writer (Write:
// NAME.md, one CSV per table or figure under NAME/, plots), and the
// helpers several papers use (running jobs, a run's statistics, detector
// options, reference-table cells, means and medians, building a named
// workload for a config).
//
// Each paper's reproduction is a sub-package (bugaboo, pset, conseq,
// falcon, inference), weft's own machine studies are machine, and the
// default experiment is suite; they import this
// package, never one another except suite, which takes the Bugaboo and
// PSet hardware columns from bugaboo and pset. experiments/all lists them
// all for `weft reproduce`.
package experiments

import (
	"weft/configs"
	"weft/results"
)

// Experiment is one reproduction.
type Experiment struct {
	// Name is what `weft reproduce NAME` takes.
	Name string
	// Title is the report's heading.
	Title string
	// Paper names the paper reproduced ("" for weft's own studies).
	Paper string
	// Run performs the runs and builds the report.
	Run func(env Env) (*Report, error)
}

// Env is what an experiment runs with.
type Env struct {
	// Workers is the number of runs in flight (0: one per host CPU).
	Workers int
	// Seeds overrides the experiment's runs per point (0: its default).
	Seeds int
	// Quick trims the experiment (fewer workloads and points) for tests;
	// it never changes what a run computes.
	Quick bool
	// Progress, when set, is told runs done out of total.
	Progress func(done, total int)
}

// SeedsOr returns the runs per point: env.Seeds or the experiment's default.
func (e Env) SeedsOr(def int) int {
	if e.Seeds > 0 {
		return e.Seeds
	}
	return def
}

// Report is an experiment's output, written by Write.
type Report struct {
	// Name is the experiment's name and the report's default file stem
	// (NAME.md, NAME/).
	Name string
	// Title is the report's Markdown heading.
	Title string
	// Intro says what the experiment reproduces and how.
	Intro string
	// Sections hold the tables and plots.
	Sections []Section
	// Configs are the exact machine configurations the runs used.
	Configs []NamedConfig
	// Seeds says which seeds each point ran.
	Seeds string
	// Command reruns the experiment.
	Command string
	// Summary is a short text for the terminal.
	Summary string
	// Instructions is the number of simulated instructions the runs took,
	// for the host-speed line.
	Instructions uint64
}

// Table returns the report's table named name, from any section (nil
// when it has none).
func (r *Report) Table(name string) *results.Table {
	for _, s := range r.Sections {
		for _, t := range s.Tables {
			if t.Name == name {
				return t
			}
		}
	}
	return nil
}

// Section is one part of a report: text, tables and plots.
type Section struct {
	// Heading is the section's Markdown heading ("" for none).
	Heading string
	// Text is the prose under the heading.
	Text string
	// Tables are saved under the report's directory and shown in Markdown.
	Tables []*results.Table
	// Plots are drawn under the report's directory and shown after the
	// tables.
	Plots []Plot
	// Comment is the honest comment on differences from the paper.
	Comment string
}

// Plot is one figure: Draw writes path.png and path.svg; Data, when set,
// is saved as the figure's CSV.
type Plot struct {
	// Name is the figure's file stem under the report's directory.
	Name string
	// Caption is the figure's caption and alt text ("" for none).
	Caption string
	// Draw writes path.png and path.svg.
	Draw func(path string) error
	// Data is the figure's data, saved as CSV (nil for none).
	Data *results.Table
}

// NamedConfig is one configuration used by an experiment.
type NamedConfig struct {
	// Name labels the configuration in the report.
	Name string
	// Config is the configuration.
	Config configs.Config
}
