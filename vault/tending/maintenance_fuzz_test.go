package tending

import (
	"bytes"
	"errors"
	"regexp"
	"testing"

	"github.com/zk-claims/zk/vault"
)

// addedLineRe is all that tend may add to a note without a date: the line,
// after the newline a note without a final one lacks, under a Maintenance
// heading it adds when there is none.
var addedLineRe = regexp.MustCompile(`^(\r?\n){0,2}(## Maintenance\r?\n)?- Last tended: 2026-12-02\r?\n$`)

// FuzzSetLastTended: for any note, tend changes only the date bytes or
// adds only the Maintenance line, the result reads back as tended on the
// date, and tending again changes nothing.
func FuzzSetLastTended(f *testing.F) {
	for _, seed := range []string{
		"# A\n## Maintenance\n- Last tended: 2026-01-01\n",
		"# A\r\n## Maintenance\r\n- Last tended: 2026-01-01\r\n",
		"\ufeff# A\n## Maintenance\n- Last tended: 2026-01-01",
		"---\nlast-tended: 2026-01-01\n---\n# A\n",
		"---\nlast_tended: '2026-01-01' # c\n---\n",
		"# A\nlast-tended:: 2026-01-01\n",
		"# A\n\n---\n*Last tended: 2026-13-01*\n",
		"# A\n## Maintenance\n- Last tended:\n",
		"# A\n## Maintenance\n- other\n",
		"# A\n## Maintenance",
		"# A\nno final newline",
		"# A\n```\nunclosed fence\n",
		"",
		"\r\n",
		"## Maintenance\n- Last tended: 2026-02-30 (bad)\n",
	} {
		f.Add([]byte(seed))
	}
	const date = "2026-12-02"
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := SetLastTended("n.md", src, date, "", nil)
		if err != nil {
			if !errors.Is(err, vault.ErrSpliceGone) {
				t.Fatalf("unexpected error: %v", err)
			}
			return
		}
		if old, ok := LastTended(vault.NewParser().Parse("n.md", src), "", nil); ok && old.Start >= 0 {
			// The date already written is replaced, and only it.
			with := date
			if old.Start == old.End && old.Start > 0 && src[old.Start-1] == ':' {
				with = " " + date
			}
			want := vault.SpliceBytes(src, old.Start, old.End, with)
			if !bytes.Equal(out, want) {
				t.Fatalf("replaced more than the date %q:\n%q\n->\n%q", old.Raw, src, out)
			}
		} else if !onlyInserted(src, out) {
			t.Fatalf("added more than the Maintenance line:\n%q\n->\n%q", src, out)
		}
		again, err := SetLastTended("n.md", out, date, "", nil)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("tending twice changed the note again (err %v):\n%q\n->\n%q", err, out, again)
		}
	})
}

// onlyInserted reports whether out is src with one insertion matching
// addedLineRe.
func onlyInserted(src, out []byte) bool {
	k := len(out) - len(src)
	if k <= 0 {
		return false
	}
	at := vault.SpliceOf(src, out).At
	// The smallest splice may have slid the insertion over bytes it shares
	// with the text after it; try every place it could have started.
	for a := at; a >= max(0, at-k); a-- {
		if bytes.Equal(out[:a], src[:a]) && bytes.Equal(out[a+k:], src[a:]) && addedLineRe.Match(out[a:a+k]) {
			return true
		}
	}
	return false
}
