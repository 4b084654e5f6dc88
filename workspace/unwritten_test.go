package workspace

import (
	"testing"

	"github.com/zk-claims/zk/vault"
)

// A note not written yet is reached by the unresolved links that would
// resolve to it once written: by name, case ignored, .md optional, with
// a heading or block; never by a link to another file of the name (an
// image), nor by a link whose folder is not the note's.
func TestUnwrittenReaches(t *testing.T) {
	for _, tc := range []struct {
		arg, link, from string
		ok, reaches     bool
	}{
		{"Ridley Scott", "Ridley Scott", "A.md", true, true},
		{"[[Ridley Scott]]", "ridley scott", "sub/A.md", true, true},
		{"Ridley Scott.md", "Ridley Scott.MD", "A.md", true, true},
		{"Ridley Scott", "Ridley Scott.png", "A.md", true, false},
		{"Ridley Scott", "Ridley Scot", "A.md", true, false},
		{"People/Ridley Scott", "Ridley Scott", "A.md", true, true},
		{"Ridley Scott", "People/Ridley Scott", "A.md", true, false},
		{"Ridley Scott", "../Ridley Scott", "sub/A.md", true, true},
		{"", "x", "A.md", false, false},
		{"../out", "../out", "A.md", false, false},
		{"Note#Part", "Note", "A.md", false, false},
		{"folder/", "folder", "A.md", false, false},
	} {
		u, ok := UnwrittenName(tc.arg)
		if ok != tc.ok {
			t.Errorf("UnwrittenName(%q) ok = %v, want %v", tc.arg, ok, tc.ok)
			continue
		}
		if !ok {
			continue
		}
		e := vault.Edge{From: tc.from, Link: tc.link, Path: tc.link}
		if got := u.Reaches(e); got != tc.reaches {
			t.Errorf("%q reached by [[%s]] from %s = %v, want %v", tc.arg, tc.link, tc.from, got, tc.reaches)
		}
		if e.To = "Elsewhere.md"; u.Reaches(e) {
			t.Errorf("%q reached by a resolved edge", tc.arg)
		}
	}
}
