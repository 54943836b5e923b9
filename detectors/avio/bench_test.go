package avio_test

import (
	"testing"

	"weft/configs"
	"weft/detectors/avio"
	"weft/sim"
	"weft/workloads"
)

// BenchmarkProfile runs the fft profile (8 threads, about 0.8 M
// instructions) with and without the detector attached.
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
	b.Run("avio", func(b *testing.B) {
		for b.Loop() {
			d := avio.New(p, avio.Options{})
			if _, err := sim.Run(cfg, p, 1, sim.WithObserver(d.Kinds(), d)); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(d.Findings())), "findings")
		}
	})
}
