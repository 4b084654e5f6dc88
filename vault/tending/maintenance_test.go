package tending

import (
	"bytes"
	"errors"
	"regexp"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
)

func TestLastTended(t *testing.T) {
	tests := []struct {
		name    string
		src     string
		keys    []string
		found   bool
		source  TendedSource
		key     string
		raw     string
		bad     bool
		line    int
		spanned bool
	}{
		{name: "maintenance line", src: "# A\n## Maintenance\n- Last tended: 2026-08-01\n", found: true, source: TendedLine, raw: "2026-08-01", line: 2, spanned: true},
		{name: "bold, no list marker", src: "# A\n## Maintenance\n**Last tended:** 2026-08-01\n", found: true, source: TendedLine, raw: "2026-08-01", line: 2, spanned: true},
		{name: "CRLF", src: "# A\r\n## Maintenance\r\n- Last tended: 2026-08-01\r\n", found: true, source: TendedLine, raw: "2026-08-01", line: 2, spanned: true},
		{name: "trailing full stop", src: "## Maintenance\n- Last tended: 2026-08-01.\n", found: true, source: TendedLine, raw: "2026-08-01", spanned: true, line: 1},
		{name: "not a real date", src: "## Maintenance\n- Last tended: 2026-02-30\n", found: true, source: TendedLine, raw: "2026-02-30", bad: true, line: 1, spanned: true},
		{name: "not a date at all", src: "## Maintenance\n- Last tended: soon\n", found: true, source: TendedLine, raw: "soon", bad: true, line: 1, spanned: true},
		{name: "empty", src: "## Maintenance\n- Last tended:\n", found: true, source: TendedLine, raw: "", bad: true, line: 1, spanned: true},
		{name: "frontmatter", src: "---\nlast-tended: 2026-07-01\n---\n# A\n", found: true, source: TendedFrontmatter, key: "last-tended", raw: "2026-07-01", line: 1, spanned: true},
		{name: "frontmatter quoted with a comment", src: "---\nlastTended: \"2026-07-01\" # by hand\n---\n", found: true, source: TendedFrontmatter, key: "lastTended", raw: "2026-07-01", line: 1, spanned: true},
		{name: "frontmatter key order is keys' order", src: "---\nlast-reviewed: 2026-01-01\nlast_tended: 2026-07-01\n---\n", found: true, source: TendedFrontmatter, key: "last_tended", raw: "2026-07-01", line: 2, spanned: true},
		{name: "configured keys", src: "---\nreviewed: 2026-07-01\nlast-tended: 2026-01-01\n---\n", keys: []string{"reviewed"}, found: true, source: TendedFrontmatter, key: "reviewed", raw: "2026-07-01", line: 1, spanned: true},
		{name: "the line wins over frontmatter", src: "---\nlast-tended: 2026-01-01\n---\n## Maintenance\n- Last tended: 2026-08-01\n", found: true, source: TendedLine, raw: "2026-08-01", line: 4, spanned: true},
		{name: "dataview", src: "# A\nReviewed. last-tended:: 2026-06-01\n", found: true, source: TendedDataview, raw: "2026-06-01", line: 1, spanned: true},
		{name: "dataview in brackets", src: "# A\n[last-tended:: 2026-06-01]\n", found: true, source: TendedDataview, raw: "2026-06-01", line: 1, spanned: true},
		{name: "garden footer", src: "# A\nBody.\n\n---\n*Planted: 2025-01-01 · Last tended: 2026-05-01*\n", found: true, source: TendedFooter, raw: "2026-05-01", line: 4, spanned: true},
		{name: "no date", src: "# A\n## Maintenance\nnothing\n", found: false},
		{name: "a line outside Maintenance is not the line", src: "# A\n## Claim\n- Last tended: 2026-01-01\n", found: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := vault.NewParser().Parse("n.md", []byte(tt.src))
			got, ok := LastTended(n, "", tt.keys)
			if ok != tt.found {
				t.Fatalf("found = %v, want %v (%+v)", ok, tt.found, got)
			}
			if !ok {
				return
			}
			if got.Source != tt.source || got.Key != tt.key || got.Raw != tt.raw || (got.Err != nil) != tt.bad || got.Line != tt.line {
				t.Errorf("got %+v, want source %s key %q raw %q bad %v line %d", got, tt.source, tt.key, tt.raw, tt.bad, tt.line)
			}
			if tt.spanned && (got.Start < 0 || tt.src[got.Start:got.End] != tt.raw) {
				t.Errorf("span [%d:%d] does not hold %q", got.Start, got.End, tt.raw)
			}
			if !tt.bad && got.Date.Format(time.DateOnly) != tt.raw {
				t.Errorf("Date = %v, want %s", got.Date, tt.raw)
			}
		})
	}
}

// TestSetLastTendedSection: a type whose template keeps the line under another
// heading reads and writes it there.
func TestSetLastTendedSection(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"line", "# A\n## Upkeep\n- Last tended: 2026-01-01\n", "# A\n## Upkeep\n- Last tended: 2026-12-02\n"},
		{"section without the line", "# A\n## Upkeep\nkept\n", "# A\n## Upkeep\n- Last tended: 2026-12-02\nkept\n"},
		{"no section", "# A\nbody\n", "# A\nbody\n\n## Upkeep\n- Last tended: 2026-12-02\n"},
		{"a Maintenance line is not the type's", "# A\n## Maintenance\n- Last tended: 2026-01-01\n",
			"# A\n## Maintenance\n- Last tended: 2026-01-01\n\n## Upkeep\n- Last tended: 2026-12-02\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetLastTended("n.md", []byte(tt.src), "2026-12-02", "Upkeep", nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			n := vault.NewParser().Parse("n.md", got)
			if td, ok := LastTended(n, "Upkeep", nil); !ok || td.Raw != "2026-12-02" || td.Source != TendedLine {
				t.Errorf("read back %+v, %v", td, ok)
			}
		})
	}
}

func TestSetLastTended(t *testing.T) {
	tests := []struct {
		name, src, want string
		err             error
	}{
		{"line", "## Maintenance\n- Last tended: 2026-01-01\nmore\n", "## Maintenance\n- Last tended: 2026-12-02\nmore\n", nil},
		{"bad date replaced", "## Maintenance\n- Last tended: 2026-13-01\n", "## Maintenance\n- Last tended: 2026-12-02\n", nil},
		{"empty date", "## Maintenance\n- Last tended:\n", "## Maintenance\n- Last tended: 2026-12-02\n", nil},
		{"frontmatter", "---\nlast-tended: '2026-01-01'\n---\n# A\n", "---\nlast-tended: '2026-12-02'\n---\n# A\n", nil},
		{"dataview", "# A\nlast-tended:: 2026-01-01\n", "# A\nlast-tended:: 2026-12-02\n", nil},
		{"section without the line", "# A\n## Maintenance\n\nkept\n", "# A\n## Maintenance\n- Last tended: 2026-12-02\n\nkept\n", nil},
		{"section heading last, no newline", "# A\n## Maintenance", "# A\n## Maintenance\n- Last tended: 2026-12-02\n", nil},
		{"no section", "# A\nbody\n", "# A\nbody\n\n## Maintenance\n- Last tended: 2026-12-02\n", nil},
		{"no section, CRLF, no final newline", "# A\r\nbody", "# A\r\nbody\r\n\r\n## Maintenance\r\n- Last tended: 2026-12-02\r\n", nil},
		{"an unclosed fence swallows a new heading", "# A\n```\ncode\n", "", vault.ErrSpliceGone},
		{"mixed endings: the heading's", "# A\r\n## Maintenance\nx\r\n", "# A\r\n## Maintenance\n- Last tended: 2026-12-02\nx\r\n", nil},
		{"mixed endings: the last line's", "# A\nb\r\n", "# A\nb\r\n\r\n## Maintenance\r\n- Last tended: 2026-12-02\r\n", nil},
		{"CR alone", "# A\rbody\r", "", vault.ErrSpliceGone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetLastTended("n.md", []byte(tt.src), "2026-12-02", "", nil)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := SetLastTended("n.md", []byte("# A\n"), "2026-02-30", "", nil); !errors.Is(err, ErrBadDate) {
		t.Errorf("a date that is not real: err = %v, want ErrBadDate", err)
	}
}

// isDateShape is the expression it replaced, ^\d{4}-\d{2}-\d{2}$.
func TestIsDateShape(t *testing.T) {
	re := regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	for _, s := range []string{"", "2026-03-15", "2026-3-15", "2026-03-1x", "２026-03-15", "2026-03-15\n", "20260-3-15",
		"2026/03/15", "-2026-03-15", "2026-03-155", "0000-00-00", "2026--03-15", "abcd-ef-gh"} {
		if got, want := isDateShape(s), re.MatchString(s); got != want {
			t.Errorf("isDateShape(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestHasTended: "tended" in any ASCII case, and nothing else.
func TestHasTended(t *testing.T) {
	for s, want := range map[string]bool{
		"Last tended: 2026-01-01": true, "LAST TENDED": true, "tEnDeD": true, "x-tended::": true,
		"tende": false, "": false, "tender": false, "t\u0435nded": false, "TENDE\x04": false, "tended"[:5]: false,
	} {
		if got := hasTended([]byte(s)); got != want {
			t.Errorf("hasTended(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzHasTended: where hasTended finds no "tended", neither expression
// it stands before matches.
func FuzzHasTended(f *testing.F) {
	for _, s := range []string{"last tended: 2026-01-01", "LAST-TENDED:: x", "la\u017ft tended 1", "Last Tended", "tende d"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !hasTended(b) && (footerRe().Match(b) || dataviewRe().Match(b)) {
			t.Fatalf("hasTended(%q) = false, but an expression matches", b)
		}
	})
}

// FuzzHasTendedField: where hasTendedField finds no "tended::", the
// Dataview field's expression does not match.
func FuzzHasTendedField(f *testing.F) {
	for _, s := range []string{"last tended:: 2026-01-01", "LAST-TENDED:: x", "x tended: :: y", "Last_Tended::", "tended:", "::tended::"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !hasTendedField(b) && dataviewRe().Match(b) {
			t.Fatalf("hasTendedField(%q) = false, but the expression matches", b)
		}
	})
}

// plainThematicBreak is lastThematicBreak as it read every line.
func plainThematicBreak(b []byte) int {
	last := -1
	for off := 0; off < len(b); {
		end := bytes.IndexByte(b[off:], '\n')
		line := b[off:]
		if end >= 0 {
			line = b[off : off+end]
		}
		t := bytes.TrimSpace(line)
		if len(t) >= 3 && (bytes.Count(t, []byte("-")) == len(t) || bytes.Count(t, []byte("*")) == len(t) || bytes.Count(t, []byte("_")) == len(t)) {
			last = off
		}
		if end < 0 {
			break
		}
		off += end + 1
	}
	return last
}

// FuzzLastThematicBreak holds the search for "---", "***" and "___" to
// the line by line scan.
func FuzzLastThematicBreak(f *testing.F) {
	for _, s := range []string{"a\n---\nb", "---", "| a |\n|---|---|\n", " *** \n- - -\n--\n____\n", "\u3000---\u00a0\nx", "---x\n***\n", "a\r\n___\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := lastThematicBreak([]byte(s)), plainThematicBreak([]byte(s)); got != want {
			t.Fatalf("lastThematicBreak(%q) = %d, want %d", s, got, want)
		}
	})
}
