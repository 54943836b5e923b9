package bugaboo

import (
	"slices"
	"testing"
)

func TestEncodingBasics(t *testing.T) {
	cases := []struct {
		enc         Encoding
		bits, width uint
		mask        Context
	}{
		{DefaultEncoding, 2, 10, 0x3FF},
		{Encoding{}, 2, 0, 0},
		{Encoding{Size: 1}, 2, 2, 0x3},
		{Encoding{Size: 8}, 2, 16, 0xFFFF},
		{Encoding{Size: 5, DistinctEmpty: true}, 3, 15, 0x7FFF},
		{Encoding{Size: 8, DistinctEmpty: true}, 3, 24, 0xFFFFFF},
	}
	for _, c := range cases {
		if c.enc.Bits() != c.bits || c.enc.Width() != c.width || c.enc.Mask() != c.mask {
			t.Errorf("%+v: bits %d width %d mask %#x, want %d %d %#x", c.enc, c.enc.Bits(), c.enc.Width(), c.enc.Mask(), c.bits, c.width, c.mask)
		}
		if err := c.enc.Valid(); err != nil {
			t.Errorf("%+v: %v", c.enc, err)
		}
	}
	for _, bad := range []Encoding{{Size: -1}, {Size: 9}} {
		if bad.Valid() == nil {
			t.Errorf("%+v is valid, want an error", bad)
		}
	}
	// The codes: Recon's LcRd=0 .. RmWr=3, or 1..4 with EMPTY=0.
	for e := LcRd; e <= RmWr; e++ {
		if DefaultEncoding.Code(e) != Context(e) || (Encoding{Size: 5, DistinctEmpty: true}).Code(e) != Context(e)+1 {
			t.Errorf("code of %v wrong", e)
		}
	}
	if LcRd != 0 || LcWr != 1 || RmRd != 2 || RmWr != 3 {
		t.Errorf("event values changed")
	}
	// push(ctx, ev) = ((ctx << 2) | ev) & 0x3FF: the oldest falls off.
	ctx := Context(0)
	for _, e := range []Event{RmWr, RmWr, RmWr, RmWr, RmWr} {
		ctx = Push(ctx, e)
	}
	if ctx != 0x3FF {
		t.Errorf("five RmWr = %#x, want 0x3ff", ctx)
	}
	if got := Push(ctx, LcWr); got != 0x3FD {
		t.Errorf("push LcWr onto 0x3ff = %#x, want 0x3fd", got)
	}
	if got := DefaultEncoding.Format(Push(ctx, LcWr)); got != "(RmWr,RmWr,RmWr,RmWr,LcWr)" {
		t.Errorf("format %q", got)
	}
	if got := (Encoding{}).Push(0x3FF, RmWr); got != 0 {
		t.Errorf("size 0 push = %#x, want 0", got)
	}
	if got := (Encoding{}).Format(0); got != "()" {
		t.Errorf("size 0 format %q", got)
	}
	if got := DefaultEncoding.Format(0); got != "(LcRd,LcRd,LcRd,LcRd,LcRd)" {
		t.Errorf("the 2-bit empty register reads %q, want five LcRd", got)
	}
	if Event(7).String() != "CommEvent(7)" {
		t.Errorf("bad event name %q", Event(7).String())
	}
}

// step is one step of a Figure 5 execution: thread w (true: the writer)
// either runs an access, whose context must be want, or sees event ev.
type step struct {
	writer bool
	access string // "" for an event
	want   string
	ev     Event
}

// TestFigure5Contexts replays the three executions of the paper's Fig. 5
// (digest §1.5): the str/len multi-variable atomicity violation. Each
// thread's register starts empty; every access is annotated with the
// context the figure lists, and the events each access generates are
// pushed after it. With DistinctEmpty the register spells the figure's
// contexts exactly; with the default 2-bit encoding the values are the
// same shifts of the Recon codes.
func TestFigure5Contexts(t *testing.T) {
	acc := func(writer bool, what, want string) step { return step{writer: writer, access: what, want: want} }
	ev := func(writer bool, e Event) step { return step{writer: writer, ev: e} }
	const W, R = true, false
	execs := []struct {
		name  string
		steps []step
		// The final contexts the figure lists, and their 2-bit values.
		endW, endR   string
		valW, valR   Context
		val3W, val3R Context
	}{
		{name: "non-buggy A (reader first)", steps: []step{
			acc(R, "ts = str", "()"), ev(R, LcRd), ev(W, RmRd),
			acc(R, "tl = len", "(LcRd)"), ev(R, LcRd), ev(W, RmRd),
			acc(W, "str = newStr", "(RmRd,RmRd)"), ev(W, LcWr), ev(R, RmWr),
			acc(W, "len = newLen", "(RmRd,RmRd,LcWr)"),
		}, endW: "(RmRd,RmRd,LcWr)", endR: "(LcRd,LcRd,RmWr)",
			valW: 0b10_10_01, valR: 0b00_00_11, val3W: 0b011_011_010, val3R: 0b001_001_100},
		{name: "buggy", steps: []step{
			acc(W, "str = newStr", "()"), ev(W, LcWr), ev(R, RmWr),
			acc(R, "ts = str", "(RmWr)"), ev(R, LcRd), ev(W, RmRd),
			acc(R, "tl = len (old)", "(RmWr,LcRd)"), ev(R, LcRd), ev(W, RmRd),
			acc(W, "len = newLen", "(LcWr,RmRd,RmRd)"),
		}, endW: "(LcWr,RmRd,RmRd)", endR: "(RmWr,LcRd,LcRd)",
			valW: 0b01_10_10, valR: 0b11_00_00, val3W: 0b010_011_011, val3R: 0b100_001_001},
		{name: "non-buggy B (writer first)", steps: []step{
			acc(W, "str = newStr", "()"), ev(W, LcWr), ev(R, RmWr),
			acc(W, "len = newLen", "(LcWr)"), ev(W, LcWr), ev(R, RmWr),
			acc(R, "ts = str", "(RmWr,RmWr)"), ev(R, LcRd), ev(W, RmRd),
			acc(R, "tl = len", "(RmWr,RmWr,LcRd)"),
		}, endW: "(LcWr,LcWr,RmRd)", endR: "(RmWr,RmWr,LcRd)",
			valW: 0b01_01_10, valR: 0b11_11_00, val3W: 0b010_010_011, val3R: 0b100_100_001},
	}
	three := Encoding{Size: 5, DistinctEmpty: true}
	for _, x := range execs {
		var w3, r3, w2, r2 Context
		for _, s := range x.steps {
			c3, c2 := &r3, &r2
			if s.writer {
				c3, c2 = &w3, &w2
			}
			if s.access != "" {
				if got := three.Format(*c3); got != s.want {
					t.Errorf("%s: %s ran in %s, the figure says %s", x.name, s.access, got, s.want)
				}
				continue
			}
			*c3 = three.Push(*c3, s.ev)
			*c2 = Push(*c2, s.ev)
		}
		if three.Format(w3) != x.endW || three.Format(r3) != x.endR {
			t.Errorf("%s: writer ends %s, reader %s; want %s, %s", x.name, three.Format(w3), three.Format(r3), x.endW, x.endR)
		}
		if w2 != x.valW || r2 != x.valR || w3 != x.val3W || r3 != x.val3R {
			t.Errorf("%s: 2-bit %#b %#b, 3-bit %#b %#b; want %#b %#b, %#b %#b", x.name, w2, r2, w3, r3, x.valW, x.valR, x.val3W, x.val3R)
		}
	}
	// The buggy run's nodes (read str, (RmWr)) and (write len,
	// (LcWr,RmRd,RmRd)) occur in neither correct run: the contexts differ.
	if Push(0, RmWr) == 0 || DefaultEncoding.Of(LcWr, RmRd, RmRd) == DefaultEncoding.Of(RmRd, RmRd, LcWr) {
		t.Errorf("the buggy contexts collide with the correct ones")
	}
}

func TestEncodingEvents(t *testing.T) {
	three := Encoding{Size: 3, DistinctEmpty: true}
	// More pushes than slots: only the newest three remain, oldest first.
	ctx := three.Of(RmWr, LcRd, LcWr, RmRd)
	if got := three.Events(ctx); !slices.Equal(got, []Event{LcRd, LcWr, RmRd}) {
		t.Errorf("events %v", got)
	}
	if got := three.Format(three.Of(LcRd)); got != "(LcRd)" {
		t.Errorf("format %q, want (LcRd)", got)
	}
	if three.Of() == three.Of(LcRd) {
		t.Errorf("EMPTY and LcRd collide with DistinctEmpty")
	}
	if DefaultEncoding.Of() != DefaultEncoding.Of(LcRd) {
		t.Errorf("2-bit: EMPTY and LcRd should be the same value")
	}
}
