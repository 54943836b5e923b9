package falcon

import (
	"fmt"
	"slices"
	"strings"

	gstat "gonum.org/v1/gonum/stat"

	"weft/configs"
	"weft/core"
	"weft/detectors/falcon"
	"weft/experiments"
	"weft/isa"
	"weft/results"
	"weft/sim"
)

// falconThreads are Study 1's thread counts (Figure 3).
var falconThreads = []int{4, 8, 16, 32, 64}

// falconStudy1Window is Study 1's window capacity.
const falconStudy1Window = 50

// falconStudy1Seeds is the runs per template and thread count: a fifth of
// the subjects' runs (each run of a p-thread program gives many
// detections), at least 2; at most 8 in a quick run.
func falconStudy1Seeds(env experiments.Env) int {
	n := max(2, env.SeedsOr(100)/5)
	if env.Quick {
		n = min(n, 8)
	}
	return n
}

// falconTemplate is one of Study 1's p-thread programs: the access pattern
// of some subjects, scaled to p threads.
type falconTemplate struct {
	name, like string
	// src returns the template's data section and the body every thread
	// runs (r1 = its index 0..p-1; the body returns with ret).
	src func(p int) (data, body string)
}

// falconTemplates are Study 1's access patterns. Each is one of the digest's
// bug templates as the subjects use it, with p threads instead of the
// subject's 2–5: check-then-act on one word (the collections, Account,
// Shop, StringBuffer, Vector), read-add-write of a total under useless
// locks (RayTracer), unsynchronised neighbour swaps (BubbleSort2's passes,
// Philo's forks) and a locked work queue with an unlocked bound (Tsp).
var falconTemplates = []falconTemplate{
	{name: "check-then-act", like: "Account, Shop, StringBuffer, Vector, the collections", src: func(p int) (string, string) {
		return fmt.Sprintf(`S:       .word 1000000
         .align 64
outs:    .space %d
         .align 64`, p), `body:    li     r2, 0
         shl    r6, r1, 3
c_loop:  delay  0, 400                  # other work
         add    r5, r2, r1
         and    r5, r5, 1
         bnez   r5, c_upd
         ld     r3, S                   # (a) check
         blt    r3, 1, c_next
         delay  2, 12
         ld     r4, S                   # (c) use: the result goes elsewhere
         st     r4, outs[r6]
         jmp    c_next
c_upd:   ld     r7, S                   # (b) update
         sub    r7, r7, 1
         st     r7, S
c_next:  add    r2, r2, 1
         blt    r2, 4, c_loop
         ret`
	}},
	{name: "lost-update", like: "RayTracer", src: func(p int) (string, string) {
		return fmt.Sprintf(`total:   .word 0
         .align 64
locks:   .space %d                      # one lock word per thread, a line apart
         .align 64`, 8*p), `body:    li     r2, 0
         shl    r9, r1, 6
u_loop:  delay  0, 400                  # render a band
         lock   locks[r9]               # a per-thread (useless) lock
         ld     r7, total               # (a) total += mine
         work   8
         add    r7, r7, r1
         st     r7, total               # (c)
         unlock locks[r9]
         add    r2, r2, 1
         blt    r2, 2, u_loop
         ret`
	}},
	{name: "neighbour-swap", like: "BubbleSort2, Philo", src: func(p int) (string, string) {
		var b strings.Builder
		b.WriteString("arr:")
		for i := 0; i <= p; i++ {
			fmt.Fprintf(&b, "     .word  %d\n    ", 1000-i)
		}
		b.WriteString("     .align 64")
		return b.String(), `body:    li     r2, 0
         shl    r6, r1, 3
         add    r7, r6, 8
s_loop:  delay  0, 200                  # other work
         ld     r3, arr[r6]             # compare arr[t] and arr[t+1]
         ld     r4, arr[r7]
         bge    r4, r3, s_next
         st     r4, arr[r6]             # swap: no lock (the removed synchronized)
         st     r3, arr[r7]
s_next:  add    r2, r2, 1
         blt    r2, 4, s_loop
         ret`
	}},
	{name: "queue-and-bound", like: "Tsp", src: func(p int) (string, string) {
		return fmt.Sprintf(`qlock:   .word 0
         .align 64
next:    .word 0
         .align 64
mlock:   .word 0
         .align 64
best:    .word 1000000
         .align 64
ntasks:  .word %d
         .align 64`, 3*p), `body:    delay  0, 100
q_task:  lock   qlock                   # take the next task
         ld     r2, next
         add    r3, r2, 1
         st     r3, next
         unlock qlock
         ld     r4, ntasks
         bge    r2, r4, q_done
         mul    r6, r2, 7919            # the task's cost
         rem    r6, r6, 97
         add    r6, r6, 10
         work   40                      # expand the search
         ld     r5, best                # prune: read without the lock
         bge    r6, r5, q_task
         lock   mlock
         ld     r5, best                # re-check under the lock
         bge    r6, r5, q_keep
         st     r6, best
q_keep:  unlock mlock
         jmp    q_task
q_done:  ret`
	}},
}

// falconTemplateProgram assembles a template for p threads: main spawns
// p−1 threads, runs the body as thread 0 and joins them.
func falconTemplateProgram(t falconTemplate, p int) (*isa.Program, error) {
	data, body := t.src(p)
	src := fmt.Sprintf(`.kernel  falcon-p%d-%s
.desc    "Falcon Study 1: the %s access pattern (%s) with %d threads"
.class   none
.cores   %d

.data
%s
tids:    .space %d
         .align 64

.text
.func main
main:    li     r2, 1
m_spawn: spawn  r3, entry, r2
         shl    r4, r2, 3
         st     r3, tids[r4]
         add    r2, r2, 1
         blt    r2, %d, m_spawn
         li     r1, 0
         call   body
         li     r2, 1
m_join:  shl    r4, r2, 3
         ld     r3, tids[r4]
         join   r3
         add    r2, r2, 1
         blt    r2, %d, m_join
         exit

.func entry
entry:   call   body
         exit

.func body
%s
`, p, t.name, t.name, t.like, p, p, data, p, p, p, body)
	return isa.Assemble(fmt.Sprintf("falcon-p%d-%s.s", p, t.name), []byte(src))
}

// falconAccess is one recorded access event, replayed into detectors of
// several window sizes after the run.
type falconAccess struct {
	kind       core.Kind
	flags      uint8
	thread, pc int32
	addr       uint64
}

// falconRecorder records a run's access events for Falcon.
type falconRecorder struct{ evs []falconAccess }

// Observe records one event.
func (r *falconRecorder) Observe(e *core.Event) {
	r.evs = append(r.evs, falconAccess{kind: e.Kind, flags: e.Flags, thread: e.Thread, pc: e.PC, addr: e.Addr})
}

// falconRecord attaches a recorder to a run; the slot receives it.
func falconRecord(slot **falconRecorder) sim.Option {
	r := &falconRecorder{}
	*slot = r
	return sim.WithObserver(core.MaskOf(core.KindRead, core.KindWrite, core.KindRMW), r)
}

// replay runs the recorded accesses through a fresh detector.
func (r *falconRecorder) replay(prog *isa.Program, opts falcon.Options) *falcon.Detector {
	d := falcon.New(prog, opts)
	var e core.Event
	for _, a := range r.evs {
		e = core.Event{Kind: a.kind, Flags: a.flags, Thread: a.thread, PC: a.pc, Addr: a.addr}
		d.Observe(&e)
	}
	d.Flush()
	return d
}

// falconSpans returns a run's Study 1 spans with a window of 50 in two
// readings: every unserializable detection's span (Detector.Spans), and for
// every distinct unserializable pattern of the run the smallest window that
// would have caught it (a detection of span s is made exactly by windows of
// s slots or more, so it is the smallest W whose replay reports the pattern).
func (r *falconRecorder) falconSpans(prog *isa.Program) (detections, patterns []float64) {
	d := r.replay(prog, falcon.Options{Window: falconStudy1Window})
	for _, s := range d.Spans() {
		detections = append(detections, float64(s))
	}
	want := map[falcon.Pattern]bool{}
	for _, p := range d.Patterns() {
		if p.Kind == falcon.Unserializable {
			want[p] = true
		}
	}
	for w := 3; w <= falconStudy1Window && len(want) > 0; w++ {
		for _, p := range r.replay(prog, falcon.Options{Window: w}).Patterns() {
			if want[p] {
				patterns = append(patterns, float64(w))
				delete(want, p)
			}
		}
	}
	return detections, patterns
}

// falconBox is one sample of Study 1's spans with its quartiles.
type falconBox struct {
	n                     int
	min, q1, med, q3, max float64
}

// falconBoxOf summarises spans like a box plot (empirical quartiles).
func falconBoxOf(xs []float64) falconBox {
	b := falconBox{n: len(xs)}
	if len(xs) == 0 {
		return b
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	b.min, b.max = s[0], s[len(s)-1]
	b.q1 = gstat.Quantile(0.25, gstat.Empirical, s, nil)
	b.med = gstat.Quantile(0.5, gstat.Empirical, s, nil)
	b.q3 = gstat.Quantile(0.75, gstat.Empirical, s, nil)
	return b
}

// falconFigure3 runs Study 1: every template at every p with a window of 50,
// and the subjects' own runs at their own thread counts.
func falconFigure3(env experiments.Env, base configs.Config, subs []*falconSubject) (experiments.Section, string, uint64, error) {
	seeds := falconStudy1Seeds(env)
	pts, instrs, err := runStudy1(env, base, seeds)
	if err != nil {
		return experiments.Section{}, "", 0, err
	}
	type agg = falconAgg
	byP := map[int]*agg{}
	byTP := map[string]*agg{}
	for _, pt := range pts {
		a := byP[pt.p]
		if a == nil {
			a = &agg{}
			byP[pt.p] = a
		}
		key := fmt.Sprintf("%s/%d", pt.t.name, pt.p)
		ta := &agg{}
		byTP[key] = ta
		for _, rec := range pt.recs {
			det, pat := rec.falconSpans(pt.prog)
			a.det, a.pat = append(a.det, det...), append(a.pat, pat...)
			ta.det, ta.pat = append(ta.det, det...), append(ta.pat, pat...)
		}
	}
	// The subjects at their own thread counts.
	own := &agg{}
	for _, s := range subs {
		for _, rec := range s.recs {
			det, pat := rec.falconSpans(s.prog)
			own.det, own.pat = append(own.det, det...), append(own.pat, pat...)
		}
	}

	paper, err := results.Reference("falcon/figure3")
	if err != nil {
		return experiments.Section{}, "", 0, err
	}
	t, boxes, medians, meds := figure3Table(paper, seeds, byP, own)
	bt, lines := figure3Templates(byTP, medians)
	flat := slices.Min(medians) == slices.Max(medians)
	var q3s []float64
	for _, p := range falconThreads {
		q3s = append(q3s, falconBoxOf(byP[p].pat).q3)
	}
	ob := falconBoxOf(own.pat)
	comment := fmt.Sprintf(`Per pattern, the pooled median span is %s over p = 4…64 (the paper: 3 at every p)%s, and the
minimum is 3 throughout; Q3 is %s (the paper: at most 9, and 6 at p = 8). Per detection (a pattern
counted every time a window reports it) the median is %s. The subjects at their own thread counts give
median %v and Q3 %v per pattern (max %v). %s`,
		spellFloats(medians), flatNote(flat), spellFloats(q3s), spellFloats(meds), ob.med, ob.q3, ob.max, falconStudy1Why(byTP, byP))
	sum := fmt.Sprintf("Falcon Figure 3 (Study 1): median span per pattern %s for p = 4..64 (paper 3 at every p)\n", spellFloats(medians))
	return experiments.Section{
		Heading: "Figure 3: window size by thread count (Study 1)",
		Text: fmt.Sprintf(`The kernels spawn fixed numbers of threads (2 to 6) and no kernel or profile varies a subject's
thread count, so Study 1 runs p-thread variants of the subjects' access patterns, generated in Go from
the templates below (main spawns p − 1 threads and runs the body itself, on a machine with p cores):
%s. Each runs %d seeds at each p with a window of 50; every unserializable pattern's span is recorded and
the spans are pooled over the templates, as the paper pooled its benchmarks.`, falconTemplateList(), seeds),
		Tables: []*results.Table{t, bt},
		Plots: []experiments.Plot{{Name: "figure3", Caption: "Window each unserializable pattern needed (per pattern, window 50), by thread count; the last box is the subjects at their own thread counts", Data: t,
			Draw: func(path string) error {
				return results.Box("Falcon Study 1: minimum window by thread count", "window slots", boxes, path)
			}}, {Name: "figure3_templates", Caption: "Median window per pattern by thread count, for each template and pooled", Data: bt,
			Draw: func(path string) error {
				return results.Line("Falcon Study 1: median window by template", "threads p", "median window slots", lines, path)
			}}},
		Comment: comment,
	}, sum, instrs, nil
}

// falconStudy1Point is one template at one thread count p, with the
// Falcon recorders of its runs.
type falconStudy1Point struct {
	t    falconTemplate
	p    int
	prog *isa.Program
	recs []*falconRecorder
}

// runStudy1 runs every template at every p on seeds seeds of base with a
// Falcon recorder attached, and returns the points and the simulated
// instructions. Every run must pass.
func runStudy1(env experiments.Env, base configs.Config, seeds int) ([]*falconStudy1Point, uint64, error) {
	var pts []*falconStudy1Point
	var jobs []sim.Job
	for _, p := range falconThreads {
		for _, t := range falconTemplates {
			prog, err := falconTemplateProgram(t, p)
			if err != nil {
				return nil, 0, err
			}
			cfg := base
			cfg.Machine.Cores = p
			pt := &falconStudy1Point{t: t, p: p, prog: prog, recs: make([]*falconRecorder, seeds)}
			pts = append(pts, pt)
			for s := range seeds {
				slot := &pt.recs[s]
				jobs = append(jobs, sim.Job{Config: cfg, Program: prog, Seed: cfg.Sim.Seed + uint64(s),
					Options: func() []sim.Option { return []sim.Option{falconRecord(slot)} }})
			}
		}
	}
	all, err := experiments.RunJobs(env, jobs)
	if err != nil {
		return nil, 0, err
	}
	for i, r := range all {
		if r.Outcome != core.Pass {
			pt := pts[i/seeds]
			return nil, 0, fmt.Errorf("%s seed %d: %s (%s)", pt.prog.Name, r.Seed, r.Outcome, r.OutcomeMsg)
		}
	}
	var instrs uint64
	for _, r := range all {
		instrs += r.Instructions
	}
	return pts, instrs, nil
}

// figure3Table is Figure 3's table, seeds runs a template at each p: the
// spans pooled at each p (byP) and over the subjects (own), beside the
// paper; with the box plot's series and, at each p, the median span per
// pattern (medians) and per detection (meds).
func figure3Table(paper *results.Table, seeds int, byP map[int]*falconAgg, own *falconAgg) (t *results.Table, boxes []results.BoxSeries, medians, meds []float64) {
	type agg = falconAgg
	t = results.NewTable("figure3", fmt.Sprintf("Falcon Figure 3 (Study 1): the window each unserializable pattern needed, window 50, the %d templates × %d runs at each p, weft beside the numbers the paper quotes", len(falconTemplates), seeds),
		"p", "reading", "n", "min", "Q1", "median", "Q3", "max", "min (paper)", "median (paper)", "Q3 (paper)", "max (paper)")
	addRows := func(label string, a *agg, paperP string) {
		for _, rd := range []struct {
			name string
			xs   []float64
		}{{"per pattern", a.pat}, {"per detection", a.det}} {
			b := falconBoxOf(rd.xs)
			pc := func(col string) string {
				if paperP == "" {
					return ""
				}
				return experiments.PaperCell(paper, paperP, col)
			}
			t.AddRow(label, rd.name, b.n, b.min, b.q1, b.med, b.q3, b.max, pc("min"), pc("median"), pc("Q3 (75th pct)"), pc("max"))
		}
	}
	for _, p := range falconThreads {
		addRows(fmt.Sprint(p), byP[p], fmt.Sprint(p))
		if len(byP[p].pat) > 0 {
			boxes = append(boxes, results.BoxSeries{Name: fmt.Sprintf("p=%d", p), Values: byP[p].pat})
		}
		medians = append(medians, falconBoxOf(byP[p].pat).med)
		meds = append(meds, falconBoxOf(byP[p].det).med)
	}
	addRows("subjects (own 2–6 threads)", own, "")
	if len(own.pat) > 0 {
		boxes = append(boxes, results.BoxSeries{Name: "subjects", Values: own.pat})
	}
	t.Notes = []string{`"per pattern": for every distinct unserializable pattern of a run, the smallest window that would have caught it (the paper's "minimum window size that would have captured it"); "per detection": the span of every unserializable detection (closing slot − anchor + 1), a pattern counted each time a window reports it. Quartiles are empirical (the smallest value with at least that share of the sample at or below it), as the box plot draws them. The paper's Figure 3 is not in its text; the paper columns are the numbers its text quotes.`}
	return t, boxes, medians, meds
}

// figure3Templates is Study 1 by template (byTP: by "template/p"), and
// the line plot's series of each template's median span per pattern, with
// the pooled medians.
func figure3Templates(byTP map[string]*falconAgg, medians []float64) (*results.Table, []results.LineSeries) {
	bt := results.NewTable("figure3_templates", "Study 1 by template: median and Q3 of the per-pattern spans, and of the per-detection spans, at each p",
		"template", "like", "p", "patterns", "median", "Q3", "max", "detections", "median (detections)", "Q3 (detections)", "max (detections)")
	for _, tm := range falconTemplates {
		for _, p := range falconThreads {
			a := byTP[fmt.Sprintf("%s/%d", tm.name, p)]
			bp, bd := falconBoxOf(a.pat), falconBoxOf(a.det)
			bt.AddRow(tm.name, tm.like, p, bp.n, bp.med, bp.q3, bp.max, bd.n, bd.med, bd.q3, bd.max)
		}
	}
	var lines []results.LineSeries
	xs := make([]float64, len(falconThreads))
	for i, p := range falconThreads {
		xs[i] = float64(p)
	}
	for _, tm := range falconTemplates {
		ys := make([]float64, len(falconThreads))
		for i, p := range falconThreads {
			ys[i] = falconBoxOf(byTP[fmt.Sprintf("%s/%d", tm.name, p)].pat).med
		}
		lines = append(lines, results.LineSeries{Name: tm.name, X: xs, Y: ys})
	}
	lines = append(lines, results.LineSeries{Name: "pooled", X: xs, Y: medians})
	return bt, lines
}

// falconTemplateList spells the templates for the section's text.
func falconTemplateList() string {
	parts := make([]string, len(falconTemplates))
	for i, t := range falconTemplates {
		parts[i] = fmt.Sprintf("%s (%s)", t.name, t.like)
	}
	return strings.Join(parts, "; ")
}

// spellFloats spells a list of numbers.
func spellFloats(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = results.FormatCell(x)
	}
	return strings.Join(parts, ", ")
}

// flatNote says whether the medians are flat in p.
func flatNote(flat bool) string {
	if flat {
		return ", flat in p"
	}
	return ", not flat in p"
}

// falconAgg pools spans: per detection and per pattern.
type falconAgg struct{ det, pat []float64 }

// falconStudy1Why explains the pooled spans by template.
func falconStudy1Why(byTP map[string]*falconAgg, byP map[int]*falconAgg) string {
	lo, hi := falconThreads[0], falconThreads[len(falconThreads)-1]
	var flat, grow []string
	for _, t := range falconTemplates {
		a, b := falconBoxOf(byTP[fmt.Sprintf("%s/%d", t.name, lo)].pat), falconBoxOf(byTP[fmt.Sprintf("%s/%d", t.name, hi)].pat)
		if a.med == 3 && b.med == 3 {
			flat = append(flat, t.name)
		} else {
			grow = append(grow, fmt.Sprintf("%s (median %v at p = %d, %v at p = %d; max %v)", t.name, a.med, lo, b.med, hi, b.max))
		}
	}
	three := 0
	for _, x := range byP[hi].pat {
		if x == 3 {
			three++
		}
	}
	share := 0.0
	if n := len(byP[hi].pat); n > 0 {
		share = 100 * float64(three) / float64(n)
	}
	return fmt.Sprintf(`The median is not flat for every template. It stays at 3 for %s: there a word is shared by
two neighbours, or its accesses come in short bursts under a lock, so the remote access that splits
a pair arrives alone. It grows with p for %s: every thread reads and writes one word at the same rate,
each on its own core, so between two accesses of one thread come about p − 1 others (the window merges
only a thread's consecutive accesses), until the window of 50 cuts them off (patterns needing more are
not seen, as in the paper). At p = %d, %.0f%% of the pooled patterns need 3 slots, which holds the
median at 3, while Q3 grows past the paper's 9: the median is flat because of the mix, so a different
mix of templates would move it. The paper ran its p threads on a 2-core machine, where the JVM must
time-slice them, which plausibly makes a thread's accesses come in long runs (the paper does not say);
weft gives every thread its own core, the finest interleaving, where a shared word's window fills
fastest.`,
		listOr(flat, "no template"), listOr(grow, "no template"), hi, share)
}
