package inference

import (
	"testing"
	"time"
)

// Host times print to three significant digits with a spaced unit, never
// as time.Duration's nanosecond digits ("823.321462ms").
func TestReadableDuration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{823321462 * time.Nanosecond, "823 ms"},
		{1236 * time.Millisecond, "1.24 s"},
		{45210 * time.Nanosecond, "45.2 µs"},
		{999700 * time.Microsecond, "1.00 s"},
		{700, "700 ns"},
		{0, "0 ns"},
		{95 * time.Second, "95.0 s"},
	} {
		if got := readableDuration(c.d); got != c.want {
			t.Errorf("readableDuration(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
