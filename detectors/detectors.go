// Package detectors is the registry of weft's software detectors: each
// one's name, summary, event kinds and constructor, and for those that
// learn across the runs of a batch their Learner. Each detector lives in
// its own sub-package (hb, lockset, avio, …) and sees only the event
// stream and the program; it never reads a kernel's name, rows or @bug
// marks. A detector is a core.Detector; scoring findings against the
// ground truth, merging them over a batch and the pipeline from config to
// report live in the analysis package.
//
// The package is a leaf of the simulator: it imports core, isa and the
// detector sub-packages only, which import core and isa (a test keeps
// this true). Detectors that re-run the program (ConSeq's tester,
// inference's replay) are handed a runner declared beside them.
package detectors

import (
	"fmt"
	"slices"
	"strings"

	"weft/core"
	"weft/detectors/atom"
	"weft/detectors/avio"
	"weft/detectors/bugaboo"
	"weft/detectors/conseq"
	"weft/detectors/falcon"
	"weft/detectors/hb"
	"weft/detectors/lockset"
	"weft/detectors/pset"
	"weft/detectors/race"
	"weft/internal/suggest"
	"weft/isa"
)

// Learner learns across the runs of a batch: add every run's outcome,
// per-run findings and the run's detector itself (for what is not in its
// findings, such as Bugaboo's communication graph), then analyse.
type Learner interface {
	// Add adds run number run (its index in the batch), whether it passed,
	// the findings its detector made, and the detector (nil when the
	// findings come from elsewhere).
	Add(run int, pass bool, findings []core.Finding, d core.Detector)
	// Analyse returns the learned findings: per run (in run order) for a
	// learner that checks runs, or one batch-wide list with Run -1 for one
	// that ranks over the whole batch.
	Analyse() []RunFindings
	// Summary says in one line what was learned from (e.g. "trained on 12
	// passing runs").
	Summary() string
}

// Checker is a Learner that can also learn from one batch and check the
// runs of another: AVIO's invariants and PSet's sets are trained on
// passing runs and then check any run, passing or failing. Add is Train
// for a passing run and a deferred Check (at Analyse) for a failing one.
type Checker interface {
	Learner
	// Train learns from one passing run: its findings and its detector.
	Train(findings []core.Finding, d core.Detector)
	// Check returns the findings of one run (its findings and detector)
	// that violate what was learned.
	Check(findings []core.Finding, d core.Detector) []core.Finding
}

// RunFindings are the findings of one run of a batch.
type RunFindings struct {
	// Run is the run's index in the batch.
	Run int
	// Findings are its findings.
	Findings []core.Finding
}

// Info describes one registered detector.
type Info struct {
	// Name is the registry name (`--detectors NAME`).
	Name string
	// Summary says in one line what it reports.
	Summary string
	// Kinds are the event kinds it needs.
	Kinds core.KindMask
	// New builds the detector for one run of prog.
	New func(prog *isa.Program) core.Detector
	// Learn, when not nil, builds the detector's multi-run learner.
	Learn func() Learner
	// Check, when not nil, reports what makes the detector's settings
	// unusable on prog (e.g. a routine the program lacks), before a run.
	Check func(prog *isa.Program) error
}

// CheckAll runs every detector's Check on prog.
func CheckAll(infos []Info, prog *isa.Program) error {
	for _, d := range infos {
		if d.Check != nil {
			if err := d.Check(prog); err != nil {
				return fmt.Errorf("detector %s: %w", d.Name, err)
			}
		}
	}
	return nil
}

// All returns every registered detector, in listing order.
func All() []Info {
	kinds := func(d core.Detector) core.KindMask { return d.Kinds() }
	empty := &isa.Program{}
	hbVariant := func(name, summary string, o hb.Options) Info {
		return Info{Name: name, Summary: summary, Kinds: kinds(hb.New(empty, o)),
			New: func(p *isa.Program) core.Detector { return renamed(hb.New(p, o), name) }}
	}
	return []Info{
		hbVariant("hb", "happens-before data races (vector clocks with FastTrack epochs): each racing PC pair once per run", hb.Options{}),
		hbVariant("hb-first", "hb reporting only the first race on each word (Helgrind's heuristic, ConSeq's comparison)", hb.Options{FirstRacePerVar: true}),
		{Name: "race", Summary: "ConSeq's Race (Helgrind-style hybrid): conflicting accesses unordered by spawn/join/barrier/signal (never locks) and holding no common lock, first race per word only; each PC pair once per run",
			Kinds: race.New(empty, race.Options{}).Kinds(),
			New:   func(p *isa.Program) core.Detector { return race.New(p, race.Options{FirstRacePerVar: true}) }},
		{Name: "atom", Summary: "ConSeq's Atom (CTrigger-style): unserializable (local, remote, local) triples predicted from one run and not exercised by it, the remote access unordered with the local pair and not shut out by its critical section; each PC triple once per run",
			Kinds: kinds(atomDetector(empty)),
			New:   func(p *isa.Program) core.Detector { return atomDetector(p) }},
		hbVariant("hb-nolock", "hb without lock release→acquire edges (interleaving inference's prefilter)", hb.Options{NoLockEdges: true}),
		hbVariant("hb-rmwplain", "hb treating fadd/cas/xchg on ordinary words as plain accesses, not C11 atomics", hb.Options{RMWPlain: true}),
		{Name: "lockset", Summary: "Eraser's lockset: words whose candidate lockset becomes empty once shared and written (spawn/join hand ownership over)",
			Kinds: lockset.New(empty, lockset.Options{}).Kinds(),
			New:   func(p *isa.Program) core.Detector { return lockset.New(p, lockset.Options{}) }},
		{Name: "avio", Summary: "AVIO: unserializable (local, remote, local) triples per run; across a batch, the triples that violate invariants learned from its passing runs",
			Kinds: avio.New(empty, avio.Options{}).Kinds(),
			New:   func(p *isa.Program) core.Detector { return avio.New(p, avio.Options{}) },
			Learn: func() Learner { return &avioLearner{l: avio.NewLearner()} }},
		bbsw("bbsw", "Bugaboo in software (BB-SW, word granularity, 5-event contexts): code points in rare communication contexts per run; across a batch, the labeled ranking (failing runs' bug-only graphs against the passing runs')", bugaboo.SWOptions{}),
		bbsw("bbsw-line", "BB-SW at cache-line granularity", bugaboo.SWOptions{Granularity: bugaboo.Line, LineBytes: 64}),
		bbsw("bbsw-noctx", "BB-SW without context (the context-oblivious graph)", bugaboo.SWOptions{NoContext: true}),
		{Name: "bbhw", Summary: "the graphs Bugaboo's hardware drains from its communication tables (needs bugaboo.enabled=true), ranked as bbsw ranks",
			Kinds: bugaboo.NewHW(empty).Kinds(),
			New:   func(p *isa.Program) core.Detector { return bugaboo.NewHW(p) },
			Learn: func() Learner { return &bugabooLearner{name: "bbhw"} }},
		{Name: "pset", Summary: "PSet in software: each access's remote immediate predecessors (RAW, WAR, WAW) per run; across a batch, the pairs of its failing runs outside the PSets learned from its passing runs",
			Kinds: pset.Kinds(),
			New:   func(p *isa.Program) core.Detector { return renamed(pset.NewRecorder(p, pset.Options{}), "pset") },
			Learn: func() Learner { return &psetLearner{} }},
		Falcon(falcon.Options{}, falcon.Jaccard),
		ConSeq(conseq.Config{}),
	}
}

// atomDetector returns an Atom detector with the default options (which
// are valid, so New cannot fail).
func atomDetector(p *isa.Program) *atom.Detector {
	d, _ := atom.New(p, atom.Options{})
	return d
}

// ConSeq returns the conseq detector with the given configuration (the
// registry's is the paper's: MaxDistance 4, every site kind, the spin-flag
// recogniser on).
func ConSeq(cfg conseq.Config) Info {
	return Info{Name: "conseq", Summary: "ConSeq: from each failure site's bounded slice ([conseq]: MaxDistance 4), the critical reads that could read another write's value and fail, per passing run (failing runs are not traced)",
		Kinds: conseq.RecorderKinds,
		New:   func(p *isa.Program) core.Detector { return conseq.NewDetector(p, cfg) },
		Check: func(p *isa.Program) error { _, err := conseq.Analyze(p, cfg.Options); return err }}
}

// Falcon returns the falcon detector with the given options and score
// (the registry's has the defaults: word windows of 5, Jaccard).
func Falcon(o falcon.Options, s falcon.Score) Info {
	return Info{Name: "falcon", Summary: "Falcon: conflicting and unserializable interleaving patterns from per-location sliding windows per run; across a batch, every pattern ranked by suspiciousness over its failing and passing runs ([falcon]: word windows of 5 and Jaccard by default)",
		Kinds: falcon.New(&isa.Program{}, o).Kinds(),
		New:   func(p *isa.Program) core.Detector { return falcon.New(p, o) },
		Learn: func() Learner { return &falconLearner{l: falcon.NewLearner(), score: s} }}
}

// falconLearner ranks the patterns of a batch's runs by Jaccard
// suspiciousness (Falcon's step 2).
type falconLearner struct {
	l     *falcon.Learner
	score falcon.Score
}

func (f *falconLearner) Add(run int, pass bool, _ []core.Finding, d core.Detector) {
	if fd, ok := Unwrap(d).(*falcon.Detector); ok {
		f.l.AddRun(run, pass, fd)
	}
}

// Analyse returns every pattern, ranked by its score, as one batch-wide
// list.
func (f *falconLearner) Analyse() []RunFindings {
	ranked := f.l.Rank(f.score)
	if len(ranked) == 0 {
		return nil
	}
	_, failed := f.l.Runs()
	if failed == 0 {
		// No run failed: every score is 0, and nothing can be ranked.
		fs := make([]core.Finding, 0, len(ranked))
		for _, r := range ranked {
			fs = append(fs, core.Finding{Detector: "falcon", Kind: r.Kind.String(), PCs: r.PCs(), Addr: r.Addr,
				Message: fmt.Sprintf("unranked (no run failed): %s, in %d passing runs", f.l.Describe(r.Stat), r.Passed)})
		}
		return []RunFindings{{Run: -1, Findings: fs}}
	}
	fs := make([]core.Finding, 0, len(ranked))
	for _, r := range ranked {
		fs = append(fs, core.Finding{Detector: "falcon", Kind: r.Kind.String(), PCs: r.PCs(), Addr: r.Addr, Score: r.Score,
			Message: fmt.Sprintf("rank %d: %s: J %.3g, T %.3g, in %d of %d failing and %d passing runs", r.Rank, f.l.Describe(r.Stat), r.Jaccard, r.Tarantula, r.Failed, failed, r.Passed)})
	}
	return []RunFindings{{Run: -1, Findings: fs}}
}

func (f *falconLearner) Summary() string {
	passed, failed := f.l.Runs()
	return fmt.Sprintf("patterns of %d failing and %d passing runs ranked by %s suspiciousness", failed, passed, f.score)
}

// bbsw registers a BB-SW variant.
func bbsw(name, summary string, o bugaboo.SWOptions) Info {
	return Info{Name: name, Summary: summary, Kinds: bugaboo.NewSW(&isa.Program{}, o).Kinds(),
		New:   func(p *isa.Program) core.Detector { return renamed(bugaboo.NewSW(p, o), name) },
		Learn: func() Learner { return &bugabooLearner{name: name} }}
}

// grapher is a Bugaboo detector: it builds a run's communication graph.
type grapher interface {
	Graph() *bugaboo.Graph
}

// bugabooLearner ranks code points over a batch with Bugaboo's labeled
// method (failing runs are buggy) or, when all runs passed or all failed,
// the unlabeled one.
type bugabooLearner struct {
	name string
	l    *bugaboo.Learner
}

func (b *bugabooLearner) Add(run int, pass bool, _ []core.Finding, d core.Detector) {
	g, ok := Unwrap(d).(grapher)
	if !ok {
		return
	}
	if b.l == nil {
		b.l = bugaboo.NewLearner(programOf(Unwrap(d)))
		b.l.Detector = b.name
		if e, ok := Unwrap(d).(interface{ Encoding() bugaboo.Encoding }); ok {
			b.l.Encoding = e.Encoding()
		}
	}
	b.l.AddRun(run, !pass, g.Graph())
}

func (b *bugabooLearner) Analyse() []RunFindings {
	if b.l == nil {
		return nil
	}
	b.l.Analyse(bugaboo.MinRelFreq)
	return []RunFindings{{Run: -1, Findings: b.l.Findings(10)}}
}

func (b *bugabooLearner) Summary() string {
	if b.l == nil {
		return "no graphs"
	}
	return b.l.Summary()
}

// programOf returns the program a Bugaboo detector was built for.
func programOf(d core.Detector) *isa.Program {
	if p, ok := d.(interface{ Program() *isa.Program }); ok {
		return p.Program()
	}
	return nil
}

// Names returns the registered detectors' names.
func Names() []string {
	var out []string
	for _, d := range All() {
		out = append(out, d.Name)
	}
	return out
}

// Lookup returns the detector named name.
func Lookup(name string) (Info, error) {
	for _, d := range All() {
		if d.Name == name {
			return d, nil
		}
	}
	msg := fmt.Sprintf("unknown detector %q", name)
	if c := suggest.Closest(name, Names()); len(c) > 0 {
		msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(c, " or "))
	}
	return Info{}, fmt.Errorf("%s; the detectors are %s", msg, strings.Join(Names(), ", "))
}

// Parse reads a comma-separated list of detector names ("hb,lockset").
// Each name may appear once; the empty list is an error.
func Parse(list string) ([]Info, error) {
	var out []Info
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, fmt.Errorf("empty detector name in %q", list)
		}
		d, err := Lookup(name)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(out, func(o Info) bool { return o.Name == name }) {
			return nil, fmt.Errorf("detector %q named twice", name)
		}
		out = append(out, d)
	}
	return out, nil
}

// named gives a detector variant its registry name, on itself and on its
// findings.
type named struct {
	core.Detector
	name string
}

func renamed(d core.Detector, name string) core.Detector {
	if d.Name() == name {
		return d
	}
	return &named{Detector: d, name: name}
}

func (n *named) Name() string { return n.name }

// Unwrap returns the detector a registry variant renames (bbsw-line is a
// BB-SW detector under another name), or d itself.
func Unwrap(d core.Detector) core.Detector {
	if n, ok := d.(*named); ok {
		return n.Detector
	}
	return d
}

func (n *named) Findings() []core.Finding {
	fs := n.Detector.Findings()
	for i := range fs {
		fs[i].Detector = n.name
	}
	return fs
}

// avioLearner trains AVIO's invariants on a batch's passing runs and
// reports the violations in its other runs (a Checker).
type avioLearner struct {
	l      *avio.Learner
	failed []RunFindings
}

func (a *avioLearner) Add(run int, pass bool, findings []core.Finding, d core.Detector) {
	if pass {
		a.Train(findings, d)
		return
	}
	a.failed = append(a.failed, RunFindings{Run: run, Findings: findings})
}

// Train learns the invariants of one passing run's triples.
func (a *avioLearner) Train(findings []core.Finding, _ core.Detector) { a.l.Train(findings) }

// Check returns the triples of one run that violate the invariants.
func (a *avioLearner) Check(findings []core.Finding, _ core.Detector) []core.Finding {
	return a.l.Violations(findings)
}

func (a *avioLearner) Analyse() []RunFindings {
	var out []RunFindings
	for _, r := range a.failed {
		if v := a.Check(r.Findings, nil); len(v) > 0 {
			out = append(out, RunFindings{Run: r.Run, Findings: v})
		}
	}
	slices.SortFunc(out, func(x, y RunFindings) int { return x.Run - y.Run })
	return out
}

func (a *avioLearner) Summary() string {
	return fmt.Sprintf("invariants trained on %d passing runs, checked on %d failing runs", a.l.Runs(), len(a.failed))
}

// psetLearner learns PSets from a batch's passing runs (the union of their
// pairs) and reports, per failing run, the pairs outside them: PSet's
// software monitor of those runs (a Checker).
type psetLearner struct {
	t      *pset.Trainer
	failed []psetRun
	// ps are the PSets learned so far (nil: learn them again).
	ps isa.PSets
}

type psetRun struct {
	run int
	r   *pset.Recorder
}

// recorder returns the PSet recorder d is, or nil.
func recorder(d core.Detector) *pset.Recorder {
	if d == nil {
		return nil
	}
	r, _ := Unwrap(d).(*pset.Recorder)
	return r
}

func (l *psetLearner) Add(run int, pass bool, findings []core.Finding, d core.Detector) {
	r := recorder(d)
	if r == nil {
		return
	}
	if pass {
		l.Train(findings, d)
		return
	}
	r.Trim()
	l.failed = append(l.failed, psetRun{run, r})
}

// Train adds one passing run's pairs to the PSets.
func (l *psetLearner) Train(_ []core.Finding, d core.Detector) {
	r := recorder(d)
	if r == nil {
		return
	}
	if l.t == nil {
		l.t = pset.NewTrainer(r.Program(), pset.Options{})
	}
	l.t.Add(r)
	l.ps = nil
}

// Check returns one run's pairs outside the PSets learned so far (every
// remote pair when nothing was learned: untested instructions have empty
// sets).
func (l *psetLearner) Check(_ []core.Finding, d core.Detector) []core.Finding {
	r := recorder(d)
	if r == nil {
		return nil
	}
	return r.Violations(l.PSets(r.Program()))
}

// PSets returns the sets learned so far for prog (empty when no run
// trained them).
func (l *psetLearner) PSets(prog *isa.Program) isa.PSets {
	if l.ps == nil {
		if l.t == nil {
			l.t = pset.NewTrainer(prog, pset.Options{})
		}
		l.ps = l.t.PSets()
	}
	return l.ps
}

func (l *psetLearner) Analyse() []RunFindings {
	if l.t == nil {
		return nil
	}
	var out []RunFindings
	for _, f := range l.failed {
		if v := f.r.Violations(l.PSets(f.r.Program())); len(v) > 0 {
			out = append(out, RunFindings{Run: f.run, Findings: v})
		}
	}
	slices.SortFunc(out, func(x, y RunFindings) int { return x.Run - y.Run })
	return out
}

func (l *psetLearner) Summary() string {
	if l.t == nil {
		return "no runs"
	}
	return fmt.Sprintf("PSets (%d pairs) trained on %d passing runs, checked on %d failing runs", l.t.Pairs(), l.t.Runs(), len(l.failed))
}
