package suite

import (
	"fmt"
	"strings"

	"weft/configs"
	psetrepro "weft/experiments/pset"
	"weft/workloads"
)

// psetHWText describes the PSet hardware of the default experiment, p
// its [pset] table.
func psetHWText(p configs.PSet) string {
	return fmt.Sprintf(`%s metadata (%s on eviction, %d reader slots), in %s mode: a
violating access stalls until another thread touches its line, and a stall that times out (%d
cycles) rolls the machine back to its last checkpoint and re-executes it perturbed (%s; at most %d
rollbacks a checkpoint, then the pair is accepted)`, p.Granularity, p.MetadataOnEvict, p.MaxReadersTracked, p.Recovery.Mode,
		p.Recovery.StallTimeoutCycles, p.Recovery.Perturbation, p.Recovery.MaxRollbacksPerCheckpoint)
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
func (t *psetHWTally) add(en workloads.Entry, p psetrepro.HWScore, sw detection) {
	if p.HangsOn > p.HangsOff {
		t.hangs = append(t.hangs, fmt.Sprintf("%s (%d → %d)", en.Name, p.HangsOff, p.HangsOn))
		t.hung += p.HangsOn
		t.hungStalled += p.HungStalled
	}
	if !en.Bug {
		if p.Flagged > 0 {
			t.noisy++
			if sw.flagged == 0 {
				t.noisyHWOnly = append(t.noisyHWOnly, en.Name)
			}
		}
		if sw.flagged > 0 {
			t.swNoisy++
		}
		if p.FailingOn > 0 {
			t.broken = append(t.broken, fmt.Sprintf("%s (%d)", en.Name, p.FailingOn))
		}
		return
	}
	if p.Hits > 0 {
		t.found++
	}
	switch {
	case sw.hits > 0 && p.Hits == 0:
		t.swOnly = append(t.swOnly, en.Name)
		if p.FailingOn == 0 {
			t.swOnlyClean++
		}
		if p.Acted > 0 {
			t.swOnlyActed++
		}
	case sw.hits == 0 && p.Hits > 0:
		t.hwOnly = append(t.hwOnly, en.Name)
	}
	t.off += p.FailingOff
	t.on += p.FailingOn
	if p.FailingOff > 0 {
		t.failed++
		if p.FailingOn == 0 {
			t.avoided++
			if p.Acted == 0 {
				t.quiet++
			}
		}
	}
	if p.FailingOn > p.FailingOff {
		t.worse = append(t.worse, fmt.Sprintf("%s (%d → %d)", en.Name, p.FailingOff, p.FailingOn))
		if p.Acted > 0 {
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
