package coherence

import (
	"fmt"
	"math/bits"
	"strings"

	"weft/core"
)

func (s *System) fail(err error) {
	if s.st.err == nil {
		s.st.err = err
	}
}

func (s *System) record(now core.Cycle, c int, line uint64, before State, ev ProtoEvent, after State) {
	st := &s.st
	h := &st.history[st.historyN%historySize]
	h.cycle = now
	h.word = uint64(before) | uint64(after)<<4 | uint64(ev)<<8 | uint64(c)<<12 | (line-s.memBase>>s.lineShift)<<18
	st.historyN++
}

// frameFound returns core c's frame of line as the grant found it (f, or
// -1 when c did not hold it), checked against the tags; when the check
// fails (the state was restored or changed since), it searches again.
func (s *System) frameFound(c, f int, line uint64) int {
	st := &s.st
	if f < 0 {
		if st.present[line-s.memBase>>s.lineShift]&(1<<uint(c)) == 0 {
			return -1
		}
	} else if base := s.frameBase(c, line); f >= base && f < base+s.spec.Assoc && st.tags[f] == line && st.states[f] != Invalid {
		return f
	}
	return s.find(c, line)
}

// undefined reports an undefined (state, event) pair with the line's
// recent history.
func (s *System) undefined(now core.Cycle, c int, line uint64, state State, ev ProtoEvent) {
	var b strings.Builder
	fmt.Fprintf(&b, "coherence: undefined MESI transition at cycle %d: core[%d].l1 line %#x in %s on %s", now, c, line<<s.lineShift, state, ev)
	st := &s.st
	start := uint64(0)
	if st.historyN > historySize {
		start = st.historyN - historySize
	}
	b.WriteString("; recent history of the line:")
	for i := start; i < st.historyN; i++ {
		h := st.history[i%historySize]
		if h.word>>18 == line-s.memBase>>s.lineShift {
			fmt.Fprintf(&b, " [cycle %d core %d %s-%s->%s]", h.cycle, h.word>>12&63, State(h.word&15), ProtoEvent(h.word>>8&15), State(h.word>>4&15))
		}
	}
	s.fail(fmt.Errorf("%s", b.String()))
}

// victim picks the frame to fill line into in core c's set: an invalid way
// first, else the least recently used.
func (s *System) victim(c int, line uint64) int {
	base := s.frameBase(c, line)
	st := &s.st
	best := -1
	for w := 0; w < s.spec.Assoc; w++ {
		f := base + w
		if st.states[f] == Invalid {
			if best < 0 || st.states[best] != Invalid {
				best = f
			}
			continue
		}
		if best < 0 || (st.states[best] != Invalid && st.lru[f] < st.lru[best]) {
			best = f
		}
	}
	return best
}

// evict removes the valid line in frame f of core c.
func (s *System) evict(now core.Cycle, c int, f int) {
	st := &s.st
	line := st.tags[f]
	tr := Lookup(st.states[f], Evict)
	if !tr.Defined {
		s.undefined(now, c, line, st.states[f], Evict)
		return
	}
	s.record(now, c, line, st.states[f], Evict, tr.Next)
	meta := s.Meta(f)
	for _, i := range s.hooks.evict {
		s.hooks.all[i].OnEvict(c, line, s.region(i, meta))
	}
	if tr.Actions&ActWriteback != 0 {
		s.writeLineToMemory(f, line)
		st.l1[c][StatWritebacks]++
		st.bus[StatBusWriteback]++
		wb := s.xfer(s.spec.LineBytes)
		if s.spec.MetaEvict == MetaWriteback {
			wb = s.xfer(s.spec.LineBytes + s.metaBytes)
			st.bus[StatMetaBytes] += uint64(s.metaBytes)
		}
		s.busWriteback(now, wb)
		s.l2Written(line)
		if s.events.Watching(core.KindWriteback) {
			s.emit(core.KindWriteback, now, c, line<<s.lineShift, 0)
		}
	}
	if s.spec.MetaWords > 0 && s.spec.MetaEvict != MetaLost && !s.otherHolder(c, line) {
		if s.spec.MetaEvict == MetaWriteback && tr.Actions&ActWriteback == 0 && !allZero(meta) {
			s.busWriteback(now, s.xfer(s.metaBytes))
			st.bus[StatMetaBytes] += uint64(s.metaBytes)
		}
		copy(s.memMetaOf(line), meta)
	}
	clear(meta)
	st.l1[c][StatEvictions]++
	if s.events.Watching(core.KindEvict) {
		s.ev = core.Event{Kind: core.KindEvict, Cycle: now, Core: int32(c), Thread: s.tx.Thread, PC: s.tx.PC, Addr: line << s.lineShift}
		s.ev.Words[0] = uint64(st.states[f])
		s.events.Emit(&s.ev)
	}
	st.states[f] = Invalid
	st.tags[f] = noTag
	s.setPresent(c, line, false)
	if cl := s.clients[c]; cl != nil {
		cl.LineLost(now, line)
	}
}

// busWriteback holds the bus for a writeback's transfer of xfer cycles:
// after the transaction in flight on the atomic bus, at the data bus's
// earliest gap on the split one (the writeback buffer drains off the
// critical path).
func (s *System) busWriteback(now core.Cycle, xfer core.Cycle) {
	st := &s.st
	if s.spec.Split {
		s.data().reserve(now, now, xfer)
		s.dataBusyFor(xfer)
		return
	}
	st.bus[StatBusBusyCycles] += uint64(xfer)
	st.busFreeAt += xfer
}

func allZero(m []uint64) bool {
	for _, v := range m {
		if v != 0 {
			return false
		}
	}
	return true
}

func (s *System) otherHolder(c int, line uint64) bool {
	return s.holders(c, line) != 0
}

func (s *System) memMetaOf(line uint64) []uint64 {
	i := int((line<<s.lineShift-s.memBase)>>s.lineShift) * s.spec.MetaWords
	return s.st.memMeta[i : i+s.spec.MetaWords]
}

func (s *System) writeLineToMemory(f int, line uint64) {
	w := int((line<<s.lineShift - s.memBase) >> 3)
	copy(s.st.mem[w:w+s.wordsLine], s.st.data[f<<s.wordShift:(f+1)<<s.wordShift])
}

// emit emits a coherence event of kind k on core c's cache, caused by the
// transaction in flight (its thread and PC).
func (s *System) emit(k core.Kind, now core.Cycle, c int, addr uint64, flags uint8) {
	s.ev = core.Event{Kind: k, Flags: flags, Cycle: now, Core: int32(c), Thread: s.tx.Thread, PC: s.tx.PC, Addr: addr}
	s.events.Emit(&s.ev)
}

// snoopEvent is the protocol event other caches see for a transaction.
func snoopEvent(kind TxnKind) ProtoEvent {
	switch kind {
	case TxnBusRd:
		return SnoopBusRd
	case TxnBusRdX:
		return SnoopBusRdX
	}
	return SnoopBusUpgr
}

// txnStat is the counter of a transaction kind.
func txnStat(kind TxnKind) Stat {
	switch kind {
	case TxnBusRd:
		return StatBusRd
	case TxnBusRdX:
		return StatBusRdX
	}
	return StatBusUpgr
}

// complete performs the transaction r at cycle now: allocate the
// requester's frame, let every holder respond (snoop), fill the line from
// memory when no cache supplied it, install it, then run the fill hooks and
// emit the events. It returns the requester's frame, or -1 after an
// internal error.
func (s *System) complete(now core.Cycle, r request, kind TxnKind, granted core.Cycle) int {
	c := int(r.core)
	line := r.addr >> s.lineShift
	s.tx = Txn{Kind: kind, Core: c, Thread: r.thread, Write: r.write, PC: r.pc, Addr: r.addr, Line: line,
		Supplier: -1, Requested: r.at, Granted: granted, Done: now}
	f := s.allocate(now, c, line, kind)
	if f < 0 {
		return -1
	}
	s.st.bus[txnStat(kind)]++
	s.responders = s.responders[:0]
	sharer := -1
	ev := snoopEvent(kind)
	for h := s.holders(c, line); h != 0; h &= h - 1 {
		of, ok := s.snoop(now, bits.TrailingZeros64(h), f, line, ev)
		if !ok {
			return -1
		}
		if of >= 0 && sharer < 0 {
			sharer = of
		}
	}
	s.tx.Responders = s.responders
	if kind != TxnBusUpgr {
		if s.tx.Supplier >= 0 {
			s.st.l1[c][StatFillsC2C]++
		} else {
			s.fillFromMemory(now, f, line, kind, sharer)
		}
	}
	s.install(now, c, f, line, kind, r.write)
	for _, i := range s.hooks.fill {
		s.hooks.all[i].OnFill(&s.tx, s.region(i, s.Meta(f)), s.scratchOf(i, c))
	}
	s.emitTxn(now, r, kind, granted, line)
	return f
}

// allocate returns the requester's frame for line: the frame it holds the
// line in (an upgrade), or a victim it evicts, with its record cleared.
func (s *System) allocate(now core.Cycle, c int, line uint64, kind TxnKind) int {
	f := s.frameFound(c, int(s.st.curFrame), line)
	if kind == TxnBusUpgr && f < 0 {
		s.fail(fmt.Errorf("coherence: core[%d].l1 lost line %#x during its upgrade", c, line<<s.lineShift))
		return -1
	}
	if f < 0 {
		f = s.victim(c, line)
		if s.st.states[f] != Invalid {
			s.evict(now, c, f)
		}
		clear(s.Meta(f))
	}
	return f
}

// snoop lets core o, which holds line, respond to event ev of the
// requester's transaction (its frame f): look up the table, run the snoop
// hooks, then do the row's actions in order (move metadata, supply,
// write back, invalidate). It returns o's frame when o held the line in S
// before (a sharer whose record a memory-served read may take), else -1;
// ok is false after an internal error.
func (s *System) snoop(now core.Cycle, o, f int, line uint64, ev ProtoEvent) (sharer int, ok bool) {
	st := &s.st
	c := s.tx.Core
	of := s.frameFound(o, int(st.holderFrame[o]), line)
	if of < 0 {
		s.fail(fmt.Errorf("coherence: presence bit of core %d set for line %#x it does not hold", o, line<<s.lineShift))
		return -1, false
	}
	before := st.states[of]
	tr := Lookup(before, ev)
	if !tr.Defined {
		s.undefined(now, o, line, before, ev)
		return -1, false
	}
	s.record(now, o, line, before, ev, tr.Next)
	s.responders = append(s.responders, o)
	resp, req := s.Meta(of), s.Meta(f)
	if len(s.hooks.snoop) != 0 {
		s.sn = Snoop{Responder: o, Event: ev, Before: before, After: tr.Next, Actions: tr.Actions}
		s.snoopHooks(&s.sn, resp, req)
	}
	if tr.Actions&(ActSupply|ActInvalAck) != 0 {
		s.replyMeta(now, o, line, tr.Actions, resp, req)
	}
	if tr.Actions&ActSupply != 0 {
		s.supply(of, f, o)
	}
	if tr.Actions&ActWriteback != 0 {
		s.writeback(o, of, line)
	}
	if s.events.Watching(core.KindSnoop) {
		s.ev = core.Event{Kind: core.KindSnoop, Cycle: now, Core: int32(o), Thread: s.tx.Thread, PC: s.tx.PC, Addr: line << s.lineShift}
		s.ev.Words = [4]uint64{uint64(before), uint64(tr.Next), b2u(tr.Actions&ActSupply != 0), uint64(c)}
		s.events.Emit(&s.ev)
	}
	st.states[of] = tr.Next
	if tr.Next == Invalid {
		s.invalidate(now, o, line, resp)
	}
	if before == Shared {
		return of, true
	}
	return -1, true
}

// snoopHooks runs the snoop hooks that listen to the responder's (state,
// event) pair, each with its own regions of the two records.
func (s *System) snoopHooks(sn *Snoop, resp, req []uint64) {
	on := s.hooks.snoopOn[sn.Before][sn.Event]
	for bit, i := range s.hooks.snoop {
		if on&(1<<uint(bit)) != 0 {
			s.hooks.all[i].OnSnoop(&s.tx, sn, s.region(i, resp), s.region(i, req), s.scratchOf(i, s.tx.Core))
		}
	}
}

// replyMeta is the metadata part of a read reply or an invalidation ack:
// the responder's record rides to the requester, paying its bus bytes.
func (s *System) replyMeta(now core.Cycle, o int, line uint64, acts Action, resp, req []uint64) {
	s.moveMeta(req, resp)
	if s.spec.MetaWords == 0 {
		return
	}
	s.st.bus[StatMetaBytes] += uint64(s.metaBytes)
	via := MetaViaReadReply
	if acts&ActSupply == 0 {
		via = MetaViaInvalAck
	}
	s.piggyback(now, s.tx.Core, o, line, via)
}

// supply copies the line's data from responder o's frame of to the
// requester's frame f (ActSupply).
func (s *System) supply(of, f, o int) {
	st := &s.st
	copy(st.data[f<<s.wordShift:(f+1)<<s.wordShift], st.data[of<<s.wordShift:(of+1)<<s.wordShift])
	s.tx.Supplier = o
}

// writeback copies a responder's line back to memory (ActWriteback).
func (s *System) writeback(o, of int, line uint64) {
	s.writeLineToMemory(of, line)
	s.st.l1[o][StatWritebacks]++
	s.l2Written(line)
}

// invalidate finishes a responder's move to Invalid: it no longer holds the
// line, its next miss on it is a coherence miss, its record is cleared and
// its core hears of the loss.
func (s *System) invalidate(now core.Cycle, o int, line uint64, resp []uint64) {
	st := &s.st
	s.setPresent(o, line, false)
	st.lostInval[line-s.memBase>>s.lineShift] |= 1 << uint(o)
	clear(resp)
	st.l1[o][StatInvalidations]++
	if cl := s.clients[o]; cl != nil {
		cl.LineLost(now, line)
	}
}

// fillFromMemory fills the requester's frame f from memory, with the
// metadata the policy gives a memory-served fill: a sharer's record (sharer
// is its frame, or -1) or memory's.
func (s *System) fillFromMemory(now core.Cycle, f int, line uint64, kind TxnKind, sharer int) {
	st := &s.st
	c := s.tx.Core
	st.l1[c][StatFillsMemory]++
	w := int((line<<s.lineShift - s.memBase) >> 3)
	copy(st.data[f<<s.wordShift:(f+1)<<s.wordShift], st.mem[w:w+s.wordsLine])
	if s.spec.MetaWords == 0 {
		return
	}
	switch {
	case kind == TxnBusRd && sharer >= 0 && (s.spec.SharerMetaOnMemRead || s.spec.MetaEvict == MetaIdeal):
		// Memory's record is refreshed only on eviction, so while sharers
		// exist theirs is the current one.
		s.moveMeta(s.Meta(f), s.Meta(sharer))
		if s.spec.MetaEvict != MetaIdeal {
			st.bus[StatMetaBytes] += uint64(s.metaBytes)
		}
		s.piggyback(now, c, sharer/(s.sets*s.spec.Assoc), line, MetaViaSharer)
	case s.spec.MetaEvict != MetaLost && len(s.responders) == 0:
		copy(s.Meta(f), s.memMetaOf(line))
		if s.spec.MetaEvict == MetaWriteback {
			st.bus[StatMetaBytes] += uint64(s.metaBytes)
		}
		s.piggyback(now, c, -1, line, MetaViaMemory)
	}
}

// install puts line into the requester's frame f in the state the table
// gives its local read or write: for a read, S when other caches responded
// and E when none did (the table's NextAlone).
func (s *System) install(now core.Cycle, c, f int, line uint64, kind TxnKind, write bool) {
	st := &s.st
	before := Invalid
	if kind == TxnBusUpgr {
		before = Shared
	}
	local := LocalRead
	if write {
		local = LocalWrite
	}
	tr := Lookup(before, local)
	next := tr.Next
	switch {
	case s.spec.Split && tr.Pending != Invalid:
		next = tr.Pending
	case len(s.responders) == 0 && tr.NextAlone != Invalid:
		next = tr.NextAlone
	}
	s.record(now, c, line, before, local, next)
	st.tags[f] = line
	st.states[f] = next
	s.setPresent(c, line, true)
	st.lostInval[line-s.memBase>>s.lineShift] &^= 1 << uint(c)
	st.ticks[c]++
	st.lru[f] = st.ticks[c]
}

// emitTxn emits the transaction's bus event and, for a data transfer, the
// Fill event.
func (s *System) emitTxn(now core.Cycle, r request, kind TxnKind, granted core.Cycle, line uint64) {
	c := int(r.core)
	supplied := s.tx.Supplier >= 0
	if k := core.KindBusRd + core.Kind(kind-TxnBusRd); s.events.Watching(k) {
		var fl uint8
		if supplied {
			fl = core.FlagC2C
		}
		s.ev = core.Event{Kind: k, Flags: fl, Cycle: now, Core: int32(c), Thread: r.thread, PC: r.pc, Addr: line << s.lineShift}
		s.ev.Words = [4]uint64{uint64(granted), uint64(r.at), uint64(len(s.responders)), 0}
		s.list = s.list[:0]
		for _, o := range s.responders {
			s.list = append(s.list, uint64(o))
		}
		s.ev.List = s.list
		s.events.Emit(&s.ev)
	}
	if kind != TxnBusUpgr && !s.spec.Split && s.events.Watching(core.KindFill) {
		var fl uint8
		var sup uint64
		if supplied {
			fl = core.FlagC2C
			sup = uint64(s.tx.Supplier)
		}
		s.ev = core.Event{Kind: core.KindFill, Flags: fl, Cycle: now, Core: int32(c), Thread: r.thread, PC: r.pc, Addr: line << s.lineShift}
		s.ev.Words[0] = sup
		s.events.Emit(&s.ev)
	}
}

// issueHooks runs the issue hooks for request r (the MSHR is filled).
func (s *System) issueHooks(r request, line uint64) {
	c := int(r.core)
	s.tx = Txn{Core: c, Thread: r.thread, Write: r.write, PC: r.pc, Addr: r.addr, Line: line, Requested: r.at, Supplier: -1}
	for _, i := range s.hooks.issue {
		s.hooks.all[i].OnIssue(&s.tx, s.scratchOf(i, c))
	}
}

// How a metadata record reached a requester (Words[2] of MetaPiggyback).
const (
	MetaViaReadReply = iota
	MetaViaInvalAck
	MetaViaSharer
	MetaViaMemory
)

// piggyback emits a MetaPiggyback event: line's record moved from core
// from (-1: memory) to core to. Words: [from, payload bytes, via].
func (s *System) piggyback(now core.Cycle, to, from int, line uint64, via int) {
	if !s.events.Watching(core.KindMetaPiggyback) {
		return
	}
	s.ev = core.Event{Kind: core.KindMetaPiggyback, Cycle: now, Core: int32(to), Thread: s.tx.Thread, PC: s.tx.PC, Addr: line << s.lineShift}
	s.ev.Words = [4]uint64{uint64(int64(from)), uint64(s.metaBytes), uint64(via), 0}
	s.events.Emit(&s.ev)
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
