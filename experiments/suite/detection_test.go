package suite

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"weft/analysis"
	"weft/configs"
	"weft/experiments"
	psetrepro "weft/experiments/pset"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// runDetection runs each named kernel over seeds 1..n with the matrix's
// detectors and n more seeds with avio and pset's recorder, and scores
// them; then it runs seeds 1..n again with the PSet hardware on (the
// default experiment's mode) checking the PSets learned from the second
// n seeds, and scores those.
func runDetection(t *testing.T, names []string, n int) (map[string][]detection, map[string]psetrepro.HWScore) {
	t.Helper()
	base := configs.Default()
	var jobs []sim.Job
	progs := make([]*isa.Program, len(names))
	cfgs := make([]configs.Config, len(names))
	for i, name := range names {
		prog, cfg, err := experiments.ProgramFor(name, base)
		if err != nil {
			t.Fatal(err)
		}
		progs[i], cfgs[i] = prog, cfg
		for s := 0; s < 2*n; s++ {
			opts := experiments.DetectorOptions(prog, matrixDetectors...)
			if s >= n {
				opts = experiments.DetectorOptions(prog, trainDetectors...)
			}
			jobs = append(jobs, sim.Job{Config: cfg, Program: prog, Seed: 1 + uint64(s), Options: opts})
		}
	}
	all, err := sim.RunJobs(jobs, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	psets := make([]isa.PSets, len(names))
	viols := make([]*psetrepro.Violations, len(names)*n)
	var hwJobs []sim.Job
	for i := range names {
		psets[i] = psetrepro.TrainPSets(progs[i], all[(2*i+1)*n:(2*i+2)*n])
		cfg := psetrepro.HWConfig(cfgs[i], all[2*i*n:(2*i+1)*n])
		for s := 0; s < n; s++ {
			hwJobs = append(hwJobs, psetrepro.HWJob(cfg, progs[i], psets[i], 1+uint64(s), &viols[i*n+s]))
		}
	}
	hwAll, err := sim.RunJobs(hwJobs, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]detection{}
	hw := map[string]psetrepro.HWScore{}
	for i, name := range names {
		off := all[2*i*n : (2*i+1)*n]
		out[name] = detect(progs[i], off, all[(2*i+1)*n:(2*i+2)*n])
		hw[name] = psetrepro.ScoreHW(progs[i], off, hwAll[i*n:(i+1)*n], viols[i*n:(i+1)*n])
	}
	return out, hw
}

// The default experiment's PSet Table 1 detector columns: hb against the
// paper's DRD and avio against its AVIO on every row, as the paper has
// them (the kernels follow the digest's recipes, so this checks that the
// detectors behave as the paper's did on bugs of the same shape), and
// PSet's software monitor against its PSet column on every row but 17:
// trained on the default experiment's 20 seeds, PSet has not yet learned a
// pair that correct runs of #17 show rarely (weft reproduce pset, with 100
// training seeds, matches the paper there too).
//
// The PSet hardware (stall_then_rollback, the same PSets, the same seeds)
// beside them: it finds every row the software monitor finds but row 2,
// whose runs with the hardware on report no violation and never fail (the
// metadata's bus time closes its window, as in weft reproduce pset's
// Table 2). It leaves no failing run on at least the rows stalling alone
// avoids in weft reproduce pset (5, 10, 11, 12, 14), and fewer failing
// runs over the 17 rows than with the hardware off. It does not lower the
// failing runs of every row: the metadata's bus time shifts the schedule,
// which opens some windows as it closes others (the rows are logged).
func TestPSetDetectorColumns(t *testing.T) {
	var names []string
	for i := 1; i <= 17; i++ {
		names = append(names, workloads.RowKernels()["pset:"+strconv.Itoa(i)][0])
	}
	dets, hw := runDetection(t, names, 20) // mysql-binlog fails first at seed 14
	tab, cells, err := psetDetectorColumns(dets, hw)
	if err != nil {
		t.Fatal(err)
	}
	if agree, total := cells.agree, cells.total; total != 51 || agree != 50 {
		for _, r := range tab.Rows {
			t.Log(r...)
		}
		t.Errorf("%d of %d cells agree with PSet Table 1's DRD, AVIO and PSet columns, want 50 of 51", agree, total)
	}
	last := tab.Rows[len(tab.Rows)-1]
	if fmt.Sprint(last[0]) != "17" || fmt.Sprint(last[7]) != "No" || fmt.Sprint(last[8]) != "Yes" {
		t.Errorf("row 17: %v; want the paper's No beside pset's Yes (under-trained)", last)
	}

	var differ []string
	off, on := 0, 0
	avoided := map[string]bool{}
	for _, r := range tab.Rows {
		n, k := fmt.Sprint(r[0]), fmt.Sprint(r[2])
		h := hw[k]
		if sw, hwCell := fmt.Sprint(r[8]), fmt.Sprint(r[9]); sw != hwCell {
			differ = append(differ, n)
		}
		if want := h.Avoids(); fmt.Sprint(r[10]) != want {
			t.Errorf("row %s: pset-hw avoids %v, want %s", n, r[10], want)
		}
		if h.Avoids() == "Yes" {
			avoided[n] = true
			if h.FailingOff == 0 || h.FailingOn != 0 {
				t.Errorf("row %s: avoided with %d failing runs off, %d on", n, h.FailingOff, h.FailingOn)
			}
		}
		if h.FailingOn > h.FailingOff {
			t.Logf("row %s (%s): %d failing runs with the PSet hardware off, %d on", n, k, h.FailingOff, h.FailingOn)
		}
		off, on = off+h.FailingOff, on+h.FailingOn
	}
	if fmt.Sprint(differ) != "[2]" {
		t.Errorf("pset-hw differs from pset on rows %v, want row 2 only", differ)
	}
	if h := hw[names[1]]; h.Flagged != 0 || h.FailingOn != 0 {
		t.Errorf("row 2 with the PSet hardware: %d runs with violations, %d failing; want none", h.Flagged, h.FailingOn)
	}
	for _, n := range []int{5, 10, 11, 12, 14} {
		if h := hw[names[n-1]]; !avoided[strconv.Itoa(n)] {
			t.Errorf("row %d: failures not avoided (%d failing runs off, %d on)", n, h.FailingOff, h.FailingOn)
		}
	}
	if on >= off {
		t.Errorf("%d failing runs over the 17 rows with the PSet hardware on, %d off", on, off)
	}
}

// Correct kernels: avio never reports a violation (trained on other seeds),
// hb reports only the kernels that really race; nothing scores a hit.
func TestMatrixFalsePositives(t *testing.T) {
	dets, hw := runDetection(t, []string{"counter-locked", "prodcons", "stencil", "msgpass", "histogram", "matmul"}, 8)
	want := map[string][3]bool{ // hb, lockset, avio flagged in some run
		"counter-locked": {false, false, false},
		"prodcons":       {false, false, false},
		"stencil":        {false, true, false}, // Eraser does not see barriers
		"msgpass":        {true, true, false},  // synchronises with plain loads: real races
		"histogram":      {false, false, false},
		"matmul":         {false, false, false},
	}
	for name, w := range want {
		d := dets[name]
		for k := range w {
			if got := d[k].flagged > 0; got != w[k] {
				t.Errorf("%s: %s flagged %d runs, want flagged %v", name, matrixDetectors[k], d[k].flagged, w[k])
			}
			if d[k].hits != 0 {
				t.Errorf("%s: %s scored %d hits on a kernel without @bug", name, matrixDetectors[k], d[k].hits)
			}
		}
		h := hw[name]
		if h.Hits != 0 || h.FailingOff != 0 {
			t.Errorf("%s: pset-hw %d hits, %d failing runs off", name, h.Hits, h.FailingOff)
		}
		if h.Flagged > 0 || h.FailingOn > 0 {
			// Under-trained PSets (8 seeds here): false violations, whose
			// stalls can keep a thread until the hang limit.
			t.Logf("%s: the PSet hardware flagged %d runs (%d distinct pairs); %d failed", name, h.Flagged, h.Distinct, h.FailingOn)
		}
	}
}

// detectSlices is detect as it was before the default experiment folded
// its runs: train the checkers on every training run, then score each
// detector over the slice of runs.
func detectSlices(prog *isa.Program, runs, train []sim.Result) []detection {
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

// The default experiment's fold scores each detector run as it arrives,
// after the training runs; it gives the scores the slices gave (on
// pset-apache-log every detector finds the bug, avio and pset only in
// some runs).
func TestDetectFoldMatchesSlices(t *testing.T) {
	const n = 8
	for _, name := range []string{"mysql-binlog", "pset-apache-log", "falcon-account", "counter-locked"} {
		prog, cfg, err := experiments.ProgramFor(name, configs.Default())
		if err != nil {
			t.Fatal(err)
		}
		var jobs []sim.Job
		for s := 0; s < 2*n; s++ {
			opts := experiments.DetectorOptions(prog, matrixDetectors...)
			if s >= n {
				opts = experiments.DetectorOptions(prog, trainDetectors...)
			}
			jobs = append(jobs, sim.Job{Config: cfg, Program: prog, Seed: 1 + uint64(s), Options: opts})
		}
		all, err := experiments.RunJobs(experiments.Env{}, jobs)
		if err != nil {
			t.Fatal(err)
		}
		got, want := detect(prog, all[:n], all[n:]), detectSlices(prog, all[:n], all[n:])
		t.Logf("%s: %+v", name, got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: folded %+v, over the slices %+v", name, got, want)
		}
	}
}
