package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"weft/coherence"
	"weft/core"
	"weft/cpu"
	"weft/isa"
	"weft/results"
	"weft/sim"
)

// printRun prints the readable summary of one run.
func printRun(w io.Writer, tg target, r sim.Result) {
	st := stats(r)
	fmt.Fprintf(w, "workload  %s   seed %d   %s   config %s\n", r.Workload, r.Seed, plural(r.Cores, "core"), r.ConfigHash)
	outcome := r.Outcome.String()
	if r.OutcomeMsg != "" {
		outcome += ": " + r.OutcomeMsg
	}
	fmt.Fprintf(w, "outcome   %s\n", outcome)
	if where := outcomeWhere(r, tg.prog); where != "" {
		fmt.Fprintf(w, "          %s\n", where)
	}
	fmt.Fprintf(w, "cycles    %d\n", r.Cycles)
	ipc := "IPC " + results.FormatReadable(runIPC(r))
	if roi := uint64(st(core.ROICycles)); roi != r.Cycles && st(cpu.StatInstructions.String()) > 0 {
		ipc += " over " + plural(roi, "ROI cycle")
	}
	fmt.Fprint(w, wrapList(fmt.Sprintf("instrs    %d   %s   per thread", r.Instructions, ipc), intStrings(r.ThreadInstructions), summaryWidth))
	outs := "(none)"
	if len(r.Outputs) > 0 {
		outs = joinInts(r.Outputs)
	}
	if tg.prog.HasExpect {
		outs += "   expected " + joinInts(tg.prog.Expect)
	}
	fmt.Fprintf(w, "outputs   %s\n", outs)
	// n is a counter's value (a cpu.Stat or a coherence.Stat); count says it
	// with its word.
	n := func(s fmt.Stringer) int64 { return int64(st(s.String())) }
	count := func(s fmt.Stringer, word string) string { return plural(n(s), word) }
	fmt.Fprintf(w, "memory    %s, %s, %s; L1 miss rate %s (%d read, %d write, %s; %d coherence)\n",
		count(cpu.StatLoads, "load"), count(cpu.StatStores, "store"), count(cpu.StatRMWs, "RMW"), pct(st(coherence.L1MissRate)),
		n(coherence.StatReadMisses), n(coherence.StatWriteMisses), count(coherence.StatUpgradeMisses, "upgrade miss"), n(coherence.StatCoherenceMisses))
	fmt.Fprintf(w, "          fills %d cache-to-cache, %d memory; %s, %s, %s\n",
		n(coherence.StatFillsC2C), n(coherence.StatFillsMemory), count(coherence.StatInvalidations, "invalidation"),
		count(coherence.StatWritebacks, "writeback"), count(coherence.StatEvictions, "eviction"))
	fmt.Fprintf(w, "bus       utilisation %s; %d BusRd, %d BusRdX, %d BusUpgr; %s, %s\n",
		pct(st(coherence.BusUtilization)), n(coherence.StatBusRd), n(coherence.StatBusRdX), n(coherence.StatBusUpgr),
		count(coherence.StatBusBusyCycles, "busy cycle"), count(coherence.StatBusQueueCycles, "queueing cycle"))
	if _, ok := r.Stats.Get(sim.StatDataBusUtil); ok {
		fmt.Fprintf(w, "          data bus utilisation %s; %s\n", pct(st(sim.StatDataBusUtil)), plural(int64(st(sim.StatDataBusBusyCycles)), "busy cycle"))
	}
	if _, ok := r.Stats.Get(sim.StatL2Hits); ok {
		fmt.Fprintf(w, "l2        miss rate %s; %s, %s, %s\n", pct(st(sim.StatL2MissRate)), plural(int64(st(sim.StatL2Hits)), "hit"),
			plural(int64(st(sim.StatL2Misses)), "miss"), plural(int64(st(sim.StatL2Writebacks)), "writeback"))
	}
	fmt.Fprintf(w, "sync      %s (%s), %s, %s, %s, %s\n",
		count(cpu.StatLockAcquires, "lock acquire"), count(cpu.StatLockSpins, "spin"), count(cpu.StatBarriers, "barrier"),
		count(cpu.StatCondWaits, "condition wait"), count(cpu.StatSignals, "signal"), count(cpu.StatSpawns, "spawn"))
	printBreakdown(w, r.Breakdown)
}

// printBreakdown prints the per-core cycle breakdown, with a last row
// giving each bucket's share of the cycles of the cores that ran a thread
// (a core that never did is idle throughout and would swamp the shares).
func printBreakdown(w io.Writer, b []sim.CoreTime) {
	if len(b) == 0 {
		return
	}
	fmt.Fprintln(w, "\nper-core cycles")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "core\tbusy\tmem_stall\tlock_wait\tbarrier_wait\tcond_wait\tjoin_wait\tidle\t")
	var sum [7]uint64
	used := 0
	for i, c := range b {
		row := [7]uint64{c.Busy, c.MemStall, c.LockWait, c.BarrierWait, c.CondWait, c.JoinWait, c.Idle}
		fmt.Fprintf(tw, "%d\t", i)
		for j, v := range row {
			if c.RanThread() {
				sum[j] += v
			}
			fmt.Fprintf(tw, "%d\t", v)
		}
		if c.RanThread() {
			used++
		}
		fmt.Fprintln(tw)
	}
	var total uint64
	for _, v := range sum {
		total += v
	}
	fmt.Fprint(tw, "share\t")
	for _, v := range sum {
		fmt.Fprintf(tw, "%s\t", pct(ratio(float64(v), float64(total))))
	}
	fmt.Fprintln(tw)
	tw.Flush()
	if used < len(b) {
		were := "were"
		if len(b)-used == 1 {
			were = "was"
		}
		fmt.Fprintf(w, "(share of the %s that ran a thread; the other %d %s idle throughout)\n", plural(used, "core"), len(b)-used, were)
	}
}

// batchSummary is what the readable summary of a batch needs, gathered
// as the runs are delivered so that its memory does not grow with their
// number: the first run, the outcome counts with the first run of each
// outcome, and running means, minima and maxima.
type batchSummary struct {
	// runs is the number of runs added; total the batch's size.
	runs, total int
	// head is run 0: the workload, first seed, cores and config.
	head sim.Result
	// lastSeed is the seed of the last run added.
	lastSeed uint64
	outcomes sim.OutcomeCounter
	// firsts is the first run of each outcome.
	firsts [core.NumOutcomes]*sim.Result
	// cols are the statistics' running values, in batchColumns order.
	cols [len(batchColumns)]running
	// instrs and cycles are the totals for the host-speed line.
	instrs, cycles uint64
}

// running is a running sum, minimum and maximum.
type running struct {
	sum, lo, hi float64
}

// batchColumns are the rows of a batch's statistics table.
var batchColumns = [...]struct {
	name   string
	value  func(r sim.Result) float64
	format func(float64) string
}{
	{"cycles", func(r sim.Result) float64 { return float64(r.Cycles) }, results.FormatReadable},
	{"instructions", func(r sim.Result) float64 { return float64(r.Instructions) }, results.FormatReadable},
	{"IPC", runIPC, results.FormatReadable},
	{"L1 miss rate", func(r sim.Result) float64 { return stats(r)(coherence.L1MissRate) }, pct},
	{"bus utilisation", func(r sim.Result) float64 { return stats(r)(coherence.BusUtilization) }, pct},
	{"L1 misses", func(r sim.Result) float64 {
		st := stats(r)
		return st(coherence.StatReadMisses.String()) + st(coherence.StatWriteMisses.String()) + st(coherence.StatUpgradeMisses.String())
	}, results.FormatReadable},
}

// newBatchSummary returns an empty summary of a batch of total runs.
func newBatchSummary(total int) *batchSummary {
	return &batchSummary{total: total}
}

// add adds run i; runs arrive in index order.
func (s *batchSummary) add(i int, r sim.Result) {
	if s.runs == 0 {
		s.head = r
	}
	s.runs++
	s.lastSeed = r.Seed
	s.outcomes.Add(i, r.Outcome)
	if s.firsts[r.Outcome] == nil {
		s.firsts[r.Outcome] = &r
	}
	for k, c := range batchColumns {
		v := c.value(r)
		col := &s.cols[k]
		if s.runs == 1 {
			col.lo, col.hi = v, v
		}
		col.sum += v
		col.lo = min(col.lo, v)
		col.hi = max(col.hi, v)
	}
	s.instrs += r.Instructions
	s.cycles += r.Cycles
}

// print prints the readable summary of the batch: the outcome
// distribution, with the first seed of each outcome other than pass and a
// command that reproduces it, then cycle and instruction statistics. A
// batch stopped early says how far it got.
func (s *batchSummary) print(w io.Writer, t *targetFlags, prog *isa.Program) {
	h := s.head
	fmt.Fprintf(w, "workload  %s   %s (seeds %d..%d)   %s   config %s\n",
		h.Workload, plural(s.runs, "run"), h.Seed, s.lastSeed, plural(h.Cores, "core"), h.ConfigHash)
	if s.runs < s.total {
		fmt.Fprintf(w, "          interrupted: the first %d of %d runs\n", s.runs, s.total)
	}
	fmt.Fprintln(w, "\noutcomes")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	counts := s.outcomes.Counts()
	for _, g := range counts {
		fmt.Fprintf(tw, "  %s\t%d\t%s", g.Outcome, g.Count, pct(ratio(float64(g.Count), float64(s.runs))))
		if g.Outcome != core.Pass {
			r := s.firsts[g.Outcome]
			fmt.Fprintf(tw, "\tfirst at seed %d: %s", r.Seed, outcomeText(*r, prog))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, g := range counts {
		if g.Outcome != core.Pass {
			fmt.Fprintf(w, "  reproduce %s: weft run %s --seed %d\n", g.Outcome, t.source(), s.firsts[g.Outcome].Seed)
		}
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "\tmean\tmin\tmax\t")
	for k, c := range batchColumns {
		col := s.cols[k]
		mean := col.sum / float64(s.runs)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", c.name, c.format(mean), c.format(col.lo), c.format(col.hi))
	}
	tw.Flush()
}

// outcomeText describes a run's outcome on one line: its kind and
// message, then where it happened when known:
// "error: binlog entry skipped (thread 2 at pc 29, line 41: st r0, log_type)".
func outcomeText(r sim.Result, prog *isa.Program) string {
	s := r.Outcome.String()
	if r.OutcomeMsg != "" {
		s += ": " + r.OutcomeMsg
	}
	if where := outcomeWhere(r, prog); where != "" {
		s += " (" + where + ")"
	}
	return s
}

// outcomeWhere says where a run's outcome happened: the thread and the
// instruction ("thread 2 at pc 29, line 41: st r0, log_type"), or "" for
// an outcome of the whole run (a pass, wrong outputs).
func outcomeWhere(r sim.Result, prog *isa.Program) string {
	var parts []string
	if r.OutcomeThread >= 0 {
		parts = append(parts, fmt.Sprintf("thread %d", r.OutcomeThread))
	}
	if r.OutcomePC >= 0 {
		parts = append(parts, "at "+pcText(prog, r.OutcomePC))
	}
	return strings.Join(parts, " ")
}

// pcText names the instruction at pc with its source line and text:
// "pc 29, line 41: st r0, log_type" ("pc 29: …" for a built program, which
// has no lines).
func pcText(prog *isa.Program, pc int32) string {
	s := fmt.Sprintf("pc %d", pc)
	if prog == nil || pc < 0 || int(pc) >= len(prog.Instrs) {
		return s
	}
	if line := prog.Instrs[pc].Line; line > 0 {
		s += fmt.Sprintf(", line %d", line)
	}
	return s + ": " + prog.InstrText(pc)
}

// runIPC is the run's IPC: instructions per cycle of the region of
// interest (the whole run when the program has no roi).
func runIPC(r sim.Result) float64 { return stats(r)(cpu.IPC) }

// stats returns a getter for r's named statistics (0 when absent).
func stats(r sim.Result) func(name string) float64 {
	return func(name string) float64 {
		v, _ := r.Stats.Get(name)
		return v
	}
}

// ratio is a/b, or 0 when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// plural returns n and word, with word in the plural unless n is 1:
// "1 run", "2 runs", "0 directories", "3 upgrade misses". word must have a
// regular English plural.
func plural[T int | int64 | uint64](n T, word string) string {
	if n != 1 {
		switch {
		case strings.HasSuffix(word, "s"), strings.HasSuffix(word, "x"),
			strings.HasSuffix(word, "ch"), strings.HasSuffix(word, "sh"):
			word += "es"
		case len(word) >= 2 && word[len(word)-1] == 'y' && !strings.ContainsRune("aeiou", rune(word[len(word)-2])):
			word = word[:len(word)-1] + "ies"
		default:
			word += "s"
		}
	}
	return fmt.Sprint(n) + " " + word
}

// pct formats a fraction as a percentage.
func pct(f float64) string { return strconv.FormatFloat(100*f, 'f', 1, 64) + "%" }

// si formats v with a metric prefix (k, M, G).
func si(v float64) string {
	switch {
	case v >= 1e9:
		return fmt.Sprintf("%.2f G", v/1e9)
	case v >= 1e6:
		return fmt.Sprintf("%.2f M", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.2f k", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// joinInts formats integers separated by spaces.
func joinInts[T int32 | int64 | uint64](vs []T) string {
	return strings.Join(intStrings(vs), " ")
}

// intStrings spells each of vs in decimal.
func intStrings[T int32 | int64 | uint64](vs []T) []string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = fmt.Sprint(v)
	}
	return s
}

// summaryWidth is the width, in columns, the run summary's lists wrap at.
const summaryWidth = 80

// wrapList returns head followed by items, one space apart, on lines of at
// most width columns: the items that do not fit after head continue on
// lines indented as the summary's continuation lines are (10 columns), so
// 64 threads' instruction counts read as a block instead of one long
// line. An item longer than a line gets a line of its own. The text ends
// with a newline.
func wrapList(head string, items []string, width int) string {
	const indent = "          "
	var b strings.Builder
	b.WriteString(head)
	col := utf8.RuneCountInString(head)
	for i, it := range items {
		if col+1+len(it) > width && (i == 0 || col > len(indent)) {
			b.WriteString("\n" + indent)
			col = len(indent)
		} else {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(it)
		col += len(it)
	}
	b.WriteByte('\n')
	return b.String()
}

// groupCol is a column of the per-core counters table: a counter of each
// core's group of family (cpu.CoreFamily or coherence.L1Family).
type groupCol struct{ family, name, head string }

// printGroups prints the per-core counters of a run recorded with --groups.
func printGroups(w io.Writer, groups sim.Groups) {
	if len(groups) == 0 {
		return
	}
	fmt.Fprintln(w, "\nper-core counters (region of interest)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	coreCol := func(s cpu.Stat, head string) groupCol { return groupCol{cpu.CoreFamily, s.String(), head} }
	l1Col := func(s coherence.Stat, head string) groupCol { return groupCol{coherence.L1Family, s.GroupName(), head} }
	cols := []groupCol{
		coreCol(cpu.StatInstructions, "instrs"), coreCol(cpu.StatLoads, "loads"), coreCol(cpu.StatStores, "stores"), coreCol(cpu.StatRMWs, "rmws"),
		l1Col(coherence.StatReadMisses, "read_misses"), l1Col(coherence.StatWriteMisses, "write_misses"), l1Col(coherence.StatUpgradeMisses, "upgrades"),
		l1Col(coherence.StatCoherenceMisses, "coherence"), l1Col(coherence.StatInvalidations, "invalidated"), l1Col(coherence.StatEvictions, "evictions"),
	}
	fmt.Fprint(tw, "core\t")
	for _, c := range cols {
		fmt.Fprintf(tw, "%s\t", c.head)
	}
	fmt.Fprintln(tw)
	for i := 0; ; i++ {
		cg, ok := groups.Get(cpu.CoreGroup(i))
		if !ok {
			break
		}
		lg, _ := groups.Get(coherence.L1Group(i))
		fmt.Fprintf(tw, "%d\t", i)
		for _, c := range cols {
			g := cg
			if c.family == coherence.L1Family {
				g = lg
			}
			v, _ := g.Stats.Get(c.name)
			fmt.Fprintf(tw, "%d\t", int64(v))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
