package analysis

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"weft/configs"
	"weft/core"
	"weft/detectors"
	"weft/detectors/bugaboo"
	"weft/isa"
	"weft/sim"
)

// ReplayTrace replays the trace file at path (weft trace -o) into fresh
// instances of the suite's detectors, configured from the trace's own
// config, offline: the findings are those the detectors report when
// attached to the run itself. The result carries the workload, seed,
// outcome, cycles, cores, config hash, findings and detectors (nothing
// else: a trace holds no statistics). A detector that needs kinds the
// trace did not record, and a trace without RunEnd, are errors.
func ReplayTrace(path string, s Suite) (sim.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return sim.Result{}, fmt.Errorf("detect: %w", err)
	}
	defer f.Close()
	bad := func(err error) error {
		return fmt.Errorf("trace %s: %s", path, strings.TrimPrefix(err.Error(), "trace: "))
	}
	tr, err := core.NewTraceReader(f)
	if err != nil {
		return sim.Result{}, bad(err)
	}
	h := tr.Header()
	prog, err := isa.Assemble(path+" (header program)", []byte(h.Program))
	if err != nil {
		return sim.Result{}, fmt.Errorf("trace %s: its program does not assemble: %w", path, err)
	}
	cfg, err := configs.Parse(path+" (header config)", []byte(h.Config))
	if err != nil {
		return sim.Result{}, fmt.Errorf("trace %s: its config does not parse: %w", path, err)
	}
	if err := s.CheckHardware(cfg, "detect: the trace "+path); err != nil {
		return sim.Result{}, err
	}
	s = s.Configured(cfg)
	if err := s.Check(prog); err != nil {
		return sim.Result{}, fmt.Errorf("detect: the trace %s: %w", path, err)
	}
	if !h.Kinds.Has(core.KindRunEnd) {
		return sim.Result{}, fmt.Errorf("detect: the trace %s did not record RunEnd, which detect needs for the run's outcome (record it with weft trace --kind ...,RunEnd, or record every kind)", path)
	}
	var stream core.Stream
	dets := make([]core.Detector, len(s))
	for i, d := range s {
		if missing := d.Kinds &^ h.Kinds; missing != 0 {
			return sim.Result{}, fmt.Errorf("detect: detector %s needs event kinds the trace %s did not record: %s (record them with weft trace --kind, or record every kind)",
				d.Name, path, strings.Join(missing.Names(), ","))
		}
		dets[i] = d.New(prog)
		// BB-HW's contexts are spelled in the trace's config's encoding
		// (traces before CTDrain carried it have zeros there).
		if hw, ok := detectors.Unwrap(dets[i]).(*bugaboo.HW); ok {
			hw.SetEncoding(bugaboo.Encoding{Size: cfg.Bugaboo.Context.Size, DistinctEmpty: cfg.Bugaboo.Context.DistinctEmpty})
		}
		stream.Attach(dets[i].Kinds(), dets[i])
	}
	r := sim.Result{Workload: h.ProgramName, Seed: h.Seed, OutcomePC: core.NoPC, OutcomeThread: -1,
		Cores: cfg.Machine.Cores, ConfigHash: cfg.Hash(), Findings: sim.Findings{}}
	var ev core.Event
	for {
		err := tr.Next(&ev)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sim.Result{}, bad(err)
		}
		if ev.Kind == core.KindRunEnd {
			k := ev.Outcome()
			if !k.Valid() {
				return sim.Result{}, fmt.Errorf("trace %s: RunEnd with unknown outcome %d", path, uint8(k))
			}
			r.Outcome, r.OutcomePC, r.OutcomeThread, r.Cycles = k, ev.PC, ev.Thread, uint64(ev.Cycle)
		}
		stream.Emit(&ev)
	}
	for _, d := range dets {
		r.Findings = append(r.Findings, d.Findings()...)
		r.Detectors = append(r.Detectors, d)
	}
	return r, nil
}
