package sim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"weft/internal/atomicfile"

	"weft/configs"
	"weft/isa"
	"weft/workloads"
)

// The files of a sweep directory.
const (
	// SweepSpecFile is the sweep's spec in canonical form, with base.toml as
	// its base: `weft sweep DIR/sweep.toml` resumes the sweep.
	SweepSpecFile = "sweep.toml"
	// SweepBaseFile is the resolved base config (every set override applied).
	SweepBaseFile = "base.toml"
	// SweepRunsFile holds one JSON line per finished run (see SweepRun).
	SweepRunsFile = "runs.jsonl"
	// SweepLockFile is locked while a weft process writes the directory,
	// so that a second sweep or merge into it is refused.
	SweepLockFile = "sweep.lock"
)

// AxisValue is the value of one axis at a sweep point.
type AxisValue struct {
	// Key is the axis's dotted config key.
	Key string
	// Value is the axis's value: int64, float64, string or bool.
	Value any
}

// AxisValues are a point's axis values in the sweep file's axis order. They
// are written as one JSON object in that order.
type AxisValues []AxisValue

// String writes the values as "key=value, key=value".
func (a AxisValues) String() string {
	parts := make([]string, len(a))
	for i, v := range a {
		parts[i] = v.Key + "=" + configs.FormatValue(v.Value)
	}
	return strings.Join(parts, ", ")
}

// Get returns the value of the axis key.
func (a AxisValues) Get(key string) (any, bool) {
	for _, v := range a {
		if v.Key == key {
			return v.Value, true
		}
	}
	return nil, false
}

// MarshalJSON writes the values as a JSON object in axis order. Floats keep
// a decimal point or exponent, so they read back as floats.
func (a AxisValues) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, v := range a {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(v.Key))
		b.WriteByte(':')
		switch x := v.Value.(type) {
		case int64, bool:
			b.WriteString(configs.FormatValue(x))
		case float64:
			s := configs.FormatValue(x)
			if s == "nan" || strings.HasSuffix(s, "inf") {
				return nil, fmt.Errorf("axis %s: %s is not a JSON number", v.Key, s)
			}
			b.WriteString(s)
		case string:
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(x); err != nil {
				return nil, err
			}
			b.Truncate(b.Len() - 1) // Encode's newline
		default:
			return nil, fmt.Errorf("axis %s: unsupported value %v (%T)", v.Key, x, x)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an axis object, keeping its key order. Numbers with
// a decimal point or exponent become float64, others int64.
func (a *AxisValues) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("axes: want a JSON object")
	}
	var out AxisValues
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("axes: %w", err)
		}
		key, _ := tok.(string)
		tok, err = dec.Token()
		if err != nil {
			return fmt.Errorf("axes: %s: %w", key, err)
		}
		var v any
		switch x := tok.(type) {
		case json.Number:
			if strings.ContainsAny(x.String(), ".eE") {
				f, err := x.Float64()
				if err != nil {
					return fmt.Errorf("axes: %s: %w", key, err)
				}
				v = f
			} else {
				n, err := x.Int64()
				if err != nil {
					return fmt.Errorf("axes: %s: %w", key, err)
				}
				v = n
			}
		case string, bool:
			v = x
		default:
			return fmt.Errorf("axes: %s: want a number, string or boolean", key)
		}
		out = append(out, AxisValue{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("axes: %w", err)
	}
	*a = out
	return nil
}

// SweepRun is one line of a sweep's runs.jsonl: the run's Result with its
// point, run index and axis values in front. Its workload is the sweep
// workload's label (configs.SweepWorkload.Label).
type SweepRun struct {
	// Point is the point's index (SweepPoint.Index).
	Point int `json:"point"`
	// Run is the run's index within the point; it ran with seed
	// configs.Sweep.Seed + Run.
	Run int `json:"run"`
	// Axes are the point's axis values.
	Axes AxisValues `json:"axes"`
	// Result is the run's record.
	Result
}

// encodeRun writes r as one JSON line, the same bytes for equal runs.
func encodeRun(r *SweepRun) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return nil, fmt.Errorf("encode point %d run %d: %w", r.Point, r.Run, err)
	}
	return buf.Bytes(), nil
}

// SweepPoint is one expanded, validated point of a sweep, ready to run.
type SweepPoint struct {
	// Index is the point's number in expansion order (configs.Sweep.Points).
	Index int
	// Axes holds the point's value of every axis, in axis order.
	Axes AxisValues
	// Workload is the workload's label (configs.SweepWorkload.Label).
	Workload string
	// WorkloadIndex indexes Sweep.Workloads.
	WorkloadIndex int
	// Config is the point's config: base, axis values, machine.cores raised
	// to the program's .cores when no axis or override sets it.
	Config configs.Config
	// Program is the workload built for Config's cores, shared (read-only)
	// by every run of the point.
	Program *isa.Program
}

// SweepPlan is a sweep expanded and validated against its base config and
// the workload registry: every point is known to build and run.
type SweepPlan struct {
	// Sweep is the parsed sweep file.
	Sweep configs.Sweep
	// Base is the resolved base config (configs.Sweep.BaseConfig).
	Base configs.Config
	// Hash identifies the sweep (configs.Sweep.Hash); a sweep directory
	// holds the runs of one hash.
	Hash string
	// Points are the points to run, in expansion order.
	Points []SweepPoint
	// Notes are messages for the user, such as cores raised for a kernel.
	Notes []string
	// Detectors, when set, builds the detectors attached to each run of a
	// point's program (the sweep's detectors key, resolved by the caller:
	// sim does not know the detector registry).
	Detectors func(prog *isa.Program) []Option
}

// Runs is the total number of runs: points × runs per point.
func (p *SweepPlan) Runs() int { return len(p.Points) * p.Sweep.Runs }

// LoadSweepPlan loads the sweep file at path and plans it (PlanSweep).
func LoadSweepPlan(path string) (*SweepPlan, error) {
	s, err := configs.LoadSweep(path)
	if err != nil {
		return nil, err
	}
	return PlanSweep(s)
}

// PlanSweep resolves the sweep's base config, expands its points and checks
// every one before anything runs: each axis value applied to the base
// validates, every workload exists in the registry and builds for each
// point's cores with its params. A kernel that needs more cores than an
// axis gives it is an error; otherwise machine.cores is raised as in
// `weft run` (with a note). Errors name the file, line and axis or workload.
func PlanSweep(s configs.Sweep) (*SweepPlan, error) {
	base, err := s.BaseConfig()
	if err != nil {
		return nil, err
	}
	points, err := s.Points(base)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, w := range s.Workloads {
		if _, err := workloads.Lookup(w.Name); err != nil {
			errs = append(errs, &configs.SweepError{File: s.File, Line: w.Line, Where: fmt.Sprintf("workload %q", w.Name),
				Err: errors.New(strings.TrimPrefix(err.Error(), "workloads: "))})
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	coresAxis := -1
	for i, a := range s.Axes {
		if a.Key == "machine.cores" {
			coresAxis = i
		}
	}
	type progKey struct{ workload, cores int }
	progs := map[progKey]*isa.Program{}
	plan := &SweepPlan{Sweep: s, Base: base, Hash: s.Hash(base)}
	seenErr := map[string]bool{}
	seenNote := map[string]bool{}
	for _, pt := range points {
		w := s.Workloads[pt.Workload]
		cfg := pt.Config
		k := progKey{pt.Workload, cfg.Machine.Cores}
		prog, ok := progs[k]
		if !ok {
			prog, err = workloads.ProgramWithParams(w.Name, cfg.Machine.Cores, w.Params)
			if err != nil {
				e := &configs.SweepError{File: s.File, Line: w.Line, Where: fmt.Sprintf("workload %q", w.Label()),
					Err: fmt.Errorf("for %d cores: %s", cfg.Machine.Cores, strings.TrimPrefix(err.Error(), "workloads: "))}
				if !seenErr[e.Error()] {
					seenErr[e.Error()] = true
					errs = append(errs, e)
				}
				continue
			}
			progs[k] = prog
		}
		if prog.MinCores > cfg.Machine.Cores {
			if coresAxis >= 0 {
				e := &configs.SweepError{File: s.File, Line: w.Line, Where: fmt.Sprintf("workload %q", w.Label()),
					Err: fmt.Errorf("needs %d cores (.cores) but axis \"machine.cores\" value %d gives it %d", prog.MinCores, cfg.Machine.Cores, cfg.Machine.Cores)}
				if !seenErr[e.Error()] {
					seenErr[e.Error()] = true
					errs = append(errs, e)
				}
				continue
			}
			var note string
			cfg, note = FitCores(cfg, prog)
			if !seenNote[note] {
				seenNote[note] = true
				plan.Notes = append(plan.Notes, note)
			}
		}
		axes := make(AxisValues, len(s.Axes))
		for i, a := range s.Axes {
			axes[i] = AxisValue{Key: a.Key, Value: pt.Values[i]}
		}
		plan.Points = append(plan.Points, SweepPoint{Index: pt.Index, Axes: axes, Workload: w.Label(),
			WorkloadIndex: pt.Workload, Config: cfg, Program: prog})
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return plan, nil
}

// SweepOptions says where and how to run a sweep.
type SweepOptions struct {
	// Dir is the sweep directory (created if needed).
	Dir string
	// Workers is the number of runs in flight (0: GOMAXPROCS). Results do
	// not depend on it.
	Workers int
	// Shard and Shards select the points with Index % Shards == Shard
	// (Shards 0 means 1: every point).
	Shard, Shards int
	// Progress, when set, is called once before the first run and after
	// every finished run, from one goroutine at a time.
	Progress func(SweepProgress)
}

// SweepProgress counts a sweep's (or shard's) points and runs.
type SweepProgress struct {
	// Points and Runs are the points and runs of the shard.
	Points, Runs int
	// PointsDone and RunsDone count those complete, resumed ones included.
	PointsDone, RunsDone int
	// Resumed is the runs found complete in runs.jsonl at the start; the
	// runs computed by this call are RunsDone - Resumed.
	Resumed int
}

// SweepStatus is how a call to RunSweep ended.
type SweepStatus struct {
	// SweepProgress counts the shard's points and runs as the call ended.
	SweepProgress
	// Computed is the number of runs this call ran.
	Computed int
	// Repaired reports whether a half-written last line was cut from
	// runs.jsonl (its run was redone).
	Repaired bool
	// Complete reports whether the directory holds every run of the whole
	// sweep (not only of the shard).
	Complete bool
}

// runKey names one run of a sweep.
type runKey struct{ point, run int }

// RunSweep runs the plan's points (of one shard) into opt.Dir and returns
// when they are all done, on the first error, or when ctx is cancelled.
//
// Each finished run is appended to DIR/runs.jsonl as one JSON line
// (SweepRun), written with one write call. On start, RunSweep checks that
// DIR holds this sweep (DIR/sweep.toml; a different sweep is refused) or
// none, reads DIR/runs.jsonl, cuts a half-written last line (one without a
// newline, or that does not parse) so its run is redone, and skips every
// run already there. When every run of the shard is done it rewrites
// runs.jsonl sorted by (point, run), atomically, so its bytes do not
// depend on the worker count or the order runs finished.
func RunSweep(ctx context.Context, plan *SweepPlan, opt SweepOptions) (SweepStatus, error) {
	shards := opt.Shards
	if shards == 0 {
		shards = 1
	}
	if shards < 0 || opt.Shard < 0 || opt.Shard >= shards {
		return SweepStatus{}, fmt.Errorf("shard %d/%d: want 0 ≤ I < N", opt.Shard, opt.Shards)
	}
	if opt.Dir == "" {
		return SweepStatus{}, errors.New("sweep: no output directory")
	}
	if len(plan.Sweep.Detectors) > 0 && plan.Detectors == nil {
		return SweepStatus{}, fmt.Errorf("sweep %s names detectors %s, but they were not resolved (SweepPlan.Detectors)", plan.Sweep.File, strings.Join(plan.Sweep.Detectors, ", "))
	}
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return SweepStatus{}, fmt.Errorf("sweep directory: %w", err)
	}
	unlock, err := lockSweepDir(opt.Dir)
	if err != nil {
		return SweepStatus{}, err
	}
	defer unlock()
	if err := prepareSweepDir(opt.Dir, plan); err != nil {
		return SweepStatus{}, err
	}
	path := filepath.Join(opt.Dir, SweepRunsFile)
	log, err := readRunsLog(path, plan, true)
	if err != nil {
		return SweepStatus{}, err
	}
	var st SweepStatus
	if log.torn {
		if err := os.Truncate(path, log.good); err != nil {
			return SweepStatus{}, fmt.Errorf("cut the half-written last line of %s: %w", path, err)
		}
		st.Repaired = true
	}

	// The shard's runs, in point order; those already done count as resumed.
	runs := plan.Sweep.Runs
	left := map[int]int{} // point → runs still to do
	var todo []runKey
	for i, pt := range plan.Points {
		if pt.Index%shards != opt.Shard {
			continue
		}
		st.Points++
		st.Runs += runs
		for r := 0; r < runs; r++ {
			if _, ok := log.lines[runKey{i, r}]; ok {
				st.Resumed++
				continue
			}
			todo = append(todo, runKey{i, r})
			left[i]++
		}
		if left[i] == 0 {
			st.PointsDone++
		}
	}
	st.RunsDone = st.Resumed
	report := func() {
		if opt.Progress != nil {
			opt.Progress(st.SweepProgress)
		}
	}
	report()

	if len(todo) > 0 {
		if err := runJobs(ctx, plan, path, todo, opt.Workers, func() {
			st.Computed++
			st.RunsDone++
			report()
		}, func(k runKey) {
			if left[k.point]--; left[k.point] == 0 {
				st.PointsDone++
			}
		}); err != nil {
			return st, err
		}
	}

	// The shard is complete: sort what the directory holds.
	log, err = readRunsLog(path, plan, false)
	if err != nil {
		return st, err
	}
	if err := writeRunsSorted(path, log.lines); err != nil {
		return st, err
	}
	st.Complete = len(log.lines) == plan.Runs()
	return st, nil
}

// runJobs runs the jobs through the worker pool (Stream), appending each
// result to the runs file at path in job order as soon as it and every
// job before it have finished; pointDone and done are called, in that
// order, from this goroutine after each line is written.
func runJobs(ctx context.Context, plan *SweepPlan, path string, todo []runKey, workers int, done func(), pointDone func(runKey)) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	err = Stream(ctx, len(todo), workers, func(i int) ([]byte, error) {
		return runPoint(plan, todo[i])
	}, nil, func(i int, line []byte) error {
		if _, err := f.Write(line); err != nil {
			return fmt.Errorf("append to %s: %w", path, err)
		}
		pointDone(todo[i])
		done()
		return nil
	})
	interrupted := err != nil && ctx.Err() != nil && errors.Is(err, context.Cause(ctx))
	if cerr := f.Close(); cerr != nil && (err == nil || interrupted) {
		return fmt.Errorf("close %s: %w", path, cerr)
	}
	if interrupted {
		return fmt.Errorf("sweep interrupted (%w): the finished runs are in %s; run the same command again to resume", ctx.Err(), path)
	}
	return err
}

// runPoint runs one run of a point and returns its JSON line.
func runPoint(plan *SweepPlan, k runKey) ([]byte, error) {
	pt := &plan.Points[k.point]
	seed := plan.Sweep.Seed + uint64(k.run)
	var opts []Option
	if plan.Detectors != nil {
		opts = plan.Detectors(pt.Program)
	}
	res, err := Run(pt.Config, pt.Program, seed, opts...)
	if err != nil {
		return nil, fmt.Errorf("point %d (%s) run %d: %w", pt.Index, pointName(pt), k.run, err)
	}
	res.Workload = pt.Workload
	return encodeRun(&SweepRun{Point: pt.Index, Run: k.run, Axes: pt.Axes, Result: res})
}

// pointName describes a point: its axis values and workload.
func pointName(pt *SweepPoint) string {
	if len(pt.Axes) == 0 {
		return pt.Workload
	}
	return pt.Axes.String() + ", " + pt.Workload
}

// dirSpec returns the contents of a sweep directory's sweep.toml and
// base.toml for the plan.
func dirSpec(plan *SweepPlan) (spec, base string) {
	s := plan.Sweep
	s.Base, s.Set, s.Out = SweepBaseFile, nil, ""
	spec = fmt.Sprintf("# weft sweep %s: the sweep whose runs are in runs.jsonl. Its base config is\n"+
		"# base.toml, the resolved base with every set override applied. To resume or\n"+
		"# finish it: weft sweep THIS_DIR/sweep.toml\n%s", plan.Hash, s.TOML())
	base = fmt.Sprintf("# resolved base config of weft sweep %s (config hash %s)\n%s", plan.Hash, plan.Base.Hash(), plan.Base.TOML())
	return spec, base
}

// dirHash returns the hash of the sweep in dir, or "" when dir holds none.
func dirHash(dir string) (string, error) {
	specPath := filepath.Join(dir, SweepSpecFile)
	if _, err := os.Stat(specPath); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	s, err := configs.LoadSweep(specPath)
	if err != nil {
		return "", fmt.Errorf("%s is not a readable sweep directory: %w", dir, err)
	}
	base, err := s.BaseConfig()
	if err != nil {
		return "", fmt.Errorf("%s is not a readable sweep directory: %w", dir, err)
	}
	return s.Hash(base), nil
}

// prepareSweepDir makes dir the plan's sweep directory: it refuses a
// directory holding another sweep, or runs without a sweep, and writes
// sweep.toml and base.toml when they are missing.
func prepareSweepDir(dir string, plan *SweepPlan) error {
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
	if _, err := os.Stat(filepath.Join(dir, SweepRunsFile)); err == nil {
		return fmt.Errorf("%s has a runs.jsonl but no sweep.toml: it is not a sweep directory; choose another --out", dir)
	}
	spec, base := dirSpec(plan)
	if err := writeFileAtomic(filepath.Join(dir, SweepBaseFile), []byte(base)); err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, SweepSpecFile), []byte(spec))
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
func readRunsLog(path string, plan *SweepPlan, repair bool) (*runsLog, error) {
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
func parseRunLine(line []byte, plan *SweepPlan) (runKey, error) {
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
	if p < 0 || p >= len(plan.Points) || n < 0 || n >= plan.Sweep.Runs {
		return runKey{}, fmt.Errorf("point %d run %d is not in this sweep (%d points × %d runs)", p, n, len(plan.Points), plan.Sweep.Runs)
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

// ReadSweepRuns reads the runs of the sweep directory dir, sorted by
// (point, run). Every line must be whole.
func ReadSweepRuns(dir string) ([]SweepRun, error) {
	path := filepath.Join(dir, SweepRunsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read sweep runs: %w", err)
	}
	var runs []SweepRun
	for i, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		if line[len(line)-1] != '\n' {
			return nil, fmt.Errorf("%s:%d: half-written line (the sweep was interrupted)", path, i+1)
		}
		var r SweepRun
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

// OpenSweepDir plans the sweep recorded in the sweep directory dir (its
// sweep.toml and base.toml).
func OpenSweepDir(dir string) (*SweepPlan, error) {
	path := filepath.Join(dir, SweepSpecFile)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("%s is not a sweep directory (no %s): %w", dir, SweepSpecFile, err)
	}
	return LoadSweepPlan(path)
}

// MergeStatus is what MergeSweeps found.
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

// MergeSweeps joins the runs of the sweep directories dirs (shards of one
// sweep) into the sweep directory out and returns the sweep's plan. Every
// input must hold the same sweep (the same hash) and whole lines; a run
// found in several inputs must be byte-identical in each, otherwise the
// error names the point and run. When out already holds the same sweep,
// its runs join the union; a different sweep there is refused. Missing
// runs are an error naming them unless partial is set, in which case the
// union is written and MergeStatus lists them. runs.jsonl is written
// sorted by (point, run), so merging the shards of a sweep gives the same
// bytes as running it whole.
func MergeSweeps(dirs []string, out string, partial bool) (*SweepPlan, MergeStatus, error) {
	if len(dirs) == 0 {
		return nil, MergeStatus{}, errors.New("merge: no input directories")
	}
	var plan *SweepPlan
	inputs := append([]string{}, dirs...)
	for i, dir := range dirs {
		h, err := dirHash(dir)
		if err != nil {
			return nil, MergeStatus{}, fmt.Errorf("merge: %w", err)
		}
		if h == "" {
			return nil, MergeStatus{}, fmt.Errorf("merge: %s is not a sweep directory (no %s)", dir, SweepSpecFile)
		}
		if i == 0 {
			if plan, err = OpenSweepDir(dir); err != nil {
				return nil, MergeStatus{}, fmt.Errorf("merge: %w", err)
			}
			continue
		}
		if h != plan.Hash {
			return nil, MergeStatus{}, fmt.Errorf("merge: %s holds a different sweep from %s (hash %s, not %s)", dir, dirs[0], h, plan.Hash)
		}
	}
	if h, err := dirHash(out); err != nil {
		return nil, MergeStatus{}, fmt.Errorf("merge: --out: %w", err)
	} else if h != "" && h != plan.Hash {
		return nil, MergeStatus{}, fmt.Errorf("merge: --out %s holds a different sweep (hash %s, not %s)", out, h, plan.Hash)
	} else if h == plan.Hash && !containsPath(dirs, out) {
		inputs = append(inputs, out)
	}

	union := map[runKey][]byte{}
	from := map[runKey]string{}
	var st MergeStatus
	for _, dir := range inputs {
		log, err := readRunsLog(filepath.Join(dir, SweepRunsFile), plan, false)
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
		for r := 0; r < plan.Sweep.Runs; r++ {
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
	unlock, err := lockSweepDir(out)
	if err != nil {
		return nil, st, fmt.Errorf("merge: %w", err)
	}
	defer unlock()
	if err := prepareSweepDir(out, plan); err != nil {
		return nil, st, fmt.Errorf("merge: %w", err)
	}
	if err := writeRunsSorted(filepath.Join(out, SweepRunsFile), union); err != nil {
		return nil, st, fmt.Errorf("merge: %w", err)
	}
	return plan, st, nil
}

// containsPath reports whether dirs names the directory dir.
func containsPath(dirs []string, dir string) bool {
	for _, d := range dirs {
		if filepath.Clean(d) == filepath.Clean(dir) {
			return true
		}
	}
	return false
}
