package experiments

import (
	"fmt"
	"slices"
	"strings"

	"weft/configs"
	"weft/core"
	psethw "weft/cpu/pset"
	"weft/detectors/pset"
	"weft/isa"
	"weft/sim"
	"weft/workloads"
)

// The default experiment's PSet hardware columns: every workload's seeds
// again with the PSet hardware (cpu/pset) on in stall_then_rollback mode,
// checking against the PSets learned from the passing runs of its
// training seeds (for a kernel the very sets the software monitor's pset
// column checks; a synthetic profile trains on a few seeds of its own).

// psetDefaultMode is the recovery mode of the default experiment's PSet
// hardware runs: a violation stalls, and a stall that times out rolls
// back.
const psetDefaultMode = "stall_then_rollback"

// psetProfileTrainSeeds is the number of seeds after the test seeds whose
// passing runs teach a synthetic profile's PSets (its sharing repeats
// itself, so a few runs learn every pair).
const psetProfileTrainSeeds = 3

// trainPSets learns prog's PSets from the passing runs among train, from
// the PSet recorders attached to them (runs without one are skipped).
func trainPSets(prog *isa.Program, train []sim.Result) isa.PSets {
	tr := pset.NewTrainer(prog, pset.Options{})
	for _, r := range train {
		if r.Outcome != core.Pass {
			continue
		}
		if rec := recorderOf(r); rec != nil {
			tr.Add(rec)
		}
	}
	return tr.PSets()
}

// psetPair is a static violating pair: the predecessor's instruction and
// the checked one.
type psetPair struct{ pred, pc int32 }

// psetViolations collects the PSetViolation events of one run with the
// hardware on: their number and their distinct pairs. Events of a span a
// rollback discarded count too: the hardware did report them.
type psetViolations struct {
	events int
	pairs  map[psetPair]bool
}

// Observe counts one PSetViolation event.
func (v *psetViolations) Observe(e *core.Event) {
	if v.pairs == nil {
		v.pairs = map[psetPair]bool{}
	}
	v.events++
	v.pairs[psetPair{int32(e.Words[0]), e.PC}] = true
}

// involves reports whether one of the pairs has an instruction of bugs.
func (v *psetViolations) involves(bugs []int32) bool {
	if v == nil {
		return false
	}
	for p := range v.pairs {
		if slices.Contains(bugs, p.pred) || slices.Contains(bugs, p.pc) {
			return true
		}
	}
	return false
}

// psetProfileSeeds is the number of a synthetic profile's seeds (the
// first) that run again with the PSet hardware on, for its overhead: a
// profile's cycles vary little over seeds, and the hardware slows the
// simulator about twofold on them.
const psetProfileSeeds = 3

// psetHangFactor sets the hang limit of a run with the PSet hardware on:
// this many times the longest run of the workload with it off, and at
// least psetTable2MaxCycles. A stalled access is re-checked, and stalls
// again with a fresh timeout, whenever another thread touches its line,
// so a stall that waits on a thread spinning on that line lasts until the
// hang limit (weft reproduce pset's Table 2 bounds it the same way).
const psetHangFactor = 10

// psetHWConfig returns cfg with the PSet hardware on in the default
// experiment's recovery mode, and the hang limit psetHangFactor sets from
// off, the workload's runs with the hardware off.
func psetHWConfig(cfg configs.Config, off []sim.Result) configs.Config {
	cfg.PSet.Enabled = true
	cfg.PSet.Recovery.Mode = psetDefaultMode
	limit := uint64(psetTable2MaxCycles)
	for _, r := range off {
		limit = max(limit, psetHangFactor*uint64(r.Cycles))
	}
	cfg.Sim.MaxCycles = min(cfg.Sim.MaxCycles, limit)
	return cfg
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

// psetHWText describes the PSet hardware of the default experiment, p
// its [pset] table.
func psetHWText(p configs.PSet) string {
	return fmt.Sprintf(`%s metadata (%s on eviction, %d reader slots), in %s mode: a
violating access stalls until another thread touches its line, and a stall that times out (%d
cycles) rolls the machine back to its last checkpoint and re-executes it perturbed (%s; at most %d
rollbacks a checkpoint, then the pair is accepted)`, p.Granularity, p.MetadataOnEvict, p.MaxReadersTracked, p.Recovery.Mode,
		p.Recovery.StallTimeoutCycles, p.Recovery.Perturbation, p.Recovery.MaxRollbacksPerCheckpoint)
}

// psetHWJob is a run of prog on seed with the PSet hardware on (cfg as
// psetHWConfig returns it) checking ps, with its statistics groups; its
// violations go to *slot.
func psetHWJob(cfg configs.Config, prog *isa.Program, ps isa.PSets, seed uint64, slot **psetViolations) job {
	return job{Config: cfg, Program: prog, Seed: seed, Options: func() []sim.Option {
		v := &psetViolations{}
		*slot = v
		return []sim.Option{sim.WithPSets(ps), sim.WithStatGroups(), sim.WithObserver(core.MaskOf(core.KindPSetViolation), v)}
	}}
}

// psetHW is what the PSet hardware did on one workload's seeds.
type psetHW struct {
	// hits is the runs with a violation whose pair has an @bug instruction.
	hits int
	// flagged is the runs with any violation.
	flagged int
	// distinct is the distinct violating pairs over the runs.
	distinct int
	// acted is the runs in which the hardware stalled or rolled back.
	acted int
	// failingOff and failingOn are the failing runs with the hardware off
	// and on (the same seeds), hangsOff and hangsOn those that hung.
	failingOff, failingOn int
	hangsOff, hangsOn     int
	// hungStalled is the runs that hung with the hardware on after
	// stalls none of which timed out, with no rollback.
	hungStalled int
}

// avoids says whether the hardware avoided the failures: "Yes" when some
// run failed with it off and none with it on, "No" when some failed with
// it on, "—" when none failed either way.
func (p psetHW) avoids() string {
	switch {
	case p.failingOff == 0 && p.failingOn == 0:
		return "—"
	case p.failingOn == 0:
		return "Yes"
	}
	return "No"
}

// scorePSetHW scores the hardware on one workload: off and on are the same
// seeds with the hardware off and on, viols[i] the violations of on[i].
// Only this scoring reads the program's @bug marks.
func scorePSetHW(prog *isa.Program, off, on []sim.Result, viols []*psetViolations) psetHW {
	bugs := prog.BugPCs()
	var out psetHW
	pairs := map[psetPair]bool{}
	for i, r := range on {
		if r.Outcome != core.Pass {
			out.failingOn++
		}
		if r.Outcome == core.Hang {
			out.hangsOn++
			if groupStat(r, psethw.StatGroup, psethw.CounterStalls) > 0 && groupStat(r, psethw.StatGroup, psethw.CounterStallTimeouts)+groupStat(r, psethw.StatGroup, psethw.CounterRollbacks) == 0 {
				out.hungStalled++
			}
		}
		if i < len(off) && off[i].Outcome != core.Pass {
			out.failingOff++
		}
		if i < len(off) && off[i].Outcome == core.Hang {
			out.hangsOff++
		}
		if groupStat(r, psethw.StatGroup, psethw.CounterStalls)+groupStat(r, psethw.StatGroup, psethw.CounterRollbacks) > 0 {
			out.acted++
		}
		var v *psetViolations
		if i < len(viols) {
			v = viols[i]
		}
		if v == nil || v.events == 0 {
			continue
		}
		out.flagged++
		if v.involves(bugs) {
			out.hits++
		}
		for p := range v.pairs {
			pairs[p] = true
		}
	}
	out.distinct = len(pairs)
	return out
}

// psetHWTally sums the PSet hardware's columns over the kernels, for the
// summary and the section's comment.
type psetHWTally struct {
	// found and noisy count the bug kernels with a hit and the correct
	// kernels with any violation.
	found, noisy int
	// failed is the bug kernels that failed with the hardware off; avoided
	// those with no failing run left, quiet those of them where it never
	// stalled or rolled back.
	failed, avoided, quiet int
	// worse names the kernels with more failing runs with the hardware
	// on; worseActed counts those where it stalled or rolled back.
	worse      []string
	worseActed int
	// broken names the correct kernels that failed with the hardware on;
	// noisyHWOnly those with violations where the software monitor
	// reported none, swNoisy counts those where it reported some.
	broken      []string
	noisyHWOnly []string
	swNoisy     int
	// hangs names the kernels (bug or correct) with more hung runs with
	// the hardware on; hung counts their hung runs with it on, hungStalled
	// those that stalled with no timeout and no rollback.
	hangs             []string
	hung, hungStalled int
	// off and on are the failing runs over the bug kernels.
	off, on int
	// swOnly and hwOnly name the bug kernels the software monitor found
	// and the hardware did not, and the other way round; swOnlyClean
	// counts the swOnly kernels with no failing run with the hardware on,
	// swOnlyActed those where it stalled or rolled back.
	swOnly, hwOnly           []string
	swOnlyClean, swOnlyActed int
}

// add counts one kernel. sw is the software monitor's detection on the
// same seeds (hardware off).
func (t *psetHWTally) add(en workloads.Entry, p psetHW, sw detection) {
	if p.hangsOn > p.hangsOff {
		t.hangs = append(t.hangs, fmt.Sprintf("%s (%d → %d)", en.Name, p.hangsOff, p.hangsOn))
		t.hung += p.hangsOn
		t.hungStalled += p.hungStalled
	}
	if !en.Bug {
		if p.flagged > 0 {
			t.noisy++
			if sw.flagged == 0 {
				t.noisyHWOnly = append(t.noisyHWOnly, en.Name)
			}
		}
		if sw.flagged > 0 {
			t.swNoisy++
		}
		if p.failingOn > 0 {
			t.broken = append(t.broken, fmt.Sprintf("%s (%d)", en.Name, p.failingOn))
		}
		return
	}
	if p.hits > 0 {
		t.found++
	}
	switch {
	case sw.hits > 0 && p.hits == 0:
		t.swOnly = append(t.swOnly, en.Name)
		if p.failingOn == 0 {
			t.swOnlyClean++
		}
		if p.acted > 0 {
			t.swOnlyActed++
		}
	case sw.hits == 0 && p.hits > 0:
		t.hwOnly = append(t.hwOnly, en.Name)
	}
	t.off += p.failingOff
	t.on += p.failingOn
	if p.failingOff > 0 {
		t.failed++
		if p.failingOn == 0 {
			t.avoided++
			if p.acted == 0 {
				t.quiet++
			}
		}
	}
	if p.failingOn > p.failingOff {
		t.worse = append(t.worse, fmt.Sprintf("%s (%d → %d)", en.Name, p.failingOff, p.failingOn))
		if p.acted > 0 {
			t.worseActed++
		}
	}
}

// listOrNone spells a list of workloads for a comment ("none" when
// empty).
func listOrNone(ks []string) string {
	if len(ks) == 0 {
		return "none"
	}
	return strings.Join(ks, ", ")
}

// comment comments the hardware's columns with their numbers: swFound is
// the software monitor's bug kernels, nBug and nOK the bug and correct
// kernels, train the training seeds.
func (t *psetHWTally) comment(swFound, nBug, nOK, train int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `The PSet hardware (pset-hw) found %d of %d bug kernels, the software monitor (pset) %d, with
the same PSets on the same seeds. The runs differ: with the hardware on, the metadata's bus time
shifts the schedule, and a stall or a rollback changes it where it matters. The monitor found and
the hardware did not: %s. Of these %d, %d had no failing run with the hardware on, and in %d the
hardware stalled or rolled back, at pairs without an @bug instruction: stopping the interleaving
there, it never saw the pair with one (the scoring counts only that pair); where it never acted,
the changed schedule alone kept the bug's window shut. The hardware found and the monitor
did not: %s.`, t.found, nBug, swFound, listOrNone(t.swOnly), len(t.swOnly), t.swOnlyClean, t.swOnlyActed, listOrNone(t.hwOnly))
	fmt.Fprintf(&b, `

Stalling, then rolling back a stall that times out, left no failing run on %d of the %d bug kernels
that failed with the hardware off (%d failing runs off, %d on); on %d of those %d the hardware never
stalled or rolled back, so the schedule its metadata shifts, not its recovery, removed the failures. `,
		t.avoided, t.failed, t.off, t.on, t.quiet, t.avoided)
	if len(t.worse) == 0 {
		b.WriteString("No kernel failed more often with the hardware on.")
	} else {
		fmt.Fprintf(&b, `More failing runs with the hardware on (%d kernels; in %d of them it stalled or rolled
back): %s. Its metadata shifts the schedule whatever it does with a violation, which can open a
bug's window as well as shut one; weft reproduce pset's Table 2 separates the two by running the
hardware logging only.`, len(t.worse), t.worseActed, strings.Join(t.worse, ", "))
	}
	if len(t.hangs) > 0 {
		fmt.Fprintf(&b, ` More hung runs with the hardware on: %s. Of their %d hung runs, %d stalled
without a timeout or a rollback: a stalled access is woken and checked again whenever another thread
touches its line, and stalls again with a fresh timeout, so a stall that waits on a thread spinning
on that line neither times out into a rollback nor lets the access through.`, strings.Join(t.hangs, ", "), t.hung, t.hungStalled)
	}
	fmt.Fprintf(&b, `

The hardware reported violations on %d of %d correct kernels, the software monitor on %d: false
violations, pairs the passing runs of %d training seeds did not show. With the hardware only: %s.`,
		t.noisy, nOK, t.swNoisy, train, listOrNone(t.noisyHWOnly))
	if len(t.noisyHWOnly) > 0 {
		b.WriteString(` Its metadata is not the monitor's stream: a read hit on a Shared copy does not tell
the other sharers, and evictions and full reader slots lose readers, so it can count a predecessor
the monitor's condition (c) rules out.`)
	}
	fmt.Fprintf(&b, " Correct kernels that failed with the hardware on (runs): %s.", listOrNone(t.broken))
	return b.String()
}
