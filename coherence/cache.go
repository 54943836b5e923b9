package coherence

func (s *System) frameBase(c int, line uint64) int {
	return (c*s.sets + int(line&s.setMask)) * s.spec.Assoc
}

// find returns the frame of core c holding line in a valid state, or -1.
func (s *System) find(c int, line uint64) int {
	base := s.frameBase(c, line)
	tags := s.st.tags[base : base+s.spec.Assoc]
	for w, t := range tags {
		if t == line && s.st.states[base+w] != Invalid {
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
	line := addr >> s.lineShift
	st := &s.st
	f := s.find(c, line)
	if f < 0 {
		return -1
	}
	if write && st.states[f] == Shared {
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
		tr := mesiTable[st.states[f]][LocalWrite]
		if !tr.Defined || tr.Actions != 0 {
			// Lookup only returns frames that can take the write now.
			s.undefined(s.eng.Now(), c, st.tags[f], st.states[f], LocalWrite)
			return
		}
		st.states[f] = tr.Next
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
	st.ticks[c]++
	st.lru[f] = st.ticks[c]
}

// Hit is Lookup followed, on a hit, by Commit, in one call: the processor's
// direct path for an access with no check phase. It returns the frame, or
// -1 for a miss (nothing changed).
func (s *System) Hit(c int, addr uint64, write, count bool) int {
	line := addr >> s.lineShift
	st := &s.st
	f := s.find(c, line)
	if f < 0 {
		return -1
	}
	l1 := &st.l1[c]
	if write {
		tr := mesiTable[st.states[f]][LocalWrite]
		if !tr.Defined || tr.Actions != 0 {
			// A write to a Shared line misses (an upgrade).
			return -1
		}
		st.states[f] = tr.Next
		if count {
			l1[StatWrites]++
			l1[StatWriteHits]++
		}
	} else if count {
		l1[StatReads]++
		l1[StatReadHits]++
	}
	st.ticks[c]++
	st.lru[f] = st.ticks[c]
	return f
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
		return s.st.states[f]
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

// MetaWord returns word i of frame's metadata record (Meta(frame)[i]).
func (s *System) MetaWord(frame, i int) uint64 {
	return s.st.meta[frame*s.spec.MetaWords+i]
}
