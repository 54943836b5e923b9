package pset_test

import (
	"testing"

	"weft/configs"
	"weft/detectors/pset"
	"weft/sim"
	"weft/workloads"
)

// BenchmarkProfile runs the fft profile (8 threads, about 0.8 M
// instructions) bare, with a training recorder, and with the monitor
// checking PSets learned from seeds 2–4.
func BenchmarkProfile(b *testing.B) {
	p, err := workloads.ProgramFor("fft", 8)
	if err != nil {
		b.Fatal(err)
	}
	cfg, _ := sim.FitCores(configs.Default(), p)
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			if _, err := sim.Run(cfg, p, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("train", func(b *testing.B) {
		for b.Loop() {
			r := pset.NewRecorder(p, pset.Options{})
			if _, err := sim.Run(cfg, p, 1, sim.WithDetector(r)); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(r.Pairs()), "pairs")
		}
	})
	tr := pset.NewTrainer(p, pset.Options{})
	for seed := uint64(2); seed <= 4; seed++ {
		r := tr.NewRun()
		if _, err := sim.Run(cfg, p, seed, sim.WithDetector(r)); err != nil {
			b.Fatal(err)
		}
		tr.Add(r)
	}
	ps := tr.PSets()
	b.Run("monitor", func(b *testing.B) {
		for b.Loop() {
			m := pset.NewMonitor(p, ps, pset.Options{})
			if _, err := sim.Run(cfg, p, 1, sim.WithDetector(m)); err != nil {
				b.Fatal(err)
			}
			st := m.Stats()
			b.ReportMetric(float64(st.Accesses), "accesses")
			b.ReportMetric(float64(st.Checks), "checks")
			b.ReportMetric(float64(st.Violations), "violations")
			b.ReportMetric(float64(len(m.Findings())), "findings")
		}
	})
}
