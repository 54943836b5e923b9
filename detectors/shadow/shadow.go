// Package shadow holds the per-word shadow memory software detectors keep
// beside the program's data: one T per 8-byte data word, indexed by
// address, grown on first touch.
package shadow

import "weft/isa"

// Memory is a shadow of the data segment: one T per data word from
// isa.DataBase, grown (doubling, 64 words at least) as higher words are
// touched. The zero value is empty and ready to use.
type Memory[T any] struct {
	words []T
	top   int // one past the highest word index touched
}

// Word returns the shadow of the data word holding a, growing the shadow
// to hold it. a must not lie below isa.DataBase.
func (m *Memory[T]) Word(a uint64) *T {
	i := int((a - isa.DataBase) / isa.WordBytes)
	if i >= m.top {
		m.top = i + 1
		if i >= len(m.words) {
			n := max(2*len(m.words), i+1, 64)
			m.words = append(m.words, make([]T, n-len(m.words))...)
		}
	}
	return &m.words[i]
}

// End returns one past the highest data address touched so far: the end of
// the memory a fault check (isa.Program.FaultOp) treats as allocated.
func (m *Memory[T]) End() uint64 {
	return isa.DataBase + uint64(m.top)*isa.WordBytes
}
