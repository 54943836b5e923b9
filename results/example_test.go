package results_test

import (
	"fmt"
	"os"

	"weft/results"
)

func ExampleTable_WriteMarkdown() {
	t := results.NewTable("cycles", "Cycles by workload", "workload", "cycles", "ipc")
	t.AddRow("fft", 120400, 0.8125)
	t.AddRow("lu | blocked", 98000, 1.0/3)
	t.Notes = []string{"Mean of 5 seeds."}
	t.WriteMarkdown(os.Stdout)
	// Output:
	// ### Cycles by workload
	//
	// | workload | cycles | ipc |
	// |---|---:|---:|
	// | fft | 120400 | 0.8125 |
	// | lu \| blocked | 98000 | 0.3333 |
	//
	// Mean of 5 seeds.
}

func ExampleTable_WriteCSV() {
	t := results.NewTable("cycles", "", "workload", "cycles")
	t.AddRow("fft, radix-2", 120400)
	t.WriteCSV(os.Stdout)
	// Output:
	// workload,cycles
	// "fft, radix-2",120400
}

func ExampleSummarize() {
	s := results.Summarize([]float64{1010, 990, 1000, 1020, 980})
	fmt.Printf("n=%d mean=%.0f median=%.0f min=%.0f max=%.0f std=%.1f ci95=±%.1f\n",
		s.N, s.Mean, s.Median, s.Min, s.Max, s.Std, s.CI95)
	// Output: n=5 mean=1000 median=1000 min=980 max=1020 std=15.8 ci95=±19.6
}

func ExampleGeoMean() {
	speedups := []float64{2, 0.5, 4}
	g, err := results.GeoMean(speedups)
	fmt.Printf("%.4g %v\n", g, err)
	// Output: 1.587 <nil>
}

func ExampleNormalize() {
	t := results.NewTable("sweep", "Cycles by cores", "workload", "cores", "cycles")
	t.AddRow("fft", 2, 1000)
	t.AddRow("fft", 4, 600)
	t.AddRow("lu", 2, 2000)
	t.AddRow("lu", 4, 1500)
	n, err := results.Normalize(t, []string{"workload"}, map[string]any{"cores": 2}, "cycles")
	if err != nil {
		fmt.Println(err)
		return
	}
	n.WriteCSV(os.Stdout)
	fmt.Println(n.Notes[0])
	// Output:
	// workload,cores,cycles
	// fft,2,1
	// fft,4,0.6
	// lu,2,1
	// lu,4,0.75
	// cycles: divided by the row with cores=2 of the same workload.
}

func ExampleSideBySide() {
	paper, err := results.Reference("bugaboo/table5")
	if err != nil {
		fmt.Println(err)
		return
	}
	ours := results.NewTable("table5", "BB-HW event rates", "Benchmark", "Rd.Ms", "Coh.Ms")
	ours.AddRow("freqmine", 150.2, 0.02)
	ours.AddRow("PBZip2-Order", 0.03, 0.01)
	t, err := results.SideBySide(ours, paper, "Benchmark", "Rd.Ms", "Coh.Ms")
	if err != nil {
		fmt.Println(err)
		return
	}
	var reproduced [][]any
	for _, row := range t.Rows {
		if row[1] != "" { // the rows we have numbers for
			reproduced = append(reproduced, row)
		}
	}
	t.Rows = reproduced
	t.WriteMarkdown(os.Stdout)
	// Output:
	// ### BB-HW event rates beside Bugaboo Table 5: BB-HW event rates per 10k memory ops, BB-SW slowdown, graph sizes
	//
	// | Benchmark | Rd.Ms (weft) | Rd.Ms (paper) | Rd.Ms ratio | Coh.Ms (weft) | Coh.Ms (paper) | Coh.Ms ratio |
	// |---|---:|---:|---:|---:|---:|---:|
	// | freqmine | 150.2 | 137.59 | 1.092 | 0.02 | 0.01 | 2 |
	// | PBZip2-Order | 0.03 | 0.02 | 1.5 | 0.01 | 0 |  |
	//
	// ratio = weft ÷ paper; empty where a value is missing or not a number, or the paper's is 0.
	//
	// Paper values from Lucia and Ceze, MICRO 2009 (transcription notes: results/reference/README.md).
}

func ExampleReference() {
	t, err := results.Reference("pset/table2")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(t.Title)
	fmt.Println(t.Columns[:5])
	fmt.Println(t.Rows[0][:5]...)
	// Output:
	// PSet Table 2: avoiding bugs with PSets
	// [bug program type stall rollback]
	// 1 Pbzip2 Real Yes Yes
}
