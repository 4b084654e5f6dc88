package trust

import (
	"slices"
	"testing"
)

func TestLeadingOptions(t *testing.T) {
	for _, tc := range []struct {
		args, want []string
	}{
		{[]string{"-i", "make"}, []string{"-i"}},
		{[]string{"make", "-i"}, []string{}},
		{[]string{"-u", "bob", "-i", "make"}, []string{"-u", "bob", "-i"}},
		{[]string{"-ubob", "make", "-i"}, []string{"-ubob"}},
		{[]string{"-iu", "bob", "make"}, []string{"-iu", "bob"}},
		{[]string{"--", "-i"}, []string{}},
		{[]string{"-", "bob"}, []string{"-"}},
	} {
		if got := leadingOptions(tc.args, "ugCDhprtTUR"); !slices.Equal(got, tc.want) {
			t.Errorf("leadingOptions(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
