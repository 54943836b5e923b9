package pset

import (
	"fmt"
	"math"
	"slices"
	"strings"
	psethw "weft/cpu/pset"

	"weft/configs"
	"weft/core"
	"weft/experiments"
	"weft/isa"
	"weft/results"
	"weft/sim"
)

// This file holds the PSet reproduction's remaining sensitivity sweeps
// (none of them in the paper): the checkpoint interval of the rollback
// mode, the L1 size under the hardware's lost-on-eviction metadata, and
// the number of training runs the PSets are learned from.

// psetCheckpointIntervals are the checkpoint intervals (instructions) the
// checkpoint sweep runs the rollback mode at.
var psetCheckpointIntervals = []uint64{100, 1_000, 10_000, 100_000}

// psetL1Sizes are the L1 capacities (bytes) the L1 sweep runs below the
// default's. 512 bytes is the smallest the default geometry allows (one
// set of 8 ways of 64-byte lines) and the kernels hardly evict there, so
// the smaller ones are one set of fewer ways.
var psetL1Sizes = []int{64, 128, 256, 512, 1 << 10, 4 << 10}

// psetTrainingRuns are the training-run counts the training sweep learns
// PSets from (capped at the training seeds run).
var psetTrainingRuns = []int{5, 10, 20, 50, 100}

// psetSweeps runs the checkpoint-interval, L1-size and training-run sweeps
// and returns their tables, plots and comments as one section (to be
// merged into the Sensitivity section) and the instructions simulated.
func psetSweeps(env experiments.Env, ks []*psetKernel, nTrain int) (experiments.Section, uint64, error) {
	ck, n1, err := psetCheckpointSweep(env, ks, nTrain)
	if err != nil {
		return experiments.Section{}, 0, fmt.Errorf("checkpoint sweep: %w", err)
	}
	l1, n2, err := psetL1Sweep(env, ks, nTrain)
	if err != nil {
		return experiments.Section{}, 0, fmt.Errorf("L1 sweep: %w", err)
	}
	tr := psetTrainingSweep(ks, nTrain)
	var sec experiments.Section
	var comments []string
	for _, s := range []experiments.Section{ck, l1, tr} {
		sec.Tables = append(sec.Tables, s.Tables...)
		sec.Plots = append(sec.Plots, s.Plots...)
		comments = append(comments, s.Comment)
	}
	sec.Comment = strings.Join(comments, "\n\n")
	return sec, n1 + n2, nil
}

// psetCheckpointSweep runs rows 1–15 in the rollback mode at each
// checkpoint interval and counts, per interval, the failing runs, the
// rows with none, the rollbacks and their actual windows (the
// instructions each discarded), the violations accepted and the
// checkpoints taken.
func psetCheckpointSweep(env experiments.Env, ks []*psetKernel, nTrain int) (experiments.Section, uint64, error) {
	runs := min(psetSensitivityRuns, 2*nTrain)
	ivs := psetCheckpointIntervals
	wins := make([][]float64, len(ks)*len(ivs)*runs) // each job's rollback windows
	rows, jobs := psetSweepJobs(ks, nTrain, runs, len(ivs), func(cfg *configs.Config, i int) {
		cfg.PSet.Recovery.Mode = "rollback"
		cfg.PSet.Recovery.CheckpointIntervalInstrs = ivs[i]
	}, func(k *psetKernel, j int) func() []sim.Option {
		w := &wins[j]
		return func() []sim.Option {
			return []sim.Option{sim.WithPSets(k.psets), sim.WithStatGroups(),
				sim.WithObserver(core.MaskOf(core.KindRollback), core.ObserverFunc(func(e *core.Event) { *w = append(*w, float64(e.Value)) }))}
		}
	})
	all, err := experiments.RunJobs(env, jobs)
	if err != nil {
		return experiments.Section{}, 0, err
	}
	paper, err := results.Reference("pset/table2")
	if err != nil {
		return experiments.Section{}, 0, err
	}
	t := results.NewTable("checkpoint", fmt.Sprintf("The rollback mode by checkpoint interval: rows 1–15, %d held-out seeds each; rollbacks, windows (instructions a rollback discarded, all threads), accepted violations and checkpoints summed over the runs", runs),
		"checkpoint interval (instrs)", "failing runs", "rows without failures", "rollbacks", "rollback window, mean", "rollback window, max", "violations accepted", "checkpoints", "checkpoints per run")
	n := len(ivs)
	m := psetCheckpointNumbers{ivs: ivs, rowFails: make([][]int, len(rows)), paperWin: map[int]string{}}
	bug, _ := paper.Column("bug")
	pw, _ := paper.Column("rollback_window_instrs")
	for _, row := range paper.Rows {
		var r int
		if _, err := fmt.Sscan(results.FormatCell(row[bug]), &r); err == nil {
			m.paperWin[r] = results.FormatCell(row[pw])
		}
	}
	x := make([]float64, n)
	for ii, iv := range ivs {
		failing, rowsClean := 0, 0
		var rb, acc, ckpts float64
		var win []float64
		for ki, k := range rows {
			if ii == 0 {
				m.rows = append(m.rows, k.row)
			}
			f := 0
			for s := 0; s < runs; s++ {
				j := (ki*n+ii)*runs + s
				r := all[j]
				if r.Outcome != core.Pass {
					f++
				}
				g, _ := r.Groups.Get(psethw.StatGroup)
				v, _ := g.Stats.Get(psethw.CounterRollbacks)
				rb += v
				v, _ = g.Stats.Get(psethw.CounterRollbacksExhausted)
				acc += v
				v, _ = g.Stats.Get(psethw.CounterCheckpoints)
				ckpts += v
				win = append(win, wins[j]...)
			}
			m.rowFails[ki] = append(m.rowFails[ki], f)
			failing += f
			if f == 0 {
				rowsClean++
			}
		}
		var mean, mx any = "", ""
		wm := 0.0
		if len(win) > 0 {
			wm = results.Summarize(win).Mean
			mean, mx = wm, slices.Max(win)
		}
		perRun := ckpts / float64(len(rows)*runs)
		t.AddRow(iv, failing, rowsClean, rb, mean, mx, acc, ckpts, perRun)
		x[ii] = math.Log10(float64(iv))
		m.fails, m.cks, m.clean = append(m.fails, float64(failing)), append(m.cks, perRun), append(m.clean, float64(rowsClean))
		m.means, m.accepted = append(m.means, wm), append(m.accepted, acc)
		m.ckTotal, m.rollbacks = append(m.ckTotal, ckpts), append(m.rollbacks, rb)
	}
	ins := make([]float64, len(all))
	for i, r := range all {
		ins[i] = float64(r.Instructions)
	}
	m.instrs, m.maxInstrs = results.Summarize(ins).Median, slices.Max(ins)
	t.Notes = []string{fmt.Sprintf("Mode rollback with at most %d rollbacks to one checkpoint, hang limit %d cycles; a checkpoint is also taken after every output and where a violation is accepted. The default interval is %d instructions.",
		configs.Default().PSet.Recovery.MaxRollbacksPerCheckpoint, Table2MaxCycles, configs.Default().PSet.Recovery.CheckpointIntervalInstrs)}
	sec := experiments.Section{
		Tables: []*results.Table{t},
		Plots: []experiments.Plot{{Name: "checkpoint", Caption: "Failing runs and violations accepted (rows 1–15) by checkpoint interval, rollback mode", Data: t,
			Draw: func(path string) error {
				return results.Line("PSet hardware, rollback: checkpoint interval", "checkpoint interval, log10 instructions", "runs, violations",
					[]results.LineSeries{{Name: "failing runs (rows 1–15)", X: x, Y: m.fails}, {Name: "violations accepted", X: x, Y: m.accepted}}, path)
			}}, {Name: "checkpoint-cost", Caption: "Checkpoints taken and rollbacks (rows 1–15) by checkpoint interval, rollback mode", Data: t,
			Draw: func(path string) error {
				return results.Line("PSet hardware, rollback: checkpoints and rollbacks", "checkpoint interval, log10 instructions", "count (all runs)",
					[]results.LineSeries{{Name: "checkpoints", X: x, Y: m.ckTotal}, {Name: "rollbacks", X: x, Y: m.rollbacks}}, path)
			}}},
		Comment: m.comment(),
	}
	return sec, experiments.TotalInstructions(all), nil
}

// psetCheckpointNumbers are the checkpoint sweep's measurements, by
// interval, and each row's failing runs by interval with the paper's
// rollback window for it.
type psetCheckpointNumbers struct {
	ivs                                []uint64
	instrs, maxInstrs                  float64 // median and most instructions per run
	fails, clean, cks, means, accepted []float64
	ckTotal, rollbacks                 []float64
	rows                               []int
	rowFails                           [][]int // by row, then interval
	paperWin                           map[int]string
}

// comment comments the checkpoint sweep with its numbers.
func (m psetCheckpointNumbers) comment() string {
	labels := make([]string, len(m.ivs))
	for i, iv := range m.ivs {
		labels[i] = fmt.Sprint(iv)
	}
	lo, hi := 0, len(m.ivs)-1
	var b strings.Builder
	fmt.Fprintf(&b, `Checkpoint interval (instructions), rollback mode: failing runs %s; rows without failures %s;
checkpoints per run %s; mean rollback window %s.`,
		psetJoinPairs(psetColons(labels), m.fails), psetJoinPairs(psetColons(labels), m.clean), psetJoinPairs(psetColons(labels), psetRound(m.cks, 1)),
		psetJoinPairs(psetColons(labels), psetRound(m.means, 0)))
	var worse []string
	for i, r := range m.rows {
		if f := m.rowFails[i]; f[lo] > f[hi] {
			w := m.paperWin[r]
			if w == "" {
				w = "none"
			}
			worse = append(worse, fmt.Sprintf("%d (%d failing runs against %d; the paper's window %s)", r, f[lo], f[hi], w))
		}
	}
	if len(worse) > 0 {
		fmt.Fprintf(&b, ` Rows failing more often at %s instructions than at %s: %s. A rollback to a checkpoint
taken after the bug's first bad access cannot undo it: the violation comes back, the rollback budget
runs out and the violation is accepted (%v accepted at %s, %v at %s).`, labels[lo], labels[hi], strings.Join(worse, ", "),
			m.accepted[lo], labels[lo], m.accepted[hi], labels[hi])
	} else {
		fmt.Fprintf(&b, ` No row fails more often at %s instructions than at %s.`, labels[lo], labels[hi])
	}
	fmt.Fprintf(&b, ` The paper gives no checkpoint interval and no cost for one (it has no timing
model); it reports the windows its bugs needed (0–4,760 instructions) and calls 100,000 instructions
more than sufficient. A kernel's run is short (a median of %.0f instructions, all threads, and
at most %.0f over these runs), so an interval longer than the run leaves only the first checkpoint
(at the first check), those after outputs and those where a violation was accepted.`, m.instrs, m.maxInstrs)
	return b.String()
}

// psetColons returns the labels with a colon each, for psetJoinPairs.
func psetColons(labels []string) []string {
	out := make([]string, len(labels))
	for i, l := range labels {
		out[i] = l + ":"
	}
	return out
}

// psetRound rounds each value to the given decimals (for comments).
func psetRound(xs []float64, decimals int) []float64 {
	p := math.Pow(10, float64(decimals))
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = math.Round(x*p) / p
	}
	return out
}

// psetHWLog collects the PSet hardware's violating pairs (predecessor,
// access) of one run.
type psetHWLog struct{ pairs [][2]int64 }

// psetHWLogOptions attaches the PSets and a violation log to a run.
func psetHWLogOptions(ps isa.PSets, l *psetHWLog) func() []sim.Option {
	return func() []sim.Option {
		return []sim.Option{sim.WithPSets(ps), sim.WithObserver(core.MaskOf(core.KindPSetViolation), core.ObserverFunc(func(e *core.Event) {
			l.pairs = append(l.pairs, [2]int64{int64(e.Pred()), int64(e.PC)})
		}))}
	}
}

// psetHWDetection applies the sensitivity study's rules to one kernel's
// runs and their violation logs: found says some failing run has a pair
// with an @bug instruction, flagged counts such failing runs, and falses
// are the distinct pairs flagged in passing runs.
func psetHWDetection(prog *isa.Program, rs []sim.Result, logs []*psetHWLog) (found bool, failing, flagged int, falses map[[2]int64]bool) {
	bug := map[int64]bool{}
	for _, pc := range prog.BugPCs() {
		bug[int64(pc)] = true
	}
	falses = map[[2]int64]bool{}
	for i, r := range rs {
		if r.Outcome == core.Pass {
			for _, p := range logs[i].pairs {
				falses[p] = true
			}
			continue
		}
		failing++
		hit := false
		for _, p := range logs[i].pairs {
			hit = hit || bug[p[0]] || bug[p[1]]
		}
		if hit {
			flagged++
			found = true
		}
	}
	return found, failing, flagged, falses
}

// psetL1Sweep runs every kernel with the PSet hardware logging only at
// smaller L1s than the default, the metadata lost on eviction, and, as a
// control, kept ("ideal") at the sizes below the default geometry's
// smallest (one set of its ways), where the kernels evict. It counts per
// setting the evictions, the failing runs of rows 1–15 and those flagged
// with an @bug pair, the rows of 1–15 detected and the false violations.
func psetL1Sweep(env experiments.Env, ks []*psetKernel, nTrain int) (experiments.Section, uint64, error) {
	type setting struct {
		size, ways int
		evict      string
	}
	l1 := ks[0].cfg.Cache.L1
	minDefault := l1.LineBytes * l1.Assoc // one set of the default's ways
	var sets []setting
	for _, z := range psetL1Sizes {
		if z < l1.SizeBytes {
			sets = append(sets, setting{z, min(l1.Assoc, z/l1.LineBytes), "lost"})
		}
	}
	sets = append(sets, setting{l1.SizeBytes, l1.Assoc, "lost"})
	for _, st := range sets {
		if st.size < minDefault {
			sets = append(sets, setting{st.size, st.ways, "ideal"})
		}
	}
	runs := min(psetSensitivityRuns, 2*nTrain)
	logs := make([]*psetHWLog, len(ks)*len(sets)*runs)
	var jobs []sim.Job
	for _, k := range ks {
		for _, st := range sets {
			cfg := k.cfg
			cfg.PSet.Enabled = true
			cfg.PSet.Recovery.Mode = "log_only"
			cfg.PSet.MetadataOnEvict = st.evict
			cfg.Cache.L1.SizeBytes, cfg.Cache.L1.Assoc = st.size, st.ways
			if err := cfg.Validate(); err != nil {
				return experiments.Section{}, 0, fmt.Errorf("L1 of %d bytes: %w", st.size, err)
			}
			for s := 0; s < runs; s++ {
				l := &psetHWLog{}
				logs[len(jobs)] = l
				jobs = append(jobs, sim.Job{Config: cfg, Program: k.prog, Seed: cfg.Sim.Seed + uint64(nTrain+s), Options: psetHWLogOptions(k.psets, l)})
			}
		}
	}
	all, err := experiments.RunJobs(env, jobs)
	if err != nil {
		return experiments.Section{}, 0, err
	}
	t := results.NewTable("l1size", fmt.Sprintf("The PSet hardware by L1 size, logging only: evictions, failing runs of rows 1–15 and those flagged with an @bug pair, rows of 1–15 detected, false violations (distinct pairs in passing runs, summed over the 17 kernels); %d held-out seeds a kernel", runs),
		"L1 bytes", "ways", "metadata on evict", "evictions per run", "failing runs (rows 1–15)", "failing runs flagged", "rows detected", "false violations")
	var m psetL1Numbers
	for si, st := range sets {
		detected, failing, flagged, falses := 0, 0, 0, 0
		var evictions float64
		for ki, k := range ks {
			o := (ki*len(sets) + si) * runs
			found, f, fl, fs := psetHWDetection(k.prog, all[o:o+runs], logs[o:o+runs])
			for _, r := range all[o : o+runs] {
				evictions += experiments.Stat(r, "evictions")
			}
			falses += len(fs)
			if k.row > 15 {
				continue
			}
			failing, flagged = failing+f, flagged+fl
			if found {
				detected++
			}
		}
		perRun := evictions / float64(len(ks)*runs)
		t.AddRow(st.size, st.ways, st.evict, perRun, failing, flagged, detected, falses)
		share := 0.0
		if failing > 0 {
			share = 100 * float64(flagged) / float64(failing)
		}
		if st.evict == "ideal" {
			m.idealSizes = append(m.idealSizes, float64(st.size))
			m.idealDet = append(m.idealDet, float64(detected))
			m.idealShare = append(m.idealShare, share)
			m.idealFV = append(m.idealFV, float64(falses))
			continue
		}
		m.sizes = append(m.sizes, float64(st.size))
		m.det, m.fv, m.ev = append(m.det, float64(detected)), append(m.fv, float64(falses)), append(m.ev, perRun)
		m.share = append(m.share, share)
	}
	t.Notes = []string{fmt.Sprintf("The default L1 is %d bytes, %d-way, %d-byte lines, and %d bytes (one set) is the smallest that geometry allows; the smaller L1s are a single set of fewer ways (fully associative). The \"ideal\" rows keep the metadata of evicted lines at those sizes, to separate the lost metadata from the small cache's other effects (timing, refills from memory). The hardware has no counter of lost records: with \"lost\", every eviction of a line drops its record.",
		l1.SizeBytes, l1.Assoc, l1.LineBytes, minDefault)}
	sec := experiments.Section{
		Tables: []*results.Table{t},
		Plots: []experiments.Plot{{Name: "l1size", Caption: "Rows detected, false violations and evictions per run by L1 size, metadata lost on eviction, and rows detected with it kept", Data: t,
			Draw: func(path string) error {
				return results.Line("PSet hardware, logging only: L1 size", "L1 bytes", "count",
					[]results.LineSeries{{Name: "rows detected (of 15), metadata lost", X: m.sizes, Y: m.det},
						{Name: "rows detected (of 15), metadata kept", X: m.idealSizes, Y: m.idealDet},
						{Name: "false violations, metadata lost", X: m.sizes, Y: m.fv},
						{Name: "evictions per run", X: m.sizes, Y: m.ev}}, path)
			}}},
		Comment: m.comment(),
	}
	return sec, experiments.TotalInstructions(all), nil
}

// psetL1Numbers are the L1 sweep's measurements, by size: with the
// metadata lost, and kept at the smallest sizes.
type psetL1Numbers struct {
	sizes, ev, det, fv, share                 []float64
	idealSizes, idealDet, idealFV, idealShare []float64
}

// comment comments the L1 sweep with its numbers.
func (m psetL1Numbers) comment() string {
	label := func(zs []float64) []string {
		ls := make([]string, len(zs))
		for i, z := range zs {
			ls[i] = fmt.Sprintf("%v B", z)
		}
		return ls
	}
	labels, ideal := label(m.sizes), label(m.idealSizes)
	last := len(m.sizes) - 1
	var b strings.Builder
	pct := func(ls []string, xs []float64) string {
		parts := make([]string, len(ls))
		for i := range ls {
			parts[i] = fmt.Sprintf("%s: %.0f%%", ls[i], xs[i])
		}
		return strings.Join(parts, ", ")
	}
	fmt.Fprintf(&b, `L1 size, metadata lost on eviction: evictions per run %s; rows detected %s; failing runs
flagged with an @bug pair %s; false violations %s. With the metadata kept: rows detected %s; failing
runs flagged %s; false violations %s.`,
		psetJoinPairs(psetColons(labels), psetRound(m.ev, 1)), psetJoinPairs(psetColons(labels), m.det), pct(labels, m.share), psetJoinPairs(psetColons(labels), m.fv),
		psetJoinPairs(psetColons(ideal), m.idealDet), pct(ideal, m.idealShare), psetJoinPairs(psetColons(ideal), m.idealFV))
	quiet := 0 // the first size with no more than a tenth of an eviction per run
	for quiet < last && m.ev[quiet] > 0.1 {
		quiet++
	}
	same := true
	for i := quiet; i < last; i++ {
		same = same && m.det[i] == m.det[last] && m.fv[i] == m.fv[last] && m.share[i] == m.share[last]
	}
	if same {
		fmt.Fprintf(&b, ` A kernel's shared data is a few lines: from %s up, a run evicts at most a tenth of a
line on average and the hardware detects and flags exactly what it does at the default size.`, labels[quiet])
	}
	var costly []string
	for i, z := range m.idealSizes {
		j := slices.Index(m.sizes, z)
		if j >= 0 && m.idealShare[i] > m.share[j] {
			costly = append(costly, fmt.Sprintf("at %s %.0f%% of the failing runs are flagged against %.0f%% with it kept (%v rows against %v)",
				ideal[i], m.share[j], m.idealShare[i], m.det[j], m.idealDet[i]))
		}
	}
	if len(costly) > 0 {
		fmt.Fprintf(&b, ` Losing the metadata costs detection only where the cache is tiny: %s. An evicted
line's last writer and readers are gone, so the access that should violate finds no remote
predecessor. That a cache must be this small before the loss matters bears out the paper's argument
that it is harmless because buggy interleavings are temporally tight.`, strings.Join(costly, "; "))
	} else {
		b.WriteString(` Losing the metadata costs no detection at any size measured, as the paper argues
(buggy interleavings are temporally tight).`)
	}
	b.WriteString(` The paper gives no cache sizes (it has no timing model) to compare with. A small
cache also changes the schedule (its misses go to memory), which moves the failing runs.`)
	return b.String()
}

// psetTrainingCounts are the training sweep's counts of training runs:
// those of psetTrainingRuns below nTrain, then nTrain.
func psetTrainingCounts(nTrain int) []int {
	var ns []int
	for _, n := range psetTrainingRuns {
		if n < nTrain {
			ns = append(ns, n)
		}
	}
	return append(ns, nTrain)
}

// psetTrainingSweep tabulates the training sweep: each kernel's PSets
// learned from the passing runs among its first n training seeds, for
// each n of psetTrainingCounts, and every held-out run checked with the
// software monitor (Table 1's runs, folded by kernelFold): rows detected,
// failing runs flagged, false violations (distinct pairs in passing runs,
// Table 1's rule) and the passing runs with any violation.
func psetTrainingSweep(ks []*psetKernel, nTrain int) experiments.Section {
	ns := psetTrainingCounts(nTrain)
	t := results.NewTable("training", fmt.Sprintf("PSets learned from the first n training seeds' passing runs, checked by the software monitor on %d held-out seeds per kernel, over the 17 kernels", 2*nTrain),
		"training runs", "passing runs learned from", "pairs learned", "rows detected (of 17)", "failing runs flagged", "failing runs", "false violations", "passing runs with a violation", "passing runs")
	m := psetTrainingNumbers{ns: ns, rows: make([][]int, len(ns))}
	x := make([]float64, len(ns))
	for ni, n := range ns {
		used, pairs, flagged, failing, falses, flaggedPass, passing := 0, 0, 0, 0, 0, 0, 0
		for _, k := range ks {
			sw := k.fold.sweep[ni]
			c := sw.count
			used += c.used
			pairs += c.pairs
			flagged += c.flagged
			failing += c.failing
			flaggedPass += c.flaggedPass
			passing += c.passing
			if c.found {
				m.rows[ni] = append(m.rows[ni], k.row)
			}
			falses += len(sw.static)
		}
		t.AddRow(n, used, pairs, len(m.rows[ni]), flagged, failing, falses, flaggedPass, passing)
		x[ni] = float64(n)
		m.det = append(m.det, float64(len(m.rows[ni])))
		m.fv, m.fr = append(m.fv, float64(falses)), append(m.fr, float64(flaggedPass))
		m.passing = passing
	}
	t.Notes = []string{"The last row is Table 1's PSets (all training seeds): its rows detected and false violations are Table 1's pset column and the sum of its false-violation column."}
	return experiments.Section{
		Tables: []*results.Table{t},
		Plots: []experiments.Plot{{Name: "training", Caption: "Rows detected, false violations and passing runs flagged by training runs (software monitor)", Data: t,
			Draw: func(path string) error {
				return results.Line("PSets by training runs", "training runs", "count",
					[]results.LineSeries{{Name: "rows detected (of 17)", X: x, Y: m.det}, {Name: "false violations (static pairs)", X: x, Y: m.fv},
						{Name: "passing runs with a violation", X: x, Y: m.fr}}, path)
			}}},
		Comment: m.comment(),
	}
}

// psetTrainingNumbers are the training sweep's measurements, by training
// runs: the rows detected, false violations (static pairs) and passing
// runs flagged, of passing held-out runs in all.
type psetTrainingNumbers struct {
	ns          []int
	rows        [][]int
	det, fv, fr []float64
	passing     int
}

// comment comments the training sweep with its numbers.
func (m psetTrainingNumbers) comment() string {
	labels := make([]string, len(m.ns))
	for i, n := range m.ns {
		labels[i] = fmt.Sprint(n)
	}
	last := len(m.ns) - 1
	var b strings.Builder
	fmt.Fprintf(&b, `Training runs: rows detected %s; false violations %s; passing held-out runs (of %d) with a
violation %s.`, psetJoinPairs(psetColons(labels), m.det), psetJoinPairs(psetColons(labels), m.fv), m.passing, psetJoinPairs(psetColons(labels), m.fr))
	if m.fv[0] > m.fv[last] {
		fmt.Fprintf(&b, ` More training removes false violations, %v static pairs after %d runs and %v after %d:
a PSet only grows with training, so the pairs a run violates only shrink.`, m.fv[0], m.ns[0], m.fv[last], m.ns[last])
	}
	var extra []string
	for _, r := range m.rows[0] {
		if !slices.Contains(m.rows[last], r) {
			extra = append(extra, fmt.Sprint(r))
		}
	}
	if len(extra) > 0 {
		fmt.Fprintf(&b, ` Detection shrinks for the same reason: after %d runs the monitor also "detects" row %s,
whose failing runs take a pair with an @bug instruction that correct runs also take but the first
runs had not shown yet, a false violation that happens to land on the bug.`, m.ns[0], strings.Join(extra, ", "))
	}
	b.WriteString(` This is the paper's point that more testing lowers false violations (Figure 8, whose
data did not survive, and Table 3, which counts violations of whole applications after their
training); the paper gives no numbers per training-run count to compare with.`)
	return b.String()
}
