package core

// Barriers keeps, for each barrier word, its current generation and what
// that generation's arrivals accumulated (a vector clock, say): the rule
// of OpArrive and OpLeave, that every arrival of a generation happens
// before every leave of it, for the detectors that order threads by it.
// The machine emits a generation's leaves together, before any arrival of
// the next, so one generation per word is enough. The zero value is
// ready to use.
type Barriers[A any] struct {
	gens map[uint64]*barrierGen[A]
}

// barrierGen is one barrier word's current generation and accumulator.
type barrierGen[A any] struct {
	gen uint64
	acc A
}

// Arrive returns the accumulator of barrier addr's generation gen, for an
// OpArrive to add to: a zero one when the barrier has not had gen yet (the
// previous generation's is dropped).
func (b *Barriers[A]) Arrive(addr, gen uint64) *A {
	g := b.gens[addr]
	switch {
	case g == nil:
		if b.gens == nil {
			b.gens = map[uint64]*barrierGen[A]{}
		}
		g = &barrierGen[A]{gen: gen}
		b.gens[addr] = g
	case g.gen != gen:
		*g = barrierGen[A]{gen: gen}
	}
	return &g.acc
}

// Leave returns the accumulator of barrier addr's generation gen, for an
// OpLeave to take, and false when gen is not the barrier's current
// generation (no arrival of it was seen).
func (b *Barriers[A]) Leave(addr, gen uint64) (A, bool) {
	if g := b.gens[addr]; g != nil && g.gen == gen {
		return g.acc, true
	}
	var zero A
	return zero, false
}
