package coherence

import (
	"fmt"
	"math/bits"

	"weft/core"
)

// The split-transaction bus (Spec.Split).
//
// A miss asks for the address bus; its grant starts the request and snoop
// phase, which holds the address bus for SnoopCycles and ends at the
// transaction's order point (an engine event): there the protocol acts at
// once, as the atomic bus does at its completion (the holders snoop and
// change state, the data is copied from the supplier or memory, the
// requester's frame is allocated), except that the requester's line
// enters the row's transient state (IS_D, IM_D). The data then comes
// after the supplier's latency (C2CCycles, or the L2's and memory's) and
// holds the data bus, or the one bus, only for its transfer; at its
// arrival (a second event) the line leaves the transient state and the
// core's access goes on. An upgrade carries no data: it ends at its order
// point, or after its invalidation acks' metadata crosses the data bus.
//
// Every later request for a line with a transaction in flight waits, in
// FIFO order, until that transaction's data arrives; requests for other
// lines are granted meanwhile, so different cores' misses overlap. The
// order points follow the grants, and the protocol acts only there, so
// the memory system stays sequentially consistent with blocking in-order
// cores: the data a requester receives is the line as it was at its order
// point, and nobody can write the line before the data arrives.

// flight is one core's split-bus transaction from its grant to its data's
// arrival.
type flight struct {
	r        request
	kind     TxnKind
	active   bool
	alone    bool // no other cache held the line at the order point
	granted  core.Cycle
	frame    int32
	supplier int32
	line     uint64
}

// interval is one reservation [start, end) of a bus.
type interval struct{ start, end core.Cycle }

// timeline holds a bus's reservations, sorted and disjoint. A transfer
// takes the earliest gap at or after the cycle it is ready.
type timeline struct{ iv []interval }

// reserve books length cycles at the earliest gap starting at or after
// earliest and returns the start; reservations that ended by now are
// dropped first. A zero length books nothing.
func (t *timeline) reserve(now, earliest, length core.Cycle) core.Cycle {
	drop := 0
	for drop < len(t.iv) && t.iv[drop].end <= now {
		drop++
	}
	if drop > 0 {
		t.iv = append(t.iv[:0], t.iv[drop:]...)
	}
	if length == 0 {
		return earliest
	}
	at, i := earliest, 0
	for ; i < len(t.iv); i++ {
		iv := t.iv[i]
		if iv.end <= at {
			continue
		}
		if iv.start >= at+length {
			break
		}
		at = iv.end
	}
	t.iv = append(t.iv, interval{})
	copy(t.iv[i+1:], t.iv[i:])
	t.iv[i] = interval{at, at + length}
	return at
}

func (t *timeline) copyFrom(src *timeline) { t.iv = append(t.iv[:0], src.iv...) }

// data returns the timeline of the data transfers: the data bus's, or
// the one bus's.
func (s *System) data() *timeline {
	if s.spec.SeparateDataBus {
		return &s.st.dataBus
	}
	return &s.st.addrBus
}

// inFlight reports whether line has a split-bus transaction in flight.
func (s *System) inFlight(line uint64) bool {
	for i := range s.st.flights {
		if fl := &s.st.flights[i]; fl.active && fl.line == line {
			return true
		}
	}
	return false
}

// splitRequest grants r now, or queues it behind the transaction in flight
// for its line.
func (s *System) splitRequest(r request, line uint64) {
	if s.inFlight(line) {
		s.st.queue = append(s.st.queue, r)
		return
	}
	s.splitGrant(r, line, r.at+s.spec.ArbCycles)
}

// splitGrant books r's request and snoop phase on the address bus at the
// earliest gap from ready and schedules its order point.
func (s *System) splitGrant(r request, line uint64, ready core.Cycle) {
	st := &s.st
	g := st.addrBus.reserve(s.eng.Now(), ready, s.spec.SnoopCycles)
	if want := r.at + s.spec.ArbCycles; g > want {
		st.bus[StatBusQueueCycles] += uint64(g - want)
	}
	st.bus[StatBusBusyCycles] += uint64(s.spec.SnoopCycles)
	st.flights[r.core] = flight{r: r, active: true, granted: g, frame: -1, supplier: -1, line: line}
	s.eng.Schedule(g+s.spec.SnoopCycles, s.target, opOrder, uint64(r.core))
}

// order is core c's transaction's order point: the protocol acts, the
// requester's line enters its transient state and the data is booked on
// the data bus.
func (s *System) order(now core.Cycle, c int) {
	st := &s.st
	fl := &st.flights[c]
	if !fl.active {
		s.fail(fmt.Errorf("coherence: order point of core %d with no transaction in flight", c))
		return
	}
	r := fl.r
	kind, ok := s.missKind(c, fl.line, r.write)
	if !ok {
		return
	}
	owner, sharers := s.scanHolders(c, fl.line)
	wait, bytes := s.dataPhase(kind, fl.line, owner, sharers)
	st.cur, st.curKind, st.curGranted = r, kind, fl.granted
	f := s.complete(now, r, kind, fl.granted)
	if f < 0 {
		return
	}
	fl.kind, fl.frame, fl.alone, fl.supplier = kind, int32(f), len(s.responders) == 0, int32(s.tx.Supplier)
	xfer := s.xfer(bytes)
	if xfer == 0 {
		s.arrive(now, c)
		return
	}
	start := s.data().reserve(now, now+wait, xfer)
	s.dataBusyFor(xfer)
	s.eng.Schedule(start+xfer, s.target, opArrive, uint64(c))
}

// arrive delivers core c's data: the line leaves its transient state
// (DataResp), the next request waiting for the line is granted, and the
// core's access goes on.
func (s *System) arrive(now core.Cycle, c int) {
	st := &s.st
	fl := &st.flights[c]
	f := int(fl.frame)
	if !fl.active || f < 0 || st.tags[f] != fl.line {
		s.fail(fmt.Errorf("coherence: data for core %d arrived with no line waiting for it", c))
		return
	}
	if before := st.states[f]; before == ISD || before == IMD {
		tr := Lookup(before, DataResp)
		if !tr.Defined {
			s.undefined(now, c, fl.line, before, DataResp)
			return
		}
		next := tr.Next
		if fl.alone && tr.NextAlone != Invalid {
			next = tr.NextAlone
		}
		s.record(now, c, fl.line, before, DataResp, next)
		st.states[f] = next
	}
	if fl.kind != TxnBusUpgr && s.events.Watching(core.KindFill) {
		var fl8 uint8
		var sup uint64
		if fl.supplier >= 0 {
			fl8, sup = core.FlagC2C, uint64(fl.supplier)
		}
		s.ev = core.Event{Kind: core.KindFill, Flags: fl8, Cycle: now, Core: int32(c), Thread: fl.r.thread, PC: fl.r.pc, Addr: fl.line << s.lineShift}
		s.ev.Words[0] = sup
		s.events.Emit(&s.ev)
	}
	fl.active = false
	s.grantWaiting(now, fl.line)
	if cl := s.clients[c]; cl != nil {
		cl.TxnDone(now, f)
	}
}

// dataBusyFor counts xfer cycles of data transfer: the data bus's, or the
// one bus's.
func (s *System) dataBusyFor(xfer core.Cycle) {
	if s.spec.SeparateDataBus {
		s.st.dataBusy += uint64(xfer)
		return
	}
	s.st.bus[StatBusBusyCycles] += uint64(xfer)
}

// grantWaiting grants the oldest queued request for line, if any.
func (s *System) grantWaiting(now core.Cycle, line uint64) {
	st := &s.st
	for i, r := range st.queue {
		if r.addr>>s.lineShift != line {
			continue
		}
		copy(st.queue[i:], st.queue[i+1:])
		st.queue = st.queue[:len(st.queue)-1]
		s.splitGrant(r, line, max(r.at, now)+s.spec.ArbCycles)
		return
	}
}

// scanHolders finds the other cores holding line for core c's
// transaction (remembering their frames for the completion) and reports
// whether one owns it (E or M) and how many hold it.
func (s *System) scanHolders(c int, line uint64) (owner bool, sharers int) {
	st := &s.st
	for h := s.holders(c, line); h != 0; h &= h - 1 {
		o := bits.TrailingZeros64(h)
		f := s.find(o, line)
		st.holderFrame[o] = int32(f)
		if f >= 0 {
			sharers++
			if st.states[f] == Exclusive || st.states[f] == Modified {
				owner = true
			}
		}
	}
	return owner, sharers
}

// dataPhase returns a transaction's data phase: the cycles before its
// data can move (the owner's supply time, or the L2's and memory's; 0
// for an upgrade) and the bytes it moves (the line and the metadata
// records the completion moves, as it moves them).
func (s *System) dataPhase(kind TxnKind, line uint64, owner bool, sharers int) (wait core.Cycle, bytes int) {
	switch kind {
	case TxnBusRd, TxnBusRdX:
		bytes = s.spec.LineBytes
		if owner {
			return s.spec.C2CCycles, bytes + s.metaBytes
		}
		wait = s.memoryLatency(line)
		// The records fillFromMemory moves: a sharer's on a read (free in
		// the ideal store), memory's when no cache holds the line
		// (written-back records only), and one per invalidated sharer on a
		// read for ownership.
		switch {
		case kind == TxnBusRd && sharers > 0 && s.spec.SharerMetaOnMemRead && s.spec.MetaEvict != MetaIdeal:
			bytes += s.metaBytes
		case sharers == 0 && s.spec.MetaEvict == MetaWriteback:
			bytes += s.metaBytes
		}
		if kind == TxnBusRdX {
			bytes += sharers * s.metaBytes
		}
	case TxnBusUpgr:
		if s.metaBytes > 0 && sharers > 0 {
			bytes = sharers * s.metaBytes
		}
	}
	return wait, bytes
}
