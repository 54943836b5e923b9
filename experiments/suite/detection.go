package suite

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"weft/configs"
	"weft/core"
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
	e := newEntryRuns(prog, true)
	for _, r := range train {
		e.addTrain(r)
	}
	for i, r := range runs {
		e.addDetector(i, r, nil)
	}
	return e.detections()
}

// psetHWRuns are what the default experiment's runs with the PSet
// hardware on share, by entry: the PSets learned from its training seeds
// (the runs are folded into the entries).
type psetHWRuns struct {
	cfg   configs.PSet // the hardware's [pset] table
	psets []isa.PSets
}

// matrixSection builds the detector × bug matrix and the false-positive
// table of the default experiment, with a heat map of each, and a summary.
// d holds each entry's folded runs: BB-SW's graphs on each bug kernel's
// runs, whose columns are its labeled ranking over those runs, and
// BB-HW's on the runs with it on; and the runs with the PSet hardware on,
// its pset-hw columns.
func matrixSection(d *defaultRuns, ph psetHWRuns) (experiments.Section, string, error) {
	seeds := 0
	if len(d.runs) > 0 {
		seeds = len(d.runs[0].off)
	}
	m := newMatrix(seeds)
	for i, en := range d.entries {
		if en.Kind != workloads.Kernel {
			continue
		}
		e := d.runs[i]
		det := e.detections()
		m.dets[en.Name] = det
		p := e.score.Score()
		m.hwDets[en.Name] = p
		m.pt.add(en, p, det[slices.Index(matrixDetectors, "pset")])
		if en.Bug {
			m.addBug(d, i, det, p, e.psetRuns)
			continue
		}
		m.addCorrect(en, det, p, len(e.off), e.psetRuns)
	}
	psetT, cells, err := psetDetectorColumns(m.dets, m.hwDets)
	if err != nil {
		return experiments.Section{}, "", err
	}
	bugCols, fpCols := heatMapColumns()
	sec := experiments.Section{
		Heading: "Detector × bug matrix",
		Text:    matrixText(seeds, ph.cfg),
		Tables:  []*results.Table{m.bugT, m.fpT, psetT},
		Comment: m.pt.comment(m.found[slices.Index(matrixDetectors, "pset")], m.nBug, m.nOK, seeds),
		Plots: []experiments.Plot{
			{Name: "detection", Caption: "Share of runs in which each detector found the seeded bug, and the runs that failed with the PSet hardware off and on, with whether it avoided every failure (each cell gives its count of runs)", Data: m.bugT, Draw: func(path string) error {
				return results.HeatMap(m.bugHeatMap(bugCols, seeds), path)
			}},
			{Name: "false_positives", Caption: "Share of runs with any finding on the correct kernels, and the runs that failed with the PSet hardware on (each cell gives its count of runs)", Data: m.fpT, Draw: func(path string) error {
				return results.HeatMap(m.fpHeatMap(fpCols, seeds), path)
			}},
		},
	}
	return sec, m.summary(cells), nil
}

// heatMapColumns are the columns of the detection heat map (the
// detectors', pset-hw's, the failing runs with the PSet hardware off and
// on, and whether it avoided every failure: README's "pset-hw detection,
// failing-run and avoidance columns") and of the false-positive one.
func heatMapColumns() (bug, fp []string) {
	bug = append(slices.Clone(matrixDetectors), "pset-hw", "failing off", "failing pset-hw", "pset-hw avoids")
	fp = append(slices.Clone(matrixDetectors), "pset-hw", "failing pset-hw")
	return bug, fp
}

// matrix accumulates the detector × bug matrix (bugT) and the
// false-positive table (fpT) over the kernels, with their heat maps' rows
// and values and the tallies the summary and the comment give.
type matrix struct {
	bugT, fpT       *results.Table
	bugRows, fpRows []string
	bugVals, fpVals [][]float64
	// bugLabels and fpLabels are the heat maps' cell texts: counts of
	// runs, and Yes, No or — for avoidance.
	bugLabels, fpLabels [][]string
	// found and noisy count, per detector of matrixDetectors, the bug
	// kernels it found and the correct kernels it reported anything on;
	// nBug and nOK count the kernels.
	found, noisy []int
	nBug, nOK    int
	// sw and hw tally BB-SW's and BB-HW's labeled ranking, pt the PSet
	// hardware's columns.
	sw, hw bugabooTally
	pt     psetHWTally
	// dets and hwDets are the detectors' and the PSet hardware's scores by
	// kernel, for PSet Table 1's columns.
	dets   map[string][]detection
	hwDets map[string]psetrepro.HWScore
}

// newMatrix returns an empty matrix over seeds runs per kernel.
func newMatrix(seeds int) *matrix {
	cols := append([]string{"kernel", "class", "paper rows", "buggy runs"}, matrixDetectors...)
	cols = append(cols, "pset-hw", "pset-hw buggy runs", "pset-hw avoids", "bbsw labeled", "bbsw inspections", "bbhw labeled", "bbhw inspections")
	bugT := results.NewTable("detection", fmt.Sprintf("Detector × bug matrix: runs (of %d) in which a detector reported a finding that involves an @bug instruction", seeds), cols...)
	bugT.Notes = []string{fmt.Sprintf("pset-hw: runs (of the same %d seeds, the PSet hardware on in %s mode) with a PSetViolation whose pair has an @bug instruction; pset-hw buggy runs: those runs that failed; pset-hw avoids: Yes when the kernel failed with the hardware off (buggy runs) and never with it on, No when it failed with it on, — when it never failed off.", seeds, psetrepro.DefaultMode)}
	fpT := results.NewTable("false_positives", fmt.Sprintf("Findings on correct kernels: runs (of %d) with any finding, and distinct findings", seeds),
		"kernel", "hb runs", "hb findings", "lockset runs", "lockset findings", "avio runs", "avio findings", "pset runs", "pset findings",
		"pset-hw runs", "pset-hw violations", "pset-hw failing runs")
	fpT.Notes = []string{"pset-hw: the same seeds with the PSet hardware on: runs with any PSetViolation, distinct violating pairs (false violations) and runs that failed."}
	return &matrix{
		bugT:   bugT,
		fpT:    fpT,
		found:  make([]int, len(matrixDetectors)),
		noisy:  make([]int, len(matrixDetectors)),
		dets:   map[string][]detection{},
		hwDets: map[string]psetrepro.HWScore{},
	}
}

// addBug adds bug kernel i of d: det is the detectors' scores on its
// runs, p the PSet hardware's on its psetRuns runs with the hardware on.
func (m *matrix) addBug(d *defaultRuns, i int, det []detection, p psetrepro.HWScore, psetRuns int) {
	en, e := d.entries[i], d.runs[i]
	runs := len(e.off)
	buggy := runs - e.outcomes.Count(core.Pass)
	m.nBug++
	row := []any{en.Name, en.Class, strings.Join(en.Rows, " "), buggy}
	vals := make([]float64, len(det), len(det)+4)
	labels := make([]string, len(det), len(det)+4)
	for k, x := range det {
		row = append(row, x.hits)
		vals[k] = float64(x.hits) / float64(runs)
		labels[k] = fmt.Sprint(x.hits)
		if x.hits > 0 {
			m.found[k]++
		}
	}
	row = append(row, p.Hits, p.FailingOn, p.Avoids())
	vals = append(vals, float64(p.Hits)/float64(psetRuns), float64(buggy)/float64(runs), float64(p.FailingOn)/float64(psetRuns), avoidsValue(p.Avoids()))
	labels = append(labels, fmt.Sprint(p.Hits), fmt.Sprint(buggy), fmt.Sprint(p.FailingOn), p.Avoids())
	row = append(row, m.sw.add(e.sw.Score(d.progs[i]))...)
	row = append(row, m.hw.add(e.hw.Score(d.progs[i]))...)
	m.bugT.AddRow(row...)
	m.bugRows = append(m.bugRows, en.Name)
	m.bugVals = append(m.bugVals, vals)
	m.bugLabels = append(m.bugLabels, labels)
}

// avoidsValue places an avoidance cell on the heat map's scale: Yes at 1
// (every failure avoided), No at 0, — (nothing failed) without a value.
func avoidsValue(avoids string) float64 {
	switch avoids {
	case "Yes":
		return 1
	case "No":
		return 0
	}
	return math.NaN()
}

// bugHeatMap is the detection heat map over cols, seeds runs per kernel.
func (m *matrix) bugHeatMap(cols []string, seeds int) results.HeatMapSpec {
	return results.HeatMapSpec{
		Title: fmt.Sprintf("Detector × bug: runs (of %d) with an @bug finding; failing runs; avoidance", seeds),
		Rows:  m.bugRows, Cols: cols, Values: m.bugVals, Labels: m.bugLabels,
		Lo: 0, Hi: 1, Scale: "share of runs\n(avoids: Yes 1, No 0)",
	}
}

// fpHeatMap is the false-positive heat map over cols, seeds runs per
// kernel.
func (m *matrix) fpHeatMap(cols []string, seeds int) results.HeatMapSpec {
	return results.HeatMapSpec{
		Title: fmt.Sprintf("Correct kernels: runs (of %d) with any finding; failing runs with pset-hw", seeds),
		Rows:  m.fpRows, Cols: cols, Values: m.fpVals, Labels: m.fpLabels,
		Lo: 0, Hi: 1, Scale: "share of runs",
	}
}

// addCorrect adds a correct kernel: det is the detectors' scores on its
// runs runs, p the PSet hardware's on its psetRuns runs with the hardware
// on.
func (m *matrix) addCorrect(en workloads.Entry, det []detection, p psetrepro.HWScore, runs, psetRuns int) {
	m.nOK++
	row := []any{en.Name}
	vals := make([]float64, len(det), len(det)+2)
	labels := make([]string, len(det), len(det)+2)
	for k, x := range det {
		row = append(row, x.flagged, x.distinct)
		vals[k] = float64(x.flagged) / float64(runs)
		labels[k] = fmt.Sprint(x.flagged)
		if x.flagged > 0 {
			m.noisy[k]++
		}
	}
	row = append(row, p.Flagged, p.Distinct, p.FailingOn)
	vals = append(vals, float64(p.Flagged)/float64(psetRuns), float64(p.FailingOn)/float64(psetRuns))
	labels = append(labels, fmt.Sprint(p.Flagged), fmt.Sprint(p.FailingOn))
	m.fpT.AddRow(row...)
	m.fpRows = append(m.fpRows, en.Name)
	m.fpVals = append(m.fpVals, vals)
	m.fpLabels = append(m.fpLabels, labels)
}

// summary is the matrix's text for the terminal; cells are PSet Table 1's
// detector columns.
func (m *matrix) summary(cells psetCells) string {
	var sum strings.Builder
	fmt.Fprintf(&sum, "detectors (a finding that involves an @bug instruction counts; avio and pset trained on other seeds' passing runs):\n")
	for k, name := range matrixDetectors {
		fmt.Fprintf(&sum, "  %-8s found %2d of %d bug kernels; findings on %d of %d correct kernels\n", name, m.found[k], m.nBug, m.noisy[k], m.nOK)
	}
	fmt.Fprintf(&sum, "  pset-hw  found %2d of %d bug kernels; violations on %d of %d correct kernels (PSet hardware, %s, pset's PSets)\n",
		m.pt.found, m.nBug, m.pt.noisy, m.nOK, psetrepro.DefaultMode)
	fmt.Fprintf(&sum, "  pset-hw  avoids every failure of %d of %d bug kernels that failed with it off (failing runs %d off, %d on)\n",
		m.pt.avoided, m.pt.failed, m.pt.off, m.pt.on)
	fmt.Fprintf(&sum, "  bbsw     found %2d of %d bug kernels with failing and passing runs (labeled: failing against passing runs; median %.0f inspections)\n",
		m.sw.found, m.sw.labeled, results.Summarize(m.sw.insp).Median)
	fmt.Fprintf(&sum, "  bbhw     found %2d of %d bug kernels with failing and passing runs (BB-HW on, its drained graphs; median %.0f inspections)\n",
		m.hw.found, m.hw.labeled, results.Summarize(m.hw.insp).Median)
	if cells.total > 0 {
		fmt.Fprintf(&sum, "  PSet Table 1's DRD, AVIO and PSet columns: %d of %d cells as the paper; pset-hw %d of %d rows as the paper's PSet, %d as pset\n",
			cells.agree, cells.total, cells.hwAgree, cells.rows, cells.hwSW)
	}
	return sum.String()
}

// matrixText is the matrix section's prose: seeds runs per kernel, p the
// PSet hardware's [pset] table.
func matrixText(seeds int, p configs.PSet) string {
	return fmt.Sprintf(`hb, lockset, AVIO and PSet's software monitor are attached to every run. A bug kernel counts as
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
the failing runs with the hardware off and on.`, seeds, seeds, psetHWText(p))
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
