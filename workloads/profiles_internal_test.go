package workloads

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestFixedThreads checks a profile that fixes its thread count keeps it
// whatever the machine's cores, and one that does not follows them.
func TestFixedThreads(t *testing.T) {
	p := profileTable()[0]
	for _, cores := range []int{0, 1, 16} {
		want := cores
		if want == 0 {
			want = DefaultProfileThreads
		}
		got, err := p.program(cores)
		if err != nil {
			t.Fatal(err)
		}
		if got.MinCores != want {
			t.Errorf("%s for %d cores: %d threads, want %d", p.name, cores, got.MinCores, want)
		}
		p.threads = 3
		got, err = p.program(cores)
		p.threads = 0
		if err != nil {
			t.Fatal(err)
		}
		if got.MinCores != 3 {
			t.Errorf("%s fixed at 3 threads, for %d cores: %d threads", p.name, cores, got.MinCores)
		}
	}
}

// ProfileRows returns the README.md row of every generator profile:
// name, suite, what it resembles, threads and parameters.
func ProfileRows() map[string]string {
	rows := map[string]string{}
	for _, p := range profileTable() {
		threads := "cores"
		if p.threads > 0 {
			threads = strconv.Itoa(p.threads)
		}
		rows[p.name] = fmt.Sprintf("| `%s` | %s | %s | %s | %s |", p.name, p.suite, p.resembles, threads, p.gen.summary())
	}
	return rows
}

// summary lists g's parameters that are set, for README.md.
func (g Gen) summary() string {
	pct := func(f float64) string { return strconv.FormatFloat(f*100, 'g', 3, 64) + "%" }
	s := []string{fmt.Sprintf("phases %d", g.Phases), fmt.Sprintf("slots %d", g.Slots),
		fmt.Sprintf("hot %d w, %s st", g.HotWords, pct(g.HotWriteFrac))}
	// part lists the nonzero shares of loads and stores of one kind.
	part := func(what string, ld, st float64, extra string) {
		var ops []string
		if ld > 0 {
			ops = append(ops, "ld "+pct(ld))
		}
		if st > 0 {
			ops = append(ops, "st "+pct(st))
		}
		if len(ops) > 0 {
			s = append(s, what+": "+strings.Join(ops, ", ")+extra)
		}
	}
	part(fmt.Sprintf("ws %d w", g.WSWords), g.WSReadFrac, g.WSWriteFrac, "")
	part("stream", g.StreamReadFrac, g.StreamWriteFrac, fmt.Sprintf(", stride %d B", g.StreamStride))
	warm := ""
	if g.WarmShared {
		warm = ", warm"
	}
	part(fmt.Sprintf("shared 2×%d w", g.SharedWords), g.SharedReadFrac, g.SharedWriteFrac, warm)
	if g.LockEvery > 0 {
		s = append(s, fmt.Sprintf("lock every %d it (%d locks), cs %d", g.LockEvery, g.locks(), g.CSLen))
	}
	if g.FalseShareEvery > 0 {
		s = append(s, fmt.Sprintf("false share every %d it", g.FalseShareEvery))
	}
	if g.ALUPerLoad > 0 {
		s = append(s, fmt.Sprintf("alu/ld %d", g.ALUPerLoad))
	}
	if g.Work > 0 {
		s = append(s, fmt.Sprintf("work %d", g.Work))
	}
	return strings.Join(s, "; ")
}
