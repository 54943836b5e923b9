package suite

import (
	"fmt"
	"strings"

	"weft/configs"
	"weft/experiments"
	psetrepro "weft/experiments/pset"
	"weft/results"
	"weft/sim"
	"weft/workloads"
)

// psetCost is the PSet hardware's cost on one workload's seeds, summed
// over the runs: cycles with it off and on (on: the kept run's cycles plus
// the spans rollbacks discarded, the time the machine took) and the
// counters.
type psetCost struct {
	off, on                     float64
	check, stall, rollback, rbs float64
}

// pct returns x as a share of the cycles with the hardware on, in %.
func (c psetCost) pct(x float64) float64 {
	if c.on == 0 {
		return 0
	}
	return 100 * x / c.on
}

// overhead returns the cycles with the hardware on over those off, in %.
func (c psetCost) overhead() float64 { return 100 * (c.on - c.off) / c.off }

// overheadSection compares each workload's runs with BB-HW on, and with
// the PSet hardware on, against the same seeds with both off: BB-HW's
// simulated-cycle overhead (the metadata's bus bytes and the traps' cost;
// the paper argues it is near zero but measured none) and the
// communication-table traffic behind it, and the PSet hardware's overhead
// with its check, stall and rollback cycles.
// psetCfg is the configuration of the PSet hardware's runs.
func overheadSection(entries []workloads.Entry, runs []*entryRuns, psetCfg configs.Config) (experiments.Section, string) {
	ps := psetCfg.PSet
	t := results.NewTable("hw_overhead", "BB-HW's and the PSet hardware's simulated-cycle overhead: the same seeds with the hardware off and on",
		"workload", "kind", "cycles off", "cycles BB-HW", "BB-HW overhead %", "CT inserts /10k mem ops", "traps", "drops",
		"cycles PSet", "PSet overhead %", "PSet check cycles %", "PSet stall cycles %", "PSet rollback cycles %", "PSet rollbacks",
		"BB-HW overhead % (split bus + L2)", "PSet overhead % (split bus + L2)")
	t.Notes = []string{fmt.Sprintf("Means over the seeds. PSet: the hardware in %s mode with PSets learned from other seeds' passing runs (%d for a profile), on every seed of a kernel and the first %d of a profile (its overhead against the same seeds off); its cycles include the spans rollbacks discarded. Check, stall and rollback cycles are %% of those cycles; check and stall cycles are summed over the accesses (all cores), rollback cycles are the discarded spans. A bug kernel's overhead also reflects outcomes that changed, hangs included (a run with the PSet hardware hangs past %d times the workload's longest run without it, and at least %d cycles).",
		psetrepro.DefaultMode, psetProfileTrainSeeds, psetProfileSeeds, psetrepro.HangFactor, psetrepro.Table2MaxCycles)}
	var o overheads
	for i, en := range entries {
		o.add(t, en, runs[i])
	}
	sec := experiments.Section{
		Heading: "Hardware overhead: BB-HW and PSet",
		Text: fmt.Sprintf(`Every workload runs the same seeds with Bugaboo's hardware off and on
(its defaults: 5-event contexts, 64-bit writer PCs, 16k-entry tables per
core, 5000-cycle traps plus 10 cycles per drained entry). The overhead is
the metadata riding every read reply and invalidation ack (74 bits, 10
bytes on a 32-byte-wide bus) and the traps charged to the core that fills
a table. The paper claims near-zero overhead without measuring it. A
small negative overhead is a different schedule: the extra bus cycles
shift when threads meet on locks and barriers.

The same seeds run a third time with the PSet hardware on in %s
mode (every seed of a kernel, the first %d of a synthetic profile),
checking PSets learned from the passing runs of other seeds (a kernel's
training seeds; %d seeds for a synthetic profile). Its cost is
the metadata on the bus (%.0f bytes a %d-byte line: %s granularity, %d
reader slots), the checks (%d cycles plus %d per PSet entry, only where an
immediate predecessor is remote), the stalls of violating accesses and
the spans rollbacks discard; the paper had no timing model and measured
none of it.`, psetrepro.DefaultMode, psetProfileSeeds, psetProfileTrainSeeds,
			psetMetaBytes(ps, psetCfg.Cache.L1.LineBytes), psetCfg.Cache.L1.LineBytes, ps.Granularity, ps.MaxReadersTracked, ps.CheckBaseCycles, ps.CheckPerEntryCycles),
		Tables:  []*results.Table{t},
		Plots:   o.plots(t),
		Comment: o.comment(ps),
	}
	text := o.console()
	return sec, text
}

// overheads accumulates the hardware-overhead table's rows and what the
// plot, the comment and the summary say of them.
type overheads struct {
	// names, over, psetOver and psetCheck are the synthetic profiles and
	// their BB-HW overhead, PSet overhead and PSet check cycles, in %;
	// psetStall and psetRollback their PSet stall and rollback cycles, in
	// % (the table's columns).
	names                     []string
	over, psetOver, psetCheck []float64
	psetStall, psetRollback   []float64
	// kNames and kOver are the kernels (bug and correct) and their BB-HW
	// overhead, in %.
	kNames []string
	kOver  []float64
	// pWorst is the PSet hardware's cost on the profile with the largest
	// overhead.
	pWorst     psetCost
	pWorstName string
	// stalled and rolled name the profiles where the PSet hardware
	// stalled and rolled back.
	stalled, rolled []string
	// okOver is the correct kernels' PSet overheads, okStalled and
	// okRolled those that stalled or rolled back.
	okOver              []float64
	okStalled, okRolled []string
	// splitOver and splitPSetOver are the profiles' BB-HW and PSet
	// overheads on the split bus with an L2, in %.
	splitOver, splitPSetOver []float64
}

// add adds a workload's row to t from its folded runs: with both off,
// with BB-HW on, with the PSet hardware on (the first of the same seeds).
func (o *overheads) add(t *results.Table, en workloads.Entry, e *entryRuns) {
	off, on, inserts, memOps, traps, drops := e.cyc, e.hwCyc, e.inserts, e.memOps, e.traps, e.drops
	n := float64(len(e.off))
	pct := 100 * (on - off) / off
	per10k := 0.0
	if memOps > 0 {
		per10k = inserts * 10000 / memOps
	}
	p := e.cost
	var splitBB, splitPSet any = "—", "—"
	if sb, sp, ok := e.splitOverheads(); ok {
		splitBB, splitPSet = sb, sp
		o.splitOver, o.splitPSetOver = append(o.splitOver, sb), append(o.splitPSetOver, sp)
	}
	t.AddRow(en.Name, en.Kind.String(), off/n, on/n, pct, per10k, traps, drops,
		p.on/float64(e.psetRuns), p.overhead(), p.pct(p.check), p.pct(p.stall), p.pct(p.rollback), p.rbs, splitBB, splitPSet)
	if en.Kind == workloads.Profile {
		o.names = append(o.names, en.Name)
		o.over = append(o.over, pct)
		o.psetOver = append(o.psetOver, p.overhead())
		o.psetCheck = append(o.psetCheck, p.pct(p.check))
		o.psetStall = append(o.psetStall, p.pct(p.stall))
		o.psetRollback = append(o.psetRollback, p.pct(p.rollback))
		if o.pWorstName == "" || p.overhead() > o.pWorst.overhead() {
			o.pWorst, o.pWorstName = p, en.Name
		}
		if p.stall > 0 {
			o.stalled = append(o.stalled, en.Name)
		}
		if p.rbs > 0 {
			o.rolled = append(o.rolled, en.Name)
		}
	}
	if en.Kind == workloads.Kernel && !en.Bug {
		o.okOver = append(o.okOver, p.overhead())
		if p.stall > 0 {
			o.okStalled = append(o.okStalled, en.Name)
		}
		if p.rbs > 0 {
			o.okRolled = append(o.okRolled, fmt.Sprintf("%s (%.0f%%)", en.Name, p.overhead()))
		}
	}
	if en.Kind == workloads.Kernel {
		o.kNames = append(o.kNames, en.Name)
		o.kOver = append(o.kOver, pct)
	}
}

// largest returns the largest of vs and its name (of names), "" when vs
// is empty.
func largest(names []string, vs []float64) (float64, string) {
	best, name := 0.0, ""
	for i, v := range vs {
		if name == "" || v > best {
			best, name = v, names[i]
		}
	}
	return best, name
}

// console is the overheads' lines for the terminal. Each line's median
// and largest are over one set of workloads, named in the line: the
// profiles, or the kernels.
func (o *overheads) console() string {
	var b strings.Builder
	if len(o.names) > 0 {
		worst, worstName := largest(o.names, o.over)
		fmt.Fprintf(&b, "BB-HW overhead: median %.2f%% of simulated cycles on the %d profiles, largest %.2f%% (%s)",
			experiments.Median(o.over), len(o.names), worst, worstName)
		if len(o.kOver) > 0 {
			kWorst, kWorstName := largest(o.kNames, o.kOver)
			fmt.Fprintf(&b, "; on the %d kernels median %.2f%%, largest %.2f%% (%s)", len(o.kNames), experiments.Median(o.kOver), kWorst, kWorstName)
		}
		b.WriteString("\n")
		fmt.Fprintf(&b, "PSet hardware overhead (%s): median %.2f%% of simulated cycles on the %d profiles (checks %.2f%%), largest %.2f%% (%s)\n",
			psetrepro.DefaultMode, experiments.Median(o.psetOver), len(o.names), experiments.Median(o.psetCheck), o.pWorst.overhead(), o.pWorstName)
	} else if len(o.kOver) > 0 {
		kWorst, kWorstName := largest(o.kNames, o.kOver)
		fmt.Fprintf(&b, "BB-HW overhead: median %.2f%% of simulated cycles on the %d kernels, largest %.2f%% (%s)\n", experiments.Median(o.kOver), len(o.kNames), kWorst, kWorstName)
	}
	return b.String()
}

// plots are the overhead section's figures, both from t: the hardware's
// overhead on the profiles (% more cycles than with it off), and apart,
// on an axis of its own, the PSet hardware's check, stall and rollback
// cycles as % of the cycles with it on. Check and stall cycles are summed
// over the cores' accesses, so they are not parts of the overhead and may
// exceed it: they never share its axis.
func (o *overheads) plots(t *results.Table) []experiments.Plot {
	over, parts := o.overheadSeries(), o.componentSeries()
	return []experiments.Plot{
		{Name: "hw_overhead", Caption: "BB-HW's and the PSet hardware's simulated-cycle overhead on the synthetic profiles: the cycles with the hardware on over those with it off", Data: t,
			Draw: func(path string) error {
				return results.GroupedBar("Hardware overhead on the profiles (simulated cycles)", "overhead (% of cycles with the hardware off)", o.names, over, path)
			}},
		{Name: "pset_cycles", Caption: "The PSet hardware's check, stall and rollback cycles on the synthetic profiles, as % of the cycles with it on; check and stall cycles are summed over the cores' accesses (divided by the cores, the share of core time), so they are not parts of the overhead above", Data: t,
			Draw: func(path string) error {
				return results.GroupedBar("PSet hardware cycles on the profiles (check and stall summed over the cores)", "% of cycles with the hardware on", o.names, parts, path)
			}},
	}
}

// overheadSeries are the hw_overhead plot's series: overheads only.
func (o *overheads) overheadSeries() []results.Series {
	return []results.Series{{Name: "BB-HW overhead", Values: o.over}, {Name: "PSet overhead", Values: o.psetOver}}
}

// componentSeries are the pset_cycles plot's series: the PSet hardware's
// cycles by kind.
func (o *overheads) componentSeries() []results.Series {
	return []results.Series{{Name: "PSet check cycles", Values: o.psetCheck}, {Name: "PSet stall cycles", Values: o.psetStall},
		{Name: "PSet rollback cycles", Values: o.psetRollback}}
}

// comment comments the overheads with their numbers; ps is the PSet
// hardware's [pset] table.
func (o *overheads) comment(ps configs.PSet) string {
	var b strings.Builder
	if len(o.names) > 0 {
		fmt.Fprintf(&b, `On the %d profiles, the PSet hardware costs a median %.2f%% of simulated cycles (largest
%.2f%%, %s), BB-HW a median %.2f%%. Its checks take a median %.2f%% of the run's cycles (summed
over the cores' accesses: divided by the cores, the share of core time). `, len(o.names), experiments.Median(o.psetOver), o.pWorst.overhead(), o.pWorstName, experiments.Median(o.over), experiments.Median(o.psetCheck))
		if len(o.stalled)+len(o.rolled) == 0 {
			fmt.Fprintf(&b, "No profile stalled or rolled back: the PSets of %d training runs held every pair their test seeds showed, so ", psetProfileTrainSeeds)
		} else {
			fmt.Fprintf(&b, `Stalls happened on %d profiles (%s) and rollbacks on %d (%s), each for a pair the %d training
runs did not show: a false violation on a correct program. Besides those, `, len(o.stalled), listOrNone(o.stalled), len(o.rolled), listOrNone(o.rolled), psetProfileTrainSeeds)
		}
		b.WriteString("the rest of the overhead is the metadata's bus time and the schedule it shifts.")
	}
	if len(o.splitOver) > 0 {
		bb, pset := experiments.Median(o.splitOver), experiments.Median(o.splitPSetOver)
		fmt.Fprintf(&b, ` On the split bus with a 1 MiB L2 (the table's last columns, the first %d seeds of each profile), BB-HW costs a median %.2f%% (%s the atomic bus's) and the PSet hardware %.2f%% (%s).`,
			psetProfileSeeds, bb, experiments.Relation(bb, experiments.Median(o.over), "above", "below", "the same as"),
			pset, experiments.Relation(pset, experiments.Median(o.psetOver), "above the atomic bus's", "below the atomic bus's", "the same as the atomic bus's"))
	}
	if len(o.okOver) > 0 {
		fmt.Fprintf(&b, `

On the %d correct kernels (short runs, nearly all of them communication) the PSet hardware
costs a median %.1f%%. False violations stalled %d of them (%s). A stall that times out
has waited %d cycles before its rollback re-executes the span, which dwarfs a kernel's run; %d
rolled back (overhead): %s. On the bug kernels the cycles also change with the outcome (the
table's note).`,
			len(o.okOver), experiments.Median(o.okOver), len(o.okStalled), listOrNone(o.okStalled), ps.Recovery.StallTimeoutCycles, len(o.okRolled), listOrNone(o.okRolled))
	}
	return b.String()
}

// psetMetaBytes returns the PSet hardware's metadata per line of
// lineBytes bytes, in bytes (what rides on a read reply or an
// invalidation ack), or 0 when p does not build.
func psetMetaBytes(p configs.PSet, lineBytes int) float64 {
	bits, err := sim.PSetMetaBits(p, lineBytes)
	if err != nil {
		return 0
	}
	return float64(bits) / 8
}
