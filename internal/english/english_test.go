package english

import "testing"

func TestPlural(t *testing.T) {
	tests := []struct {
		n           int
		one, many   string
		want, want2 string
	}{
		{0, "note", "notes", "0 notes", "0 notes"},
		{1, "note", "notes", "1 note", "1 note"},
		{2, "day", "days", "2 days", "2 days"},
		{1, "match", "matches", "1 match", "1 match"},
		{5, "match", "matches", "5 matchs", "5 matches"},
	}
	for _, tt := range tests {
		if got := Plural(tt.n, tt.one); got != tt.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", tt.n, tt.one, got, tt.want)
		}
		if got := PluralOf(tt.n, tt.one, tt.many); got != tt.want2 {
			t.Errorf("PluralOf(%d, %q, %q) = %q, want %q", tt.n, tt.one, tt.many, got, tt.want2)
		}
	}
}
