package main

import (
	"strings"
	"testing"
)

func TestWrapList(t *testing.T) {
	for _, c := range []struct {
		head  string
		items []string
		width int
		want  string
	}{
		{"per thread", nil, 20, "per thread\n"},
		{"per thread", []string{"1", "22"}, 20, "per thread 1 22\n"},
		{"per thread", []string{"1", "22", "333", "4444"}, 20, "per thread 1 22 333\n          4444\n"},
		{"head", []string{"aaaa", "bbbb", "cccc", "dddd"}, 18, "head aaaa bbbb\n          cccc\n          dddd\n"},
		{"head", []string{"a-very-long-item-that-cannot-fit"}, 12, "head\n          a-very-long-item-that-cannot-fit\n"},
	} {
		if got := wrapList(c.head, c.items, c.width); got != c.want {
			t.Errorf("wrapList(%q, %q, %d) = %q, want %q", c.head, c.items, c.width, got, c.want)
		}
	}
}

// On 64 cores the per-thread instruction counts wrap to the summary's
// width and every count is still there.
func TestRunSummaryWrapsThreads(t *testing.T) {
	out, _ := mustWeft(t, "run", "-w", "blackscholes", "--set", "machine.cores=64")
	lines := strings.Split(out, "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "instrs ") {
			start = i
			break
		}
	}
	if start < 0 {
		t.Fatalf("no instrs line in:\n%s", out)
	}
	var counts []string
	for i := start; i < len(lines) && !strings.HasPrefix(lines[i], "outputs "); i++ {
		if len(lines[i]) > summaryWidth {
			t.Errorf("line %d is %d columns wide (over %d): %q", i+1, len(lines[i]), summaryWidth, lines[i])
		}
		if i == start {
			_, rest, _ := strings.Cut(lines[i], "per thread")
			counts = append(counts, strings.Fields(rest)...)
		} else {
			counts = append(counts, strings.Fields(lines[i])...)
		}
	}
	if len(counts) != 64 {
		t.Errorf("%d per-thread counts, want 64:\n%s", len(counts), out)
	}
}
