package bugaboo

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"weft/core"
	"weft/detectors/bugaboo"
	"weft/experiments"
	"weft/results"
	"weft/sim"
)

// bbTestProtocol is the tests' reduction of the paper's protocol: its
// first two trials (25 + 25 labeled runs, 25 unlabeled), the same runs as
// the first two trials of `weft reproduce bugaboo`.
var bbTestProtocol = bbProtocol{trials: 2, perKind: 25, unlab: 25, maxSeeds: 3000}

var bbTestOnce struct {
	sync.Once
	d   bbDetection
	err error
}

// bbTestDetection runs the 13 kernels under bbTestProtocol once for every
// test that needs them.
func bbTestDetection(t *testing.T) bbDetection {
	t.Helper()
	bbTestOnce.Do(func() {
		base, err := bugabooMachine()
		if err != nil {
			bbTestOnce.err = err
			return
		}
		ks, err := bbKernels(base, bbAllRows())
		if err != nil {
			bbTestOnce.err = err
			return
		}
		if _, err := runBugabooTrials(experiments.Env{}, bbTestProtocol, ks); err != nil {
			bbTestOnce.err = err
			return
		}
		d := bbDetection{p: bbTestProtocol, ks: ks, scores: make([]bbScores, len(ks))}
		for i, k := range ks {
			d.scores[i] = k.score()
		}
		bbTestOnce.d = d
	})
	if bbTestOnce.err != nil {
		t.Fatal(bbTestOnce.err)
	}
	return bbTestOnce.d
}

// TestBugabooTable2Shape checks Table 2's detection columns: with context
// 5 the labeled BB-SW word ranking finds every kernel in every trial but
// MySQL-IdInit, and without context none but MySQL-BinLog (every trial)
// and PBZip2-Order (in some trials at most) — the paper finds all 13 with
// context and only IdInit without; the report says why ours differ.
// BB-HW finds IdInit, which BB-SW cannot.
func TestBugabooTable2Shape(t *testing.T) {
	d := bbTestDetection(t)
	trials := d.p.trials
	for i, k := range d.ks {
		w := d.scores[i][bbWord(bbMaxContext)][0][0]
		wo := d.scores[i][bbWord(0)][0][0]
		wantW, maxWo, minWo := trials, 0, 0
		switch k.paper {
		case "MySQL-IdInit":
			wantW = 0
		case "MySQL-BinLog":
			maxWo, minWo = trials, trials
		case "PBZip2-Order":
			maxWo = trials - 1
		}
		if w.found != wantW {
			t.Errorf("%s: found with context in %d of %d trials, want %d", k.paper, w.found, trials, wantW)
		}
		if wo.found < minWo || wo.found > maxWo {
			t.Errorf("%s: found without context in %d of %d trials, want %d..%d", k.paper, wo.found, trials, minWo, maxWo)
		}
		if w.found > 0 && (w.insp < 1 || w.funcs < 1 || w.funcs > w.insp) {
			t.Errorf("%s: %.1f inspections in %.1f functions", k.paper, w.insp, w.funcs)
		}
		if k.paper == "MySQL-IdInit" {
			if hw := d.scores[i][bbHW][0][0]; hw.found != trials {
				t.Errorf("IdInit: BB-HW labeled found in %d of %d trials", hw.found, trials)
			}
		}
	}
	sec, err := bbTable2(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(sec.Tables[0].Rows) != 13 || !strings.Contains(sec.Comment, "MySQL-IdInit w/o context: weft No, paper Yes") {
		t.Errorf("Table 2: %d rows; comment:\n%s", len(sec.Tables[0].Rows), sec.Comment)
	}
}

// TestBugabooTable4Shape checks Table 4: a kernel found in some trials at
// one context size is found in at least as many at every larger size (the
// paper's coverage never falls), and coverage at 5 is at least the
// coverage without context.
func TestBugabooTable4Shape(t *testing.T) {
	d := bbTestDetection(t)
	every := make([]int, bbMaxContext+1)
	for i, k := range d.ks {
		prev := -1
		for s := 0; s <= bbMaxContext; s++ {
			f := d.scores[i][bbWord(s)][0][0].found
			if f < prev {
				t.Errorf("%s: found in %d trials at context %d, %d at %d", k.paper, f, s, prev, s-1)
			}
			prev = f
			if f == d.p.trials {
				every[s]++
			}
		}
	}
	if every[bbMaxContext] < every[0] || every[bbMaxContext] != 12 || every[0] != 1 {
		t.Errorf("kernels found in every trial by context size: %v; want 1 at 0 and 12 at 5", every)
	}
}

// TestBugabooFigure7Shape checks the convergence curves: 100% at the first
// run, and a last stretch far below the first added runs, near 0 for
// MySQL-BinLog and PBZip2-Order.
func TestBugabooFigure7Shape(t *testing.T) {
	d := bbTestDetection(t)
	sec := bbFigure7(d)
	if len(sec.Plots) != 3 {
		t.Fatalf("%d plots", len(sec.Plots))
	}
	tb := sec.Tables[0]
	rest, _ := tb.Floats("mean of runs 2–n")
	tail, _ := tb.Floats("mean of the last 5 runs")
	first, _ := tb.Floats("run 1")
	if len(tb.Rows) != 18 {
		t.Fatalf("%d rows", len(tb.Rows))
	}
	for i, row := range tb.Rows {
		name := row[0].(string)
		if first[i] != 100 {
			t.Errorf("%s ctx %v: run 1 adds %v%%", name, row[1], first[i])
		}
		if tail[i] > 10 {
			t.Errorf("%s ctx %v: the last five runs add %.2f%% on average", name, row[1], tail[i])
		}
		if name != "Apache-LogSz" && tail[i] > 3 {
			t.Errorf("%s ctx %v: the last five runs add %.2f%%, want near 0", name, row[1], tail[i])
		}
		if rest[i] > 60 {
			t.Errorf("%s ctx %v: runs 2..25 add %.2f%% on average", name, row[1], rest[i])
		}
	}
	for _, c := range d.ks {
		for _, tr := range c.trials {
			if len(tr.conv[0]) != d.p.unlab {
				t.Errorf("%s: a trial's first runs are %d", c.paper, len(tr.conv[0]))
			}
		}
		if c.paper == "PBZip2-Order" {
			// Larger contexts converge more slowly.
			var prev float64
			for s := 0; s <= bbMaxContext; s++ {
				r := rest[12+s]
				if r < prev {
					t.Errorf("PBZip2: mean new edges %.2f%% at context %d below %.2f%% at %d", r, s, prev, s-1)
				}
				prev = r
			}
		}
	}
}

// TestBugabooTable3 checks the imprecision table: four rows, BB-HW losing at
// least what line tracking loses, percentages in range.
func TestBugabooTable3(t *testing.T) {
	d := bbTestDetection(t)
	sec, err := bbTable3(d)
	if err != nil {
		t.Fatal(err)
	}
	tb := sec.Tables[0]
	line, _ := tb.Floats("BB-SW line % (weft)")
	hw, _ := tb.Floats("BB-HW % (weft)")
	if len(tb.Rows) != 4 {
		t.Fatalf("%d rows", len(tb.Rows))
	}
	for i := range line {
		if line[i] < 0 || hw[i] > 100 || hw[i] < line[i] {
			t.Errorf("%v: line %.1f%%, BB-HW %.1f%%", tb.Rows[i][0], line[i], hw[i])
		}
	}
}

// TestBugabooTable5Identities checks Table 5's identities on weft's runs:
// M-D Wr = Rd + Wr + Upgr misses (metadata written on every fill and
// upgrade), CT Wr ≥ Rd.Ms with the excess the WAW edges, per run; and
// BB-HW's cycle overhead is not negative in the median.
func TestBugabooTable5Identities(t *testing.T) {
	d := bbTestDetection(t)
	base, err := bugabooMachine()
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := runBugabooWorkloads(experiments.Env{Quick: true}, base, d.ks)
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 3+4 {
		t.Fatalf("%d workloads", len(ws))
	}
	var medians []float64
	for _, w := range ws {
		for _, c := range w.on {
			if c.metaWrites != c.rd+c.wr+c.upgr {
				t.Errorf("%s: %v metadata writes, %v + %v + %v misses", w.key, c.metaWrites, c.rd, c.wr, c.upgr)
			}
			if c.ctInserts < c.rd || c.ctInserts-c.rd != c.ctWAW || c.ctRAW+c.ctMEM != c.rd {
				t.Errorf("%s: %v CT inserts (%v RAW, %v WAW, %v MEM), %v read misses", w.key, c.ctInserts, c.ctRAW, c.ctWAW, c.ctMEM, c.rd)
			}
			if c.traps != 0 || c.drops != 0 {
				t.Errorf("%s: %v traps, %v drops in a short run", w.key, c.traps, c.drops)
			}
		}
		if len(w.nodes5) == 0 || experiments.Mean(w.nodes5) < experiments.Mean(w.nodes0) || experiments.Mean(w.edges5) < experiments.Mean(w.edges0) {
			t.Errorf("%s: graph with context %v/%v nodes/edges, without %v/%v", w.key, experiments.Mean(w.nodes5), experiments.Mean(w.edges5), experiments.Mean(w.nodes0), experiments.Mean(w.edges0))
		}
		medians = append(medians, results.Summarize(w.overheadPct()).Median)
	}
	if m := results.Summarize(medians).Median; m < 0 {
		t.Errorf("median BB-HW overhead %.3f%% (per workload: %v)", m, medians)
	}
	sec, _, err := bbTable5(ws, base.Bugaboo.CT.Entries)
	if err != nil {
		t.Fatal(err)
	}
	side := sec.Tables[0]
	for _, col := range []string{"Rd.Ms (paper)", "M-D Wr (weft)", "CT Wr ratio", "Traps/10M (paper)"} {
		if _, ok := side.Column(col); !ok {
			t.Errorf("Table 5 lacks %q", col)
		}
	}
}

// TestBugabooTrapSweep checks traps against CT Wr × 1000 / entries: a
// table traps once per `entries` inserts, so in the region of interest a
// run traps within one of inserts / entries times (it may hold inserts
// from before the region), and within a factor 2 wherever at least one
// trap is predicted.
func TestBugabooTrapSweep(t *testing.T) {
	base, err := bugabooMachine()
	if err != nil {
		t.Fatal(err)
	}
	rows, _, err := runBugabooSweep(experiments.Env{Quick: true}, base)
	if err != nil {
		t.Fatal(err)
	}
	trapped := 0
	for _, r := range rows {
		if r.entries == 0 {
			continue
		}
		pred := r.ctPer10k * r.memOps / 1e4 / float64(r.entries)
		if r.traps < math.Floor(pred) || r.traps > math.Floor(pred)+1 {
			t.Errorf("%s, %d entries: %v traps, %.2f predicted", r.name, r.entries, r.traps, pred)
		}
		if pred >= 1 && (r.traps > 2*pred || r.traps < pred/2) {
			t.Errorf("%s, %d entries: %v traps, %.2f predicted", r.name, r.entries, r.traps, pred)
		}
		if r.allTraps < r.traps {
			t.Errorf("%s: %v traps in the run, %v in its region of interest", r.name, r.allTraps, r.traps)
		}
		if r.traps > 0 {
			trapped++
		}
	}
	if trapped == 0 {
		t.Error("no row trapped")
	}
	if _, err := bbSweepTable(rows, 1); err != nil {
		t.Fatal(err)
	}
}

// TestBugabooSWDoesNotChangeRuns checks that attaching the BB-SW and BB-HW
// collectors leaves runs byte-identical, on kernels and a profile.
func TestBugabooSWDoesNotChangeRuns(t *testing.T) {
	base, err := bugabooMachine()
	if err != nil {
		t.Fatal(err)
	}
	ks, err := bbKernels(base, []int{5, 10, 12})
	if err != nil {
		t.Fatal(err)
	}
	if n, err := bbCheckUnchanged(experiments.Env{}, ks); err != nil || n != 3 {
		t.Fatal(n, err)
	}
	prog, cfg, err := experiments.ProgramFor("ferret", base)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Bugaboo.Enabled = true
	var slot *bbCollectors
	with, err := sim.Run(cfg, prog, 2, bbCollect(prog, 64, &slot)()...)
	if err != nil {
		t.Fatal(err)
	}
	without, err := sim.Run(cfg, prog, 2, sim.WithStatGroups())
	if err != nil {
		t.Fatal(err)
	}
	if bbSimResultJSON(with) != bbSimResultJSON(without) {
		t.Error("BB-SW changed a run of ferret")
	}
	if slot.sw[bbWord(5)].Graph().EdgeCount() == 0 || slot.hw.Graph().EdgeCount() == 0 {
		t.Error("the collectors saw nothing")
	}
}

// TestBugabooTrialsIndependentOfWorkers checks that the trials, filed in
// seed order, do not depend on the worker count or the rounds.
func TestBugabooTrialsIndependentOfWorkers(t *testing.T) {
	base, err := bugabooMachine()
	if err != nil {
		t.Fatal(err)
	}
	p := bbProtocol{trials: 2, perKind: 4, unlab: 4, maxSeeds: 3000}
	var got [2]string
	for i, w := range []int{1, 2} {
		ks, err := bbKernels(base, []int{1, 12})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := runBugabooTrials(experiments.Env{Workers: w}, p, ks); err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, k := range ks {
			s := k.score()
			b.WriteString(k.name + s[bbWord(5)][0][0].cell() + s[bbHW][1][0].cell())
			for _, tr := range k.trials {
				for _, r := range tr.runs {
					b.WriteString(" " + bugaboo.DescribeCodePoint(nil, int32(r.seed)))
				}
			}
		}
		got[i] = b.String()
	}
	if got[0] != got[1] {
		t.Errorf("worker count changed the trials:\n%s\n%s", got[0], got[1])
	}
}

// TestBugabooHostTable checks the host-measurement table's shape (not its
// times) and that BB-SW's exact work grows with communication.
func TestBugabooHostTable(t *testing.T) {
	d := bbTestDetection(t)
	base, err := bugabooMachine()
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := runBugabooWorkloads(experiments.Env{Quick: true}, base, d.ks)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := runBugabooHostCost(experiments.Env{Quick: true}, ws[:1])
	if err != nil {
		t.Fatal(err)
	}
	tb := bbHostTable(rows)
	if !strings.Contains(tb.Title, "HOST MEASUREMENT") || len(tb.Rows) != 1 {
		t.Errorf("host table %q, %d rows", tb.Title, len(tb.Rows))
	}
	for _, w := range ws {
		if !w.profile && experiments.Mean(w.swEdges) < 100 {
			t.Errorf("%s: %.1f edge inserts per 10k memory ops", w.key, experiments.Mean(w.swEdges))
		}
		if w.key == "blackscholes" && experiments.Mean(w.swEdges) > 10 {
			t.Errorf("blackscholes: %.1f edge inserts per 10k memory ops", experiments.Mean(w.swEdges))
		}
	}
}

// TestTrialFoldMatchesSlices checks that folding each run into its trial
// as it is filed gives what the trial's runs, kept with their graphs,
// give: the labeled rankings over the bug-only graphs of the first buggy
// runs against the union of the first non-buggy ones, the unlabeled
// rankings over the first runs (the last replaced by the first buggy run
// when none of them is buggy), Table 3's unions, Figure 7's convergence
// and Table 5's graph sizes. The graphs are rebuilt by running the
// trials' seeds again. MySQL-BinLog fails rarely, so some of its trials
// take the replacement.
func TestTrialFoldMatchesSlices(t *testing.T) {
	base, err := bugabooMachine()
	if err != nil {
		t.Fatal(err)
	}
	p := bbProtocol{trials: 2, perKind: 4, unlab: 4, maxSeeds: 3000}
	ks, err := bbKernels(base, []int{1, 10, 12})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runBugabooTrials(experiments.Env{}, p, ks); err != nil {
		t.Fatal(err)
	}
	replaced := 0
	for _, k := range ks {
		for ti, tr := range k.trials {
			// The trial's runs again, with their graphs.
			jobs := make([]sim.Job, len(tr.runs))
			slots := make([]*bbCollectors, len(tr.runs))
			for i, r := range tr.runs {
				jobs[i] = sim.Job{Config: k.cfg, Program: k.prog, Seed: r.seed, Options: bbCollect(k.prog, k.cfg.Cache.L1.LineBytes, &slots[i])}
			}
			rs, err := experiments.RunJobs(experiments.Env{}, jobs)
			if err != nil {
				t.Fatal(err)
			}
			var buggy, ok, unlab, first []bbGraphs
			var firstBuggy *bbGraphs
			for i, r := range rs {
				if b := r.Outcome != core.Pass; b != tr.runs[i].buggy {
					t.Fatalf("%s seed %d: buggy %v, filed as %v", k.name, r.Seed, b, tr.runs[i].buggy)
				}
				g := slots[i].graphs()
				switch {
				case tr.runs[i].buggy && len(buggy) < p.perKind:
					buggy = append(buggy, g)
				case !tr.runs[i].buggy && len(ok) < p.perKind:
					ok = append(ok, g)
				}
				if len(first) < p.unlab {
					first = append(first, g)
					unlab = append(unlab, g)
				}
				if tr.runs[i].buggy && firstBuggy == nil {
					firstBuggy = &g
				}
			}
			if !slices.ContainsFunc(tr.runs[:len(unlab)], func(r bbRun) bool { return r.buggy }) {
				unlab[len(unlab)-1] = *firstBuggy
				replaced++
			}
			pick := func(gs []bbGraphs, gi int) []*bugaboo.Graph {
				out := make([]*bugaboo.Graph, len(gs))
				for i, g := range gs {
					out[i] = g[gi]
				}
				return out
			}
			for gi := range bbNumGraphs {
				bugOnly := bugaboo.BugOnly(pick(buggy, gi), pick(ok, gi))
				for h, how := range bbHows {
					r := bugaboo.Ranker{Prog: k.prog, How: how}
					n, f, found := bugaboo.Inspections(r.Rank(bugOnly), k.bugCPs, k.prog)
					if want := (bbInsp{n, f, found}); tr.insp[gi][0][h] != want {
						t.Errorf("%s trial %d %s %v labeled: fold %+v, slices %+v", k.name, ti, bbGraphName(gi), how, tr.insp[gi][0][h], want)
					}
					n, f, found = bugaboo.Inspections(r.Unlabeled(pick(unlab, gi)), k.bugCPs, k.prog)
					if want := (bbInsp{n, f, found}); tr.insp[gi][1][h] != want {
						t.Errorf("%s trial %d %s %v unlabeled: fold %+v, slices %+v", k.name, ti, bbGraphName(gi), how, tr.insp[gi][1][h], want)
					}
				}
			}
			union := func(gi int) *bugaboo.Graph { return bugaboo.Union(append(pick(buggy, gi), pick(ok, gi)...)...) }
			word, hw := union(bbWord(bbMaxContext)), union(bbHW)
			want := bbImprecision{float64(len(bugaboo.CodePoints(k.prog, word))), bugaboo.Imprecision(k.prog, word, union(bbLine)),
				bugaboo.Imprecision(k.prog, word, withoutNull(hw)), bugaboo.Imprecision(k.prog, word, hw)}
			if tr.imprecision != want {
				t.Errorf("%s trial %d Table 3: fold %+v, slices %+v", k.name, ti, tr.imprecision, want)
			}
			for s := 0; s <= bbMaxContext; s++ {
				if want := bugaboo.Convergence(pick(first, bbWord(s))); !slices.Equal(tr.conv[s], want) {
					t.Errorf("%s trial %d context %d convergence: fold %v, slices %v", k.name, ti, s, tr.conv[s], want)
				}
			}
			var sizes [][4]float64
			for _, g := range unlab {
				g0, g5 := g[bbWord(0)], g[bbWord(bbMaxContext)]
				sizes = append(sizes, [4]float64{float64(g0.NodeCount()), float64(g0.EdgeCount()), float64(g5.NodeCount()), float64(g5.EdgeCount())})
			}
			if !slices.Equal(tr.sizes, sizes) {
				t.Errorf("%s trial %d graph sizes: fold %v, slices %v", k.name, ti, tr.sizes, sizes)
			}
		}
	}
	if replaced == 0 {
		t.Error("no trial replaced its last unlabeled run: the replacement is not tested")
	}
}

// The sweep's comparison of the machines follows the runs' cycles.
func TestSplitShorterFollowsTheCycles(t *testing.T) {
	sweep := []bbSweepRow{{name: "canneal", entries: 4096, offCyc: 1000}, {name: "canneal", machine: 1, entries: 4096, offCyc: 100}}
	if got := splitShorter(sweep, sweep[1]); !strings.Contains(got, "takes 90% fewer cycles on the split bus") {
		t.Errorf("shorter: %q", got)
	}
	sweep[1].offCyc = 1500
	if got := splitShorter(sweep, sweep[1]); !strings.Contains(got, "takes 50% more cycles on the split bus") {
		t.Errorf("longer: %q", got)
	}
}

// Table 2's comparison of BB-HW with BB-SW and of line with word
// granularity counts rows from the numbers, weft's and the paper's.
func TestInspCompareCountsRows(t *testing.T) {
	paper, err := results.Reference("bugaboo/table2")
	if err != nil {
		t.Fatal(err)
	}
	var s bbScores
	s[bbHW][0][0] = bbScore{found: 1, trials: 1, insp: 3}
	s[bbWord(bbMaxContext)][0][0] = bbScore{found: 1, trials: 1, insp: 2}
	s[bbLine][0][0] = bbScore{found: 1, trials: 1, insp: 2.5}
	var c bbInspCompare
	c.add(s, paper, 0)
	s[bbHW][0][0].insp = 1
	s[bbLine][0][0] = bbScore{trials: 1}
	c.add(s, paper, 1)
	if c.hwMore != 1 || c.hwRows != 2 || c.lineSame != 1 || c.lineRows != 1 {
		t.Errorf("weft counts %+v", c)
	}
	var want bbInspCompare
	for row := 0; row < 2; row++ {
		var hw, line, word float64
		fmt.Sscan(paperCell(paper, row, "HW Lab"), &hw)
		fmt.Sscan(paperCell(paper, row, "SW-Line Lab"), &line)
		fmt.Sscan(paperCell(paper, row, "SW-Word Lab"), &word)
		want.pHWRows++
		want.pLineRows++
		if hw >= word {
			want.pHWMore++
		}
		if math.Abs(line-word) < 1 {
			want.pLineSame++
		}
	}
	if c.pHWMore != want.pHWMore || c.pHWRows != want.pHWRows || c.pLineSame != want.pLineSame || c.pLineRows != want.pLineRows {
		t.Errorf("paper counts %+v, want %+v", c, want)
	}
	if got := c.sentence(); !strings.Contains(got, "on\n1 of the 2 rows where both find the bug") {
		t.Errorf("sentence %q", got)
	}
}

// Table 4's comment follows the coverage counts.
func TestCoverageSentences(t *testing.T) {
	for _, c := range []struct {
		every, paper []int
		want         string
	}{
		{[]int{1, 2, 3}, []int{1, 1, 2}, "never falls as the context grows, as in the paper"},
		{[]int{1, 0, 3}, []int{1, 1, 2}, "falls somewhere as the context grows, unlike the paper's"},
		{[]int{1, 2, 3}, []int{2, 1, 2}, "never falls as the context grows, where the paper's does"},
	} {
		if got := coverageGrowth(c.every, c.paper); !strings.Contains(got, c.want) {
			t.Errorf("%v vs %v: %q lacks %q", c.every, c.paper, got, c.want)
		}
	}
	if got := firstEventCoverage([]int{1, 9}, []int{1, 6}, 13); !strings.Contains(got, "finds 9 of its 13 kernels in every trial, the paper 6 of 13: coverage grows faster here") {
		t.Errorf("first event: %q", got)
	}
	if got := firstEventCoverage([]int{1, 4}, []int{1, 6}, 13); !strings.Contains(got, "grows more slowly here") {
		t.Errorf("first event: %q", got)
	}
}
