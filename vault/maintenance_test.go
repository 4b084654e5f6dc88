package vault

import (
	"errors"
	"testing"
	"time"
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
			n := NewParser().Parse("n.md", []byte(tt.src))
			got, ok := LastTended(n, tt.keys)
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

func TestParseInterval(t *testing.T) {
	tests := []struct {
		in   string
		want Interval
		bad  bool
	}{
		{in: "30d", want: Interval{30, 'd'}},
		{in: "6w", want: Interval{6, 'w'}},
		{in: "3m", want: Interval{3, 'm'}},
		{in: "1y", want: Interval{1, 'y'}},
		{in: " 2W ", want: Interval{2, 'w'}},
		{in: "45", want: Interval{45, 'd'}},
		{in: "", bad: true},
		{in: "0d", bad: true},
		{in: "-3d", bad: true},
		{in: "3h", bad: true},
		{in: "d", bad: true},
		{in: "fortnightly", bad: true},
	}
	for _, tt := range tests {
		got, err := ParseInterval(tt.in)
		if (err != nil) != tt.bad || got != tt.want {
			t.Errorf("ParseInterval(%q) = %v, %v; want %v, bad %v", tt.in, got, err, tt.want, tt.bad)
		}
		if back, _ := ParseInterval(got.String()); err == nil && back != got {
			t.Errorf("%v.String() = %q does not read back", got, got.String())
		}
	}
}

func TestIntervalAfter(t *testing.T) {
	day := func(s string) time.Time {
		d, err := time.Parse(time.DateOnly, s)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		iv       Interval
		from, to string
	}{
		{Interval{90, 'd'}, "2026-01-01", "2026-04-01"},
		{Interval{6, 'w'}, "2026-10-01", "2026-11-12"},
		{Interval{3, 'm'}, "2026-08-31", "2026-11-30"}, // clamped, not December 1
		{Interval{1, 'm'}, "2026-01-31", "2026-02-28"},
		{Interval{13, 'm'}, "2026-01-15", "2027-02-15"},
		{Interval{1, 'y'}, "2028-02-29", "2029-02-28"},
		{Interval{4, 'y'}, "2028-02-29", "2032-02-29"},
	}
	for _, tt := range tests {
		if got := tt.iv.After(day(tt.from)).Format(time.DateOnly); got != tt.to {
			t.Errorf("%v after %s = %s, want %s", tt.iv, tt.from, got, tt.to)
		}
	}
}

// TestSetLastTendedIn: a type whose template keeps the line under another
// heading reads and writes it there.
func TestSetLastTendedIn(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"line", "# A\n## Upkeep\n- Last tended: 2026-01-01\n", "# A\n## Upkeep\n- Last tended: 2026-12-02\n"},
		{"section without the line", "# A\n## Upkeep\nkept\n", "# A\n## Upkeep\n- Last tended: 2026-12-02\nkept\n"},
		{"no section", "# A\nbody\n", "# A\nbody\n\n## Upkeep\n- Last tended: 2026-12-02\n"},
		{"a Maintenance line is not the type's", "# A\n## Maintenance\n- Last tended: 2026-01-01\n",
			"# A\n## Maintenance\n- Last tended: 2026-01-01\n\n## Upkeep\n- Last tended: 2026-12-02\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetLastTendedIn("n.md", []byte(tt.src), "2026-12-02", "Upkeep", nil)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			n := NewParser().Parse("n.md", got)
			if td, ok := LastTendedIn(n, "Upkeep", nil); !ok || td.Raw != "2026-12-02" || td.Source != TendedLine {
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
		{"an unclosed fence swallows a new heading", "# A\n```\ncode\n", "", ErrSpliceGone},
		{"mixed endings: the heading's", "# A\r\n## Maintenance\nx\r\n", "# A\r\n## Maintenance\n- Last tended: 2026-12-02\nx\r\n", nil},
		{"mixed endings: the last line's", "# A\nb\r\n", "# A\nb\r\n\r\n## Maintenance\r\n- Last tended: 2026-12-02\r\n", nil},
		{"CR alone", "# A\rbody\r", "", ErrSpliceGone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := SetLastTended("n.md", []byte(tt.src), "2026-12-02", nil)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if string(got) != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := SetLastTended("n.md", []byte("# A\n"), "2026-02-30", nil); !errors.Is(err, ErrBadDate) {
		t.Errorf("a date that is not real: err = %v, want ErrBadDate", err)
	}
}
