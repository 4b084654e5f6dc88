package index

import (
	"strings"
	"unicode/utf8"
)

// cut takes about fragmentWidth bytes of text[lo:hi] around anchor, on
// word boundaries, with runs of white space (line breaks included) shown
// as one space, and "…" where text was cut off. marks are byte ranges of
// text; those inside the window come back as ranges of the fragment.
func cut(text string, lo, hi, anchor int, marks [][2]int) Fragment {
	lo, hi = max(0, lo), min(len(text), hi)
	anchor = min(max(anchor, lo), hi)
	start := max(lo, anchor-fragmentWidth/3)
	for start > lo && start < len(text) && !utf8.RuneStart(text[start]) {
		start--
	}
	if start > lo {
		if i := strings.IndexAny(text[start:anchor], " \t\n"); i >= 0 {
			start += i + 1
		}
	}
	end := min(hi, start+fragmentWidth)
	for end < hi && !utf8.RuneStart(text[end]) {
		end--
	}
	if end < hi {
		if i := strings.LastIndexAny(text[anchor:end], " \t\n"); i > 0 {
			end = anchor + i
		}
	}

	var b strings.Builder
	if start > lo {
		b.WriteString("… ")
	}
	at := make([]int, end-start+1) // fragment offset of each text offset
	space := false
	for i := start; i < end; i++ {
		c := text[i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			at[i-start] = b.Len()
			space = true
			continue
		}
		if space && b.Len() > 0 && !strings.HasSuffix(b.String(), " ") {
			b.WriteByte(' ')
		}
		space = false
		at[i-start] = b.Len()
		b.WriteByte(c)
	}
	at[end-start] = b.Len()
	f := Fragment{}
	for _, m := range marks {
		s, e := max(m[0], start), min(m[1], end)
		if s >= e {
			continue
		}
		m := [2]int{at[s-start], at[e-start]}
		// A phrase reads as one mark; overlapping marks (CJK character
		// pairs) are one too.
		if k := len(f.Marks) - 1; k >= 0 && (m[0] <= f.Marks[k][1] || strings.TrimSpace(b.String()[f.Marks[k][1]:m[0]]) == "") {
			f.Marks[k][1] = max(f.Marks[k][1], m[1])
			continue
		}
		f.Marks = append(f.Marks, m)
	}
	if end < hi {
		b.WriteString(" …")
	}
	f.Text = b.String()
	return f
}
