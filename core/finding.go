package core

import (
	"slices"
	"strconv"
	"strings"
)

// Finding is one thing a software detector reports about a run: a race, an
// unserializable interleaving, an empty lockset. Detectors produce findings
// from events and the program alone; scoring them against a kernel's @bug
// marks happens elsewhere. It lives in core because hardware models,
// detectors and the run record all share it.
type Finding struct {
	// Detector is the reporting detector's name, e.g. "hb".
	Detector string `json:"detector"`
	// Kind classifies the finding within its detector, e.g. "race".
	Kind string `json:"kind"`
	// PCs are the instructions involved, in the detector's order (for a
	// race: the earlier access first).
	PCs []int32 `json:"pcs"`
	// Addr is the byte address involved (a word or a line), or 0.
	Addr uint64 `json:"addr"`
	// Score ranks findings within a detector; higher is more suspicious.
	// Detectors that do not rank report 1.
	Score float64 `json:"score"`
	// Message explains the finding in one line.
	Message string `json:"message"`
}

// Key identifies a finding across runs: its detector, kind and PCs. Two runs
// that report the same instructions report the same key, whatever the
// address, score or message.
func (f *Finding) Key() string {
	var b strings.Builder
	b.WriteString(f.Detector)
	b.WriteByte('/')
	b.WriteString(f.Kind)
	for _, pc := range f.PCs {
		b.WriteByte(' ')
		b.WriteString(strconv.Itoa(int(pc)))
	}
	return b.String()
}

// Involves reports whether any of the finding's PCs is in pcs.
func (f *Finding) Involves(pcs []int32) bool {
	for _, pc := range f.PCs {
		if slices.Contains(pcs, pc) {
			return true
		}
	}
	return false
}

// CompareFindings orders findings by detector, kind, PCs, address, then
// message: the order detectors report them in, so equal runs give equal
// bytes.
func CompareFindings(a, b Finding) int {
	if c := strings.Compare(a.Detector, b.Detector); c != 0 {
		return c
	}
	if c := strings.Compare(a.Kind, b.Kind); c != 0 {
		return c
	}
	if c := slices.Compare(a.PCs, b.PCs); c != 0 {
		return c
	}
	switch {
	case a.Addr < b.Addr:
		return -1
	case a.Addr > b.Addr:
		return 1
	}
	return strings.Compare(a.Message, b.Message)
}

// Detector is a software detector attached to one run: a passive observer
// of the kinds it needs that reports findings. Every detectors/* detector
// is one; the simulator attaches them (sim.WithDetector) and the analysis
// pipeline merges and learns from what they found. It lives in core, with
// Observer and Finding, so that the simulator and the detectors share it
// without importing each other.
type Detector interface {
	Observer
	// Name is the detector's registry name; its findings carry it.
	Name() string
	// Kinds are the event kinds it observes.
	Kinds() KindMask
	// Findings are its findings so far, sorted with CompareFindings.
	Findings() []Finding
}

// SortedFindings returns a copy of fs, PCs included, sorted with
// CompareFindings: what a detector's Findings returns, so that the caller
// shares no slice with the detector.
func SortedFindings(fs []Finding) []Finding {
	out := slices.Clone(fs)
	for i := range out {
		out[i].PCs = slices.Clone(out[i].PCs)
	}
	slices.SortFunc(out, CompareFindings)
	return out
}

// RaceReport is the reporting rule the race detectors share (hb and race):
// each race is a pair of PCs, reported once per run, and with FirstPerWord
// only the first race on each word. The zero value (and a Detector name)
// is ready to use.
type RaceReport struct {
	// Detector names the reporting detector in the findings.
	Detector string
	// FirstPerWord reports only the first race on each word (Helgrind's
	// heuristic, which ConSeq's comparison needs): of the races the
	// word's first racing access makes, the one with its first candidate;
	// later races on the word are not reported.
	FirstPerWord bool
	// Unordered counts the pairs (p, q) and (q, p) as one race; otherwise
	// each order is reported once.
	Unordered bool
	// Findings are the races reported so far, in report order (kind
	// "race", PCs the earlier access's and the later one's, the word,
	// score 1).
	Findings []Finding

	found map[[2]int32]struct{}
	raced map[uint64]bool
}

// Add reports the races of one access, at pc to word a, with n earlier
// accesses in the caller's order (the first is the one FirstPerWord
// keeps): earlier(i) is the i-th's PC, and msg(i) the message of its race,
// called only for a race that is reported.
func (r *RaceReport) Add(a uint64, pc int32, n int, earlier func(i int) int32, msg func(i int) string) {
	if n == 0 {
		return
	}
	if r.FirstPerWord {
		if r.raced[a] {
			return
		}
		if r.raced == nil {
			r.raced = map[uint64]bool{}
		}
		r.raced[a] = true
		n = 1
	}
	if r.found == nil {
		r.found = map[[2]int32]struct{}{}
	}
	for i := range n {
		p := earlier(i)
		key := [2]int32{p, pc}
		if r.Unordered {
			key = [2]int32{min(p, pc), max(p, pc)}
		}
		if _, ok := r.found[key]; ok {
			continue
		}
		r.found[key] = struct{}{}
		r.Findings = append(r.Findings, Finding{Detector: r.Detector, Kind: "race", PCs: []int32{p, pc}, Addr: a, Score: 1, Message: msg(i)})
	}
}
