package base

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf16"
)

// JavaScript's own semantics where Go's differ, since Obsidian evaluates
// a base in JavaScript: a string's length and indexes count UTF-16 code
// units, and toFixed() rounds a number's exact binary value with a tie
// away from zero.

// jsLength is a string's length in UTF-16 code units: "😀".length is 2.
func jsLength(s string) int {
	n := 0
	for _, c := range s {
		n++
		if c > 0xFFFF {
			n++ // a surrogate pair
		}
	}
	return n
}

// jsUnits is s as UTF-16 code units, and false when every rune is one
// unit (no character past U+FFFF), when the runes are the units.
func jsUnits(s string) ([]uint16, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0xF0 { // the lead byte of a 4-byte UTF-8 sequence
			return utf16.Encode([]rune(s)), true
		}
	}
	return nil, false
}

// jsSlice is s.slice(args...) in UTF-16 code units; half of a surrogate
// pair, which a Go string cannot hold, is U+FFFD.
func jsSlice(s string, args []any) (string, error) {
	if u, ok := jsUnits(s); ok {
		lo, hi, err := sliceBounds(len(u), args)
		if err != nil {
			return "", err
		}
		return string(utf16.Decode(u[lo:hi])), nil
	}
	rs := []rune(s)
	lo, hi, err := sliceBounds(len(rs), args)
	if err != nil {
		return "", err
	}
	return string(rs[lo:hi]), nil
}

// jsAt is s[i], the i-th UTF-16 code unit as a string (U+FFFD for half a
// surrogate pair), and false past the end.
func jsAt(s string, i int) (string, bool) {
	if i < 0 {
		return "", false
	}
	if u, ok := jsUnits(s); ok {
		if i >= len(u) {
			return "", false
		}
		return string(utf16.Decode(u[i : i+1])), true
	}
	for _, c := range s {
		if i == 0 {
			return string(c), true
		}
		i--
	}
	return "", false
}

// toFixed is JavaScript's x.toFixed(d) (ECMA-262 Number.prototype.toFixed):
// the exact value of the binary number rounded to d decimals, a tie to
// the larger magnitude ((2.5).toFixed(0) is "3", (-2.5).toFixed(0) "-3",
// where Go's strconv rounds a tie to even); (1.005).toFixed(2) is "1.00",
// 1.005 being 1.00499... in binary. A number of 1e21 or more prints as
// String(x) does, and -0 without its sign.
func toFixed(x float64, d int) string {
	if math.IsInf(x, 0) || math.IsNaN(x) || math.Abs(x) >= 1e21 {
		return formatNumber(x)
	}
	sign := ""
	if x < 0 {
		sign = "-"
	}
	x = math.Abs(x) // -0 too, which is not < 0
	// The exact decimal expansion of x has as many decimals as x has
	// binary digits after the point: x = m × 2^(e-1075).
	b := math.Float64bits(x)
	e, m := int(b>>52&0x7ff), b&(1<<52-1)
	if e == 0 {
		e = 1 // subnormal: no implicit bit
	} else {
		m |= 1 << 52
	}
	decimals := 0
	if m != 0 {
		decimals = max(0, 1075-e-bits.TrailingZeros64(m))
	}
	if decimals <= d {
		return sign + strconv.FormatFloat(x, 'f', d, 64) // exact: nothing to round
	}
	exact := strconv.FormatFloat(x, 'f', decimals, 64)
	point := strings.IndexByte(exact, '.')
	kept := []byte(exact[:point+1+d])
	if d == 0 {
		kept = kept[:point]
	}
	if exact[point+1+d] >= '5' { // half or more: up, a tie too
		i := len(kept) - 1
		for ; i >= 0; i-- {
			if kept[i] == '.' {
				continue
			}
			if kept[i] < '9' {
				kept[i]++
				break
			}
			kept[i] = '0'
		}
		if i < 0 {
			kept = append([]byte{'1'}, kept...)
		}
	}
	return sign + string(kept)
}
