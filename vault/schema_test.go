package vault

import (
	"strings"
	"testing"
	"time"
)

func TestFileName(t *testing.T) {
	tests := []struct{ title, want string }{
		{"Aggregate Throughput Hides the Per-Stream Speed", "Aggregate Throughput Hides the Per-Stream Speed"},
		{`Caches: Hide* the "Cold" Path?`, "Caches Hide the Cold Path"},
		{"a/b\\c|d#e^f[g]h<i>j", "a b c d e f g h i j"},
		{"  spaced \t out  ", "spaced out"},
		{".hidden", "hidden"},
		{"ends with dots...", "ends with dots"},
		{"tab\x00and\x1bcontrol", "tabandcontrol"},
		{"CON", "CON note"},
		{"com1", "com1 note"},
		{"Über café", "Über café"},
		{"???", ""},
		{strings.Repeat("é", 150), strings.Repeat("é", 100)},
	}
	for _, tt := range tests {
		if got := FileName(tt.title); got != tt.want {
			t.Errorf("FileName(%q) = %q, want %q", tt.title, got, tt.want)
		}
	}
}

func TestParseSchema(t *testing.T) {
	s, err := ParseSchema([]byte("# {{title}}\n\n## Claim\n\n## Links\n\n### Sub\n\n## Upkeep\n\n- Last tended: {{date}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sec := range s.Sections {
		got = append(got, sec.String())
	}
	if !s.Title || strings.Join(got, "|") != "## Claim|## Links|### Sub|## Upkeep" || s.TendedIn != "Upkeep" {
		t.Errorf("schema = %+v", s)
	}
	if _, err := ParseSchema([]byte("# {{title}}\n\nNo sections.\n")); err != ErrEmptyTemplate {
		t.Errorf("a template without sections: err = %v", err)
	}
	if s, _ := ParseSchema([]byte("## Only\n")); s.Title || s.TendedIn != "" {
		t.Errorf("a template without title or date: %+v", s)
	}
}

func TestHeadingPath(t *testing.T) {
	n := NewParser().Parse("T.md", []byte("# T\n## Can I link? Yes: `code`\n### Deep [[Other]]\n## Property\n"))
	tests := []struct {
		sub  string
		want bool
	}{
		{"#Can I link? Yes: `code`", true},
		{"#can i link yes code", true},
		{"#property", true},
		{"#Deep Other", true},
		{"#T#Property", true},
		{"#Property#Deep Other", false}, // Deep comes before Property
		{"#Missing", false},
	}
	for _, tt := range tests {
		if got := hasHeadingPath(summarize(n).headings, tt.sub); got != tt.want {
			t.Errorf("hasHeadingPath(%q) = %v, want %v", tt.sub, got, tt.want)
		}
	}
	if best, _ := closestHeading(summarize(n).headings, "#Proprety"); best != "Property" {
		t.Errorf("closest to #Proprety = %q", best)
	}
}

func TestRuleListed(t *testing.T) {
	tests := []struct {
		rules []string
		rule  string
		want  bool
	}{
		{nil, "links/broken", true},
		{[]string{"links/broken"}, "links/broken", true},
		{[]string{"links"}, "links/untyped", true},
		{[]string{"links/*"}, "links/untyped", true},
		{[]string{"all"}, "maintenance/stale", true},
		{[]string{"links/broken"}, "links/untyped", false},
		{[]string{"link"}, "links/broken", false},
	}
	for _, tt := range tests {
		if got := ruleListed(tt.rules, tt.rule); got != tt.want {
			t.Errorf("ruleListed(%q, %s) = %v, want %v", tt.rules, tt.rule, got, tt.want)
		}
	}
}

func TestTypeMatches(t *testing.T) {
	typ := &NoteType{Name: "permanent", Paths: DefaultTypePaths, Property: "type", Value: "permanent"}
	p := NewParser()
	tests := []struct {
		path, src string
		want      bool
	}{
		{"3. Resources/Permanent Notes/A.md", "# A\n", true},
		{"permanent notes/sub/A.md", "# A\n", true},
		{"Permanent Notes.md", "# A\n", false},
		{"Inbox/A.md", "---\ntype: Permanent\n---\n", true},
		{"Inbox/A.md", "---\ntype: [literature, permanent]\n---\n", true},
		{"Inbox/A.md", "---\ntype: literature\n---\n", false},
		{"Inbox/A.md", "# A\n", false},
	}
	for _, tt := range tests {
		if got := typ.Matches(p.Parse(tt.path, []byte(tt.src))); got != tt.want {
			t.Errorf("Matches(%s, %q) = %v, want %v", tt.path, tt.src, got, tt.want)
		}
	}
}

// FuzzCheck runs every rule over any note: nothing panics, and every
// finding has a position inside the note.
func FuzzCheck(f *testing.F) {
	for _, seed := range []string{
		"# A\n## Claim\n\nx\n\n## Links\n\n- [[B#H]] — extends: y\n- [[A#^id]]\n\n## Maintenance\n- Last tended: 2026-02-30\n",
		"# A ## Claim x ## Evidence y ## Links ## Maintenance - Last tended: 2026-01-01",
		"---\nzk-ignore: [links]\naliases: x\n---\n<!-- zk-ignore -->\n[[#Nowhere]] %% zk-ignore links/broken %%\n",
		"---\ntype: permanent\n---\n\n## Tests / falsifiers\n\nprose\n",
		"",
	} {
		f.Add(seed)
	}
	schema, err := ParseSchema([]byte("# {{title}}\n## Claim\n## Scope & conditions\n## Evidence\n## Links\n## Tests / falsifiers\n## Maintenance\n- Last tended: {{date}}\n"))
	if err != nil {
		f.Fatal(err)
	}
	opts := CheckOptions{
		Today: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC),
		Types: []*NoteType{{Name: "permanent", Schema: schema, Paths: DefaultTypePaths, Property: "type", Value: "permanent"}},
	}
	f.Fuzz(func(t *testing.T, src string) {
		n := NewParser().Parse("Permanent Notes/A.md", []byte(src))
		s := &Scan{Notes: []*Note{n}, Resolver: NewResolver([]string{n.Path, "B.md"}), byPath: map[string]*Note{n.Path: n}}
		lines := strings.Count(src, "\n") + 1
		for _, fd := range Check(s, opts) {
			if fd.Line < 1 || fd.Line > lines || fd.Column < 1 {
				t.Errorf("finding %+v outside the note's %d lines", fd, lines)
			}
		}
	})
}
