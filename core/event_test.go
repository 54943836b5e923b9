package core

import (
	"slices"
	"testing"
)

func TestKindNames(t *testing.T) {
	if NumKinds > 64 {
		t.Fatalf("NumKinds = %d does not fit KindMask", NumKinds)
	}
	seen := map[string]Kind{}
	for k := KindNone + 1; k < NumKinds; k++ {
		name := k.String()
		if name == "" {
			t.Fatalf("kind %d has no name", k)
		}
		if prev, ok := seen[name]; ok {
			t.Fatalf("kinds %d and %d share the name %q", prev, k, name)
		}
		seen[name] = k
		got, err := ParseKind(name)
		if err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v; want %d", name, got, err, k)
		}
	}
	// Names and numbers are part of the trace format: pin a few.
	for k, name := range map[Kind]string{
		KindNone: "None", KindRead: "Read", KindRMW: "RMW", KindHang: "Hang",
		KindBusRd: "BusRd", KindMetaPiggyback: "MetaPiggyback", KindCtxShift: "CtxShift",
		KindCTTrapEnd: "CTTrapEnd", KindPSetCheck: "PSetCheck", KindPSetUpdate: "PSetUpdate",
		KindRunStart: "RunStart", KindRunEnd: "RunEnd",
	} {
		if k.String() != name {
			t.Errorf("Kind(%d).String() = %q, want %q", k, k.String(), name)
		}
	}
	if KindRead != 1 || KindBusRd != 20 || KindCtxShift != 28 || KindPSetCheck != 34 || KindRunEnd != 43 {
		t.Error("kind numbers changed; trace files depend on them (bump TraceVersion)")
	}
	if s := Kind(200).String(); s != "Kind(200)" {
		t.Errorf("Kind(200).String() = %q", s)
	}
	if k, err := ParseKind("busrdx"); err != nil || k != KindBusRdX {
		t.Errorf("ParseKind ignores case: got %v, %v", k, err)
	}
	for _, bad := range []string{"", "None", "Bogus", "Kind(3)"} {
		if k, err := ParseKind(bad); err == nil {
			t.Errorf("ParseKind(%q) = %v, want an error", bad, k)
		}
	}
}

func TestKindMask(t *testing.T) {
	m := MaskOf(KindRead, KindWrite, KindRunEnd)
	for k := KindNone; k < NumKinds; k++ {
		want := k == KindRead || k == KindWrite || k == KindRunEnd
		if m.Has(k) != want {
			t.Errorf("MaskOf(Read, Write, RunEnd).Has(%v) = %v", k, !want)
		}
		if AllKinds.Has(k) != (k != KindNone) {
			t.Errorf("AllKinds.Has(%v) = %v", k, AllKinds.Has(k))
		}
	}
	if MaskOf() != 0 {
		t.Error("MaskOf() is not empty")
	}
}

// tagged records which observer saw which kinds.
type tagged struct {
	tag string
	log *[]string
}

func (o tagged) Observe(e *Event) { *o.log = append(*o.log, o.tag+":"+e.Kind.String()) }

func TestStream(t *testing.T) {
	var s Stream
	if s.Watching(KindRead) || s.Mask() != 0 {
		t.Fatal("an empty stream watches something")
	}
	s.Emit(&Event{Kind: KindRead}) // no observers: nothing happens

	var log []string
	s.Attach(MaskOf(KindRead, KindWrite), tagged{"a", &log})
	s.Attach(MaskOf(KindWrite), tagged{"b", &log})
	s.Attach(MaskOf(KindWrite, KindFill), ObserverFunc(func(e *Event) { log = append(log, "c:"+e.Kind.String()) }))
	s.Attach(AllKinds, tagged{"d", &log})

	if want := MaskOf(KindRead, KindWrite, KindFill) | AllKinds; s.Mask() != want {
		t.Errorf("Mask = %#x, want %#x", s.Mask(), want)
	}
	for _, k := range []Kind{KindRead, KindWrite, KindFill, KindHang} {
		if !s.Watching(k) {
			t.Errorf("Watching(%v) = false", k)
		}
	}
	if s.Watching(KindNone) {
		t.Error("Watching(None) = true")
	}

	for _, k := range []Kind{KindWrite, KindRead, KindFill, KindHang} {
		s.Emit(&Event{Kind: k})
	}
	want := []string{
		"a:Write", "b:Write", "c:Write", "d:Write",
		"a:Read", "d:Read",
		"c:Fill", "d:Fill",
		"d:Hang",
	}
	if !slices.Equal(log, want) {
		t.Errorf("delivered %v\nwant %v", log, want)
	}
}

func TestStreamWatchingOnly(t *testing.T) {
	var s Stream
	var log []string
	s.Attach(MaskOf(KindBusRd), tagged{"x", &log})
	if s.Watching(KindRead) || !s.Watching(KindBusRd) {
		t.Error("Watching disagrees with the attached mask")
	}
	e := &Event{Kind: KindRead}
	if a := testing.AllocsPerRun(100, func() { s.Emit(e) }); a != 0 {
		t.Errorf("emitting an unwatched kind allocates %v times", a)
	}
	if len(log) != 0 {
		t.Errorf("unwatched kind delivered: %v", log)
	}
}
