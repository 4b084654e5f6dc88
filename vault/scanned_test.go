package vault

import (
	"context"
	"regexp"
	"sort"
	"testing"
)

// scanned is a vault read whole, for tests that look at every note: the
// walk (Files) and the stream (Each), the same two steps every command
// takes.
type scanned struct {
	files    []File
	notes    []*Note
	skipped  []Skip
	resolver *Resolver
}

func (s scanned) note(p string) *Note {
	for _, n := range s.notes {
		if n.Path == p {
			return n
		}
	}
	return nil
}

func scanAll(t testing.TB, v *Vault) scanned {
	t.Helper()
	ctx := context.Background()
	files, skips, err := v.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	paths, notes := SplitFiles(files)
	parsed := make([]*Note, len(notes))
	reasons := v.Each(ctx, notes, func(i int, n *Note) { parsed[i] = n })
	s := scanned{files: files, skipped: skips, resolver: NewResolver(paths)}
	for i, n := range parsed {
		if n == nil {
			s.skipped = append(s.skipped, Skip{Path: notes[i].Path, Reason: reasons[i]})
			continue
		}
		s.notes = append(s.notes, n)
	}
	sort.Slice(s.skipped, func(i, j int) bool { return s.skipped[i].Path < s.skipped[j].Path })
	return s
}

// tendedRe is the "Last tended: DATE" line the write tests edit; the
// tending package owns the real reader and writer, which import this one.
var tendedRe = regexp.MustCompile(`Last tended: (\d{4}-\d{2}-\d{2})`)

// tended is the date of src's Last tended line and its byte span.
type tended struct {
	Raw        string
	Start, End int
	Err        error
}

// lastTended finds the date the write tests set (n is parsed only to keep
// the callers' shape).
func lastTended(n *Note, _ []string) (tended, bool) {
	m := tendedRe.FindSubmatchIndex(n.Src)
	if m == nil {
		return tended{}, false
	}
	return tended{Raw: string(n.Src[m[2]:m[3]]), Start: m[2], End: m[3]}, true
}

// setLastTended replaces the date of src's Last tended line, or adds a
// Maintenance section holding one: the two edits `zk tend` makes.
func setLastTended(_ string, src []byte, date string, _ []string) ([]byte, error) {
	m := tendedRe.FindSubmatchIndex(src)
	if m == nil {
		add := "\n## Maintenance\n- Last tended: " + date + "\n"
		if !HasFinalNewline(src) {
			add = "\n" + add
		}
		return SpliceBytes(src, len(src), len(src), add), nil
	}
	out := append([]byte{}, src[:m[2]]...)
	out = append(out, date...)
	return append(out, src[m[3]:]...), nil
}
