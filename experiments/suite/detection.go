package suite

import (
	"fmt"
	"slices"
	"strings"

	"weft/analysis"
	"weft/configs"
	"weft/core"
	"weft/detectors/bugaboo"
	"weft/experiments"
	bbrepro "weft/experiments/bugaboo"
	psetrepro "weft/experiments/pset"
	"weft/isa"
	"weft/results"
	"weft/sim"
	"weft/workloads"
)

// matrixDetectors are the detectors of the default experiment's detector ×
// bug matrix, in column order. avio and pset are trained on separate
// seeds (trainDetectors).
var matrixDetectors = []string{"hb", "lockset", "avio", "pset"}

// trainDetectors are attached to the training seeds' runs.
var trainDetectors = []string{"avio", "pset"}

// detection is what one detector did on one workload's runs.
type detection struct {
	// hits is the runs with a finding that involves an @bug instruction.
	hits int
	// flagged is the runs with any finding.
	flagged int
	// distinct is the number of distinct findings (by key) over the runs.
	distinct int
}

// detect scores the detectors' findings on one workload's runs against
// its @bug instructions. avio's per-run triples are first checked against
// the invariants learned from train (the passing runs of other seeds), and
// pset's recorded pairs against the PSets learned from the same runs
// (what psetrepro.TrainPSets learns for the PSet hardware).
func detect(prog *isa.Program, runs, train []sim.Result) []detection {
	bugs := prog.BugPCs()
	t := analysis.MustLookup(matrixDetectors...).NewTraining()
	for _, r := range train {
		t.Train(r)
	}
	out := make([]detection, len(matrixDetectors))
	for k, name := range matrixDetectors {
		var m analysis.Merger
		for i, r := range runs {
			fs := t.Check(name, r)
			m.Add(i, r.Seed, fs)
			if len(fs) > 0 {
				out[k].flagged++
			}
			for _, f := range fs {
				if f.Involves(bugs) {
					out[k].hits++
					break
				}
			}
		}
		out[k].distinct = len(m.Merged())
	}
	return out
}

// psetHWRuns are the default experiment's runs with the PSet hardware on,
// by entry: the PSets learned from its training seeds, the runs (the
// same seeds as the detector runs) and their violations.
type psetHWRuns struct {
	cfg   configs.PSet // the hardware's [pset] table
	psets []isa.PSets
	runs  [][]sim.Result
	viols [][]*psetrepro.Violations
}

// matrixSection builds the detector × bug matrix and the false-positive
// table of the default experiment, with a heat map of each, and a summary.
// bbsw holds BB-SW's collectors on each bug kernel's runs (nil for the
// other entries): its columns are its labeled ranking over those runs.
// ph holds the runs with the PSet hardware on: its pset-hw columns.
func matrixSection(entries []workloads.Entry, progs []*isa.Program, runs, train [][]sim.Result, bbsw [][]*bugaboo.SW,
	hwRuns [][]sim.Result, bbhw [][]*bugaboo.HW, ph psetHWRuns) (experiments.Section, string, error) {
	seeds := 0
	if len(runs) > 0 {
		seeds = len(runs[0])
	}
	cols := append([]string{"kernel", "class", "paper rows", "buggy runs"}, matrixDetectors...)
	cols = append(cols, "pset-hw", "pset-hw buggy runs", "pset-hw avoids", "bbsw labeled", "bbsw inspections", "bbhw labeled", "bbhw inspections")
	heatCols := append(slices.Clone(matrixDetectors), "pset-hw")
	bugT := results.NewTable("detection", fmt.Sprintf("Detector × bug matrix: runs (of %d) in which a detector reported a finding that involves an @bug instruction", seeds), cols...)
	bugT.Notes = []string{fmt.Sprintf("pset-hw: runs (of the same %d seeds, the PSet hardware on in %s mode) with a PSetViolation whose pair has an @bug instruction; pset-hw buggy runs: those runs that failed; pset-hw avoids: Yes when the kernel failed with the hardware off (buggy runs) and never with it on, No when it failed with it on, — when it never failed off.", seeds, psetrepro.DefaultMode)}
	fpT := results.NewTable("false_positives", fmt.Sprintf("Findings on correct kernels: runs (of %d) with any finding, and distinct findings", seeds),
		"kernel", "hb runs", "hb findings", "lockset runs", "lockset findings", "avio runs", "avio findings", "pset runs", "pset findings",
		"pset-hw runs", "pset-hw violations", "pset-hw failing runs")
	fpT.Notes = []string{"pset-hw: the same seeds with the PSet hardware on: runs with any PSetViolation, distinct violating pairs (false violations) and runs that failed."}
	var bugRows, fpRows []string
	var bugVals, fpVals [][]float64
	found := make([]int, len(matrixDetectors))
	noisy := make([]int, len(matrixDetectors))
	nBug, nOK := 0, 0
	var sw, hw bugabooTally
	var pt psetHWTally
	dets := map[string][]detection{}
	hwDets := map[string]psetrepro.HWScore{}
	for i, en := range entries {
		if en.Kind != workloads.Kernel {
			continue
		}
		d := detect(progs[i], runs[i], train[i])
		dets[en.Name] = d
		p := psetrepro.ScoreHW(progs[i], runs[i], ph.runs[i], ph.viols[i])
		hwDets[en.Name] = p
		pt.add(en, p, d[slices.Index(matrixDetectors, "pset")])
		buggy := 0
		for _, r := range runs[i] {
			if r.Outcome != core.Pass {
				buggy++
			}
		}
		if en.Bug {
			nBug++
			row := []any{en.Name, en.Class, strings.Join(en.Rows, " "), buggy}
			vals := make([]float64, len(d), len(d)+1)
			for k, x := range d {
				row = append(row, x.hits)
				vals[k] = float64(x.hits) / float64(len(runs[i]))
				if x.hits > 0 {
					found[k]++
				}
			}
			row = append(row, p.Hits, p.FailingOn, p.Avoids())
			vals = append(vals, float64(p.Hits)/float64(len(ph.runs[i])))
			var sws []*bugaboo.SW
			if i < len(bbsw) {
				sws = bbsw[i]
			}
			var hws []*bugaboo.HW
			if i < len(bbhw) {
				hws = bbhw[i]
			}
			row = append(row, sw.add(bbrepro.Labeled(progs[i], runs[i], bbrepro.SWGraphs(sws)))...)
			row = append(row, hw.add(bbrepro.Labeled(progs[i], hwRuns[i], bbrepro.HWGraphs(hws)))...)
			bugT.AddRow(row...)
			bugRows = append(bugRows, en.Name)
			bugVals = append(bugVals, vals)
			continue
		}
		nOK++
		row := []any{en.Name}
		vals := make([]float64, len(d), len(d)+1)
		for k, x := range d {
			row = append(row, x.flagged, x.distinct)
			vals[k] = float64(x.flagged) / float64(len(runs[i]))
			if x.flagged > 0 {
				noisy[k]++
			}
		}
		row = append(row, p.Flagged, p.Distinct, p.FailingOn)
		vals = append(vals, float64(p.Flagged)/float64(len(ph.runs[i])))
		fpT.AddRow(row...)
		fpRows = append(fpRows, en.Name)
		fpVals = append(fpVals, vals)
	}
	psetT, cells, err := psetDetectorColumns(dets, hwDets)
	if err != nil {
		return experiments.Section{}, "", err
	}
	var sum strings.Builder
	fmt.Fprintf(&sum, "detectors (a finding that involves an @bug instruction counts; avio and pset trained on other seeds' passing runs):\n")
	for k, name := range matrixDetectors {
		fmt.Fprintf(&sum, "  %-8s found %2d of %d bug kernels; findings on %d of %d correct kernels\n", name, found[k], nBug, noisy[k], nOK)
	}
	fmt.Fprintf(&sum, "  pset-hw  found %2d of %d bug kernels; violations on %d of %d correct kernels (PSet hardware, %s, pset's PSets)\n",
		pt.found, nBug, pt.noisy, nOK, psetrepro.DefaultMode)
	fmt.Fprintf(&sum, "  pset-hw  avoids every failure of %d of %d bug kernels that failed with it off (failing runs %d off, %d on)\n",
		pt.avoided, pt.failed, pt.off, pt.on)
	sec := experiments.Section{
		Heading: "Detector × bug matrix",
		Text: fmt.Sprintf(`hb, lockset, AVIO and PSet's software monitor are attached to every run. A bug kernel counts as
found by a detector in a run when one of the run's findings involves an
instruction marked @bug; findings count in passing and failing runs alike.
AVIO's per-run triples count only where they violate the invariants it
learned from the passing runs of %d other seeds of the same workload, and
PSet's software monitor (pset) reports the pairs outside the PSets learned
from the same runs (weft reproduce pset trains on 100 seeds). The
detectors see only events and the program; only this scoring reads @bug.
The synthetic profiles run without detectors here (weft run -w PROFILE
--detectors hb,lockset,avio checks one).

BB-SW (Bugaboo's software detector: word granularity, context 5) is
attached to the same runs of each bug kernel. It ranks code points over
many runs, so its columns are one result per kernel, not a count of runs:
the labeled method over the kernel's failing runs (bug-only graphs) against
its passing runs, "yes" when a code point of an @bug instruction is
ranked, with the inspections down the ranking to it and the distinct
functions among them; "n/a" when the %d seeds gave no failing run or no
passing one. weft reproduce bugaboo runs the paper's full protocol.

pset-hw is PSet's hardware (cpu/pset) on the same seeds, checking the
PSets the pset column checks in software: %s. It counts a run when one of its
PSetViolation events has an @bug instruction; "pset-hw avoids" compares
the failing runs with the hardware off and on.`, seeds, seeds, psetHWText(ph.cfg)),
		Tables:  []*results.Table{bugT, fpT, psetT},
		Comment: pt.comment(found[slices.Index(matrixDetectors, "pset")], nBug, nOK, seeds),
		Plots: []experiments.Plot{
			{Name: "detection", Caption: "Share of runs in which each detector found the seeded bug", Data: bugT, Draw: func(path string) error {
				return results.HeatMap("Detector × bug: share of runs with an @bug finding", bugRows, heatCols, bugVals, 0, 1, path)
			}},
			{Name: "false_positives", Caption: "Share of runs with any finding on the correct kernels", Data: fpT, Draw: func(path string) error {
				return results.HeatMap("Findings on correct kernels: share of runs", fpRows, heatCols, fpVals, 0, 1, path)
			}},
		},
	}
	fmt.Fprintf(&sum, "  bbsw     found %2d of %d bug kernels with failing and passing runs (labeled: failing against passing runs; median %.0f inspections)\n",
		sw.found, sw.labeled, results.Summarize(sw.insp).Median)
	fmt.Fprintf(&sum, "  bbhw     found %2d of %d bug kernels with failing and passing runs (BB-HW on, its drained graphs; median %.0f inspections)\n",
		hw.found, hw.labeled, results.Summarize(hw.insp).Median)
	if cells.total > 0 {
		fmt.Fprintf(&sum, "  PSet Table 1's DRD, AVIO and PSet columns: %d of %d cells as the paper; pset-hw %d of %d rows as the paper's PSet, %d as pset\n",
			cells.agree, cells.total, cells.hwAgree, cells.rows, cells.hwSW)
	}
	return sec, sum.String(), nil
}

// psetCells counts the cells of the PSet Table 1 detector columns: agree
// of total of the DRD, AVIO and PSet columns beside hb, avio and pset;
// over rows, the rows where pset-hw is the paper's PSet (hwAgree) and
// where it is pset (hwSW).
type psetCells struct {
	agree, total        int
	rows, hwAgree, hwSW int
}

// psetDetectorColumns sets hb, avio and pset beside PSet Table 1's DRD,
// AVIO and PSet columns (digest §4.2), with the PSet hardware's pset-hw
// beside them: a row is Yes when its kernel's bug was found in at least
// one run. Rows whose kernel did not run are left out. hw holds pset-hw's
// scores by kernel (a row whose kernel has none shows "").
func psetDetectorColumns(dets map[string][]detection, hw map[string]psetrepro.HWScore) (*results.Table, psetCells, error) {
	var c psetCells
	paper, err := results.Reference("pset/table1")
	if err != nil {
		return nil, c, err
	}
	t := results.NewTable("pset_table1_detectors", "PSet Table 1, detector columns: the paper's DRD, AVIO and PSet beside weft's hb, avio, pset and the PSet hardware (pset-hw)",
		"#", "Program", "kernel", "DRD (paper)", "hb (weft)", "AVIO (paper)", "avio (weft)", "PSet (paper)", "pset (weft)", "pset-hw (weft)", "pset-hw avoids (weft)")
	col := func(name string) int {
		i, _ := paper.Column(name)
		return i
	}
	rowKernels := workloads.RowKernels()
	yes := func(b bool) string {
		if b {
			return "Yes"
		}
		return "No"
	}
	for _, row := range paper.Rows {
		n := results.FormatCell(row[col("#")])
		ks := rowKernels["pset:"+n]
		if len(ks) == 0 {
			continue
		}
		d, ok := dets[ks[0]]
		if !ok {
			continue
		}
		drd, av, pp := results.FormatCell(row[col("DRD")]), results.FormatCell(row[col("AVIO")]), results.FormatCell(row[col("PSet")])
		hbYes, avYes, psYes := yes(d[0].hits > 0), yes(d[2].hits > 0), yes(d[3].hits > 0)
		hwYes, hwAvoids := "", ""
		if h, ok := hw[ks[0]]; ok {
			hwYes, hwAvoids = yes(h.Hits > 0), h.Avoids()
			c.rows++
			if hwYes == pp {
				c.hwAgree++
			}
			if hwYes == psYes {
				c.hwSW++
			}
		}
		t.AddRow(n, results.FormatCell(row[col("Program")]), ks[0], drd, hbYes, av, avYes, pp, psYes, hwYes, hwAvoids)
		for _, p := range [][2]string{{drd, hbYes}, {av, avYes}, {pp, psYes}} {
			c.total++
			if p[0] == p[1] {
				c.agree++
			}
		}
	}
	t.Notes = []string{fmt.Sprintf("%d of %d cells agree with the paper. A kernel counts as found when a finding involving an @bug instruction appears in at least one run. pset-hw (the PSet hardware on the same seeds, %s, not counted in the agreement) is the paper's PSet in %d of %d rows and pset in %d; its avoidance column is the default experiment's (PSet's Table 2 is weft reproduce pset's).",
		c.agree, c.total, psetrepro.DefaultMode, c.hwAgree, c.rows, c.hwSW)}
	return t, c, nil
}

// bugabooTally counts a Bugaboo column over the bug kernels.
type bugabooTally struct {
	labeled, found int
	insp           []float64
}

// add counts one kernel's result and returns its two cells.
func (t *bugabooTally) add(b bbrepro.LabeledScore) []any {
	if b.Labeled {
		t.labeled++
	}
	if b.Found {
		t.found++
		t.insp = append(t.insp, float64(b.Insp))
	}
	return []any{b.Cell(), b.Inspections()}
}
