package bugaboo_test

import (
	"testing"

	"weft/configs"
	"weft/detectors/bugaboo"
	"weft/sim"
	"weft/workloads"
)

// BenchmarkProfile runs the fft profile (8 threads, about 0.8 M
// instructions) bare, with BB-SW (word, context 5) and with BB-SW at line
// granularity, readers as RmWr targets and first-read-only, reporting the
// graph's size.
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
	for _, c := range []struct {
		name string
		opts bugaboo.SWOptions
	}{
		{"bbsw", bugaboo.SWOptions{}},
		{"bbsw-line-readers", bugaboo.SWOptions{Granularity: bugaboo.Line, RmWrTargets: bugaboo.Both, FirstReadOnly: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				sw := bugaboo.NewSW(p, c.opts)
				if _, err := sim.Run(cfg, p, 1, sim.WithObserver(sw.Kinds(), sw)); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(sw.Graph().EdgeCount()), "edges")
				b.ReportMetric(float64(sw.Graph().NodeCount()), "nodes")
				b.ReportMetric(float64(sw.Accesses()), "accesses")
			}
		})
	}
}
