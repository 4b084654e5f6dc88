package lint

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault/vaulttest"
)

// TestSeverityAt is the order a rule's severity is decided in: the
// rule's default, then Severity ([claims.rules]), then each override
// that matches the path and names the rule, the last winning.
func TestSeverityAt(t *testing.T) {
	under := func(prefix string) func(string) bool {
		return func(p string) bool { return strings.HasPrefix(p, prefix) }
	}
	opts := Options{
		Severity: map[string]Severity{RuleUntypedLink: Off, RuleStale: Error},
		Overrides: []Override{
			{Match: under("Inbox/"), Severity: map[string]Severity{RuleBrokenLink: Off, RuleUntypedLink: Warning}},
			{Match: under("Inbox/Keep/"), Severity: map[string]Severity{RuleBrokenLink: Error}},
			{Match: under(""), Severity: map[string]Severity{RuleTitle: Off}},
			{Match: under("Inbox/"), Severity: map[string]Severity{RuleTitle: Error}},
			{Match: nil, Severity: map[string]Severity{RuleFlaky: Error}},
		},
	}
	for _, tt := range []struct {
		rule, path string
		want       Severity
	}{
		{RuleBrokenLink, "Permanent Notes/A.md", Error}, // the default
		{RuleBrokenHeading, "Inbox/A.md", Warning},      // the default, no override names it
		{RuleUntypedLink, "Permanent Notes/A.md", Off},  // [claims.rules]
		{RuleStale, "Inbox/A.md", Error},                // [claims.rules], no override names it
		{RuleUntypedLink, "Inbox/A.md", Warning},        // an override over [claims.rules]
		{RuleBrokenLink, "Inbox/A.md", Off},             // an override over the default
		{RuleBrokenLink, "Inbox/Keep/A.md", Error},      // the later of two that match
		{RuleTitle, "Inbox/A.md", Error},                // the later of two that match
		{RuleTitle, "Drafts/A.md", Off},                 // the only one that matches
		{RuleBrokenLink, "inbox/A.md", Error},           // Match decides (case is the matcher's)
		{RuleFlaky, "Inbox/A.md", Warning},              // an override matching nothing
		{"no/such-rule", "Inbox/A.md", Off},             // not a rule
	} {
		if got := opts.SeverityAt(tt.rule, tt.path); got != tt.want {
			t.Errorf("SeverityAt(%s, %s) = %v, want %v", tt.rule, tt.path, got, tt.want)
		}
	}
}

// TestOverrideTurnsOnARuleOffVaultWide: a rule off in [claims.rules]
// and on in one path by an override still runs, and reports only there,
// at the override's severity (links/rests-on-refuted is skipped whole
// when it is off everywhere).
func TestOverrideTurnsOnARuleOffVaultWide(t *testing.T) {
	v, files := chainVault(t, 3, vaulttest.RefutedC)
	opts := Options{
		Severity: map[string]Severity{RuleRestsOnRefuted: Off},
		Overrides: []Override{{Match: func(p string) bool { return p == "n00001.md" },
			Severity: map[string]Severity{RuleRestsOnRefuted: Error}}},
	}
	rep, err := Check(context.Background(), v, files, nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleRestsOnRefuted {
			got = append(got, f.Path+" "+f.Severity.String())
		}
	}
	if want := []string{"n00001.md error"}; !slices.Equal(got, want) {
		t.Errorf("links/rests-on-refuted findings = %q, want %q", got, want)
	}
}
