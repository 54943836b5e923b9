package main

import (
	"fmt"
	"io"
	"strings"

	"weft/core"
	"weft/detectors/infer"
	"weft/sim"
)

// cmdInfer is `weft infer (-w KERNEL | -p FILE.s) [--seed S] [--window N]
// [--bound N]`: interleaving inference from one passing run.
func cmdInfer(e env, args []string) error {
	fs := newFlagSet("infer", "weft infer (-w KERNEL | -p FILE.s) [--seed S] [--window N] [--bound N] [--states N]",
		`Interleaving inference from one trace: records the run of seed S (which must pass), finds the
shared objects whose accesses no fork/join/signal/barrier order and no common lock keeps apart,
searches every synchronisation order the primitives allow for one that makes two of those accesses
adjacent (a race) or stops every thread (a deadlock), and replays each such order with schedule
control and happens-before attached: confirmed (a race report or a hang), discarded (nothing),
or dropped (the order could not be enforced). Each confirmed report comes with the seed and the
schedule that reproduce it.`)
	var t targetFlags
	t.add(fs)
	window := fs.Int("window", infer.DefaultWindowEvents, "sync events per analysis `window` (at least 1)")
	bound := fs.Int("bound", 1, "counterexamples per object and window (`N`; 0: no bound)")
	states := fs.Int("states", infer.DefaultSearchOptions().StateLimit, "states one check may explore (`N`; 0: no limit)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object instead of text")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usagef(fs, "infer: unexpected argument %q", pos[0])
	}
	if *window < 1 {
		return usagef(fs, "infer: --window must be at least 1 (one sync event), got %d", *window)
	}
	if *bound < 0 || *states < 0 {
		return usagef(fs, "infer: --bound and --states must be at least 0")
	}
	tg, err := t.resolve(fs)
	if err != nil {
		return err
	}
	seed := tg.cfg.Sim.Seed
	rec := infer.NewRecorder(tg.prog)
	r, err := sim.Run(tg.cfg, tg.prog, seed, sim.WithDetector(rec))
	if err != nil {
		return err
	}
	a, err := rec.Analyse(infer.Options{WindowEvents: *window})
	if err != nil {
		return fmt.Errorf("infer: %s seed %d: %w", tg.prog.Name, seed, err)
	}
	w := e.stdout
	var js *inferJSON
	if *asJSON {
		w, js = io.Discard, &inferJSON{Program: tg.prog.Name, Seed: seed, Outcome: r.Outcome, Candidates: []inferCandidateJSON{},
			Counterexamples: []inferCexJSON{}}
	}
	st := a.Trace.Stats
	fmt.Fprintf(w, "trace of %s, seed %d (%s): %d events captured, %d after reduction, %d sync (%.1f%%); %d shared objects, %d windows\n",
		tg.prog.Name, seed, r.Outcome, st.Captured(), st.Reduced(), st.Sync, 100*st.SyncFraction(), len(a.Objects), len(a.Windows))
	fmt.Fprintf(w, "candidates (hb without lock edges, then lockset): %d\n", len(a.Candidates))
	for _, c := range a.Candidates {
		o := a.Objects[c.Object]
		how := "hidden by the observed lock order"
		if c.Observed() {
			how = "already racing in this run"
		}
		fmt.Fprintf(w, "  %s (%d words): %d unordered pairs, %s\n", tg.prog.DescribeAddr(o.Addr), o.Words, len(c.Pairs), how)
		if js != nil {
			js.Candidates = append(js.Candidates, inferCandidateJSON{Object: tg.prog.DescribeAddr(o.Addr), Addr: o.Addr, Words: o.Words,
				Pairs: len(c.Pairs), Observed: c.Observed()})
		}
	}
	cex, sst, err := a.Search(infer.SearchOptions{Bound: *bound, StateLimit: *states})
	if err != nil {
		return err
	}
	if js != nil {
		js.Events, js.Reduced, js.SyncEvents, js.Objects, js.Windows = st.Captured(), st.Reduced(), st.Sync, len(a.Objects), len(a.Windows)
		js.Checks, js.Truncated = sst.Checks, sst.Truncated
	}
	fmt.Fprintf(w, "counterexamples: %d (%d checks", len(cex), sst.Checks)
	if sst.Truncated > 0 {
		fmt.Fprintf(w, ", %d cut short by --states", sst.Truncated)
	}
	fmt.Fprintln(w, ")")
	confirmed := 0
	for i := range cex {
		c := &cex[i]
		res, err := infer.Replay(sim.Runner{Config: tg.cfg, Program: tg.prog}, tg.prog, seed, a.Trace, c)
		if err != nil {
			return err
		}
		what := "deadlock"
		if !c.Deadlock {
			acc := a.Trace.Accesses
			what = fmt.Sprintf("race on %s: pc %d and pc %d", tg.prog.DescribeAddr(a.Objects[c.Object].Addr), acc[c.A].PC, acc[c.B].PC)
		}
		fmt.Fprintf(w, "  #%d %s (window %d): %s", i+1, what, c.Window, res.Verdict)
		if res.Reason != "" {
			fmt.Fprintf(w, " (%s)", res.Reason)
		}
		fmt.Fprintln(w)
		var steps []string
		for _, s := range c.Schedule[c.Prefix:] {
			steps = append(steps, s.String())
		}
		fmt.Fprintf(w, "     schedule: %d observed events, then %s\n", c.Prefix, strings.Join(steps, " "))
		if js != nil {
			js.Counterexamples = append(js.Counterexamples, inferCexJSON{Number: i + 1, What: what, Window: c.Window,
				Verdict: res.Verdict.String(), Reason: res.Reason, Prefix: c.Prefix, Schedule: steps, Races: res.Races})
			if res.Deadlock {
				for _, b := range c.Blocked {
					js.Counterexamples[len(js.Counterexamples)-1].Blocked = append(js.Counterexamples[len(js.Counterexamples)-1].Blocked, b.String())
				}
			}
		}
		if res.Verdict != infer.Confirmed {
			continue
		}
		confirmed++
		for _, f := range res.Races {
			fmt.Fprintf(w, "     hb: %s (pcs %s)\n", f.Message, joinInts(f.PCs))
		}
		if res.Deadlock {
			for _, b := range c.Blocked {
				fmt.Fprintf(w, "     blocked: %s at pc %d\n", b, b.PC)
			}
		}
		fmt.Fprintf(w, "     reproduce: weft infer -w %s --seed %d (counterexample #%d)\n", tg.prog.Name, seed, i+1)
	}
	fmt.Fprintf(w, "confirmed: %d of %d\n", confirmed, len(cex))
	if js != nil {
		js.Confirmed = confirmed
		return writeJSON(e.stdout, js)
	}
	return nil
}

// inferJSON is `weft infer --json`'s object.
type inferJSON struct {
	Program         string               `json:"program"`
	Seed            uint64               `json:"seed"`
	Outcome         core.OutcomeKind     `json:"outcome"`
	Events          int                  `json:"events"`
	Reduced         int                  `json:"events_after_reduction"`
	SyncEvents      int                  `json:"sync_events"`
	Objects         int                  `json:"shared_objects"`
	Windows         int                  `json:"windows"`
	Candidates      []inferCandidateJSON `json:"candidates"`
	Checks          int                  `json:"checks"`
	Truncated       int                  `json:"checks_cut_short"`
	Counterexamples []inferCexJSON       `json:"counterexamples"`
	Confirmed       int                  `json:"confirmed"`
}

// inferCandidateJSON is one shared object whose accesses no sync order
// keeps apart.
type inferCandidateJSON struct {
	Object   string `json:"object"`
	Addr     uint64 `json:"addr"`
	Words    int    `json:"words"`
	Pairs    int    `json:"unordered_pairs"`
	Observed bool   `json:"already_racing"`
}

// inferCexJSON is one counterexample and its replay.
type inferCexJSON struct {
	Number   int            `json:"counterexample"`
	What     string         `json:"what"`
	Window   int            `json:"window"`
	Verdict  string         `json:"verdict"`
	Reason   string         `json:"reason,omitempty"`
	Prefix   int            `json:"observed_events"`
	Schedule []string       `json:"schedule"`
	Races    []core.Finding `json:"races,omitempty"`
	Blocked  []string       `json:"blocked,omitempty"`
}
