// Package suggest finds the names a user most likely meant when they typed
// one that does not exist: the "did you mean" of config keys and workload
// names.
package suggest

import (
	"slices"
	"strings"
)

// Closest returns the candidates that name is plausibly a slip for, best
// first; nil when none is close. Letter case is ignored. A candidate is
// close when it is within 1 + len(candidate)/4 edits of name ("sim.seed"
// for "sim.sed"), or when one of the two contains the other and the shorter
// has at least 3 bytes ("counter-race" for "counter"). Candidates that
// contain name (completions of an abbreviation) come first, then the rest;
// within each, fewest edits first, ties in candidate order.
func Closest(name string, candidates []string) []string {
	typed := strings.ToLower(name)
	if typed == "" {
		return nil
	}
	type match struct {
		name       string
		completion bool // the candidate contains name
		dist       int
	}
	var near []match
	for _, c := range candidates {
		known := strings.ToLower(c)
		d := Distance(typed, known)
		completion := strings.Contains(known, typed) && len(typed) >= minContained
		contained := strings.Contains(typed, known) && len(known) >= minContained
		if completion || contained || d <= 1+len(known)/4 {
			near = append(near, match{c, completion, d})
		}
	}
	if len(near) == 0 {
		return nil
	}
	slices.SortStableFunc(near, func(a, b match) int {
		if a.completion != b.completion {
			if a.completion {
				return -1
			}
			return 1
		}
		return a.dist - b.dist
	})
	out := make([]string, len(near))
	for i, m := range near {
		out[i] = m.name
	}
	return out
}

// minContained is the shortest name that counts as part of another: below
// it, containment is chance ("a" is in most names).
const minContained = 3

// Distance is the Levenshtein distance between a and b, in bytes: the
// fewest single-byte insertions, deletions and substitutions that turn a
// into b.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
