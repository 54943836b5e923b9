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
