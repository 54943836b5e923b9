package lockset

import (
	"slices"
	"strconv"
	"strings"
)

// lockTable interns locksets (sorted lock-word addresses) as small ids, as
// Eraser does, so a word's candidate set is one int32 and repeated
// intersections are one cached lookup. Id 0 is the empty set.
type lockTable struct {
	sets  [][]uint64
	ids   map[string]int32
	inter map[[2]int32]int32
	edit  map[editKey]int32
}

// editKey caches adding or removing one lock from a set.
type editKey struct {
	set  int32
	lock uint64
	add  bool
}

func newLockTable() lockTable {
	return lockTable{
		sets:  [][]uint64{nil},
		ids:   map[string]int32{"": 0},
		inter: map[[2]int32]int32{},
		edit:  map[editKey]int32{},
	}
}

// intern returns the id of the sorted set s.
func (t *lockTable) intern(s []uint64) int32 {
	var b strings.Builder
	for _, l := range s {
		b.WriteString(strconv.FormatUint(l, 16))
		b.WriteByte(',')
	}
	k := b.String()
	if id, ok := t.ids[k]; ok {
		return id
	}
	id := int32(len(t.sets))
	t.sets = append(t.sets, slices.Clone(s))
	t.ids[k] = id
	return id
}

// with returns the id of set id plus lock.
func (t *lockTable) with(id int32, lock uint64) int32 {
	return t.editSet(id, lock, true)
}

// without returns the id of set id minus lock.
func (t *lockTable) without(id int32, lock uint64) int32 {
	return t.editSet(id, lock, false)
}

func (t *lockTable) editSet(id int32, lock uint64, add bool) int32 {
	k := editKey{id, lock, add}
	if r, ok := t.edit[k]; ok {
		return r
	}
	s := slices.Clone(t.sets[id])
	i, found := slices.BinarySearch(s, lock)
	switch {
	case add && !found:
		s = slices.Insert(s, i, lock)
	case !add && found:
		s = slices.Delete(s, i, i+1)
	}
	r := t.intern(s)
	t.edit[k] = r
	return r
}

// intersect returns the id of the intersection of sets a and b.
func (t *lockTable) intersect(a, b int32) int32 {
	if a == b || a == 0 {
		return a
	}
	if b == 0 {
		return 0
	}
	k := [2]int32{min(a, b), max(a, b)}
	if r, ok := t.inter[k]; ok {
		return r
	}
	var s []uint64
	for _, l := range t.sets[a] {
		if _, ok := slices.BinarySearch(t.sets[b], l); ok {
			s = append(s, l)
		}
	}
	r := t.intern(s)
	t.inter[k] = r
	return r
}
