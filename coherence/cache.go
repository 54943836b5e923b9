package coherence

func (s *System) frameBase(c int, line uint64) int {
	return (c*s.sets + int(line&s.setMask)) * s.spec.Assoc
}

// A frame word packs one frame's tag, state and LRU stamp, so that a hit
// reads and writes one host cache line for all three (and one for the
// data): bits 0–31 hold the line number (tagNone when the frame is
// invalid), bits 32–33 the MESI state and bits 34–63 the LRU stamp.
const (
	tagMask    = 1<<32 - 1
	tagNone    = tagMask
	stateShift = 32
	stampShift = 34
	// keyMask is a frame word's tag and state.
	keyMask = 1<<stampShift - 1
	// stampLimit bounds the LRU stamps: a core whose tick reaches it has
	// its stamps renumbered in order (restamp).
	stampLimit = 1 << (64 - stampShift)
	// MaxLines bounds memory: its lines are numbered below MaxLines, so
	// that a line number fits a frame word's tag.
	MaxLines = tagNone
)

func frameState(x uint64) State { return State(x >> stateShift & 3) }

// stateOf returns the state of frame f.
func (s *System) stateOf(f int) State { return frameState(s.st.frames[f]) }

// tagOf returns the line in frame f, which must be valid.
func (s *System) tagOf(f int) uint64 { return s.st.frames[f] & tagMask }

// setFrame makes frame f hold line in state st (keeping its stamp), or
// marks it invalid when st is Invalid.
func (s *System) setFrame(f int, line uint64, st State) {
	key := line | uint64(st)<<stateShift
	if st == Invalid {
		key = tagNone
	}
	s.st.frames[f] = s.st.frames[f]&^keyMask | key
}

// setState changes the state of valid frame f.
func (s *System) setState(f int, st State) { s.setFrame(f, s.tagOf(f), st) }

// touch makes frame f of core c its most recently used.
func (s *System) touch(c, f int) {
	t := s.st.ticks[c] + 1
	if t == stampLimit {
		t = s.restamp(c)
	}
	s.st.ticks[c] = t
	s.st.frames[f] = s.st.frames[f]&keyMask | t<<stampShift
}

// restamp renumbers the stamps of core c's valid frames 1, 2, … within
// each set, in their order, so that victims are chosen as before, and
// returns the next tick. It runs once per stampLimit accesses of a core.
func (s *System) restamp(c int) uint64 {
	a := s.spec.Assoc
	fr := s.st.frames
	for set := 0; set < s.sets; set++ {
		base := (c*s.sets + set) * a
		// A selection of the ways by stamp: sets are small and this is rare.
		for rank, last := uint64(1), uint64(0); ; rank++ {
			next := -1
			for f := base; f < base+a; f++ {
				x := fr[f]
				if frameState(x) != Invalid && x>>stampShift > last && (next < 0 || x>>stampShift < fr[next]>>stampShift) {
					next = f
				}
			}
			if next < 0 {
				break
			}
			last = fr[next] >> stampShift
			fr[next] = fr[next]&keyMask | rank<<stampShift
		}
	}
	return uint64(a) + 1
}

// find returns the frame of core c holding line in a valid state, or -1.
func (s *System) find(c int, line uint64) int {
	base := s.frameBase(c, line)
	for w, x := range s.st.frames[base : base+s.spec.Assoc] {
		if x&tagMask == line {
			return base + w
		}
	}
	return -1
}

// Lookup returns the frame of core c's L1 that can serve an access to addr
// now (a read needs a valid copy, a write needs E or M), or -1 for a miss.
// It changes nothing: the access is counted and the line touched by Commit
// once the check phase lets the access proceed.
func (s *System) Lookup(c int, addr uint64, write bool) int {
	f := s.find(c, addr>>s.lineShift)
	if f < 0 {
		return -1
	}
	if write && s.stateOf(f) == Shared {
		return -1
	}
	return f
}

// Commit performs the cache side of a hit found by Lookup: a write in E
// moves the line to M silently, the line becomes most recently used, and,
// when count is set, the access is counted (an access retried after a
// stall is counted once).
func (s *System) Commit(c int, f int, write, count bool) {
	st := &s.st
	if write {
		tr := mesiTable[s.stateOf(f)][LocalWrite]
		if !tr.Defined || tr.Actions != 0 {
			// Lookup only returns frames that can take the write now.
			s.undefined(s.eng.Now(), c, s.tagOf(f), s.stateOf(f), LocalWrite)
			return
		}
		s.setState(f, tr.Next)
	}
	if count {
		if write {
			st.l1[c][StatWrites]++
			st.l1[c][StatWriteHits]++
		} else {
			st.l1[c][StatReads]++
			st.l1[c][StatReadHits]++
		}
	}
	s.touch(c, f)
}

// Hit is Lookup followed, on a hit, by Commit, in one call: the processor's
// direct path for an access with no check phase. It returns the frame, or
// -1 for a miss (nothing changed).
func (s *System) Hit(c int, addr uint64, write, count bool) int {
	line := addr >> s.lineShift
	st := &s.st
	base := s.frameBase(c, line)
	for w, x := range st.frames[base : base+s.spec.Assoc] {
		if x&tagMask != line {
			continue
		}
		f := base + w
		l1 := &st.l1[c]
		if write {
			tr := mesiTable[frameState(x)][LocalWrite]
			if !tr.Defined || tr.Actions != 0 {
				// A write to a Shared line misses (an upgrade).
				return -1
			}
			x = x&^(3<<stateShift) | uint64(tr.Next)<<stateShift
			if count {
				l1[StatWrites]++
				l1[StatWriteHits]++
			}
		} else if count {
			l1[StatReads]++
			l1[StatReadHits]++
		}
		t := st.ticks[c] + 1
		if t == stampLimit {
			t = s.restamp(c)
		}
		st.ticks[c] = t
		st.frames[f] = x&keyMask | t<<stampShift
		return f
	}
	return -1
}

// Probe is Lookup followed, on a hit, by a counted Commit: for callers with
// no check phase.
func (s *System) Probe(c int, addr uint64, write bool) int {
	f := s.Lookup(c, addr, write)
	if f >= 0 {
		s.Commit(c, f, write, true)
	}
	return f
}

// Holds reports the state of line in core c's L1.
func (s *System) Holds(c int, line uint64) State {
	if f := s.find(c, line); f >= 0 {
		return s.stateOf(f)
	}
	return Invalid
}

// ReadWord returns the word at addr from the line in frame.
func (s *System) ReadWord(frame int, addr uint64) int64 {
	return s.st.data[frame<<s.wordShift+int(addr>>3)&(s.wordsLine-1)]
}

// WriteWord stores v at addr in the line in frame, which must be in M.
func (s *System) WriteWord(frame int, addr uint64, v int64) {
	s.st.data[frame<<s.wordShift+int(addr>>3)&(s.wordsLine-1)] = v
}

// Meta returns the metadata record of the line in frame (nil when the
// system has no metadata).
func (s *System) Meta(frame int) []uint64 {
	n := s.spec.MetaWords
	return s.st.meta[frame*n : frame*n+n : frame*n+n]
}
