package measure

import (
	"strings"
	"testing"
)

// TestParseNumber: a number is read as the declared convention writes it,
// or, with none declared, only when every convention reads it alike.
func TestParseNumber(t *testing.T) {
	for _, tc := range []struct {
		in   string
		conv Numbers
		want float64
		err  string // a piece of the error, "" for none
	}{
		{"1234.5", NumbersAny, 1234.5, ""},
		{"92.4", NumbersAny, 92.4, ""},
		{"1.234", NumbersAny, 1.234, ""}, // a point alone: how programs print
		{"-3", NumbersAny, -3, ""},
		{"1.5e6", NumbersAny, 1.5e6, ""},
		{"1,234.5", NumbersAny, 1234.5, ""},
		{"1.234,5", NumbersAny, 1234.5, ""},
		{"1,5", NumbersAny, 1.5, ""},
		{"1,234,567", NumbersAny, 1234567, ""},
		{"1,234", NumbersAny, 0, `"1,234" reads as 1234 (1,234.5) or as 1.234 (1.234,5); declare which`},
		{"1,234.5", NumbersPoint, 1234.5, ""},
		{"1234.5", NumbersPoint, 1234.5, ""},
		{"1,234", NumbersPoint, 1234, ""},
		{"1,5", NumbersPoint, 0, `"1,5" is not a number as 1,234.5 writes one`},
		{"12,34.5", NumbersPoint, 0, "not a number as 1,234.5"},
		{"1.234,5", NumbersComma, 1234.5, ""},
		{"1,5", NumbersComma, 1.5, ""},
		{"1.234", NumbersComma, 1234, ""},
		{"1,234.5", NumbersComma, 0, "not a number as 1.234,5"},
		{"92.4", NumbersComma, 0, "not a number as 1.234,5"},
		{"", NumbersAny, 0, "not a number"},
		{"1..2", NumbersAny, 0, "not a number"},
		{"1,234e3", NumbersPoint, 0, "not a number"},
		{"abc", NumbersPoint, 0, "not a number"},
	} {
		got, err := ParseNumber(tc.in, tc.conv)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("ParseNumber(%q, %q) = %v, %v; want %v", tc.in, tc.conv, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseNumber(%q, %q) = %v, %v; want an error with %q", tc.in, tc.conv, got, err, tc.err)
		}
	}
}

func TestParseNumbers(t *testing.T) {
	for in, want := range map[string]Numbers{"1,234.5": NumbersPoint, "`1.234,5`": NumbersComma} {
		if got, err := ParseNumbers(in); err != nil || got != want {
			t.Errorf("ParseNumbers(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseNumbers("1 234,5"); err == nil {
		t.Error("an unknown convention was accepted")
	}
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1,234.5", "1.234,5", "1,5", "-1e3", "", "1,,2", "+.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, c := range []Numbers{NumbersAny, NumbersPoint, NumbersComma} {
			ParseNumber(s, c) // never panics
		}
	})
}

// TestCaptureWholeNumber: a capture whose group reads part of a number
// (the pattern lets no separator in) is refused, never misread.
func TestCaptureWholeNumber(t *testing.T) {
	narrow, _ := ParseCapture("rate = ([0-9.]+) tok/s")
	wide, _ := ParseCapture("rate = ([0-9.,]+) tok/s")
	for _, tc := range []struct {
		c    Capture
		out  string
		want float64
		err  string
	}{
		{narrow, "rate 1,234.5 tok/s", 0, `matched "234.5", part of the number "1,234.5": let its group take the separators`},
		{narrow, "rate 92.4 tok/s.", 92.4, ""},
		{wide, "rate 1,234.5 tok/s", 1234.5, ""},
		{narrow, "at 5: 92.4 tok/s", 92.4, ""},
	} {
		got, err := capture([]byte(tc.out), tc.c)
		switch {
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s on %q = %v, %v; want %v", tc.c.Re, tc.out, got, err, tc.want)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s on %q = %v, %v; want an error with %q", tc.c.Re, tc.out, got, err, tc.err)
		}
	}
}
