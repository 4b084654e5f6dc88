package main

import "testing"

func TestPrintableEscapes(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"sh run.sh", "sh run.sh"},
		{"Café — ok ✓", "Café — ok ✓"},
		{"\x1b[2K\rsh safe.sh", `\x1b[2K\rsh safe.sh`},
		{"a\nb\tc", `a\nb\tc`},
		{"del\x7f c1\u009b", `del\x7f c1\u009b`},
		{"evil\u202etxt.sh", `evil\u202etxt.sh`},
		{"bad\xffbyte", `bad\xffbyte`},
	} {
		if got := printable(tc.in); got != tc.want {
			t.Errorf("printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
