package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// MergeStatus is what Merge found.
type MergeStatus struct {
	// Runs is the runs in the merged directory; Total is the sweep's.
	Runs, Total int
	// Duplicates counts runs found in more than one input (all identical).
	Duplicates int
	// Missing lists up to 10 missing runs as "point P run R".
	Missing []string
}

// Complete reports whether the merged directory holds every run.
func (m MergeStatus) Complete() bool { return m.Runs == m.Total }

// Merge joins the runs of the sweep directories dirs (shards of one
// sweep) into the sweep directory out and returns the sweep's plan. Every
// input must hold the same sweep (the same hash) and whole lines; a run
// found in several inputs must be byte-identical in each, otherwise the
// error names the point and run. When out already holds the same sweep,
// its runs join the union; a different sweep there is refused. Missing
// runs are an error naming them unless partial is set, in which case the
// union is written and MergeStatus lists them. runs.jsonl is written
// sorted by (point, run), so merging the shards of a sweep gives the same
// bytes as running it whole.
func Merge(dirs []string, out string, partial bool) (*Plan, MergeStatus, error) {
	if len(dirs) == 0 {
		return nil, MergeStatus{}, errors.New("merge: no input directories")
	}
	var plan *Plan
	inputs := append([]string{}, dirs...)
	for i, dir := range dirs {
		h, err := dirHash(dir)
		if err != nil {
			return nil, MergeStatus{}, fmt.Errorf("merge: %w", err)
		}
		if h == "" {
			return nil, MergeStatus{}, fmt.Errorf("merge: %s is not a sweep directory (no %s)", dir, SpecFile)
		}
		if i == 0 {
			if plan, err = OpenDir(dir); err != nil {
				return nil, MergeStatus{}, fmt.Errorf("merge: %w", err)
			}
			continue
		}
		if h != plan.Hash {
			return nil, MergeStatus{}, fmt.Errorf("merge: %s holds a different sweep from %s (hash %s, not %s)", dir, dirs[0], h, plan.Hash)
		}
	}
	for _, dir := range dirs {
		if samePath(dir, out) {
			return nil, MergeStatus{}, fmt.Errorf("merge: --out %s is one of the inputs (%s): a merge never rewrites its input; write it to a new directory", out, dir)
		}
	}
	if h, err := dirHash(out); err != nil {
		return nil, MergeStatus{}, fmt.Errorf("merge: --out: %w", err)
	} else if h != "" && h != plan.Hash {
		return nil, MergeStatus{}, fmt.Errorf("merge: --out %s holds a different sweep (hash %s, not %s)", out, h, plan.Hash)
	} else if h == plan.Hash {
		inputs = append(inputs, out)
	}

	union := map[runKey][]byte{}
	from := map[runKey]string{}
	var st MergeStatus
	for _, dir := range inputs {
		log, err := readRunsLog(filepath.Join(dir, RunsFile), plan, false)
		if err != nil {
			return nil, MergeStatus{}, fmt.Errorf("merge: %w", err)
		}
		for k, line := range log.lines {
			if prev, ok := union[k]; ok {
				if !bytes.Equal(prev, line) {
					return nil, MergeStatus{}, fmt.Errorf("merge: point %d run %d differs between %s and %s", k.point, k.run, from[k], dir)
				}
				st.Duplicates++
				continue
			}
			union[k] = line
			from[k] = dir
		}
	}
	st.Runs, st.Total = len(union), plan.Runs()
	missing := 0
	for p := range plan.Points {
		for r := 0; r < plan.Spec.Runs; r++ {
			if _, ok := union[runKey{p, r}]; !ok {
				missing++
				if len(st.Missing) < 10 {
					st.Missing = append(st.Missing, fmt.Sprintf("point %d run %d", p, r))
				}
			}
		}
	}
	if missing > 0 && !partial {
		list := strings.Join(st.Missing, ", ")
		if missing > len(st.Missing) {
			list += ", …"
		}
		return nil, st, fmt.Errorf("merge: %d of %d runs are missing (%s): merge every shard, finish the interrupted ones, or pass --partial",
			missing, st.Total, list)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, st, fmt.Errorf("merge: --out: %w", err)
	}
	unlock, err := lockDir(out)
	if err != nil {
		return nil, st, fmt.Errorf("merge: %w", err)
	}
	defer unlock()
	if err := prepareDir(out, plan); err != nil {
		return nil, st, fmt.Errorf("merge: %w", err)
	}
	if err := writeRunsSorted(filepath.Join(out, RunsFile), union); err != nil {
		return nil, st, fmt.Errorf("merge: %w", err)
	}
	return plan, st, nil
}

// samePath reports whether a and b name the same directory: the same path
// once cleaned, or the same file (another spelling, a link).
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
