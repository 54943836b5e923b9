package coherence

import "fmt"

// Snoop describes one responding cache's part in a transaction, as the
// MESI table decided it.
type Snoop struct {
	// Responder is the responding core.
	Responder int
	// Event is the snooped transaction as a protocol event.
	Event ProtoEvent
	// Before and After are the responder's line state around the event.
	Before, After State
	// Actions are the table's actions for (Before, Event).
	Actions Action
}

// StateEvent is one (state, event) pair of the protocol table.
type StateEvent struct {
	// State is the line's state before the event.
	State State
	// Event is the protocol event.
	Event ProtoEvent
}

// Hooks are one hardware extension's callbacks on the protocol's phases.
// Every callback sees only the extension's own region of a line's record
// and its own per-miss scratch slot; a nil callback costs nothing.
type Hooks struct {
	// Region is the index of the extension's region in Spec.Layout.
	Region int
	// OwnsMove says the extension moves its own record on snoops (in
	// OnSnoop). Otherwise read replies and invalidation acks copy the
	// responder's region into the requester's, and a memory-served read
	// may take a sharer's (Spec.SharerMetaOnMemRead).
	OwnsMove bool
	// OnIssue runs when a miss is queued for the bus (the MSHR is filled):
	// tx.Kind is TxnNone and the times after Requested are zero.
	OnIssue func(tx *Txn, scratch *uint64)
	// OnSnoop runs once per responding cache, before its state changes,
	// with the responder's region (resp) and the requester's
	// region-to-be (req).
	OnSnoop func(tx *Txn, sn *Snoop, resp, req []uint64, scratch *uint64)
	// SnoopOn, when not empty, limits OnSnoop to these (state, event)
	// pairs of the responder.
	SnoopOn []StateEvent
	// OnFill runs after the requester's line is filled (or upgraded), with
	// its region of the record.
	OnFill func(tx *Txn, meta []uint64, scratch *uint64)
	// OnEvict runs before an evicted line's record is dropped or written
	// back.
	OnEvict func(c int, line uint64, meta []uint64)
}

// hookLists are the attached extensions' callbacks, one list per phase, so
// a phase nobody listens to costs one length check.
type hookLists struct {
	all   []Hooks
	issue []int
	snoop []int
	fill  []int
	evict []int
	// snoopOn[state][event] has bit i set when snoop hook i listens to
	// the pair.
	snoopOn [numStates][numProtoEvents]uint64
	// ownsMove is set when some extension moves its own record.
	ownsMove bool
}

// Attach registers an extension's protocol hooks. Attach every extension
// before the run starts.
func (s *System) Attach(h Hooks) error {
	regions := s.spec.Layout.Regions
	if h.Region < 0 || h.Region >= len(regions) {
		return fmt.Errorf("coherence: hooks for metadata region %d; the layout has %d", h.Region, len(regions))
	}
	for _, o := range s.hooks.all {
		if o.Region == h.Region {
			return fmt.Errorf("coherence: region %d (%s) has hooks already", h.Region, regions[h.Region].Owner)
		}
	}
	if len(s.hooks.snoop) >= 64 {
		return fmt.Errorf("coherence: more than 64 snoop hooks")
	}
	i := len(s.hooks.all)
	s.hooks.all = append(s.hooks.all, h)
	if h.OnIssue != nil {
		s.hooks.issue = append(s.hooks.issue, i)
	}
	if h.OnSnoop != nil {
		bit := uint64(1) << len(s.hooks.snoop)
		s.hooks.snoop = append(s.hooks.snoop, i)
		for st := range numStates {
			for ev := range numProtoEvents {
				if len(h.SnoopOn) == 0 {
					s.hooks.snoopOn[st][ev] |= bit
				}
			}
		}
		for _, p := range h.SnoopOn {
			if p.State >= numStates || p.Event >= numProtoEvents {
				return fmt.Errorf("coherence: snoop hook on (%s, %s), which is not a table pair", p.State, p.Event)
			}
			s.hooks.snoopOn[p.State][p.Event] |= bit
		}
	}
	if h.OnFill != nil {
		s.hooks.fill = append(s.hooks.fill, i)
	}
	if h.OnEvict != nil {
		s.hooks.evict = append(s.hooks.evict, i)
	}
	if h.OwnsMove {
		s.hooks.ownsMove = true
	}
	if need := s.spec.Cores * len(regions); len(s.st.scratch) < need {
		s.st.scratch = make([]uint64, need)
	}
	return nil
}

// region returns hook i's region of the record rec.
func (s *System) region(i int, rec []uint64) []uint64 {
	r := &s.spec.Layout.Regions[s.hooks.all[i].Region]
	return r.Of(rec)
}

// scratchOf returns hook i's per-miss slot for core c.
func (s *System) scratchOf(i, c int) *uint64 {
	return &s.st.scratch[c*len(s.spec.Layout.Regions)+s.hooks.all[i].Region]
}

// moveMeta is the default metadata move of a read reply, an invalidation
// ack or a sharer's record: copy the responder's record into the
// requester's, except the regions whose extension moves its own.
func (s *System) moveMeta(dst, src []uint64) {
	if !s.hooks.ownsMove {
		copy(dst, src)
		return
	}
	regions := s.spec.Layout.Regions
	owned := uint64(0)
	for _, h := range s.hooks.all {
		if h.OwnsMove {
			owned |= 1 << uint(h.Region)
		}
	}
	for i := range regions {
		if owned&(1<<uint(i)) == 0 {
			r := &regions[i]
			copy(r.Of(dst), r.Of(src))
		}
	}
}
