package vault

import (
	"strings"
	"testing"
)

func TestFileName(t *testing.T) {
	tests := []struct{ title, want string }{
		{"Aggregate Throughput Hides the Per-Stream Speed", "Aggregate Throughput Hides the Per-Stream Speed"},
		{`Caches: Hide* the "Cold" Path?`, "Caches Hide the Cold Path"},
		{"a/b\\c|d#e^f[g]h<i>j", "a b c d e f g h i j"},
		{"  spaced \t out  ", "spaced out"},
		{".hidden", "hidden"},
		{"../escape", "escape"},
		{". . .x", "x"},
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

// A note's frontmatter naming its type wins over another type's folder,
// whatever order the types come in: type: literature in Permanent Notes
// is literature, type: permanent in Literature is permanent.
func TestTypeOfFrontmatterBeforeFolder(t *testing.T) {
	perm := &NoteType{Name: "permanent", Paths: DefaultTypePaths, Property: "type", Value: "permanent"}
	lit := &NoteType{Name: "literature", Paths: []string{"Literature/**"}, Property: "type", Value: "literature"}
	p := NewParser()
	tests := []struct {
		path, src string
		want      *NoteType
	}{
		{"Permanent Notes/A.md", "---\ntype: literature\n---\n# A\n", lit},
		{"Literature/A.md", "---\ntype: permanent\n---\n# A\n", perm},
		{"Permanent Notes/A.md", "# A\n", perm},
		{"Literature/A.md", "# A\n", lit},
		{"Literature/A.md", "---\ntype: fleeting\n---\n# A\n", lit}, // no type of the name: the folder's
		{"Inbox/A.md", "# A\n", nil},
	}
	for _, order := range [][]*NoteType{{perm, lit}, {lit, perm}} {
		for _, tt := range tests {
			if got := TypeOf(order, p.Parse(tt.path, []byte(tt.src))); got != tt.want {
				t.Errorf("TypeOf(%s %q) = %v, want %v", tt.path, tt.src, got, tt.want)
			}
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
