package core

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"slices"
)

// A trace file (DESIGN.md §3) is laid out as
//
//	magic    "WEFTTRC\n"
//	version  uint32, little endian
//	frame 0  the header
//	frame k  event k-1, for k = 1..n
//	frame n+1 the end frame, holding n
//
// and every frame as
//
//	length   uvarint, the byte length of body
//	body     kind byte, then the kind's fields
//	crc      uint32 little endian, CRC-32C over length and body
//
// An event body is the Kind byte, a uvarint mask of the non-zero fields
// (traceF* below) and then those fields in mask order: Flags, Cycle, Addr and
// Words as uvarints, Core, Thread, PC and Value as zigzag varints, List as a
// uvarint count and that many uvarints. The header body is frameHeader, the
// seed, then ProgramName, Program and Config each as a uvarint length and
// bytes. The end body is frameEnd and the event count.

// TraceVersion is the trace format version this package writes; it also
// reads version 1 (which had no recorded kind mask: every kind).
const TraceVersion uint32 = 2

const (
	traceMagic = "WEFTTRC\n"

	// maxTraceList bounds the length of an event's List in a trace.
	maxTraceList = 1 << 20
	// maxTraceString bounds each header string.
	maxTraceString = 64 << 20

	// Frame kind bytes beyond the event kinds.
	frameHeader byte = 0xFE
	frameEnd    byte = 0xFF

	// maxEventBody bounds an event (or end) frame body: kind, mask, eleven
	// scalar fields, list count and list.
	maxEventBody = 1 + 13*binary.MaxVarintLen64 + maxTraceList*binary.MaxVarintLen64
	// maxHeaderBody bounds the header frame body.
	maxHeaderBody = 1 + binary.MaxVarintLen64 + 3*(binary.MaxVarintLen64+maxTraceString)

	// frameRoom is the room left before a body for its length prefix.
	frameRoom = binary.MaxVarintLen64
	// crcLen is the length of a frame's checksum.
	crcLen = 4
	// readChunk is how much a body read grows its buffer at least, so a
	// corrupt length costs memory only as data actually arrives.
	readChunk = 64 << 10
)

// Field mask bits of an event frame.
const (
	traceFFlags = 1 << iota
	traceFCore
	traceFThread
	traceFPC
	traceFCycle
	traceFAddr
	traceFValue
	traceFWord0 // Words[i] is traceFWord0 << i
	traceFWord1
	traceFWord2
	traceFWord3
	traceFList
	traceFAll = traceFList<<1 - 1
)

// ErrTruncated is matched (with errors.Is) by reader errors for a trace
// that ends early.
var ErrTruncated = errors.New("trace: truncated")

// ErrBadTrace is matched (with errors.Is) by reader errors for a trace that
// is corrupt, malformed or of an unsupported version.
var ErrBadTrace = errors.New("trace: bad trace")

// traceError is a reader error with a complete message and a sentinel cause.
type traceError struct {
	msg   string
	cause error
}

func (e *traceError) Error() string { return e.msg }
func (e *traceError) Unwrap() error { return e.cause }

func badTrace(format string, args ...any) error {
	return &traceError{msg: fmt.Sprintf(format, args...), cause: ErrBadTrace}
}

// TraceHeader describes the run a trace records. core imports no other weft
// package, so the program and config are carried as text.
type TraceHeader struct {
	// Version is the format version: as read from the file by a reader; a
	// writer accepts 0 or TraceVersion and always writes TraceVersion.
	Version uint32
	// Program is the assembled program as disassembly text, so PCs map
	// back to code points offline.
	Program string
	// ProgramName is the program's name (usually its source path).
	ProgramName string
	// Config is the resolved configuration as TOML.
	Config string
	// Seed is the run seed.
	Seed uint64
	// Kinds are the event kinds the trace recorded (0 when writing: every
	// kind; a reader never returns 0). Version 1 traces recorded every kind.
	Kinds KindMask
}

// TraceWriter encodes a run's events to a trace file. It is an Observer:
// attach it to a Stream with the kinds to record. Encoding an event does not
// allocate once the writer's buffer has grown to the largest event. An event whose List is longer than 1<<20 words, or whose kind is
// KindNone or not below NumKinds, is an error. The first error stops the
// writer and is returned by Close.
type TraceWriter struct {
	bw      *bufio.Writer
	table   *crc32.Table
	scratch []byte
	events  uint64
	closed  bool
	err     error
}

// NewTraceWriter writes the magic, version and header h to w and returns a
// writer for the events. Each header string is limited to 64 MiB. Output is
// buffered; Close flushes it but does not close w.
func NewTraceWriter(w io.Writer, h TraceHeader) (*TraceWriter, error) {
	if h.Version != 0 && h.Version != TraceVersion {
		return nil, fmt.Errorf("trace: cannot write version %d (this is version %d)", h.Version, TraceVersion)
	}
	for _, s := range [...]struct{ name, v string }{
		{"program name", h.ProgramName}, {"program", h.Program}, {"config", h.Config},
	} {
		if len(s.v) > maxTraceString {
			return nil, fmt.Errorf("trace: header %s is %d bytes, over the limit of %d", s.name, len(s.v), maxTraceString)
		}
	}
	tw := &TraceWriter{
		bw:      bufio.NewWriterSize(w, 64<<10),
		table:   crc32.MakeTable(crc32.Castagnoli),
		scratch: make([]byte, 0, 256),
	}
	var pre [len(traceMagic) + 4]byte
	copy(pre[:], traceMagic)
	binary.LittleEndian.PutUint32(pre[len(traceMagic):], TraceVersion)
	if _, err := tw.bw.Write(pre[:]); err != nil {
		return nil, fmt.Errorf("trace: write header: %w", err)
	}
	b := make([]byte, frameRoom, frameRoom+1+binary.MaxVarintLen64+3*binary.MaxVarintLen64+
		len(h.ProgramName)+len(h.Program)+len(h.Config)+crcLen)
	b = append(b, frameHeader)
	b = binary.AppendUvarint(b, h.Seed)
	for _, s := range [...]string{h.ProgramName, h.Program, h.Config} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	kinds := h.Kinds
	if kinds == 0 {
		kinds = AllKinds
	}
	b = binary.AppendUvarint(b, uint64(kinds))
	if err := tw.writeFrame(b); err != nil {
		return nil, fmt.Errorf("trace: write header: %w", err)
	}
	return tw, nil
}

// writeFrame fills in the length prefix and checksum around the body that
// starts at b[frameRoom] and writes the frame. It returns the grown buffer's
// error only; the caller keeps b's storage.
func (tw *TraceWriter) writeFrame(b []byte) error {
	var lp [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(lp[:], uint64(len(b)-frameRoom))
	start := frameRoom - n
	copy(b[start:], lp[:n])
	crc := crc32.Checksum(b[start:], tw.table)
	b = binary.LittleEndian.AppendUint32(b, crc)
	_, err := tw.bw.Write(b[start:])
	return err
}

// Observe encodes e as the next event frame. It never panics: an invalid
// event or a write error is kept and returned by Close.
func (tw *TraceWriter) Observe(e *Event) {
	if tw.err != nil {
		return
	}
	switch {
	case tw.closed:
		tw.err = errors.New("trace: Observe after Close")
		return
	case e == nil:
		tw.err = fmt.Errorf("trace: event %d is nil", tw.events)
		return
	case e.Kind == KindNone || e.Kind >= NumKinds:
		tw.err = fmt.Errorf("trace: event %d has invalid kind %d", tw.events, uint8(e.Kind))
		return
	case len(e.List) > maxTraceList:
		tw.err = fmt.Errorf("trace: event %d (%v) has a list of %d words, over the limit of %d",
			tw.events, e.Kind, len(e.List), maxTraceList)
		return
	}
	b := appendEventBody(tw.scratch[:frameRoom], e)
	if cap(b) < len(b)+crcLen {
		b = slices.Grow(b, crcLen)
	}
	tw.scratch = b[:0]
	if err := tw.writeFrame(b); err != nil {
		tw.err = fmt.Errorf("trace: write event %d: %w", tw.events, err)
		return
	}
	tw.events++
}

// appendEventBody appends e's frame body (kind, mask, fields) to b.
func appendEventBody(b []byte, e *Event) []byte {
	var mask uint64
	if e.Flags != 0 {
		mask |= traceFFlags
	}
	if e.Core != 0 {
		mask |= traceFCore
	}
	if e.Thread != 0 {
		mask |= traceFThread
	}
	if e.PC != 0 {
		mask |= traceFPC
	}
	if e.Cycle != 0 {
		mask |= traceFCycle
	}
	if e.Addr != 0 {
		mask |= traceFAddr
	}
	if e.Value != 0 {
		mask |= traceFValue
	}
	for i, w := range e.Words {
		if w != 0 {
			mask |= traceFWord0 << i
		}
	}
	if len(e.List) != 0 {
		mask |= traceFList
	}
	b = append(b, byte(e.Kind))
	b = binary.AppendUvarint(b, mask)
	if mask&traceFFlags != 0 {
		b = binary.AppendUvarint(b, uint64(e.Flags))
	}
	if mask&traceFCore != 0 {
		b = binary.AppendVarint(b, int64(e.Core))
	}
	if mask&traceFThread != 0 {
		b = binary.AppendVarint(b, int64(e.Thread))
	}
	if mask&traceFPC != 0 {
		b = binary.AppendVarint(b, int64(e.PC))
	}
	if mask&traceFCycle != 0 {
		b = binary.AppendUvarint(b, uint64(e.Cycle))
	}
	if mask&traceFAddr != 0 {
		b = binary.AppendUvarint(b, e.Addr)
	}
	if mask&traceFValue != 0 {
		b = binary.AppendVarint(b, e.Value)
	}
	for i, w := range e.Words {
		if mask&(traceFWord0<<i) != 0 {
			b = binary.AppendUvarint(b, w)
		}
	}
	if mask&traceFList != 0 {
		b = binary.AppendUvarint(b, uint64(len(e.List)))
		for _, v := range e.List {
			b = binary.AppendUvarint(b, v)
		}
	}
	return b
}

// Close writes the end frame holding the event count and flushes. It does
// not close the underlying writer. It returns the first error met by the
// writer; calling it again writes nothing and returns the first error met
// so far (which includes an Observe after Close).
func (tw *TraceWriter) Close() error {
	if tw.closed {
		return tw.err
	}
	tw.closed = true
	if tw.err != nil {
		return tw.err
	}
	b := append(tw.scratch[:frameRoom], frameEnd)
	b = binary.AppendUvarint(b, tw.events)
	if err := tw.writeFrame(b); err != nil {
		tw.err = fmt.Errorf("trace: write end frame: %w", err)
		return tw.err
	}
	if err := tw.bw.Flush(); err != nil {
		tw.err = fmt.Errorf("trace: flush: %w", err)
	}
	return tw.err
}

// byteRecorder reads bytes for binary.ReadUvarint, keeping a copy of them
// (at most binary.MaxVarintLen64) and the first read error.
type byteRecorder struct {
	r   *bufio.Reader
	buf [binary.MaxVarintLen64]byte
	n   int
	err error
}

func (br *byteRecorder) ReadByte() (byte, error) {
	c, err := br.r.ReadByte()
	if err != nil {
		br.err = err
		return 0, err
	}
	if br.n < len(br.buf) {
		br.buf[br.n] = c
	}
	br.n++
	return c, nil
}

// TraceReader decodes a trace file, verifying every frame's checksum.
// Frames are numbered from 0 (the header); event i is frame i+1. Errors
// name the frame and the byte offset in the file, and match ErrTruncated
// or ErrBadTrace where the file is at fault.
type TraceReader struct {
	br     *bufio.Reader
	rec    byteRecorder
	table  *crc32.Table
	hdr    TraceHeader
	off    int64  // bytes consumed
	frame  uint64 // number of the frame being read
	events uint64 // events returned so far
	body   []byte
	list   []uint64
	err    error // sticky: the first error, or io.EOF after the end frame
}

// NewTraceReader reads and verifies the magic, version and header of the
// trace in r.
func NewTraceReader(r io.Reader) (*TraceReader, error) {
	tr := &TraceReader{
		br:    bufio.NewReaderSize(r, 64<<10),
		table: crc32.MakeTable(crc32.Castagnoli),
	}
	tr.rec.r = tr.br
	var pre [len(traceMagic) + 4]byte
	n, err := io.ReadFull(tr.br, pre[:])
	tr.off = int64(n)
	m := min(n, len(traceMagic))
	switch {
	case string(pre[:m]) != traceMagic[:m]:
		return nil, badTrace("trace: bad magic (not a weft trace file)")
	case err == io.EOF && n == 0:
		return nil, &traceError{msg: "trace: empty file", cause: ErrTruncated}
	case err == io.ErrUnexpectedEOF:
		return nil, tr.truncated()
	case err != nil:
		return nil, fmt.Errorf("trace: read magic: %w", err)
	}
	tr.hdr.Version = binary.LittleEndian.Uint32(pre[len(traceMagic):])
	if tr.hdr.Version != TraceVersion && tr.hdr.Version != 1 {
		return nil, badTrace("trace: unsupported version %d (this reader reads versions 1 to %d)", tr.hdr.Version, TraceVersion)
	}
	start, body, err := tr.readFrame(maxHeaderBody)
	if err != nil {
		return nil, err
	}
	if body[0] != frameHeader {
		return nil, badTrace("trace: frame 0 at byte %d is not a header (kind byte %d)", start, body[0])
	}
	d := traceDec{b: body[1:], ok: true}
	tr.hdr.Seed = d.uvarint()
	tr.hdr.ProgramName = d.str()
	tr.hdr.Program = d.str()
	tr.hdr.Config = d.str()
	tr.hdr.Kinds = AllKinds
	if tr.hdr.Version >= 2 {
		if k := KindMask(d.uvarint()); k != 0 {
			tr.hdr.Kinds = k
		}
	}
	if !d.ok || len(d.b) != 0 {
		return nil, badTrace("trace: malformed header frame at byte %d", start)
	}
	tr.frame++
	tr.body = nil // the header may have been large; do not keep it
	return tr, nil
}

// Header returns the trace's header.
func (tr *TraceReader) Header() TraceHeader { return tr.hdr }

func (tr *TraceReader) truncated() error {
	return &traceError{
		msg:   fmt.Sprintf("trace: truncated at byte %d (frame %d)", tr.off, tr.frame),
		cause: ErrTruncated,
	}
}

// readFrame reads the next frame, checks its length against limit and its
// checksum, and returns its start offset and body (at least one byte,
// valid until the next read).
func (tr *TraceReader) readFrame(limit int) (int64, []byte, error) {
	start := tr.off
	tr.rec.n, tr.rec.err = 0, nil
	size, err := binary.ReadUvarint(&tr.rec)
	tr.off += int64(tr.rec.n)
	switch {
	case tr.rec.err == io.EOF:
		return start, nil, tr.truncated()
	case tr.rec.err != nil:
		return start, nil, fmt.Errorf("trace: read frame %d at byte %d: %w", tr.frame, tr.off, tr.rec.err)
	case err != nil:
		return start, nil, badTrace("trace: bad length in frame %d at byte %d", tr.frame, start)
	case size == 0 || size > uint64(limit):
		return start, nil, badTrace("trace: bad length %d in frame %d at byte %d", size, tr.frame, start)
	}
	want := int(size) + crcLen
	if cap(tr.body) >= want {
		tr.body = tr.body[:want]
		n, err := io.ReadFull(tr.br, tr.body)
		tr.off += int64(n)
		if err != nil {
			return start, nil, tr.readErr(err)
		}
	} else {
		// Grow as data arrives, so a corrupt length cannot make us
		// allocate far more than the file holds.
		tr.body = tr.body[:0]
		for len(tr.body) < want {
			chunk := min(want-len(tr.body), max(len(tr.body), readChunk))
			have := len(tr.body)
			tr.body = slices.Grow(tr.body, chunk)[:have+chunk]
			n, err := io.ReadFull(tr.br, tr.body[have:])
			tr.off += int64(n)
			if err != nil {
				return start, nil, tr.readErr(err)
			}
		}
	}
	body := tr.body[:size]
	crc := crc32.Update(0, tr.table, tr.rec.buf[:tr.rec.n])
	crc = crc32.Update(crc, tr.table, body)
	if crc != binary.LittleEndian.Uint32(tr.body[size:]) {
		return start, nil, badTrace("trace: checksum mismatch in frame %d at byte %d", tr.frame, start)
	}
	return start, body, nil
}

func (tr *TraceReader) readErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return tr.truncated()
	}
	return fmt.Errorf("trace: read frame %d at byte %d: %w", tr.frame, tr.off, err)
}

// Next decodes the next event into e, overwriting every field. e.List is
// borrowed, as on the live stream: it aliases a buffer owned by the reader
// and is valid only until the next call to Next, so copy it to keep it
// (ReadTrace does). Next returns io.EOF only after a valid end frame whose
// event count matches and with nothing after it; any other end is an error.
// After an error, Next keeps returning it.
func (tr *TraceReader) Next(e *Event) error {
	if tr.err != nil {
		return tr.err
	}
	tr.err = tr.next(e)
	return tr.err
}

func (tr *TraceReader) next(e *Event) error {
	start, body, err := tr.readFrame(maxEventBody)
	if err != nil {
		return err
	}
	switch k := body[0]; {
	case k == frameEnd:
		d := traceDec{b: body[1:], ok: true}
		n := d.uvarint()
		if !d.ok || len(d.b) != 0 {
			return badTrace("trace: malformed end frame %d at byte %d", tr.frame, start)
		}
		if n != tr.events {
			return badTrace("trace: event count mismatch: end frame %d at byte %d says %d events, file holds %d",
				tr.frame, start, n, tr.events)
		}
		if _, err := tr.br.ReadByte(); err == nil {
			return badTrace("trace: trailing data after end frame at byte %d", tr.off)
		} else if err != io.EOF {
			return fmt.Errorf("trace: read after end frame at byte %d: %w", tr.off, err)
		}
		return io.EOF
	case k == frameHeader:
		return badTrace("trace: unexpected header frame %d at byte %d", tr.frame, start)
	case k == byte(KindNone) || k >= byte(NumKinds):
		return badTrace("trace: invalid event kind %d in frame %d at byte %d", k, tr.frame, start)
	}
	if msg := tr.decodeEvent(body, e); msg != "" {
		return badTrace("trace: malformed frame %d at byte %d: %s", tr.frame, start, msg)
	}
	tr.frame++
	tr.events++
	return nil
}

// decodeEvent decodes an event body whose kind byte is valid. It returns
// "" or what is wrong (a constant, so the good path does not allocate).
func (tr *TraceReader) decodeEvent(body []byte, e *Event) string {
	*e = Event{Kind: Kind(body[0])}
	d := traceDec{b: body[1:], ok: true}
	mask := d.uvarint()
	if !d.ok {
		return "bad field mask"
	}
	if mask&^traceFAll != 0 {
		return "unknown field bits"
	}
	var zero bool // a field in the mask decoded as zero
	if mask&traceFFlags != 0 {
		v := d.uvarint()
		if v > 0xFF {
			return "flags out of range"
		}
		e.Flags = uint8(v)
		zero = zero || v == 0
	}
	for _, f := range [...]struct {
		bit int
		p   *int32
	}{{traceFCore, &e.Core}, {traceFThread, &e.Thread}, {traceFPC, &e.PC}} {
		if mask&uint64(f.bit) != 0 {
			v := d.varint()
			if int64(int32(v)) != v {
				return "core, thread or PC out of range"
			}
			*f.p = int32(v)
			zero = zero || v == 0
		}
	}
	if mask&traceFCycle != 0 {
		e.Cycle = Cycle(d.uvarint())
		zero = zero || e.Cycle == 0
	}
	if mask&traceFAddr != 0 {
		e.Addr = d.uvarint()
		zero = zero || e.Addr == 0
	}
	if mask&traceFValue != 0 {
		e.Value = d.varint()
		zero = zero || e.Value == 0
	}
	for i := range e.Words {
		if mask&(traceFWord0<<i) != 0 {
			e.Words[i] = d.uvarint()
			zero = zero || e.Words[i] == 0
		}
	}
	if mask&traceFList != 0 {
		n := d.uvarint()
		// Each word takes at least one byte, which bounds the allocation
		// by the frame's size.
		if n == 0 || n > maxTraceList || n > uint64(len(d.b)) {
			return "bad list length"
		}
		if uint64(cap(tr.list)) < n {
			tr.list = make([]uint64, n)
		}
		e.List = tr.list[:n]
		for i := range e.List {
			e.List[i] = d.uvarint()
		}
	}
	switch {
	case !d.ok:
		return "bad varint"
	case zero:
		return "field in mask is zero"
	case len(d.b) != 0:
		return "trailing bytes"
	}
	return ""
}

// traceDec is a cursor over a frame body. A failed read clears ok and
// returns zero; later reads return zero too.
type traceDec struct {
	b  []byte
	ok bool
}

func (d *traceDec) uvarint() uint64 {
	if !d.ok {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.ok = false
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *traceDec) varint() int64 {
	if !d.ok {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.ok = false
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *traceDec) str() string {
	n := d.uvarint()
	if !d.ok || n > maxTraceString || n > uint64(len(d.b)) {
		d.ok = false
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// ReadTrace reads a whole trace. Each returned event owns its List. On an
// error it returns the header (if read) and the events before the bad frame
// with the error.
func ReadTrace(r io.Reader) (TraceHeader, []Event, error) {
	tr, err := NewTraceReader(r)
	if err != nil {
		return TraceHeader{}, nil, err
	}
	var events []Event
	for {
		var e Event
		if err := tr.Next(&e); err != nil {
			if err == io.EOF {
				return tr.hdr, events, nil
			}
			return tr.hdr, events, err
		}
		e.List = slices.Clone(e.List)
		events = append(events, e)
	}
}
