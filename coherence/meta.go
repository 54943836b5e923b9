package coherence

import (
	"fmt"
	"strings"
)

// Granularity says how much data one metadata granule covers.
type Granularity uint8

// The metadata granularities.
const (
	// PerLine keeps one copy of an extension's fields per cache line.
	PerLine Granularity = iota
	// PerWord keeps one copy per 8-byte word of the line.
	PerWord
)

// String returns the granularity's config name.
func (g Granularity) String() string {
	if g == PerWord {
		return "word"
	}
	return "line"
}

// ParseGranularity parses "line" or "word".
func ParseGranularity(s string) (Granularity, error) {
	switch s {
	case "line":
		return PerLine, nil
	case "word":
		return PerWord, nil
	}
	return PerLine, fmt.Errorf("unknown metadata granularity %q (want line or word)", s)
}

// MaxFieldBits is the widest metadata field: one uint64 word.
const MaxFieldBits = 64

// Field is one named piece of per-granule metadata an extension reserves,
// e.g. Bugaboo's writer PC.
type Field struct {
	// Name names the field within its extension.
	Name string
	// Bits is the field's width on the bus, 1 to MaxFieldBits.
	Bits int
	// Host marks a field the simulator keeps for its own speed, derived
	// from the other fields (e.g. "every record here is thread t's"): it
	// is not hardware, so it has no width (Bits 0) and no bus cost.
	Host bool
}

// MetaRequest is what one extension asks of each line's metadata record.
type MetaRequest struct {
	// Owner names the extension, for errors and statistics.
	Owner string
	// Gran is the granularity of its fields.
	Gran Granularity
	// Fields are its fields, each one uint64 word in the record per granule.
	Fields []Field
}

// Region is where one extension's fields live in each line's record: a
// contiguous run of words, Granules copies of its fields one after another.
type Region struct {
	// Owner names the extension.
	Owner string
	// Gran is the granularity.
	Gran Granularity
	// Off is the region's first word in the line's record.
	Off int
	// Words is the region's length in words: Granules × len(Fields).
	Words int
	// Granules is the number of copies of the fields per line (1 per line,
	// or the words per line).
	Granules int
	// Fields are the extension's fields; field i of granule g is word
	// g*len(Fields)+i of the region.
	Fields []Field
	// Bits is the region's payload per line on the bus, in bits.
	Bits int
}

// Of returns the region's words of a line's whole record.
func (r *Region) Of(rec []uint64) []uint64 {
	return rec[r.Off : r.Off+r.Words : r.Off+r.Words]
}

// Granule returns the fields of the granule holding addr, from the
// region's words (as Of returned them).
func (r *Region) Granule(words []uint64, addr uint64) []uint64 {
	if r.Gran == PerLine {
		return words
	}
	n := len(r.Fields)
	g := int(addr>>3) & (r.Granules - 1) // Granules is a power of two
	return words[g*n : g*n+n : g*n+n]
}

// FieldLoc locates one field of a region in a line's whole record
// (System.Meta), for the granule of any address, without slices: a caller
// on the hot path keeps it by value (Region.Loc).
type FieldLoc struct {
	off    int
	mask   uint64
	stride int
}

// Loc returns where field f lives: Word(addr) is the index in a line's
// record of field f of the granule holding addr (Granule's arithmetic).
func (r *Region) Loc(f int) FieldLoc {
	l := FieldLoc{off: r.Off + f}
	if r.Gran != PerLine {
		l.mask, l.stride = uint64(r.Granules-1), len(r.Fields)
	}
	return l
}

// Word returns the record index of the field for an access to addr.
func (l FieldLoc) Word(addr uint64) int {
	return l.off + int((addr>>3)&l.mask)*l.stride
}

// Field returns the index of the named field, or -1.
func (r *Region) Field(name string) int {
	for i, f := range r.Fields {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// Layout is the whole per-line metadata record: each extension's region,
// one after another.
type Layout struct {
	// Regions are the extensions' regions in request order.
	Regions []Region
	// Words is the record's length in words.
	Words int
	// Bits is the record's payload per line on the bus, in bits: the sum
	// of every region's bits.
	Bits int
}

// NewLayout lays out the requests for lines of lineBytes bytes. A field
// must have a name, a width of 1 to MaxFieldBits bits (0 for a Host
// field) and a name unique in its extension.
func NewLayout(lineBytes int, reqs []MetaRequest) (Layout, error) {
	var l Layout
	for _, q := range reqs {
		if q.Gran != PerLine && q.Gran != PerWord {
			return Layout{}, fmt.Errorf("extension %s: unknown metadata granularity %d", q.Owner, q.Gran)
		}
		r := Region{Owner: q.Owner, Gran: q.Gran, Off: l.Words, Granules: 1, Fields: append([]Field(nil), q.Fields...)}
		if q.Gran == PerWord {
			r.Granules = lineBytes / 8
		}
		perGranule := 0
		for i, f := range q.Fields {
			if strings.TrimSpace(f.Name) == "" {
				return Layout{}, fmt.Errorf("extension %s: metadata field %d has no name", q.Owner, i)
			}
			if f.Host && f.Bits != 0 {
				return Layout{}, fmt.Errorf("extension %s: host metadata field %q has %d bits (want 0: it is not on the bus)", q.Owner, f.Name, f.Bits)
			}
			if !f.Host && (f.Bits < 1 || f.Bits > MaxFieldBits) {
				return Layout{}, fmt.Errorf("extension %s: metadata field %q is %d bits wide (want 1 to %d)", q.Owner, f.Name, f.Bits, MaxFieldBits)
			}
			for _, g := range q.Fields[:i] {
				if g.Name == f.Name {
					return Layout{}, fmt.Errorf("extension %s: metadata field %q reserved twice", q.Owner, f.Name)
				}
			}
			perGranule += f.Bits
		}
		r.Words = r.Granules * len(q.Fields)
		r.Bits = r.Granules * perGranule
		l.Words += r.Words
		l.Bits += r.Bits
		l.Regions = append(l.Regions, r)
	}
	return l, nil
}
