package workspace

import (
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/zk-claims/zk/vault"
)

// Near are at most max notes whose names come closest to arg, each as a
// NOTE argument names it (its name, or its vault path where another note
// has the name), closest first: a name a few edits away (a typo, a
// letter's case, a dropped character: at most a fifth of the name, at
// least two), then a name that holds arg or that arg holds (a part of a
// long title), shortest first. A vault of 100,000 notes is compared in
// a few milliseconds: names whose length alone rules them out are not.
func Near(files []vault.File, arg string, max int) []string {
	want := []rune(strings.ToLower(strings.TrimSuffix(strings.TrimSpace(arg), ".md")))
	if len(want) == 0 {
		return nil
	}
	limit := len(want) / 5
	if limit < 2 {
		limit = 2
	}
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	byName := map[string]int{}
	for _, f := range files {
		if f.IsNote() {
			byName[vault.FoldName(noteNameOf(f.Path))]++
		}
	}
	for _, f := range files {
		if !f.IsNote() {
			continue
		}
		name := noteNameOf(f.Path)
		lower := strings.ToLower(name)
		show := name
		if byName[vault.FoldName(name)] > 1 {
			show = f.Path
		}
		n := utf8.RuneCountInString(lower)
		if d := n - len(want); d >= -limit && d <= limit {
			if dist, ok := editDistance(want, []rune(lower), limit); ok {
				cands = append(cands, cand{show, dist})
				continue
			}
		}
		if len(want) >= 4 && (strings.Contains(lower, string(want)) || strings.Contains(string(want), lower) && n >= 4) {
			// After every name within edits: by how much it differs.
			d := n - len(want)
			if d < 0 {
				d = -d
			}
			cands = append(cands, cand{show, limit + 1 + d})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if a.dist != b.dist {
			return a.dist - b.dist
		}
		return strings.Compare(a.name, b.name)
	})
	var out []string
	for _, c := range cands {
		if len(out) == max {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// noteNameOf is a note's name: its file name without the extension.
func noteNameOf(p string) string { return strings.TrimSuffix(path.Base(p), path.Ext(p)) }

// editDistance is the Levenshtein distance of a and b, and whether it is
// at most limit; only the band of width 2·limit+1 around the diagonal is
// computed.
func editDistance(a, b []rune, limit int) (int, bool) {
	const inf = 1 << 30
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
		if j > limit {
			prev[j] = inf
		}
	}
	for i := 1; i <= len(a); i++ {
		for j := range cur {
			cur[j] = inf
		}
		if i <= limit {
			cur[0] = i
		}
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		best := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j-1]+cost, prev[j]+1, cur[j-1]+1)
			cur[j] = v
			best = min(best, v)
		}
		if best > limit {
			return best, false
		}
		prev, cur = cur, prev
	}
	return prev[len(b)], prev[len(b)] <= limit
}
