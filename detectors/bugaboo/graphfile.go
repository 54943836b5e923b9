package bugaboo

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"

	"weft/core"
	"weft/isa"
)

// graphMagic is a graph file's first line.
const graphMagic = "# weft bugaboo graph v3"

// GraphHeader says what a graph file holds: which program's PCs, which
// detector built it in which context encoding, and the run it came from.
type GraphHeader struct {
	// Program is the program's name.
	Program string
	// ProgramHash identifies the program's code (ProgramHash).
	ProgramHash string
	// Detector is the detector that built the graph (bbsw, bbhw, …).
	Detector string
	// Encoding is the context encoding of its nodes.
	Encoding Encoding
	// Seed is the run's seed.
	Seed uint64
	// Outcome is the run's outcome.
	Outcome core.OutcomeKind
}

// ProgramHash identifies a program's code: the first 16 hex digits of the
// SHA-256 of its disassembly. A graph's PCs mean something only for the
// program with the same hash.
func ProgramHash(p *isa.Program) string {
	sum := sha256.Sum256([]byte(isa.Disassemble(p)))
	return hex.EncodeToString(sum[:8])
}

// WriteGraph writes g as a graph file: the header (its program line is
// "program HASH NAME", the name running to the line's end), then one line per edge
// in edge order, "edge SRCPC SRCCTX DSTPC DSTCTX COUNT" (SRCPC "null" for
// the NULL source), then "end EDGES CRC": the number of edge lines and the
// CRC-32 (IEEE, 8 hex digits) of every byte before the end line, so a file
// cut short or changed anywhere is an error when read.
func WriteGraph(w io.Writer, h GraphHeader, g *Graph) error {
	sum := crc32.NewIEEE()
	bw := bufio.NewWriter(io.MultiWriter(w, sum))
	enc := "2bit"
	if h.Encoding.DistinctEmpty {
		enc = "3bit"
	}
	fmt.Fprintf(bw, "%s\nprogram %s %s\ndetector %s\ncontext %d %s\nseed %d\noutcome %s\n",
		graphMagic, h.ProgramHash, h.Program, h.Detector, h.Encoding.Size, enc, h.Seed, h.Outcome)
	g.Each(func(e Edge, n uint64) {
		src := "null"
		if !e.Src.IsNull() {
			src = strconv.Itoa(int(e.Src.PC))
		}
		fmt.Fprintf(bw, "edge %s %d %d %d %d\n", src, e.Src.Ctx, e.Dst.PC, e.Dst.Ctx, n)
	})
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "end %d %08x\n", g.EdgeCount(), sum.Sum32())
	return err
}

// ReadGraph reads a graph file; name is used in errors, which give the
// line. It checks the file's form and its end line (the edge count and
// checksum: a file cut short, even at a line boundary, or changed is an
// error), not its program (Check does).
func ReadGraph(name string, r io.Reader) (GraphHeader, *Graph, error) {
	var h GraphHeader
	g := NewGraph()
	br := bufio.NewReader(r)
	sum := crc32.NewIEEE()
	line, edges := 0, 0
	ended := false
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	seen := map[string]bool{}
	for {
		raw, rerr := br.ReadBytes('\n')
		if len(raw) == 0 && rerr != nil {
			if rerr != io.EOF {
				return h, nil, fmt.Errorf("%s: %w", name, rerr)
			}
			break
		}
		line++
		text := strings.TrimSpace(string(raw))
		if ended {
			if text != "" {
				return h, nil, bad("a line after the end line")
			}
			continue
		}
		if strings.HasPrefix(text, "end ") || text == "end" {
			f := strings.Fields(text)
			if len(f) != 3 {
				return h, nil, bad("end takes 2 fields (the edge count and the checksum), got %d", len(f)-1)
			}
			if n, err := strconv.Atoi(f[1]); err != nil || n != edges {
				return h, nil, bad("the end line counts %s edges, the file has %d: the file is cut short or changed", f[1], edges)
			}
			if want := fmt.Sprintf("%08x", sum.Sum32()); f[2] != want {
				return h, nil, bad("checksum %s, but the lines before it sum to %s: the file is corrupt", f[2], want)
			}
			if string(raw) != text+"\n" || text != fmt.Sprintf("end %d %s", edges, f[2]) {
				return h, nil, bad("the end line is not %q followed by a newline: the file is cut short or changed", fmt.Sprintf("end %d %s", edges, f[2]))
			}
			ended = true
			continue
		}
		sum.Write(raw)
		if line == 1 {
			if text == "# weft bugaboo graph v1" || text == "# weft bugaboo graph v2" {
				return h, nil, bad("a graph file of an older weft (%s; this one reads v3): write it again with weft run --graphs", text[len(text)-2:])
			}
			if text != graphMagic {
				return h, nil, bad("not a weft graph file (want %q as its first line)", graphMagic)
			}
			continue
		}
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f := strings.Fields(text)
		key := f[0]
		if key != "edge" {
			if seen[key] {
				return h, nil, bad("%s given twice", key)
			}
			seen[key] = true
		}
		want := map[string]int{"program": 3, "detector": 2, "context": 3, "seed": 2, "outcome": 2, "edge": 6}
		n, ok := want[key]
		if !ok {
			return h, nil, bad("unknown line %q (want program, detector, context, seed, outcome or edge)", key)
		}
		if len(f) != n && !(key == "program" && len(f) > n) {
			return h, nil, bad("%s takes %d fields, got %d", key, n-1, len(f)-1)
		}
		var err error
		switch key {
		case "program":
			// The name is the rest of the line: a file path may hold spaces.
			h.ProgramHash = f[1]
			rest := strings.TrimSpace(text[len("program"):])
			h.Program = strings.TrimSpace(rest[len(f[1]):])
		case "detector":
			h.Detector = f[1]
		case "context":
			h.Encoding.Size, err = strconv.Atoi(f[1])
			if err == nil {
				err = h.Encoding.Valid()
			}
			switch f[2] {
			case "2bit":
			case "3bit":
				h.Encoding.DistinctEmpty = true
			default:
				err = fmt.Errorf("context code %q (want 2bit or 3bit)", f[2])
			}
		case "seed":
			h.Seed, err = strconv.ParseUint(f[1], 10, 64)
		case "outcome":
			h.Outcome, err = core.ParseOutcome(f[1])
		case "edge":
			edges++
			var e Edge
			var cnt uint64
			e, cnt, err = parseEdge(f[1:], h.Encoding)
			if err == nil {
				g.Add(e, cnt)
			}
		}
		if err != nil {
			return h, nil, bad("%s: %v", key, err)
		}
	}
	if line == 0 {
		return h, nil, fmt.Errorf("%s: empty file", name)
	}
	for _, k := range []string{"program", "detector", "context", "seed", "outcome"} {
		if !seen[k] {
			return h, nil, fmt.Errorf("%s: no %s line", name, k)
		}
	}
	if !ended {
		return h, nil, fmt.Errorf("%s: no end line: the file is cut short", name)
	}
	return h, g, nil
}

// parseEdge reads "SRCPC SRCCTX DSTPC DSTCTX COUNT".
func parseEdge(f []string, enc Encoding) (Edge, uint64, error) {
	var e Edge
	num := func(s, what string, bits int) (int64, error) {
		v, err := strconv.ParseInt(s, 10, bits)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("%s %q is not a non-negative number", what, s)
		}
		return v, nil
	}
	if f[0] == "null" {
		e.Src.PC = NullPC
	} else {
		v, err := num(f[0], "source pc", 32)
		if err != nil {
			return e, 0, err
		}
		e.Src.PC = int32(v)
	}
	var vals [3]int64
	for i, what := range []string{"source context", "destination pc", "destination context"} {
		v, err := num(f[1+i], what, 33)
		if err != nil {
			return e, 0, err
		}
		vals[i] = v
	}
	e.Src.Ctx, e.Dst.PC, e.Dst.Ctx = uint32(vals[0]), int32(vals[1]), uint32(vals[2])
	if vals[1] > 1<<31-1 {
		return e, 0, fmt.Errorf("destination pc %d out of range", vals[1])
	}
	mask := uint64(enc.Mask())
	if uint64(e.Src.Ctx)&^mask != 0 || uint64(e.Dst.Ctx)&^mask != 0 {
		return e, 0, fmt.Errorf("a context wider than the file's %d-event encoding", enc.Size)
	}
	cnt, err := strconv.ParseUint(f[4], 10, 64)
	if err != nil || cnt == 0 {
		return e, 0, fmt.Errorf("count %q is not a positive number", f[4])
	}
	return e, cnt, nil
}

// Check reports whether a graph read from file belongs to program p
// (named as the user named it): same program hash, and every PC inside it.
func (h GraphHeader) Check(file string, g *Graph, p *isa.Program, progName string) error {
	if want := ProgramHash(p); h.ProgramHash != want {
		return fmt.Errorf("graph %s is of program %s (hash %s), not of %s (hash %s)", file, h.Program, h.ProgramHash, progName, want)
	}
	for _, e := range g.Edges() {
		for _, n := range []Node{e.Src, e.Dst} {
			if !n.IsNull() && (n.PC < 0 || int(n.PC) >= len(p.Instrs)) {
				return fmt.Errorf("graph %s: pc %d is outside %s (%d instructions)", file, n.PC, progName, len(p.Instrs))
			}
		}
	}
	return nil
}
