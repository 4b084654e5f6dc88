package criterion

import (
	"cmp"
	"math"
	"strconv"
	"testing"
)

// FuzzFormatComputed: a mean written without its float noise reads back
// on the same side of, or on, the number its criterion compares it with,
// as the mean itself does: the record never contradicts itself.
func FuzzFormatComputed(f *testing.F) {
	f.Add(44.775000000000006, 50.0)
	f.Add(math.Nextafter(50, 100), 50.0)
	f.Add(math.Nextafter(50, 0), 50.0)
	f.Add(-0.30000000000000004, -0.3)
	f.Add(1e300, 1e300)
	f.Fuzz(func(t *testing.T, x, th float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(th) || math.IsInf(th, 0) {
			return
		}
		lit := strconv.FormatFloat(th, 'g', -1, 64)
		if lit2, _ := strconv.ParseFloat(lit, 64); lit2 != th {
			t.Fatalf("threshold %v written %s", th, lit)
		}
		src := "v > " + lit
		s := FormatComputed(x, src)
		y, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("FormatComputed(%v, %q) = %q: %v", x, src, s, err)
		}
		if cmp.Compare(x, th) != cmp.Compare(y, th) {
			t.Errorf("FormatComputed(%v, %q) = %q, on another side of %v", x, src, s, th)
		}
		if math.Abs(y-x) > math.Abs(x)*1e-14 {
			t.Errorf("FormatComputed(%v, %q) = %q, more than float noise away", x, src, s)
		}
	})
}
