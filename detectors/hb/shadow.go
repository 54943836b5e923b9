package hb

// The FastTrack shadow of a word keeps, for each set of access classes
// that some class conflicts with, the maximal accesses of that set so far
// (an antichain under happens-before: no member happens before another).
// The maximal members of P (see the package comment) are exactly the
// members of the right antichain that do not happen before the current
// access. A new access joins an antichain by evicting the members that
// happen before it.
//
// While a word has seen no atomic access and its writes and its accesses
// are each totally ordered (no race so far and no concurrent readers), the
// four antichains collapse to two single epochs, the last write and the
// last access, and an access costs one or two epoch comparisons. The word
// moves to the general form (ext) the first time that stops holding, and
// stays there.

// The conflict sets, indexes into ext.sets.
const (
	setW   = iota // plain writes
	setWA         // plain writes and atomic writes
	setRW         // plain reads and writes
	setAll        // every access
	numSets
)

// checkSet[k] is the set an access of class k races with.
var checkSet = [numClasses]uint8{
	clRead:       setWA,
	clWrite:      setAll,
	clAtomic:     setRW,
	clAtomicRead: setW,
}

// inSets[k] is the bit mask of the sets an access of class k belongs to.
var inSets = [numClasses]uint8{
	clRead:       1<<setRW | 1<<setAll,
	clWrite:      1<<setW | 1<<setWA | 1<<setRW | 1<<setAll,
	clAtomic:     1<<setWA | 1<<setAll,
	clAtomicRead: 1 << setAll,
}

// word is the FastTrack shadow of one data word.
type word struct {
	// w and all are the last write and the last access while x is nil (the
	// zero epoch: none yet); wpc and allpc are their PCs.
	w, all     epoch
	wpc, allpc int32
	// x is the general form, nil until the word needs it.
	x *ext
}

// entry is one access in an antichain.
type entry struct {
	e  epoch
	pc int32
}

// antichain is a set of pairwise unordered accesses, at most one per
// thread.
type antichain []entry

// ext is the general form of a word's shadow.
type ext struct {
	sets [numSets]antichain
	// sync is the word's release clock for atomic read-modify-writes.
	sync vclock
	// inline backs the antichains until one holds more than two accesses,
	// so a word's move to the general form is one allocation.
	inline [numSets][2]entry
}

// ext returns the word's general form, creating it from the epochs.
func (s *word) ext() *ext {
	if s.x == nil {
		x := &ext{}
		for i := range x.sets {
			x.sets[i] = x.inline[i][:0]
		}
		if s.w != 0 {
			x.sets[setW] = append(x.sets[setW], entry{s.w, s.wpc})
			x.sets[setWA] = append(x.sets[setWA], entry{s.w, s.wpc})
		}
		if s.all != 0 {
			x.sets[setRW] = append(x.sets[setRW], entry{s.all, s.allpc})
			x.sets[setAll] = append(x.sets[setAll], entry{s.all, s.allpc})
		}
		s.x = x
	}
	return s.x
}

// access checks an access of class k by thread t (clock c) at pc against
// the word's history, appending the racing earlier accesses to cands, and
// records it.
func (s *word) access(t int, c vclock, pc int32, k class, cands *[]cand) {
	e := mkEpoch(t, c[t])
	if s.x == nil {
		switch k {
		case clRead:
			// The last access covers the last write.
			if s.all == 0 || s.all.before(c) {
				s.all, s.allpc = e, pc
				return
			}
		case clWrite:
			if s.all == 0 || s.all.before(c) {
				s.w, s.wpc, s.all, s.allpc = e, pc, e, pc
				return
			}
		}
	}
	x := s.ext()
	for _, p := range x.sets[checkSet[k]] {
		if !p.e.before(c) {
			*cands = append(*cands, cand{pc: p.pc, tid: int32(p.e.tid())})
		}
	}
	for i := range uint8(numSets) {
		if inSets[k]&(1<<i) != 0 {
			x.sets[i].insert(e, pc, c)
		}
	}
}

// insert adds the access (e, pc) of the thread whose clock is c, evicting
// the members that happen before it.
func (a *antichain) insert(e epoch, pc int32, c vclock) {
	s := (*a)[:0]
	for _, p := range *a {
		if !p.e.before(c) {
			s = append(s, p)
		}
	}
	*a = append(s, entry{e, pc})
}
