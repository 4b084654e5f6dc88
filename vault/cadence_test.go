package vault

import (
	"testing"
	"time"
)

func TestParseInterval(t *testing.T) {
	tests := []struct {
		in   string
		want Interval
		bad  bool
	}{
		{in: "30d", want: Interval{30, 'd'}},
		{in: "6w", want: Interval{6, 'w'}},
		{in: "3m", want: Interval{3, 'm'}},
		{in: "1y", want: Interval{1, 'y'}},
		{in: " 2W ", want: Interval{2, 'w'}},
		{in: "45", want: Interval{45, 'd'}},
		{in: "", bad: true},
		{in: "0d", bad: true},
		{in: "-3d", bad: true},
		{in: "3h", bad: true},
		{in: "d", bad: true},
		{in: "fortnightly", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseInterval(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParseInterval(%q) = %v, %v; want %v, bad %v", tt.in, got, err, tt.want, tt.bad)
		}
		if back, _ := ParseInterval(got.String()); err == nil && back != got {
			t.Errorf("%v.String() = %q does not read back", got, got.String())
		}
	}
}

func TestIntervalAfter(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		iv       Interval
		from, to string
	}{
		{Interval{90, 'd'}, "2026-01-01", "2026-04-01"},
		{Interval{6, 'w'}, "2026-10-01", "2026-11-12"},
		{Interval{3, 'm'}, "2026-08-31", "2026-11-30"}, // clamped, not December 1
		{Interval{1, 'm'}, "2026-01-31", "2026-02-28"},
		{Interval{13, 'm'}, "2026-01-15", "2027-02-15"},
		{Interval{1, 'y'}, "2028-02-29", "2029-02-28"},
		{Interval{4, 'y'}, "2028-02-29", "2032-02-29"},
	}
	for _, tt := range tests {
		if got := tt.iv.After(day(tt.from)).Format(time.DateOnly); got != tt.to {
			t.Errorf("%v after %s = %s, want %s", tt.iv, tt.from, got, tt.to)
		}
	}
}

// The hand-read house format finds the date the expression finds, on
// every line that starts as zk writes it.
func TestTendedLineDateAsExpression(t *testing.T) {
	for _, rest := range []string{"", " 2026-03-15", "2026-03-15", "  \t2026-03-15  ", " **2026-03-15**", "** 2026-03-15",
		"__2026-03-15__", "* 2026", ": 2026", " 2026-03-15 later", " 2026\r", " 2026\f1", " \xff\xfe x", " é2026", "\t", " **", "__ "} {
		line := []byte("- Last tended:" + rest)
		s, e, ok := TendedLineDate(line)
		m := tendedLineRe().FindSubmatchIndex(line)
		if !ok || m == nil || s != m[2] || e != m[3] {
			t.Errorf("TendedLineDate(%q) = %d, %d, %v; the expression finds %v", line, s, e, ok, m)
		}
	}
}
