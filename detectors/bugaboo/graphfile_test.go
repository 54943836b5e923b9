package bugaboo_test

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"

	"weft/core"
	"weft/detectors/bugaboo"
	"weft/isa"
)

func TestGraphFileRoundTrip(t *testing.T) {
	g := bugaboo.NewGraph()
	g.Add(bugaboo.Edge{Src: bugaboo.Node{PC: 3, Ctx: 0x3ff}, Dst: bugaboo.Node{PC: 7, Ctx: 1}}, 4)
	g.Add(bugaboo.Edge{Src: bugaboo.Node{PC: bugaboo.NullPC}, Dst: bugaboo.Node{PC: 2, Ctx: 0}}, 1)
	h := bugaboo.GraphHeader{Program: "my kernels/p 1.s", ProgramHash: "abc", Detector: "bbsw", Encoding: bugaboo.DefaultEncoding, Seed: 9, Outcome: core.Error}
	var b bytes.Buffer
	if err := bugaboo.WriteGraph(&b, h, g); err != nil {
		t.Fatal(err)
	}
	h2, g2, err := bugaboo.ReadGraph("g.graph", &b)
	if err != nil {
		t.Fatal(err)
	}
	if h2 != h || g2.EdgeCount() != 2 || g2.Count(g.Edges()[1]) != g.Count(g.Edges()[1]) || g2.Total() != 5 {
		t.Errorf("read back %+v %v", h2, g2.Edges())
	}
}

// seal adds a graph file's end line: the edge lines' count and checksum.
func seal(text string) string {
	return text + fmt.Sprintf("end %d %08x\n", strings.Count(text, "\nedge "), crc32.ChecksumIEEE([]byte(text)))
}

func TestGraphFileErrors(t *testing.T) {
	head := "# weft bugaboo graph v3\nprogram abc p\ndetector bbsw\ncontext 5 2bit\nseed 1\noutcome pass\n"
	for _, c := range []struct{ text, want string }{
		{"", "g.graph: empty file"},
		{"hello\n", `g.graph:1: not a weft graph file`},
		{"# weft bugaboo graph v1\nprogram p abc\n", "g.graph:1: a graph file of an older weft (v1; this one reads v3)"},
		{"# weft bugaboo graph v2\nprogram p abc\n", "g.graph:1: a graph file of an older weft (v2; this one reads v3)"},
		{head, "g.graph: no end line: the file is cut short"},
		{head + "edge 1 0 3 0 1\nend 2 00000000\n", "g.graph:8: the end line counts 2 edges, the file has 1"},
		{head + "edge 1 0 3 0 1\nend 1 00000000\n", "g.graph:8: checksum 00000000, but the lines before it sum to "},
		{head + "end 0\n", "g.graph:7: end takes 2 fields"},
		{seal(head) + "edge 1 0 3 0 1\n", "g.graph:8: a line after the end line"},
		{seal(strings.Replace(head, "outcome pass", "outcome exploded", 1)), `g.graph:6: outcome: unknown outcome "exploded"`},
		{seal(strings.Replace(head, "seed 1\n", "", 1)), "g.graph: no seed line"},
		{head + "edge 1 2 3\n", "g.graph:7: edge takes 5 fields, got 3"},
		{head + "edge x 0 3 0 1\n", `g.graph:7: edge: source pc "x" is not a non-negative number`},
		{head + "edge 1 0 3 0 0\n", `g.graph:7: edge: count "0" is not a positive number`},
		{head + "edge 1 4096 3 0 1\n", "g.graph:7: edge: a context wider than the file's 5-event encoding"},
		{head + "seed 2\n", "g.graph:7: seed given twice"},
		{head + "colour red\n", `g.graph:7: unknown line "colour"`},
		{strings.Replace(head, "context 5 2bit", "context 9 2bit", 1), "g.graph:4: context: context size 9 out of range"},
		{strings.Replace(head, "context 5 2bit", "context 5 4bit", 1), `g.graph:4: context: context code "4bit"`},
		{seal(strings.Replace(head, "detector bbsw\n", "", 1)), "g.graph: no detector line"},
	} {
		_, _, err := bugaboo.ReadGraph("g.graph", strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.text, err, c.want)
		}
	}
	p, err := isa.Assemble("x.s", []byte(".text\nmain: li r1, 1\n exit\n"))
	if err != nil {
		t.Fatal(err)
	}
	h, g, err := bugaboo.ReadGraph("g.graph", strings.NewReader(seal(strings.Replace(head, "abc", bugaboo.ProgramHash(p), 1)+"edge 1 0 5 0 1\n")))
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Check("g.graph", g, p, "x.s"); err == nil || !strings.Contains(err.Error(), "graph g.graph: pc 5 is outside x.s (2 instructions)") {
		t.Errorf("pc out of range: %v", err)
	}
	h, g, _ = bugaboo.ReadGraph("g.graph", strings.NewReader(seal(head)))
	if err := h.Check("g.graph", g, p, "x.s"); err == nil || !strings.Contains(err.Error(), "graph g.graph is of program p (hash abc), not of x.s (hash ") {
		t.Errorf("another program: %v", err)
	}
}

// A graph file cut anywhere, even at a line boundary, or with any one
// byte changed, is an error; the whole file reads back.
func TestGraphFileIntegrity(t *testing.T) {
	g := bugaboo.NewGraph()
	for i := range int32(6) {
		g.Add(bugaboo.Edge{Src: bugaboo.Node{PC: i, Ctx: 1}, Dst: bugaboo.Node{PC: i + 1, Ctx: 2}}, uint64(i+1))
	}
	h := bugaboo.GraphHeader{Program: "p", ProgramHash: "abc", Detector: "bbsw", Encoding: bugaboo.DefaultEncoding, Seed: 3, Outcome: core.Pass}
	var b bytes.Buffer
	if err := bugaboo.WriteGraph(&b, h, g); err != nil {
		t.Fatal(err)
	}
	file := b.Bytes()
	if _, _, err := bugaboo.ReadGraph("g.graph", bytes.NewReader(file)); err != nil {
		t.Fatal(err)
	}
	for n := range len(file) {
		if _, _, err := bugaboo.ReadGraph("g.graph", bytes.NewReader(file[:n])); err == nil {
			t.Errorf("cut to %d of %d bytes (%q): accepted", n, len(file), file[max(0, n-10):n])
		}
	}
	for i := range file {
		for _, c := range []byte("0159az \n") {
			if c == file[i] {
				continue
			}
			changed := bytes.Clone(file)
			changed[i] = c
			if _, _, err := bugaboo.ReadGraph("g.graph", bytes.NewReader(changed)); err == nil {
				t.Errorf("byte %d changed from %q to %q: accepted", i, file[i], c)
			}
		}
	}
}
