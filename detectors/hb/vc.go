package hb

// vclock is a vector clock indexed by thread id. Entries past its length
// are zero.
type vclock []uint64

// get returns the clock of thread t.
func (c vclock) get(t int) uint64 {
	if t < len(c) {
		return c[t]
	}
	return 0
}

// join sets c to the pointwise maximum of c and o, growing c as needed.
func (c *vclock) join(o vclock) {
	v := *c
	if len(o) > len(v) {
		v = append(v, make(vclock, len(o)-len(v))...)
	}
	for i, x := range o {
		if x > v[i] {
			v[i] = x
		}
	}
	*c = v
}

// set makes c a copy of o, reusing c's storage.
func (c *vclock) set(o vclock) {
	*c = append((*c)[:0], o...)
}

// epoch is one access's (thread, clock): the clock in the upper 48 bits,
// the thread in the lower 16. The zero epoch means "no access" (clocks
// start at 1).
type epoch uint64

const tidBits = 16

func mkEpoch(t int, clock uint64) epoch { return epoch(clock<<tidBits | uint64(t)) }

func (e epoch) tid() int      { return int(e & (1<<tidBits - 1)) }
func (e epoch) clock() uint64 { return uint64(e) >> tidBits }

// before reports whether the access at e happens before (or is) the
// current point of the thread whose clock is c.
func (e epoch) before(c vclock) bool { return e.clock() <= c.get(e.tid()) }
