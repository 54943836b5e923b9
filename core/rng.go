package core

import "math/bits"

// RNG is a small deterministic pseudo-random stream (splitmix64). Its whole
// state is one word, so it snapshots by value.
type RNG struct {
	// State is the generator's whole state; each draw advances it.
	State uint64
}

func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// NewRNG returns the stream named name derived from seed. The derivation is
// a fixed hash (FNV-1a of the name mixed with the seed), so streams are the
// same on every host and Go version.
func NewRNG(seed uint64, name string) RNG {
	h := uint64(14695981039346656037)
	for i := 0; i < len(name); i++ {
		h ^= uint64(name[i])
		h *= 1099511628211
	}
	return RNG{State: mix64(seed ^ mix64(h))}
}

// Uint64 returns the next 64 random bits.
func (r *RNG) Uint64() uint64 {
	r.State += 0x9e3779b97f4a7c15
	return mix64(r.State)
}

// Below returns a uniform value in [0, n); n == 0 returns 0.
func (r *RNG) Below(n uint64) uint64 {
	if n == 0 {
		return 0
	}
	// Lemire's multiply-shift; the tiny bias is irrelevant here and the
	// result is deterministic.
	hi, _ := bits.Mul64(r.Uint64(), n)
	return hi
}

// Range returns a uniform value in [lo, hi]; hi < lo returns lo.
func (r *RNG) Range(lo, hi uint64) uint64 {
	if hi <= lo {
		return lo
	}
	n := hi - lo + 1
	if n == 0 { // lo == 0, hi == MaxUint64: the whole 64-bit range
		return r.Uint64()
	}
	return lo + r.Below(n)
}

// UpTo returns a uniform value in [0, hi] for hi > 0: the same value and
// draw as Range(0, hi), small enough to inline (a jitter draw per memory
// access).
func (r *RNG) UpTo(hi uint64) uint64 {
	x := r.Uint64()
	if hi == ^uint64(0) {
		return x
	}
	h, _ := bits.Mul64(x, hi+1)
	return h
}

// Float64 returns a uniform value in [0, 1).
func (r *RNG) Float64() float64 {
	return float64(r.Uint64()>>11) / (1 << 53)
}
