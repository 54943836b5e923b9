package hb

import (
	"testing"

	"weft/configs"
	"weft/core"
	"weft/sim"
	"weft/workloads"
)

// recordStream runs a workload once and returns the events hb reads.
func recordStream(b *testing.B, name string, cores int) []core.Event {
	b.Helper()
	prog, err := workloads.ProgramFor(name, cores)
	if err != nil {
		b.Fatal(err)
	}
	cfg := configs.Default()
	cfg.Machine.Cores = cores
	cfg, _ = sim.FitCores(cfg, prog)
	var evs []core.Event
	rec := core.ObserverFunc(func(e *core.Event) {
		c := *e
		c.List = nil
		evs = append(evs, c)
	})
	if _, err := sim.Run(cfg, prog, 1, sim.WithObserver(New(prog, Options{}).Kinds(), rec)); err != nil {
		b.Fatal(err)
	}
	return evs
}

// BenchmarkObserve replays a recorded event stream into a fresh detector:
// the detector's own cost, without the simulator's.
func BenchmarkObserve(b *testing.B) {
	for _, bc := range []struct {
		name  string
		cores int
		full  bool
	}{
		{"water", 4, false},
		{"barnes", 8, false},
		{"histogram", 8, false},
		{"water", 4, true},
	} {
		evs := recordStream(b, bc.name, bc.cores)
		prog, _ := workloads.ProgramFor(bc.name, bc.cores)
		label := bc.name
		if bc.full {
			label += "-fullvc"
		}
		b.Run(label, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var d *Detector
				if bc.full {
					d = NewFullVC(prog, Options{})
				} else {
					d = New(prog, Options{})
				}
				for i := range evs {
					d.Observe(&evs[i])
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(evs)), "ns/event")
			b.ReportMetric(float64(len(evs)), "events")
		})
	}
}
