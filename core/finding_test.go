package core_test

import (
	"fmt"
	"slices"
	"testing"

	"weft/core"
)

// SortedFindings sorts a copy that shares no slice with its input.
func TestSortedFindings(t *testing.T) {
	in := []core.Finding{{Detector: "x", PCs: []int32{5, 6}}, {Detector: "x", PCs: []int32{1, 2}}}
	out := core.SortedFindings(in)
	if out[0].PCs[0] != 1 || out[1].PCs[0] != 5 {
		t.Fatalf("not sorted: %v", out)
	}
	out[0].PCs[0] = 99
	if in[1].PCs[0] != 1 || in[0].PCs[0] != 5 {
		t.Errorf("the copy shares PCs with the input: %v", in)
	}
	if core.SortedFindings(nil) != nil {
		t.Errorf("SortedFindings(nil) is not nil")
	}
}

// pairs returns the PC pairs of fs, in report order.
func pairs(fs []core.Finding) [][]int32 {
	var ps [][]int32
	for _, f := range fs {
		ps = append(ps, f.PCs)
	}
	return ps
}

// report adds the races of an access at pc to word a with the given
// earlier PCs.
func report(r *core.RaceReport, a uint64, pc int32, earlier ...int32) {
	r.Add(a, pc, len(earlier), func(i int) int32 { return earlier[i] }, func(i int) string {
		return fmt.Sprintf("%d-%d", earlier[i], pc)
	})
}

// RaceReport reports each pair once, in either order unless Unordered,
// and with FirstPerWord only the first race on each word.
func TestRaceReport(t *testing.T) {
	const x, y = 0x10000, 0x10008
	for _, c := range []struct {
		name  string
		r     core.RaceReport
		want  [][]int32
		words []uint64
	}{
		{"each pair once", core.RaceReport{Detector: "hb"}, [][]int32{{1, 5}, {2, 5}, {5, 1}, {3, 7}}, []uint64{x, x, x, y}},
		{"unordered", core.RaceReport{Detector: "race", Unordered: true}, [][]int32{{1, 5}, {2, 5}, {3, 7}}, []uint64{x, x, y}},
		{"first per word", core.RaceReport{Detector: "race", FirstPerWord: true}, [][]int32{{1, 5}, {3, 7}}, []uint64{x, y}},
	} {
		r := c.r
		report(&r, x, 5, 1, 2, 1)
		report(&r, x, 5)
		report(&r, x, 1, 5)
		report(&r, y, 7, 3)
		if got := pairs(r.Findings); !slices.EqualFunc(got, c.want, slices.Equal) {
			t.Errorf("%s: pairs %v, want %v", c.name, got, c.want)
			continue
		}
		for i, f := range r.Findings {
			if f.Detector != c.r.Detector || f.Kind != "race" || f.Score != 1 || f.Addr != c.words[i] ||
				f.Message != fmt.Sprintf("%d-%d", f.PCs[0], f.PCs[1]) {
				t.Errorf("%s: finding %+v", c.name, f)
			}
		}
	}
}
