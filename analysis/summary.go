package analysis

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"weft/detectors"
	"weft/sim"
)

// Summary merges each detector's findings over the runs of a batch as
// they are delivered (Merger) and feeds the detectors that learn across
// runs (detectors.Learner). It keeps no run: each run's findings go to the
// mergers, and to a learner, which keeps what it needs (AVIO keeps the
// findings of failing runs to check against what the passing runs
// taught it).
type Summary struct {
	dets []detectorSummary
	// runs is the number of runs added.
	runs int
	// seed0 is the seed of run 0: run i has seed seed0+i.
	seed0 uint64
}

// detectorSummary is one detector's merged findings and learner.
type detectorSummary struct {
	info    detectors.Info
	merged  Merger
	learner detectors.Learner // nil for detectors that do not learn
}

// NewSummary returns an empty summary of the suite's findings.
func (s Suite) NewSummary() *Summary {
	sum := &Summary{dets: make([]detectorSummary, len(s))}
	for i, d := range s {
		sum.dets[i].info = d
		if d.Learn != nil {
			sum.dets[i].learner = d.Learn()
		}
	}
	return sum
}

// Add adds run i's findings; runs arrive in index order.
func (s *Summary) Add(i int, r sim.Result) {
	if s.runs == 0 {
		s.seed0 = r.Seed - uint64(i)
	}
	s.runs++
	for k := range s.dets {
		d := &s.dets[k]
		fs := Of(d.info.Name, r.Findings)
		d.merged.Add(i, r.Seed, fs)
		if d.learner != nil {
			d.learner.Add(i, !r.Outcome.Failed(), fs, Named(r, d.info.Name))
		}
	}
}

// Report returns what the batch found: each detector's merged findings,
// and for the detectors that learn across runs what they learned.
func (s *Summary) Report() *Report {
	rep := &Report{Runs: s.runs}
	for k := range s.dets {
		d := &s.dets[k]
		dr := DetectorReport{Name: d.info.Name, Findings: d.merged.Merged()}
		if d.learner != nil {
			l := &Learned{Summary: d.learner.Summary(), Findings: []Merged{}}
			var lm Merger
			for _, rf := range d.learner.Analyse() {
				if rf.Run < 0 {
					l.BatchWide = true
					for _, f := range rf.Findings {
						l.Findings = append(l.Findings, Merged{Finding: f, FirstRun: -1})
					}
					continue
				}
				lm.Add(rf.Run, s.seed0+uint64(rf.Run), rf.Findings)
			}
			if !l.BatchWide {
				l.Findings = lm.Merged()
			}
			dr.Learned = l
		}
		rep.Detectors = append(rep.Detectors, dr)
	}
	return rep
}

// Report is the findings of a batch of runs: each detector's findings
// merged over the runs, and what the detectors that learn across runs
// concluded. WriteText prints it for a reader, WriteJSON as one object.
type Report struct {
	// Runs is the number of runs.
	Runs int `json:"runs"`
	// Detectors are the detectors' findings, in the suite's order.
	Detectors []DetectorReport `json:"detectors"`
}

// DetectorReport is one detector's findings over a batch.
type DetectorReport struct {
	// Name is the detector's registry name.
	Name string `json:"name"`
	// Findings are its per-run findings merged over the runs.
	Findings []Merged `json:"findings"`
	// Learned is what it learned across the runs (nil for a detector that
	// does not learn).
	Learned *Learned `json:"learned,omitempty"`
}

// Learned is what a detector that learns across runs concluded from a
// batch: per-run findings checked against what it learned (AVIO, PSet),
// merged over the runs, or one ranking over the whole batch (Bugaboo,
// Falcon).
type Learned struct {
	// Summary says in one line what was learned from.
	Summary string `json:"summary"`
	// BatchWide says the findings rank over the whole batch: they have no
	// per-run counts (Runs is 0, FirstRun -1).
	BatchWide bool `json:"batch_wide"`
	// Findings are the learned findings.
	Findings []Merged `json:"findings"`
}

// WriteText prints each detector's findings, each with the runs that
// reported it and the first seed when there was more than one run, and
// what the learners learned.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, d := range r.Detectors {
		writeMerged(&b, d.Name, d.Findings, r.Runs)
		if l := d.Learned; l != nil {
			title := d.Name + " across the batch (" + l.Summary + ")"
			if l.BatchWide {
				writeMerged(&b, title, l.Findings, 1)
			} else {
				writeMerged(&b, title, l.Findings, r.Runs)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as one JSON object on one line.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("findings report: %w", err)
	}
	return nil
}

// WriteMerged prints one list of merged findings under title, as
// Report.WriteText prints each detector's.
func WriteMerged(w io.Writer, title string, ms []Merged, runs int) error {
	var b strings.Builder
	writeMerged(&b, title, ms, runs)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeMerged(b *strings.Builder, title string, ms []Merged, runs int) {
	fmt.Fprintf(b, "\n%s: %s\n", title, plural(len(ms), "finding"))
	for _, f := range ms {
		in := ""
		if runs > 1 {
			in = fmt.Sprintf("  [%d of %d runs, first seed %d]", f.Runs, runs, f.FirstSeed)
		}
		fmt.Fprintf(b, "  %-11s pcs %-14s %s%s\n", f.Kind, joinPCs(f.PCs), f.Message, in)
	}
}

// plural returns "1 finding" or "n findings".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// joinPCs formats PCs separated by spaces.
func joinPCs(pcs []int32) string {
	s := make([]string, len(pcs))
	for i, pc := range pcs {
		s[i] = fmt.Sprint(pc)
	}
	return strings.Join(s, " ")
}
