package index

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zk-claims/zk/vault"
)

const permanent = `---
tags: [rates, project/zk]
---
# The Title

Before any section.

## Claim

The claim text.

### Detail

Part of the claim.

## Scope & conditions

The scope.

## Evidence

The evidence. #bench

## Links

- [[Other]] — supports: why

## Maintenance

- Last tended: 2026-11-01
`

func TestSplitText(t *testing.T) {
	n := vault.NewParser().Parse("P/Note.md", []byte(permanent))
	got := splitText(n)
	if got.title != "The Title" {
		t.Errorf("title = %q", got.title)
	}
	for field, want := range map[string]string{
		FieldClaim:    "\nThe claim text.\n\n\n### Detail\n\nPart of the claim.\n\n",
		FieldScope:    "\nThe scope.\n\n",
		FieldEvidence: "\nThe evidence. #bench\n\n",
	} {
		if got.fields[field] != want {
			t.Errorf("%s = %q, want %q", field, got.fields[field], want)
		}
	}
	body := got.fields[FieldBody]
	for _, want := range []string{"Before any section.", "## Links", "[[Other]]", "Last tended: 2026-11-01"} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q: %q", want, body)
		}
	}
	for _, never := range []string{"tags:", "The claim", "## Claim", "# The Title"} {
		if strings.Contains(body, never) {
			t.Errorf("body has %q (each byte goes to one field): %q", never, body)
		}
	}
	for _, tc := range []struct {
		field, text, section string
	}{
		{FieldClaim, "The claim", "Claim"},
		{FieldClaim, "Part of", "Detail"},
		{FieldBody, "Before any", "The Title"},
		{FieldBody, "[[Other]]", "Links"},
	} {
		off := strings.Index(got.fields[tc.field], tc.text)
		seg, ok := got.sectionAt(tc.field, off)
		if !ok || seg.section != tc.section {
			t.Errorf("section of %q in %s = %q, want %q", tc.text, tc.field, seg.section, tc.section)
		}
	}
}

func TestNewDoc(t *testing.T) {
	n := vault.NewParser().Parse("P/Note.md", []byte(permanent))
	d := newDoc(n, vault.NewResolver([]string{"P/Note.md", "Q/Other.md"}), nil, nil)
	if strings.Join(d.Tags, ",") != "rates,project/zk,project,bench" { // frontmatter first, as Obsidian lists them
		t.Errorf("tags = %q", d.Tags)
	}
	if strings.Join(d.Links, ",") != "Q/Other,Other" {
		t.Errorf("links = %q", d.Links)
	}
	if d.Tended == nil || d.Tended.Format("2006-01-02") != "2026-11-01" {
		t.Errorf("tended = %v", d.Tended)
	}
}

// Invalid UTF-8 next to a word would make the word unsearchable; the
// indexed text is cleaned, the note is not touched.
func TestSplitTextCleansUTF8(t *testing.T) {
	src := []byte("# T\n\nok \xc3 falsifier\n")
	n := vault.NewParser().Parse("a.md", src)
	if body := splitText(n).fields[FieldBody]; body != "\nok \uFFFD falsifier\n" {
		t.Errorf("body = %q", body)
	}
	if string(n.Src) != string(src) {
		t.Error("the note's bytes changed")
	}
}

func TestCut(t *testing.T) {
	long := strings.Repeat("word ", 60)
	for _, tc := range []struct {
		name     string
		text     string
		anchor   int
		marks    [][2]int
		want     string
		wantMark []string
	}{
		{"short", "a rate\nwithout\n\nits denominator", 20, [][2]int{{20, 31}}, "a rate without its denominator", []string{"denominator"}},
		{"phrase marks merge", "does not hold", 0, [][2]int{{0, 4}, {5, 8}, {9, 13}}, "does not hold", []string{"does not hold"}},
		{"cut both ends", long + "needle " + long, len(long), [][2]int{{len(long), len(long) + 6}}, "", []string{"needle"}},
	} {
		f := cut(tc.text, 0, len(tc.text), tc.anchor, tc.marks)
		if tc.want != "" && f.Text != tc.want {
			t.Errorf("%s: text = %q, want %q", tc.name, f.Text, tc.want)
		}
		if tc.name == "cut both ends" && (!strings.HasPrefix(f.Text, "… ") || !strings.HasSuffix(f.Text, " …") || len(f.Text) > fragmentWidth+10) {
			t.Errorf("%s: text = %q, want a window with … at both ends", tc.name, f.Text)
		}
		var got []string
		for _, m := range f.Marks {
			got = append(got, f.Text[m[0]:m[1]])
		}
		if strings.Join(got, "|") != strings.Join(tc.wantMark, "|") {
			t.Errorf("%s: marks = %q, want %q", tc.name, got, tc.wantMark)
		}
	}
}

// Text in either Unicode form finds text in the other.
func TestSearchNFC(t *testing.T) {
	v := testVault(t, map[string]string{"a.md": "# A\n\nCafe\u0301 cre\u0300me.\n", "b.md": "# B\n\nCaf\u00e9.\n"})
	opts := Options{Dir: filepath.Join(t.TempDir(), "idx")}
	for _, q := range []string{"caf\u00e9", "cafe\u0301"} {
		if got, _ := searchPaths(t, v, opts, q); strings.Join(got, ",") != "a.md,b.md" {
			t.Errorf("search %q = %v, want both notes", q, got)
		}
	}
}

// A nested tag counts as its parents, but only the first maxTagDepth of
// them: a deep "#a/a/a/…" once indexed every prefix, quadratic in its
// length. The tags of a note cost at most maxTagDepth+1 times its bytes.
func TestNoteTagsBounded(t *testing.T) {
	deep := "#" + strings.Repeat("a/", 10_000) + "a"
	for _, tc := range []struct {
		name string
		src  string
		want []string // nil: only the bounds are checked
	}{
		{"nested", "# T\n\n#p/q/r\n", []string{"p/q/r", "p/q", "p"}},
		{"depth capped", "# T\n\n#a/b/c/d/e/f/g/h/i/j/k\n", []string{"a/b/c/d/e/f/g/h/i/j/k", "a/b/c/d/e/f/g/h", "a/b/c/d/e/f/g", "a/b/c/d/e/f", "a/b/c/d/e", "a/b/c/d", "a/b/c", "a/b", "a"}},
		{"deep 20 KB", "# T\n\n" + deep + "\n", nil},
		{"many deep tags", "# T\n\n" + strings.Repeat(deep+"b ", 10) + "\n", nil},
	} {
		n := vault.NewParser().Parse("a.md", []byte(tc.src))
		got := noteTags(n)
		if tc.want != nil && strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: tags = %q, want %q", tc.name, got, tc.want)
		}
		size := 0
		for _, g := range got {
			size += len(g)
		}
		if size > (maxTagDepth+1)*len(tc.src) {
			t.Errorf("%s: %d tags, %d bytes from a note of %d bytes", tc.name, len(got), size, len(tc.src))
		}
	}
}

// The frontmatter's text values are the prop field, each under its key,
// aliases and a title property are searched as the title, and numbers,
// checkboxes, dates and zk's lang are not text.
func TestSplitTextProperties(t *testing.T) {
	src := "---\naliases: [Quokka handbook, QH]\ntitle: Marsupials\nstatus: evergreen\nrating: 4\ndone: true\n" +
		"created: 2024-05-06\nseen: 2024-05-06T10:00\nlang: fr\ntags: [wombat, a/b]\nsources: [Rottnest, 7]\nempty:\n---\n# Props\n\nBody.\n"
	n := vault.NewParser().Parse("Props.md", []byte(src))
	got := splitText(n)
	if got.title != "Props" {
		t.Errorf("title = %q, want the H1", got.title)
	}
	if want := "Props\nQuokka handbook\nQH\nMarsupials"; got.field(FieldTitle) != want {
		t.Errorf("title text = %q, want %q", got.field(FieldTitle), want)
	}
	if want := "evergreen\nwombat\na/b\nRottnest"; got.fields[FieldProp] != want {
		t.Errorf("prop = %q, want %q", got.fields[FieldProp], want)
	}
	if seg, ok := got.sectionAt(FieldProp, strings.Index(got.fields[FieldProp], "Rottnest")); !ok || seg.section != "sources" {
		t.Errorf("section of Rottnest = %q, want its key", seg.section)
	}
	d := newDoc(n, nil, nil, nil)
	if strings.Join(d.Whole, "|") != "Props|Quokka handbook|QH|Marsupials" {
		t.Errorf("whole titles = %q", d.Whole)
	}
}
