package coherence

import "testing"

// TestFieldLocMatchesGranule checks that Loc(f).Word(addr) names the same
// record word as Granule(Of(record), addr)[f], for regions of both
// granularities after another region, at every word of several lines.
func TestFieldLocMatchesGranule(t *testing.T) {
	l, err := NewLayout(64, []MetaRequest{
		{Owner: "a", Gran: PerLine, Fields: []Field{{Name: "x", Bits: 8}, {Name: "y", Bits: 8}}},
		{Owner: "b", Gran: PerWord, Fields: []Field{{Name: "o", Host: true}, {Name: "w", Bits: 32}, {Name: "r", Bits: 32}}},
		{Owner: "c", Gran: PerLine, Fields: []Field{{Name: "z", Bits: 16}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	rec := make([]uint64, l.Words)
	for i := range rec {
		rec[i] = uint64(i) // each word holds its own index
	}
	for ri := range l.Regions {
		r := &l.Regions[ri]
		for f := range r.Fields {
			loc := r.Loc(f)
			for addr := uint64(0x1000); addr < 0x1000+3*64; addr += 8 {
				want := r.Granule(r.Of(rec), addr)[f]
				if got := loc.Word(addr); uint64(got) != want {
					t.Errorf("region %s field %d addr %#x: Loc.Word = %d, Granule gives word %d", r.Owner, f, addr, got, want)
				}
			}
		}
	}
}
