package evidence

import (
	"fmt"
	"testing"

	"github.com/zk-claims/zk/vault/evidence/criterion"
)

// TestParseStatementReadsDescribe holds StatedValues to what
// criterion.Result.Describe writes: a change to one that the other does
// not follow fails here.
func TestParseStatementReadsDescribe(t *testing.T) {
	tests := []struct {
		name string
		res  criterion.Result
		want []Value
	}{
		{"one reading", criterion.Result{Refuted: true, Read: []criterion.Reading{{Expr: "rate", Value: 1234.5}}},
			[]Value{{Expr: "rate", Value: 1234.5, N: 1}}},
		{"a count and a unit", criterion.Result{Read: []criterion.Reading{{Expr: "level(1).per_stream.p50", Value: 92.4, Unit: "tokens/sec/user", Count: 54}}},
			[]Value{{Expr: "level(1).per_stream.p50", Value: 92.4, Unit: "tokens/sec/user", N: 1}}},
		{"resampled, two figures", criterion.Result{Refuted: false, Resamples: 2000, Refuting: 3, Confidence: 0.95, Read: []criterion.Reading{
			{Expr: "level(16).aggregate", Value: 505.25, Of: []criterion.Samples{{N: 12, Of: "requests completed in the window at concurrency 16"}, {N: 3, Of: "x; y"}}, Lo: 498.123, Hi: 512.987},
			{Expr: "level(1).aggregate", Value: 92, Of: []criterion.Samples{{N: 11, Of: "requests"}}, Lo: 90.5, Hi: 93.5},
		}}, []Value{
			{Expr: "level(16).aggregate", Value: 505.25, Interval: true, Lo: 498.1, Hi: 513, N: 12},
			{Expr: "level(1).aggregate", Value: 92, Interval: true, Lo: 90.5, Hi: 93.5, N: 11},
		}},
		{"within noise", criterion.Result{Refuted: true, Resamples: 2000, Refuting: 1200, Confidence: 0.95, Read: []criterion.Reading{
			{Expr: "hyperfine.results[0].mean", Value: 0.20066666666666666, Of: []criterion.Samples{{N: 12, Of: "hyperfine runs of \"zk check\""}}, Lo: 0.1965, Hi: 0.2049},
		}}, []Value{{Expr: "hyperfine.results[0].mean", Value: 0.20066666666666666, Interval: true, Lo: 0.1965, Hi: 0.2049, N: 12}}},
		{"a string and an exit code", criterion.Result{Read: []criterion.Reading{{Expr: "json.name", Value: "a; b (c"}, {Expr: "exit", Value: 1}}},
			[]Value{{Expr: "exit", Value: 1, N: 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stmt := tt.res.Describe("`x > 0`")
			got := StatedValues(stmt)
			if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", tt.want) {
				t.Errorf("StatedValues(%q)\n got %+v\nwant %+v", stmt, got, tt.want)
			}
		})
	}
}

// A statement written before statements said what a value stood on
// states one reading bare, or a count alone: it is read as one reading,
// as is the exit status; a paren that is no count says nothing of it.
func TestStatedValuesOfOldStatements(t *testing.T) {
	got := StatedValues("rate = 31; exit = 0; level(16).aggregate = 480.5 tokens/sec (all streams); level(1).per_stream.p50 = 95.73 tokens/sec/user (n = 11); refuted if `rate < 50`: refuted")
	// A distribution's count stated alone, "(n = 11)", was a figure the
	// output carried no samples of: its verdict, too, was one reading.
	want := []Value{{Expr: "rate", Value: 31, N: 1}, {Expr: "exit", Value: 0, N: 1}, {Expr: "level(16).aggregate", Value: 480.5, Unit: "tokens/sec"}, {Expr: "level(1).per_stream.p50", Value: 95.73, Unit: "tokens/sec/user", N: 1}}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("StatedValues\n got %+v\nwant %+v", got, want)
	}
	for v, s := range map[Value]string{got[0]: "rate = 31 (n = 1, noise unknown)", got[1]: "exit = 0", {Expr: "x", Value: 2, Interval: true, Lo: 1, Hi: 3, N: 12}: "x = 2 (interval 1–3, n = 12)"} {
		if v.String() != s {
			t.Errorf("String = %q, want %q", v.String(), s)
		}
	}
}

func TestCompare(t *testing.T) {
	iv := func(v, lo, hi float64) Value { return Value{Expr: "x", Value: v, Interval: true, Lo: lo, Hi: hi} }
	one := func(v float64) Value { return Value{Expr: "x", Value: v} }
	tests := []struct {
		name        string
		before, now []Value
		want        Change
	}{
		{"apart", []Value{iv(100, 98, 102)}, []Value{iv(31, 30, 32)}, ChangeBeyondNoise},
		{"overlapping", []Value{iv(100, 98, 102)}, []Value{iv(101, 99, 103)}, ChangeWithinNoise},
		{"no interval", []Value{one(100)}, []Value{iv(31, 30, 32)}, ChangeUnknown},
		{"nothing shared", []Value{{Expr: "y", Value: 1}}, []Value{one(2)}, ChangeNone},
		{"one apart, one not known", []Value{one(1), {Expr: "z", Interval: true, Lo: 1, Hi: 2}}, []Value{one(2), {Expr: "z", Interval: true, Lo: 3, Hi: 4}}, ChangeBeyondNoise},
	}
	for _, tt := range tests {
		if got := Compare(tt.before, tt.now); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
