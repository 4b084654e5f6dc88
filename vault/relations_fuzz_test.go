package vault

import (
	"regexp"
	"strings"
	"testing"
)

// relationOracle is the regexp cutRelation replaced; the two must agree.
var relationOracle = regexp.MustCompile(`^\s*(?:—|–|--)\s*([^:]*?)\s*:\s*(.*)$`)

// FuzzCutRelation checks cutRelation against the regexp it replaced: the
// same entries are typed, with the same relation words and justification.
//
//	go test ./vault -run '^$' -fuzz FuzzCutRelation -fuzztime 30s
func FuzzCutRelation(f *testing.F) {
	for _, s := range []string{
		" — extends: the same idea.",
		" -- refines in part: narrower.",
		" – contrasts:",
		"— :x",
		" —extends:a:b",
		"\t---  supports  :  y  ",
		" extends: no dash",
		" — no colon",
		"",
		" \u00a0— applies-in: a no-break space first",
		" — evidence-for\u2003: an em space before the colon",
		" — part-of: \xff bad bytes",
		"\r— x: y\r",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rest string) {
		if strings.Contains(rest, "\n") {
			return // rest is one line
		}
		rel, just, ok := cutRelation(rest)
		m := relationOracle.FindStringSubmatch(rest)
		if ok != (m != nil) {
			t.Fatalf("cutRelation(%q) ok = %v, the regexp matched: %v", rest, ok, m != nil)
		}
		if !ok {
			return
		}
		if got, want := strings.Join(strings.Fields(rel), " "), strings.Join(strings.Fields(m[1]), " "); got != want {
			t.Errorf("cutRelation(%q) relation %q, the regexp %q", rest, got, want)
		}
		if got, want := strings.TrimSpace(just), strings.TrimSpace(m[2]); got != want {
			t.Errorf("cutRelation(%q) justification %q, the regexp %q", rest, got, want)
		}
	})
}
