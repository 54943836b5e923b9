package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"weft/internal/atomicfile"
)

// The files of a sweep directory.
const (
	// SpecFile is the sweep's spec in canonical form, with base.toml as
	// its base: `weft sweep DIR/sweep.toml` resumes the sweep.
	SpecFile = "sweep.toml"
	// BaseFile is the resolved base config (every set override applied).
	BaseFile = "base.toml"
	// RunsFile holds one JSON line per finished run (see Record).
	RunsFile = "runs.jsonl"
	// LockFile is locked while a weft process writes the directory,
	// so that a second sweep or merge into it is refused.
	LockFile = "sweep.lock"
)

// DefaultDir is the directory the sweep writes to when `weft sweep --out`
// does not name one: the spec's out, else, for a sweep directory's own
// sweep.toml, that directory (so rerunning it resumes it there), else
// weft-out/sweep-NAME.
func (p *Plan) DefaultDir() string {
	switch {
	case p.Spec.Out != "":
		return p.Spec.Out
	case filepath.Base(p.Spec.File) == SpecFile && p.Spec.Base == BaseFile:
		return filepath.Dir(p.Spec.File)
	}
	return filepath.Join("weft-out", "sweep-"+p.Spec.Name)
}

// dirSpec returns the contents of a sweep directory's sweep.toml and
// base.toml for the plan.
func dirSpec(plan *Plan) (spec, base string) {
	s := plan.Spec
	s.Base, s.Set, s.Out = BaseFile, nil, ""
	spec = fmt.Sprintf("# weft sweep %s: the sweep whose runs are in runs.jsonl. Its base config is\n"+
		"# base.toml, the resolved base with every set override applied. To resume or\n"+
		"# finish it: weft sweep THIS_DIR/sweep.toml\n%s", plan.Hash, s.TOML())
	base = fmt.Sprintf("# resolved base config of weft sweep %s (config hash %s)\n%s", plan.Hash, plan.Base.Hash(), plan.Base.TOML())
	return spec, base
}

// dirHash returns the hash of the sweep in dir, or "" when dir holds none.
func dirHash(dir string) (string, error) {
	specPath := filepath.Join(dir, SpecFile)
	if _, err := os.Stat(specPath); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	s, err := LoadSpec(specPath)
	if err != nil {
		return "", fmt.Errorf("%s is not a readable sweep directory: %w", dir, err)
	}
	base, err := s.BaseConfig()
	if err != nil {
		return "", fmt.Errorf("%s is not a readable sweep directory: %w", dir, err)
	}
	return s.Hash(base), nil
}

// prepareDir makes dir the plan's sweep directory: it refuses a
// directory holding another sweep, or runs without a sweep, and writes
// sweep.toml and base.toml when they are missing.
func prepareDir(dir string, plan *Plan) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("sweep directory: %w", err)
	}
	h, err := dirHash(dir)
	if err != nil {
		return err
	}
	switch {
	case h == plan.Hash:
		return nil
	case h != "":
		return fmt.Errorf("%s holds a different sweep (hash %s; this one is %s): choose another --out, or delete it to start over", dir, h, plan.Hash)
	}
	if _, err := os.Stat(filepath.Join(dir, RunsFile)); err == nil {
		return fmt.Errorf("%s has a runs.jsonl but no sweep.toml: it is not a sweep directory; choose another --out", dir)
	}
	spec, base := dirSpec(plan)
	if err := writeFileAtomic(filepath.Join(dir, BaseFile), []byte(base)); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, SpecFile), []byte(spec))
}

// runsLog is what a runs.jsonl holds.
type runsLog struct {
	// lines maps each run to its line, newline included.
	lines map[runKey][]byte
	// good is the length of the file up to the end of its last whole line.
	good int64
	// torn reports a half-written last line after good.
	torn bool
}

// readRunsLog reads and checks the runs file at path against plan (a
// missing file is empty). With repair, a last line without a newline or
// that does not parse is reported as torn; without, it is an error. A bad
// line elsewhere, a run of another sweep, or two different lines for one
// run are errors naming the line.
func readRunsLog(path string, plan *Plan, repair bool) (*runsLog, error) {
	log := &runsLog{lines: map[runKey][]byte{}}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return log, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	lineNo := 0
	for off := 0; off < len(data); {
		lineNo++
		end := bytes.IndexByte(data[off:], '\n')
		last := end < 0 || off+end+1 == len(data)
		var line []byte
		if end < 0 {
			line = data[off:]
		} else {
			line = data[off : off+end+1]
		}
		k, perr := parseRunLine(line, plan)
		if end < 0 || perr != nil {
			if last && repair {
				log.torn = true
				return log, nil
			}
			if end < 0 {
				perr = errors.New("half-written (no newline at the end): the sweep was interrupted; run its weft sweep command again to finish it")
			}
			return nil, fmt.Errorf("%s:%d: %w", path, lineNo, perr)
		}
		if prev, dup := log.lines[k]; dup && !bytes.Equal(prev, line) {
			return nil, fmt.Errorf("%s:%d: point %d run %d appears twice with different results", path, lineNo, k.point, k.run)
		}
		log.lines[k] = line
		off += len(line)
		log.good = int64(off)
	}
	return log, nil
}

// parseRunLine reads the point and run of one runs.jsonl line and checks
// that they belong to plan's sweep.
func parseRunLine(line []byte, plan *Plan) (runKey, error) {
	var r struct {
		Point      *int   `json:"point"`
		Run        *int   `json:"run"`
		Workload   string `json:"workload"`
		ConfigHash string `json:"config_hash"`
	}
	if err := json.Unmarshal(line, &r); err != nil {
		return runKey{}, fmt.Errorf("not a run record: %w", err)
	}
	if r.Point == nil || r.Run == nil {
		return runKey{}, errors.New("not a run record: no point or run")
	}
	p, n := *r.Point, *r.Run
	if p < 0 || p >= len(plan.Points) || n < 0 || n >= plan.Spec.Runs {
		return runKey{}, fmt.Errorf("point %d run %d is not in this sweep (%d points × %d runs)", p, n, len(plan.Points), plan.Spec.Runs)
	}
	pt := &plan.Points[p]
	if r.Workload != pt.Workload || r.ConfigHash != pt.Config.Hash() {
		return runKey{}, fmt.Errorf("point %d run %d (%s, config %s) does not match this sweep's point (%s, config %s)",
			p, n, r.Workload, r.ConfigHash, pointName(pt), pt.Config.Hash())
	}
	return runKey{p, n}, nil
}

// writeRunsSorted writes the lines to path sorted by (point, run),
// atomically.
func writeRunsSorted(path string, lines map[runKey][]byte) error {
	keys := make([]runKey, 0, len(lines))
	for k := range lines {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].point != keys[j].point {
			return keys[i].point < keys[j].point
		}
		return keys[i].run < keys[j].run
	})
	return atomicfile.Write(path, func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		for _, k := range keys {
			if _, err := bw.Write(lines[k]); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

// writeFileAtomic writes data to path whole or not at all.
func writeFileAtomic(path string, data []byte) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// ReadRuns reads the runs of the sweep directory dir, sorted by
// (point, run). Every line must be whole.
func ReadRuns(dir string) ([]Record, error) {
	path := filepath.Join(dir, RunsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read sweep runs: %w", err)
	}
	var runs []Record
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if line[len(line)-1] != '\n' {
			return nil, fmt.Errorf("%s:%d: half-written line (the sweep was interrupted)", path, i+1)
		}
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		runs = append(runs, r)
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if runs[i].Point != runs[j].Point {
			return runs[i].Point < runs[j].Point
		}
		return runs[i].Run < runs[j].Run
	})
	return runs, nil
}

// OpenDir plans the sweep recorded in the sweep directory dir (its
// sweep.toml and base.toml).
func OpenDir(dir string) (*Plan, error) {
	path := filepath.Join(dir, SpecFile)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s is not a sweep directory (no %s): %w", dir, SpecFile, err)
	}
	return Load(path)
}
