package workloads

import (
	"sort"
	"strconv"
	"strings"
)

// Papers returns the papers whose tables the kernels stand for, as they
// appear in .source tokens.
func Papers() []string { return []string{"pset", "bugaboo", "conseq", "falcon", "inference"} }

// PaperRows returns, for each paper with a fixed table, the row tokens a
// kernel must stand for: PSet Table 1, Bugaboo Table 1, ConSeq Table 2 (with
// the Click and Cherokee bugs it found) and Falcon Table 3. Interleaving
// inference has no fixed table; its scenarios are named by the kernels
// (MinInferenceScenarios of them at least).
func PaperRows() map[string][]string {
	rows := map[string][]string{
		"conseq": {"conseq:Aget1", "conseq:FFT", "conseq:MySQL1", "conseq:Moz1", "conseq:MySQL2", "conseq:Trans",
			"conseq:Moz2", "conseq:Moz3", "conseq:MySQL3", "conseq:MySQL4", "conseq:OO", "conseq:Click", "conseq:Cherokee"},
		"falcon": {"falcon:Account", "falcon:AirlinesTickets", "falcon:BubbleSort2", "falcon:BufWriter", "falcon:Lottery",
			"falcon:MergeSort", "falcon:Shop", "falcon:ArrayList", "falcon:HashSet", "falcon:StringBuffer", "falcon:TreeSet",
			"falcon:Vector", "falcon:Cache4j", "falcon:Hedc", "falcon:Philo", "falcon:RayTracer", "falcon:Tsp"},
	}
	for i := 1; i <= 17; i++ {
		rows["pset"] = append(rows["pset"], "pset:"+strconv.Itoa(i))
	}
	for i := 1; i <= 13; i++ {
		rows["bugaboo"] = append(rows["bugaboo"], "bugaboo:"+strconv.Itoa(i))
	}
	return rows
}

// MinInferenceScenarios is the least number of distinct inference:NAME
// scenarios the kernel suite covers.
const MinInferenceScenarios = 40

// RowKernels maps every paper:row token named in a workload's .source to the
// workloads that stand for it, sorted.
func RowKernels() map[string][]string {
	m := map[string][]string{}
	for _, e := range List() {
		for _, r := range e.Rows {
			m[r] = append(m[r], e.Name)
		}
	}
	for _, ks := range m {
		sort.Strings(ks)
	}
	return m
}

// KnownPaper reports whether a row token names one of the papers.
func KnownPaper(row string) bool {
	paper, _, ok := strings.Cut(row, ":")
	if !ok {
		return false
	}
	for _, p := range Papers() {
		if p == paper {
			return true
		}
	}
	return false
}
