package core

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func testHeader() TraceHeader {
	return TraceHeader{
		Program:     "main:\n  li r1, 1\n  st r1, [x]\n  halt\n",
		ProgramName: "tests/store.s",
		Config:      "[cache.l1]\nsize = 32768\n",
		Seed:        0xdeadbeefcafef00d,
	}
}

// fullEvents returns one event of every kind with every field populated,
// cycling through extreme and negative values, then a few sparse events.
func fullEvents() []Event {
	var evs []Event
	for k := KindNone + 1; k < NumKinds; k++ {
		i := int(k)
		e := Event{
			Kind:   k,
			Flags:  FlagSync | FlagHit | FlagC2C,
			Core:   int32(i%4) - 2,
			Thread: int32(i),
			PC:     int32(-i),
			Cycle:  Cycle(math.MaxUint64 - uint64(i)),
			Addr:   0x10000 + uint64(i)*8,
			Value:  int64(-i) * 1_000_000_007,
			Words:  [4]uint64{uint64(i), math.MaxUint64, 1 << 63, 7},
			List:   []uint64{uint64(i), 0, math.MaxUint64, 42},
		}
		switch i % 4 {
		case 1:
			e.List = []uint64{} // empty, not nil
		case 2:
			e.Core, e.Value, e.PC = math.MinInt32, math.MinInt64, math.MaxInt32
		case 3:
			e.Core, e.Value, e.PC = math.MaxInt32, math.MaxInt64, math.MinInt32
		}
		evs = append(evs, e)
	}
	evs = append(evs,
		Event{Kind: KindRunStart},
		Event{Kind: KindRead, PC: NoPC, Addr: 8},
		Event{Kind: KindCTDrain, List: []uint64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}},
		Event{Kind: KindRunEnd, Cycle: 1},
	)
	return evs
}

func encodeTrace(t testing.TB, h TraceHeader, evs []Event) []byte {
	t.Helper()
	var buf bytes.Buffer
	tw, err := NewTraceWriter(&buf, h)
	if err != nil {
		t.Fatal(err)
	}
	for i := range evs {
		tw.Observe(&evs[i])
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sameEvent(a, b *Event) bool {
	return a.Kind == b.Kind && a.Flags == b.Flags && a.Core == b.Core && a.Thread == b.Thread &&
		a.PC == b.PC && a.Cycle == b.Cycle && a.Addr == b.Addr && a.Value == b.Value &&
		a.Words == b.Words && slices.Equal(a.List, b.List)
}

func checkEvents(t *testing.T, got, want []Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range want {
		if !sameEvent(&got[i], &want[i]) {
			t.Fatalf("event %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestTraceRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		h    TraceHeader
		evs  []Event
	}{
		{"empty", TraceHeader{}, nil},
		{"all kinds", testHeader(), fullEvents()},
		{"big header", TraceHeader{
			Program: strings.Repeat("  add r1, r1, r2\n", 20000),
			Config:  strings.Repeat("x", 100000),
			Seed:    math.MaxUint64,
		}, fullEvents()[:3]},
		{"long list", TraceHeader{Version: TraceVersion}, []Event{
			{Kind: KindPSetCheck, List: make([]uint64, 5000)},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := encodeTrace(t, tt.h, tt.evs)
			h, got, err := ReadTrace(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			want := tt.h
			want.Version = TraceVersion
			if want.Kinds == 0 {
				want.Kinds = AllKinds
			}
			if h != want {
				t.Errorf("header = %+v, want %+v", h, want)
			}
			checkEvents(t, got, tt.evs)
		})
	}
}

func TestTraceReadTraceOwnsLists(t *testing.T) {
	evs := []Event{
		{Kind: KindCTDrain, List: []uint64{1, 2}},
		{Kind: KindCTDrain, List: []uint64{3, 4}},
	}
	_, got, err := ReadTrace(bytes.NewReader(encodeTrace(t, testHeader(), evs)))
	if err != nil {
		t.Fatal(err)
	}
	got[1].List[0] = 99
	if got[0].List[0] != 1 {
		t.Fatalf("events share List storage: %v", got[0].List)
	}
}

func TestTraceNextAfterEOF(t *testing.T) {
	tr, err := NewTraceReader(bytes.NewReader(encodeTrace(t, testHeader(), fullEvents()[:2])))
	if err != nil {
		t.Fatal(err)
	}
	var e Event
	for range 2 {
		if err := tr.Next(&e); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 {
		if err := tr.Next(&e); err != io.EOF {
			t.Fatalf("Next = %v, want io.EOF", err)
		}
	}
}

// TestTraceTruncated cuts a trace at every length: each must be an error
// that says where the data ran out.
func TestTraceTruncated(t *testing.T) {
	data := encodeTrace(t, testHeader(), fullEvents())
	for n := 0; n < len(data); n++ {
		_, _, err := ReadTrace(bytes.NewReader(data[:n]))
		if !errors.Is(err, ErrTruncated) {
			t.Fatalf("cut at %d of %d: err = %v, want ErrTruncated", n, len(data), err)
		}
		if n > 0 && !strings.Contains(err.Error(), fmt.Sprintf("truncated at byte %d (frame ", n)) {
			t.Fatalf("cut at %d: err = %q does not name the byte", n, err)
		}
	}
}

// TestTraceByteFlips flips bits of every byte of a small trace: each must
// be an error.
func TestTraceByteFlips(t *testing.T) {
	evs := fullEvents()[:24]
	data := encodeTrace(t, testHeader(), evs)
	bad := make([]byte, len(data))
	for pos := range data {
		for _, x := range []byte{0x01, 0x80, 0xFF} {
			copy(bad, data)
			bad[pos] ^= x
			_, _, err := ReadTrace(bytes.NewReader(bad))
			if err == nil {
				t.Fatalf("flip %#x at byte %d of %d: no error", x, pos, len(data))
			}
			if !errors.Is(err, ErrBadTrace) && !errors.Is(err, ErrTruncated) {
				t.Fatalf("flip %#x at byte %d: err = %v is neither ErrBadTrace nor ErrTruncated", x, pos, err)
			}
		}
	}
}

func TestTraceChecksumMessage(t *testing.T) {
	evs := fullEvents()[:3]
	data := encodeTrace(t, testHeader(), evs)
	// Find the start of frame 2 (event 1) by encoding a trace of one event:
	// the same header and first event give the same bytes.
	one := encodeTrace(t, testHeader(), evs[:1])
	start := len(one) - len(frame([]byte{frameEnd, 1}))
	bad := slices.Clone(data)
	bad[start+3] ^= 0x10
	_, got, err := ReadTrace(bytes.NewReader(bad))
	want := fmt.Sprintf("trace: checksum mismatch in frame 2 at byte %d", start)
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if len(got) != 1 {
		t.Fatalf("got %d events before the bad frame, want 1", len(got))
	}
}

func TestTraceBadMagic(t *testing.T) {
	for _, data := range [][]byte{
		[]byte("this is not a trace file at all"),
		{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
		[]byte("W"), // a matching prefix would be truncation; this one is not
		[]byte("WEFTTRX\n\x01\x00\x00\x00"),
	} {
		if bytes.HasPrefix([]byte(traceMagic), data) {
			continue
		}
		_, _, err := ReadTrace(bytes.NewReader(data))
		if err == nil || !strings.Contains(err.Error(), "trace: bad magic") || !errors.Is(err, ErrBadTrace) {
			t.Errorf("ReadTrace(%q) err = %v, want bad magic", data, err)
		}
	}
}

func TestTraceUnsupportedVersion(t *testing.T) {
	data := encodeTrace(t, testHeader(), nil)
	binary.LittleEndian.PutUint32(data[len(traceMagic):], 7)
	_, _, err := ReadTrace(bytes.NewReader(data))
	if err == nil || !strings.HasPrefix(err.Error(), "trace: unsupported version 7") {
		t.Fatalf("err = %v, want unsupported version 7", err)
	}
	if _, err := NewTraceWriter(io.Discard, TraceHeader{Version: 7}); err == nil {
		t.Fatal("NewTraceWriter accepted version 7")
	}
}

// frame wraps body as a frame with a valid length and checksum, encoded
// here independently of the writer.
func frame(body []byte) []byte {
	b := binary.AppendUvarint(nil, uint64(len(body)))
	b = append(b, body...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

// preamble returns the magic, version and an empty header frame.
func preamble() []byte {
	b := []byte(traceMagic)
	b = binary.LittleEndian.AppendUint32(b, TraceVersion)
	return append(b, frame([]byte{frameHeader, 0, 0, 0, 0, 0})...)
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func uv(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.AppendUvarint(b, v)
	}
	return b
}

// A version 1 trace (no kind mask in its header) still reads, as a trace
// of every kind.
func TestTraceVersion1(t *testing.T) {
	data := cat([]byte(traceMagic), binary.LittleEndian.AppendUint32(nil, 1), frame([]byte{frameHeader, 7, 0, 0, 0}), frame(cat([]byte{frameEnd}, uv(0))))
	h, evs, err := ReadTrace(bytes.NewReader(data))
	if err != nil || len(evs) != 0 || h.Seed != 7 || h.Kinds != AllKinds || h.Version != 1 {
		t.Fatalf("header %+v, %d events, err %v; want a v1 header of every kind", h, len(evs), err)
	}
}

func TestTraceMalformedFrames(t *testing.T) {
	read := uv(uint64(KindRead), 0) // a valid event with no fields
	end := func(n uint64) []byte { return frame(cat([]byte{frameEnd}, uv(n))) }
	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"valid", cat(preamble(), frame(read), end(1)), ""},
		{"handcrafted fields", cat(preamble(),
			frame(cat(uv(uint64(KindWrite), traceFCore|traceFValue|traceFList), binary.AppendVarint(nil, -3),
				binary.AppendVarint(nil, -5), uv(2, 0, 9))), end(1)), ""},
		{"missing end frame", cat(preamble(), frame(read)), "truncated at byte"},
		{"count too high", cat(preamble(), frame(read), end(2)), "event count mismatch"},
		{"count too low", cat(preamble(), frame(read), frame(read), end(1)), "event count mismatch"},
		{"trailing data", cat(preamble(), end(0), []byte{0}), "trailing data after end frame"},
		{"two headers", cat(preamble(), frame([]byte{frameHeader, 0, 0, 0, 0}), end(0)), "unexpected header frame 1"},
		{"no header", cat([]byte(traceMagic), binary.LittleEndian.AppendUint32(nil, TraceVersion), end(0)), "is not a header"},
		{"kind none", cat(preamble(), frame(uv(0, 0)), end(1)), "invalid event kind 0 in frame 1"},
		{"kind NumKinds", cat(preamble(), frame(uv(uint64(NumKinds), 0)), end(1)),
			fmt.Sprintf("invalid event kind %d", NumKinds)},
		{"empty frame", cat(preamble(), frame(nil), end(0)), "bad length 0 in frame 1"},
		{"huge frame", cat(preamble(), uv(1<<40)), "bad length"},
		{"length overflow", cat(preamble(), bytes.Repeat([]byte{0xFF}, 11)), "bad length in frame 1"},
		{"unknown mask bit", cat(preamble(), frame(uv(uint64(KindRead), traceFAll+1)), end(1)), "unknown field bits"},
		{"zero in mask", cat(preamble(), frame(uv(uint64(KindRead), traceFAddr, 0)), end(1)), "field in mask is zero"},
		{"trailing bytes", cat(preamble(), frame(uv(uint64(KindRead), 0, 5)), end(1)), "trailing bytes"},
		{"short field", cat(preamble(), frame(uv(uint64(KindRead), traceFAddr)), end(1)), "bad varint"},
		{"flags range", cat(preamble(), frame(uv(uint64(KindRead), traceFFlags, 256)), end(1)), "flags out of range"},
		{"core range", cat(preamble(), frame(cat(uv(uint64(KindRead), traceFCore), binary.AppendVarint(nil, 1<<31))), end(1)),
			"out of range"},
		{"list zero", cat(preamble(), frame(uv(uint64(KindCTDrain), traceFList, 0)), end(1)), "bad list length"},
		{"list too long", cat(preamble(), frame(uv(uint64(KindCTDrain), traceFList, 1<<40, 1)), end(1)), "bad list length"},
		{"list short", cat(preamble(), frame(uv(uint64(KindCTDrain), traceFList, 3, 1, 2)), end(1)), "bad list length"},
		{"bad end", cat(preamble(), frame([]byte{frameEnd}), end(0)), "malformed end frame"},
		{"bad header", cat([]byte(traceMagic), binary.LittleEndian.AppendUint32(nil, TraceVersion),
			frame([]byte{frameHeader, 0, 0, 5, 'a'}), end(0)), "malformed header frame"},
		{"empty", nil, "trace: empty file"},
		{"magic only", []byte(traceMagic), "trace: truncated at byte 8 (frame 0)"},
		{"version 3", cat([]byte(traceMagic), binary.LittleEndian.AppendUint32(nil, 3)), "unsupported version 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, evs, err := ReadTrace(bytes.NewReader(tt.data))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if len(evs) != 1 {
					t.Fatalf("got %d events", len(evs))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.want)
			}
			if !errors.Is(err, ErrBadTrace) && !errors.Is(err, ErrTruncated) {
				t.Fatalf("err = %v matches neither sentinel", err)
			}
		})
	}
}

// TestTraceCorruptLengthMemory checks that a frame claiming a huge length
// costs memory in proportion to the file, not to the claim.
func TestTraceCorruptLengthMemory(t *testing.T) {
	data := cat([]byte(traceMagic), binary.LittleEndian.AppendUint32(nil, TraceVersion),
		uv(maxHeaderBody), bytes.Repeat([]byte{1}, 1000))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := ReadTrace(bytes.NewReader(data))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrTruncated) {
		t.Fatalf("err = %v, want truncated", err)
	}
	if d := after.TotalAlloc - before.TotalAlloc; d > 1<<20 {
		t.Fatalf("reading a 1 KB file allocated %d bytes", d)
	}
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after < len(p) {
		n := max(w.after, 0)
		w.after = 0
		return n, errors.New("disk full")
	}
	w.after -= len(p)
	return len(p), nil
}

func TestTraceWriterErrors(t *testing.T) {
	t.Run("bad kind", func(t *testing.T) {
		for _, k := range []Kind{KindNone, NumKinds, 255} {
			tw, err := NewTraceWriter(io.Discard, testHeader())
			if err != nil {
				t.Fatal(err)
			}
			tw.Observe(&Event{Kind: KindRead})
			tw.Observe(&Event{Kind: k})
			tw.Observe(&Event{Kind: KindRead})
			if err := tw.Close(); err == nil || !strings.Contains(err.Error(), "event 1 has invalid kind") {
				t.Errorf("kind %d: Close = %v", k, err)
			}
		}
	})
	t.Run("nil and list too long", func(t *testing.T) {
		tw, _ := NewTraceWriter(io.Discard, testHeader())
		tw.Observe(nil)
		if err := tw.Close(); err == nil {
			t.Error("nil event accepted")
		}
		tw, _ = NewTraceWriter(io.Discard, testHeader())
		tw.Observe(&Event{Kind: KindCTDrain, List: make([]uint64, maxTraceList+1)})
		if err := tw.Close(); err == nil || !strings.Contains(err.Error(), "over the limit") {
			t.Errorf("Close = %v", err)
		}
	})
	t.Run("after close", func(t *testing.T) {
		tw, _ := NewTraceWriter(io.Discard, testHeader())
		if err := tw.Close(); err != nil {
			t.Fatal(err)
		}
		tw.Observe(&Event{Kind: KindRead})
		if err := tw.Close(); err == nil || !strings.Contains(err.Error(), "Observe after Close") {
			t.Errorf("second Close = %v, want Observe after Close", err)
		}
	})
	t.Run("write error", func(t *testing.T) {
		tw, err := NewTraceWriter(&failWriter{after: 100}, testHeader())
		if err != nil {
			t.Fatal(err)
		}
		e := fullEvents()[0]
		for range 10000 {
			tw.Observe(&e)
		}
		err = tw.Close()
		if err == nil || !strings.Contains(err.Error(), "disk full") || !strings.HasPrefix(err.Error(), "trace: write event") {
			t.Errorf("Close = %v", err)
		}
	})
	t.Run("flush error", func(t *testing.T) {
		tw, _ := NewTraceWriter(&failWriter{after: 5}, testHeader())
		if err := tw.Close(); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("Close = %v", err)
		}
	})
	t.Run("huge header", func(t *testing.T) {
		_, err := NewTraceWriter(io.Discard, TraceHeader{Config: strings.Repeat("x", maxTraceString+1)})
		if err == nil {
			t.Error("oversized config accepted")
		}
	})
}

func TestTraceNoAllocs(t *testing.T) {
	tw, err := NewTraceWriter(io.Discard, testHeader())
	if err != nil {
		t.Fatal(err)
	}
	e := fullEvents()[0]
	e.List = []uint64{1, 2, 3}
	tw.Observe(&e) // warm the scratch buffer
	if n := testing.AllocsPerRun(1000, func() { tw.Observe(&e) }); n != 0 {
		t.Errorf("Observe: %v allocs per event, want 0", n)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}

	evs := make([]Event, 2000)
	for i := range evs {
		evs[i] = e
	}
	tr, err := NewTraceReader(bytes.NewReader(encodeTrace(t, testHeader(), evs)))
	if err != nil {
		t.Fatal(err)
	}
	var got Event
	if err := tr.Next(&got); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1000, func() {
		if err := tr.Next(&got); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("Next: %v allocs per event, want 0", n)
	}
}

func BenchmarkTraceWrite(b *testing.B) {
	tw, err := NewTraceWriter(io.Discard, testHeader())
	if err != nil {
		b.Fatal(err)
	}
	e := Event{Kind: KindRead, Flags: FlagHit, Core: 2, Thread: 5, PC: 120, Addr: 0x10040, Value: -7}
	d := Event{Kind: KindCTDrain, Core: 1, PC: 88, List: []uint64{3, 9, 27, 81}}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		e.Cycle = Cycle(i)
		tw.Observe(&e)
		if i%8 == 0 {
			d.Cycle = Cycle(i)
			tw.Observe(&d)
		}
	}
	if err := tw.Close(); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkTraceRead(b *testing.B) {
	evs := make([]Event, 10000)
	for i := range evs {
		evs[i] = Event{Kind: KindWrite, Core: int32(i % 4), Cycle: Cycle(i * 3), Addr: uint64(i) * 8, Value: int64(i)}
	}
	data := encodeTrace(b, testHeader(), evs)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		tr, err := NewTraceReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		var e Event
		for {
			if err := tr.Next(&e); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}

// wrapFrame makes a trace of one frame with the given body around valid
// magic, header and end frame, so fuzzing reaches the frame decoders past
// the checksum.
func wrapFrame(body []byte) []byte {
	return cat(preamble(), frame(body), frame([]byte{frameEnd, 1}))
}

func FuzzTraceReader(f *testing.F) {
	valid := encodeTrace(f, testHeader(), fullEvents()[:6])
	f.Add(valid)
	f.Add(encodeTrace(f, TraceHeader{}, nil))
	for _, n := range []int{0, 3, 8, 12, 13, len(valid) / 2, len(valid) - 1} {
		f.Add(valid[:n])
	}
	var body []byte
	for _, e := range fullEvents()[:4] {
		body = appendEventBody(body[:0], &e)
		f.Add(slices.Clone(body))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, wrapFrame(data)} {
			h, evs, err := ReadTrace(bytes.NewReader(in))
			if err != nil {
				if !errors.Is(err, ErrBadTrace) && !errors.Is(err, ErrTruncated) {
					t.Fatalf("err = %v matches neither sentinel", err)
				}
				continue
			}
			// What decodes must re-encode to the same trace.
			var buf bytes.Buffer
			tw, err := NewTraceWriter(&buf, h)
			if err != nil {
				t.Fatal(err)
			}
			for i := range evs {
				tw.Observe(&evs[i])
			}
			if err := tw.Close(); err != nil {
				t.Fatal(err)
			}
			h2, evs2, err := ReadTrace(&buf)
			if err != nil {
				t.Fatal(err)
			}
			if h2 != h {
				t.Fatalf("header changed: %+v -> %+v", h, h2)
			}
			checkEvents(t, evs2, evs)
		}
	})
}

// ExampleTraceWriter records a stream's events to a trace and reads them
// back.
func ExampleTraceWriter() {
	var file bytes.Buffer
	tw, err := NewTraceWriter(&file, TraceHeader{ProgramName: "demo.s", Seed: 1})
	if err != nil {
		panic(err)
	}
	var s Stream
	s.Attach(MaskOf(KindRead, KindWrite), tw)
	s.Emit(&Event{Kind: KindWrite, Thread: 1, Addr: 0x10000, Value: 5, Cycle: 10})
	s.Emit(&Event{Kind: KindRead, Thread: 2, Addr: 0x10000, Value: 5, Cycle: 12})
	if err := tw.Close(); err != nil {
		panic(err)
	}

	h, events, err := ReadTrace(&file)
	if err != nil {
		panic(err)
	}
	fmt.Println(h.ProgramName, h.Seed)
	for _, e := range events {
		fmt.Println(e.Cycle, e.Kind, e.Thread, e.Addr, e.Value)
	}
	// Output:
	// demo.s 1
	// 10 Write 1 65536 5
	// 12 Read 2 65536 5
}
