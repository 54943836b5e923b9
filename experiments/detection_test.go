package experiments

import (
	"fmt"
	"strconv"
	"testing"

	"weft/configs"
	"weft/sim"
	"weft/workloads"
)

// runDetection runs each named kernel over seeds 1..n with the matrix's
// detectors and n more seeds with avio alone, and scores them.
func runDetection(t *testing.T, names []string, n int) map[string][]detection {
	t.Helper()
	base := configs.Default()
	var jobs []job
	for _, name := range names {
		prog, cfg, err := programFor(name, base)
		if err != nil {
			t.Fatal(err)
		}
		for s := 0; s < 2*n; s++ {
			opts := detectorOptions(prog, matrixDetectors...)
			if s >= n {
				opts = detectorOptions(prog, trainDetectors...)
			}
			jobs = append(jobs, job{Config: cfg, Program: prog, Seed: 1 + uint64(s), Options: opts})
		}
	}
	all, err := sim.RunJobs(jobs, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]detection{}
	for i, name := range names {
		out[name] = detect(jobs[2*i*n].Program, all[2*i*n:(2*i+1)*n], all[(2*i+1)*n:(2*i+2)*n])
	}
	return out
}

// The default experiment's PSet Table 1 detector columns: hb against the
// paper's DRD and avio against its AVIO on every row, as the paper has
// them (the kernels follow the digest's recipes, so this checks that the
// detectors behave as the paper's did on bugs of the same shape), and
// PSet's software monitor against its PSet column on every row but 17:
// trained on the default experiment's 20 seeds, PSet has not yet learned a
// pair that correct runs of #17 show rarely (weft reproduce pset, with 100
// training seeds, matches the paper there too).
func TestPSetDetectorColumns(t *testing.T) {
	var names []string
	for i := 1; i <= 17; i++ {
		names = append(names, workloads.RowKernels()["pset:"+strconv.Itoa(i)][0])
	}
	dets := runDetection(t, names, 20) // mysql-binlog fails first at seed 14
	tab, agree, total, err := psetDetectorColumns(dets)
	if err != nil {
		t.Fatal(err)
	}
	if total != 51 || agree != 50 {
		for _, r := range tab.Rows {
			t.Log(r...)
		}
		t.Errorf("%d of %d cells agree with PSet Table 1's DRD, AVIO and PSet columns, want 50 of 51", agree, total)
	}
	last := tab.Rows[len(tab.Rows)-1]
	if fmt.Sprint(last[0]) != "17" || fmt.Sprint(last[7]) != "No" || fmt.Sprint(last[8]) != "Yes" {
		t.Errorf("row 17: %v; want the paper's No beside pset's Yes (under-trained)", last)
	}
}

// Correct kernels: avio never reports a violation (trained on other seeds),
// hb reports only the kernels that really race.
func TestMatrixFalsePositives(t *testing.T) {
	dets := runDetection(t, []string{"counter-locked", "prodcons", "stencil", "msgpass", "histogram", "matmul"}, 8)
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
	}
}
