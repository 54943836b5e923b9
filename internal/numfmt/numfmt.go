// Package numfmt writes numbers as encoding/json writes a float64, the one
// number rule of weft's result files: integral values below 1e21 as
// integers (so counters never appear in exponent form), other values in the
// shortest plain decimal that reads back exactly, and magnitudes below
// 1e-6 or from 1e21 up in exponent form ("1e-7", "1e+21").
package numfmt

import (
	"math"
	"strconv"
)

// Append appends x to b by the rule above.
func Append(b []byte, x float64) []byte {
	abs := math.Abs(x)
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		b = strconv.AppendFloat(b, x, 'e', -1, 64)
		// 1e-07 → 1e-7, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
		return b
	}
	return strconv.AppendFloat(b, x, 'f', -1, 64)
}
