package pset

import (
	"fmt"
	"testing"

	"weft/configs"
	"weft/experiments"
	"weft/results"
	"weft/workloads"
)

// psetSensSeeds is the training seeds per kernel the sweep tests run (20
// held-out seeds per kernel and setting).
const psetSensSeeds = 10

// psetSweepReport runs what the sweeps need of runPSet at n training
// seeds a kernel (the 17 kernels' training and held-out runs, Table 1,
// which learns the PSets, and the recovery sweep the checkpoint sweep is
// checked against) and the sweeps, and returns their sections as a
// report.
func psetSweepReport(t *testing.T, nTrain int) *experiments.Report {
	t.Helper()
	env := experiments.Env{Seeds: nTrain}
	base, err := configs.Load("default")
	if err != nil {
		t.Fatal(err)
	}
	rows := workloads.RowKernels()
	var ks []*psetKernel
	for n := 1; n <= 17; n++ {
		prog, cfg, err := experiments.ProgramFor(rows[fmt.Sprintf("pset:%d", n)][0], base)
		if err != nil {
			t.Fatal(err)
		}
		ks = append(ks, &psetKernel{row: n, prog: prog, cfg: cfg})
	}
	if _, err := runKernels(env, ks, nTrain, 2*nTrain); err != nil {
		t.Fatal(err)
	}
	t1, _, _, _, err := psetTable1(ks)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := psetRecoverySweep(env, ks, nTrain)
	if err != nil {
		t.Fatal(err)
	}
	more, _, err := psetSweeps(env, ks, nTrain)
	if err != nil {
		t.Fatal(err)
	}
	return &experiments.Report{Name: "pset", Sections: []experiments.Section{t1, rec, more}}
}

// TestPSetSweeps checks the checkpoint-interval, L1-size and training-run
// sweeps of `weft reproduce pset` on few seeds, by relations that hold
// whatever the seeds (the sweeps' own invariants and their agreement with
// the report's other tables) and by the effects the default seeds show
// that these seeds show too. (TestPSetReproduction runs them inside
// runPSet.)
func TestPSetSweeps(t *testing.T) {
	r := psetSweepReport(t, psetSensSeeds)
	floats := func(tb *results.Table, col string) []float64 {
		t.Helper()
		xs, err := tb.Floats(col)
		if err != nil {
			t.Fatalf("%s: %v", tb.Name, err)
		}
		return xs
	}

	// Checkpoint interval: the rows are 100, 1k, 10k and 100k
	// instructions. Longer intervals take fewer checkpoints and discard
	// more per rollback; the default interval (100k) with the default
	// rollback budget is the recovery table's "rollback ×3" run for run.
	ck := tableNamed(t, r, "checkpoint")
	ivs := floats(ck, "checkpoint interval (instrs)")
	if len(ivs) != 4 || ivs[0] != 100 || ivs[3] != 100_000 {
		t.Fatalf("checkpoint intervals %v", ivs)
	}
	per, win := floats(ck, "checkpoints per run"), floats(ck, "rollback window, mean")
	for i := 1; i < len(ivs); i++ {
		if per[i] > per[i-1] || win[i] < win[i-1] {
			t.Errorf("interval %v: %v checkpoints per run, mean window %v; interval %v: %v, %v", ivs[i], per[i], win[i], ivs[i-1], per[i-1], win[i-1])
		}
	}
	if per[0] <= per[3] || win[0] >= win[3] {
		t.Errorf("checkpoints per run %v, mean windows %v: want more checkpoints and shorter windows at 100 instructions than at 100k", per, win)
	}
	rec := tableNamed(t, r, "recovery")
	rf, rc := floats(rec, "failing runs"), floats(rec, "rows without failures")
	cf, cc := floats(ck, "failing runs"), floats(ck, "rows without failures")
	if len(rf) != 7 || cf[3] != rf[5] || cc[3] != rc[5] {
		t.Errorf("interval 100k: %v failing runs, %v rows without; recovery table's rollback ×3: %v, %v", cf[3], cc[3], rf[5], rc[5])
	}
	for i, f := range cf {
		if f >= rf[0] {
			t.Errorf("interval %v: %v failing runs, logging only %v", ivs[i], f, rf[0])
		}
	}

	// L1 size: the metadata-lost rows by size, then the kept ones.
	// Evictions only fall as the L1 grows, and there are none at the
	// default size. At 64 bytes (one line) the kernels evict, and losing
	// the metadata flags fewer failing runs than keeping it.
	l1 := tableNamed(t, r, "l1size")
	cSize, _ := l1.Column("L1 bytes")
	cEvict, _ := l1.Column("metadata on evict")
	ev, det, fv := floats(l1, "evictions per run"), floats(l1, "rows detected"), floats(l1, "false violations")
	fails, flagged := floats(l1, "failing runs (rows 1–15)"), floats(l1, "failing runs flagged")
	size := func(i int) float64 { return l1.Rows[i][cSize].(float64) }
	var lost, kept []int
	for i, row := range l1.Rows {
		if row[cEvict] == "lost" {
			lost = append(lost, i)
		} else {
			kept = append(kept, i)
		}
	}
	if len(lost) < 3 || len(kept) == 0 || size(lost[0]) != 64 || size(kept[0]) != 64 {
		t.Fatalf("l1size rows %v", l1.Rows)
	}
	for j := 1; j < len(lost); j++ {
		if a, b := lost[j-1], lost[j]; size(b) <= size(a) || ev[b] > ev[a] {
			t.Errorf("L1 %v bytes: %v evictions per run; %v bytes: %v", size(b), ev[b], size(a), ev[a])
		}
	}
	def := lost[len(lost)-1]
	if ev[def] != 0 || ev[lost[0]] < 1 {
		t.Errorf("evictions per run: %v at the default size, %v at 64 bytes", ev[def], ev[lost[0]])
	}
	// An L1 that evicts nothing runs as the default does.
	for _, i := range lost {
		if ev[i] == 0 && (det[i] != det[def] || fv[i] != fv[def] || fails[i] != fails[def] || flagged[i] != flagged[def]) {
			t.Errorf("L1 %v bytes, no evictions: %v rows, %v false violations, %v of %v failing runs flagged; default: %v, %v, %v of %v",
				size(i), det[i], fv[i], flagged[i], fails[i], det[def], fv[def], flagged[def], fails[def])
		}
	}
	l, k := lost[0], kept[0]
	if flagged[l]/fails[l] >= flagged[k]/fails[k] {
		t.Errorf("64-byte L1: %v of %v failing runs flagged with the metadata lost, %v of %v with it kept", flagged[l], fails[l], flagged[k], fails[k])
	}

	// Training runs: 5 and psetSensSeeds. PSets only grow with training,
	// so the pairs learned only rise and the rows detected, false
	// violations and passing runs flagged only fall; fewer runs leave
	// more false violations. The last row is Table 1's.
	tr := tableNamed(t, r, "training")
	ns := floats(tr, "training runs")
	if len(ns) != 2 || ns[0] != 5 || ns[1] != psetSensSeeds {
		t.Fatalf("training runs %v", ns)
	}
	pairs, tdet, tfv, tfr := floats(tr, "pairs learned"), floats(tr, "rows detected (of 17)"), floats(tr, "false violations"), floats(tr, "passing runs with a violation")
	for i := 1; i < len(ns); i++ {
		if pairs[i] < pairs[i-1] || tdet[i] > tdet[i-1] || tfv[i] > tfv[i-1] || tfr[i] > tfr[i-1] {
			t.Errorf("%v training runs: %v pairs, %v rows, %v false violations, %v passing runs flagged; %v runs: %v, %v, %v, %v",
				ns[i], pairs[i], tdet[i], tfv[i], tfr[i], ns[i-1], pairs[i-1], tdet[i-1], tfv[i-1], tfr[i-1])
		}
	}
	if tfv[0] <= tfv[1] {
		t.Errorf("false violations %v: want more after 5 training runs than after %d", tfv, psetSensSeeds)
	}
	t1 := tableNamed(t, r, "table1")
	yes, _ := t1.Column("pset (weft)")
	falses := floats(t1, "pset false violations (static)")
	rows, sum := 0.0, 0.0
	for i, row := range t1.Rows {
		if row[yes] == "Yes" {
			rows++
		}
		sum += falses[i]
	}
	if last := len(ns) - 1; tdet[last] != rows || tfv[last] != sum {
		t.Errorf("training sweep's last row: %v rows, %v false violations; Table 1: %v, %v", tdet[last], tfv[last], rows, sum)
	}
}
