package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"weft/detectors"
	"weft/detectors/bugaboo"
	"weft/internal/atomicfile"
	"weft/isa"
	"weft/sim"
)

// writeGraphs writes the graph of every Bugaboo detector attached to run r
// into dir, as DETECTOR-seedN.graph.
func writeGraphs(dir string, prog *isa.Program, r sim.Result) error {
	for _, d := range r.Detectors {
		g, ok := detectors.Unwrap(d).(interface{ Graph() *bugaboo.Graph })
		if !ok {
			continue
		}
		enc := bugaboo.DefaultEncoding
		if e, ok := detectors.Unwrap(d).(interface{ Encoding() bugaboo.Encoding }); ok {
			enc = e.Encoding()
		}
		var b bytes.Buffer
		h := bugaboo.GraphHeader{Program: prog.Name, ProgramHash: bugaboo.ProgramHash(prog), Detector: d.Name(), Encoding: enc, Seed: r.Seed, Outcome: r.Outcome}
		if err := bugaboo.WriteGraph(&b, h, g.Graph()); err != nil {
			return fmt.Errorf("--graphs: %w", err)
		}
		path := filepath.Join(dir, fmt.Sprintf("%s-seed%d.graph", d.Name(), r.Seed))
		if err := atomicfile.WriteFile(path, b.Bytes()); err != nil {
			return fmt.Errorf("--graphs: %w", err)
		}
	}
	return nil
}

// cmdRank is `weft rank`.
func cmdRank(e env, args []string) error {
	fs := newFlagSet("rank", "weft rank (-w KERNEL | -p FILE.s) [--method labeled|unlabeled|deploy] [--how min_relfreq|literal]\n"+
		"                 [--testing GRAPH]... [--threshold T] [--top N] GRAPH...",
		`Ranks a program's code points by how rare the communication contexts
they ran in were, over Bugaboo graph files that weft run --graphs DIR
wrote (Lucia and Ceze, MICRO 2009). Each graph records its run's outcome:
a run that did not pass is buggy.

--method labeled (the default when there are buggy and passing graphs)
ranks over each buggy graph minus the union of the passing ones;
unlabeled ranks over every graph; deploy subtracts the union of the
--testing graphs (the shipped testing graph) from each graph and reports
the code points whose score is at most --threshold. --how picks the
reading of the paper's formula: min_relfreq (the relative frequency of a
code point's rarest context; the default) or literal.

A graph of another program (by its code's hash), or with a PC outside the
program, is an error naming both.`)
	var t targetFlags
	t.addProgram(fs, "rank the code points of")
	t.addMachine(fs, "the machine the program was built for, a `PRESET|FILE` (it matters only for a synthetic profile, whose threads follow machine.cores)",
		"override a config key of that machine (`KEY=VALUE`, repeatable), e.g. --set machine.cores=16 for a profile's graphs of a 16-core run")
	method := fs.String("method", "", "labeled, unlabeled or deploy (default: labeled when possible)")
	how := fs.String("how", "min_relfreq", "min_relfreq or literal")
	var testing multiFlag
	fs.Var(&testing, "testing", "a testing `GRAPH` for --method deploy (repeatable)")
	threshold := fs.Float64("threshold", 0.05, "deploy: report code points scoring at most `T`")
	top := fs.Int("top", 20, "print the first `N` code points")
	asJSON := fs.Bool("json", false, "print the whole ranking as one JSON object (method, graphs, every code point with its rank, score, PCs and description)")
	pos, err := fs.parse(e, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef(fs, "rank: name at least one GRAPH file (weft run --detectors bbsw --graphs DIR)")
	}
	h, err := bugaboo.ParseHow(*how)
	if err != nil {
		return usagef(fs, "rank: --how: %v", err)
	}
	tg, err := t.resolve(fs)
	if err != nil {
		return err
	}
	// Every graph must come from one detector with one context encoding:
	// contexts of different encodings are different numbers.
	var first bugaboo.GraphHeader
	var firstFile string
	load := func(files []string) ([]*bugaboo.Graph, []bool, error) {
		var gs []*bugaboo.Graph
		var buggy []bool
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, nil, fmt.Errorf("rank: %w", err)
			}
			hd, g, err := bugaboo.ReadGraph(f, bytes.NewReader(data))
			if err != nil {
				return nil, nil, err
			}
			if err := hd.Check(f, g, tg.prog, tg.prog.Name); err != nil {
				return nil, nil, err
			}
			if firstFile == "" {
				first, firstFile = hd, f
			} else if hd.Detector != first.Detector || hd.Encoding != first.Encoding {
				return nil, nil, fmt.Errorf("rank: %s is a %s graph with %s contexts but %s is a %s graph with %s contexts: rank graphs of one detector and encoding",
					f, hd.Detector, describeEncoding(hd.Encoding), firstFile, first.Detector, describeEncoding(first.Encoding))
			}
			gs = append(gs, g)
			buggy = append(buggy, hd.Outcome.Failed())
		}
		return gs, buggy, nil
	}
	gs, buggy, err := load(pos)
	if err != nil {
		return err
	}
	var bad, ok []*bugaboo.Graph
	for i, g := range gs {
		if buggy[i] {
			bad = append(bad, g)
		} else {
			ok = append(ok, g)
		}
	}
	m := *method
	if m == "" {
		m = "unlabeled"
		if len(bad) > 0 && len(ok) > 0 {
			m = "labeled"
		}
	}
	r := bugaboo.Ranker{Prog: tg.prog, How: h}
	var ranked []bugaboo.Ranked
	switch m {
	case "labeled":
		if len(bad) == 0 || len(ok) == 0 {
			return usagef(fs, "rank: --method labeled needs buggy and passing graphs; got %d buggy, %d passing", len(bad), len(ok))
		}
		ranked = r.Labeled(bad, ok)
	case "unlabeled":
		ranked = r.Unlabeled(gs)
	case "deploy":
		if len(testing) == 0 {
			return usagef(fs, "rank: --method deploy needs --testing GRAPH files")
		}
		tgs, _, err := load(testing)
		if err != nil {
			return err
		}
		ranked = r.Deploy(gs, bugaboo.Union(tgs...), *threshold)
	default:
		return usagef(fs, "rank: --method %q: want labeled, unlabeled or deploy", m)
	}
	if *asJSON {
		out := rankJSON{Method: m, How: h.String(), Program: tg.prog.Name, Graphs: len(gs), Buggy: len(bad), Passing: len(ok),
			CodePoints: []rankedJSON{}}
		for i, x := range ranked {
			out.CodePoints = append(out.CodePoints, rankedJSON{Rank: i + 1, Score: x.Score, PCs: x.PCs,
				CodePoint: bugaboo.DescribeCodePoint(tg.prog, x.CodePoint)})
		}
		return writeJSON(e.stdout, out)
	}
	fmt.Fprintf(e.stdout, "%s ranking (%s) of %s over %d graphs (%d buggy, %d passing): %d code points\n",
		m, h, tg.prog.Name, len(gs), len(bad), len(ok), len(ranked))
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RANK\tSCORE\tCODE POINT\tPCS")
	for i, x := range ranked {
		if i >= *top {
			break
		}
		pcs := make([]string, len(x.PCs))
		for k, pc := range x.PCs {
			pcs[k] = fmt.Sprint(pc)
		}
		fmt.Fprintf(tw, "%d\t%.4g\t%s\t%s\n", i+1, x.Score, bugaboo.DescribeCodePoint(tg.prog, x.CodePoint), strings.Join(pcs, " "))
	}
	return tw.Flush()
}

// rankJSON is `weft rank --json`'s object.
type rankJSON struct {
	Method     string       `json:"method"`
	How        string       `json:"how"`
	Program    string       `json:"program"`
	Graphs     int          `json:"graphs"`
	Buggy      int          `json:"buggy"`
	Passing    int          `json:"passing"`
	CodePoints []rankedJSON `json:"code_points"`
}

// rankedJSON is one ranked code point.
type rankedJSON struct {
	Rank      int     `json:"rank"`
	Score     float64 `json:"score"`
	CodePoint string  `json:"code_point"`
	PCs       []int32 `json:"pcs"`
}

// describeEncoding spells a context encoding for messages.
func describeEncoding(e bugaboo.Encoding) string {
	if e.DistinctEmpty {
		return fmt.Sprintf("%d-event (distinct EMPTY)", e.Size)
	}
	return fmt.Sprintf("%d-event", e.Size)
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }
