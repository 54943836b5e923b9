package main

import (
	"fmt"
	"strings"

	"weft/sweep"
)

// cmdMerge is `weft merge DIR... --out DIR [--partial]`.
func cmdMerge(e env, args []string) error {
	fs := newFlagSet("merge", "weft merge DIR... --out DIR [--partial]",
		`Joins the directories of a sweep's shards (weft sweep --shard I/N) into
one sweep directory and writes its report, as if the sweep had run whole:
runs.jsonl sorted by point and run (byte for byte what an unsharded run
writes), sweep.csv/.md/.json, plots/ and report.md.

Every DIR must hold the same sweep (the same spec and resolved base config)
and only whole lines; a run found in several DIRs must be identical in each,
otherwise the error names the point and run. --out may be a new directory,
one of the inputs, or a directory holding the same sweep (its runs join).

A run missing from every DIR is an error naming it (merge every shard, or
rerun an interrupted one: its weft sweep command resumes it). With
--partial, weft merges what there is, warns on stderr, and the report
leaves out the points without runs.`)
	out := fs.String("out", "", "the merged sweep `DIR` (required)")
	partial := fs.Bool("partial", false, "merge even if runs are missing (warn, and report only the points with runs)")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef(fs, "merge: want at least one sweep directory")
	}
	if *out == "" {
		return usagef(fs, "merge: --out DIR is required")
	}
	plan, st, err := sweep.Merge(pos, *out, *partial)
	if err != nil {
		return err
	}
	if !st.Complete() {
		list := strings.Join(st.Missing, ", ")
		if st.Total-st.Runs > len(st.Missing) {
			list += ", …"
		}
		missing, are := st.Total-st.Runs, "are"
		if missing == 1 {
			are = "is"
		}
		fmt.Fprintf(e.stderr, "weft: merge: warning: %d of %s %s missing (%s); the report covers the points with runs\n",
			missing, plural(st.Total, "run"), are, list)
	}
	fmt.Fprintf(e.stdout, "merged %s into %s: sweep %s, %d of %s", plural(len(pos), "directory"), *out, plan.Hash, st.Runs, plural(st.Total, "run"))
	if st.Duplicates > 0 {
		fmt.Fprintf(e.stdout, " (%s)", plural(st.Duplicates, "identical duplicate"))
	}
	fmt.Fprintln(e.stdout)
	return sweepReport(e, plan, *out, "weft merge "+shellArgs(args))
}
