package lint

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
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
		if got := opts.SeverityAt(tt.rule, tt.path, ""); got != tt.want {
			t.Errorf("SeverityAt(%s, %s) = %v, want %v", tt.rule, tt.path, got, tt.want)
		}
	}
}

// TestSeverityAtByType: an override may name note types as well as
// paths; it then applies to the notes of those types (in its paths, when
// it names paths too), and to no file of no type.
func TestSeverityAtByType(t *testing.T) {
	under := func(prefix string) func(string) bool {
		return func(p string) bool { return strings.HasPrefix(p, prefix) }
	}
	opts := Options{
		Overrides: []Override{
			{Types: []string{"literature"}, Severity: map[string]Severity{RuleFalsifiersMissing: Warning, RuleMissingDate: Off}},
			{Match: under("Archive/"), Types: []string{"literature", "permanent"}, Severity: map[string]Severity{RuleFalsifiersMissing: Off}},
			{Match: under("Inbox/"), Severity: map[string]Severity{RuleMissingDate: Warning}},
		},
	}
	for _, tt := range []struct {
		rule, path, typ string
		want            Severity
	}{
		{RuleFalsifiersMissing, "Books/A.md", "literature", Warning},     // by type alone
		{RuleFalsifiersMissing, "Books/A.md", "Literature", Warning},     // a type's name, case ignored
		{RuleFalsifiersMissing, "Books/A.md", "permanent", Error},        // another type: the default
		{RuleFalsifiersMissing, "Books/A.md", "", Error},                 // no type
		{RuleFalsifiersMissing, "Archive/A.md", "permanent", Off},        // paths and types both
		{RuleFalsifiersMissing, "Archive/A.md", "", Error},               // in the paths, not of the types
		{RuleFalsifiersMissing, "Archive/A.md", "literature", Off},       // the later of two that match
		{RuleMissingDate, "Inbox/A.md", "literature", Warning},           // a path override after a type one
		{RuleMissingDate, "Books/A.md", "literature", Off},               // by type alone
		{RuleFalsifiersMissing, "Books/A.md", "literature-notes", Error}, // a name, not a prefix
	} {
		if got := opts.SeverityAt(tt.rule, tt.path, tt.typ); got != tt.want {
			t.Errorf("SeverityAt(%s, %s, %q) = %v, want %v", tt.rule, tt.path, tt.typ, got, tt.want)
		}
	}
}

// TestOverrideByTypeInCheck: Check gives a finding the severity its
// note's type is given, the type as zk decides it (frontmatter first,
// then folders), for the rules run in a note and the link rules run
// after every note is read.
func TestOverrideByTypeInCheck(t *testing.T) {
	v, err := vault.Open(vaulttest.Dir(t, map[string]string{
		"Permanent Notes/Book.md":  "---\ntype: literature\n---\n# Book\n\nSee [[Missing]].\n",
		"Permanent Notes/Claim.md": "# Claim\n\nSee [[Missing]].\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	files, _, err := v.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	lit := &vault.NoteType{Name: "literature", Schema: &vault.Schema{Sections: []vault.SchemaSection{{Title: "Summary", Level: 2}}}, Property: "type", Value: "literature"}
	perm := &vault.NoteType{Name: "permanent", Schema: &vault.Schema{Sections: []vault.SchemaSection{{Title: "Claim", Level: 2}}}, Paths: vault.DefaultTypePaths, Property: "type", Value: "permanent"}
	opts := Options{
		Types: []*vault.NoteType{perm, lit},
		Overrides: []Override{{Types: []string{"literature"},
			Severity: map[string]Severity{RuleBrokenLink: Warning, RuleMissingDate: Off}}},
	}
	rep, err := Check(context.Background(), v, files, nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.Findings {
		if f.Rule == RuleBrokenLink || f.Rule == RuleMissingDate {
			got = append(got, f.Path+" "+f.Rule+" "+f.Severity.String())
		}
	}
	want := []string{
		"Permanent Notes/Book.md links/broken warning",
		"Permanent Notes/Claim.md maintenance/missing-date error",
		"Permanent Notes/Claim.md links/broken error",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("findings = %q, want %q", got, want)
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
