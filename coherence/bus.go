package coherence

import (
	"fmt"

	"weft/core"
)

// Request queues a miss of core c on addr (a write when write is set) at
// cycle at. When the transaction completes, the core's client gets TxnDone.
// pc is the missing instruction, kept with the request (the MSHR).
//
// The miss counts as an access unless the caller has counted this access
// already (a retry after a stall); Probe's callers pass count = true.
func (s *System) Request(c int, addr uint64, write bool, pc int32, at core.Cycle) {
	s.RequestCounted(c, -1, addr, write, pc, at, true)
}

// RequestCounted is Request for thread's access, counted only when count is
// set.
func (s *System) RequestCounted(c int, thread int32, addr uint64, write bool, pc int32, at core.Cycle, count bool) {
	st := &s.st
	line := addr >> s.lineShift
	f := s.find(c, line)
	if count {
		if write {
			st.l1[c][StatWrites]++
		} else {
			st.l1[c][StatReads]++
		}
	}
	if write {
		if f >= 0 {
			st.l1[c][StatUpgradeMisses]++
		} else {
			st.l1[c][StatWriteMisses]++
		}
	} else {
		st.l1[c][StatReadMisses]++
	}
	if f < 0 && st.lostInval[line-s.memBase>>s.lineShift]&(1<<uint(c)) != 0 {
		st.l1[c][StatCoherenceMisses]++
	}
	r := request{core: int32(c), thread: thread, write: write, pc: pc, addr: addr, at: at}
	if len(s.hooks.issue) != 0 {
		s.issueHooks(r, line)
	}
	if s.spec.Split {
		s.splitRequest(r, line)
		return
	}
	if !st.busy {
		s.grant(r, at+s.spec.ArbCycles)
		return
	}
	st.queue = append(st.queue, r)
}

func (s *System) xfer(bytes int) core.Cycle {
	return core.Cycle((bytes + s.spec.BusWidth - 1) / s.spec.BusWidth)
}

// missKind reads from the MESI table which transaction core c's access to
// line needs: the action of (its current state, LocalRead/LocalWrite). It
// reports false (after recording an internal error) when the table has no
// bus action for the pair, i.e. the access was not a miss.
func (s *System) missKind(c int, line uint64, write bool) (TxnKind, bool) {
	state, ev := Invalid, LocalRead
	f := s.find(c, line)
	s.st.curFrame = int32(f)
	if f >= 0 {
		state = s.st.states[f]
	}
	if write {
		ev = LocalWrite
	}
	tr := Lookup(state, ev)
	switch {
	case tr.Actions&ActBusRd != 0:
		return TxnBusRd, true
	case tr.Actions&ActBusRdX != 0:
		return TxnBusRdX, true
	case tr.Actions&ActBusUpgr != 0:
		return TxnBusUpgr, true
	}
	s.undefined(s.eng.Now(), c, line, state, ev)
	return TxnNone, false
}

// grant starts transaction r on the bus at cycle g.
func (s *System) grant(r request, g core.Cycle) {
	st := &s.st
	if g < st.busFreeAt {
		g = st.busFreeAt
	}
	if ready := r.at + s.spec.ArbCycles; g > ready {
		st.bus[StatBusQueueCycles] += uint64(g - ready)
	}
	c := int(r.core)
	line := r.addr >> s.lineShift
	kind, ok := s.missKind(c, line, r.write)
	if !ok {
		return
	}
	owner, sharers := s.scanHolders(c, line)
	wait, bytes := s.dataPhase(kind, line, owner, sharers)
	lat := s.spec.SnoopCycles + wait + s.xfer(bytes)
	done := g + lat
	st.busy = true
	st.cur = r
	st.curKind = kind
	st.curGranted = g
	st.busFreeAt = done
	st.bus[StatBusBusyCycles] += uint64(lat)
	s.eng.Schedule(done, s.target, opComplete, 0)
}

// Handle completes the transaction in flight (the engine calls it).
func (s *System) Handle(now core.Cycle, op int32, arg uint64) {
	switch op {
	case opComplete:
	case opOrder:
		s.order(now, int(arg))
		return
	case opArrive:
		s.arrive(now, int(arg))
		return
	default:
		s.fail(fmt.Errorf("coherence: unknown bus event op %d", op))
		return
	}
	st := &s.st
	r := st.cur
	frame := s.complete(now, r, st.curKind, st.curGranted)
	st.busy = false
	if len(st.queue) > 0 {
		next := st.queue[0]
		copy(st.queue, st.queue[1:])
		st.queue = st.queue[:len(st.queue)-1]
		g := next.at + s.spec.ArbCycles
		if g < now {
			g = now
		}
		s.grant(next, g)
	}
	if frame >= 0 {
		s.clients[r.core].TxnDone(now, frame)
	}
}
