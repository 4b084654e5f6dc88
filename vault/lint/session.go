package lint

import (
	"context"
	"slices"
	"sync"

	"github.com/zk-claims/zk/vault"
)

// Session checks one note at a time against the rest of the vault, for an
// editor: the vault is read once, keeping of each note what the link rules
// need (as Check does), and then a note's text, saved or not, is checked
// in the time one note takes, with the same rules and findings as Check.
// A Session is safe for use from several goroutines.
type Session struct {
	mu sync.Mutex
	c  *checker
}

// NewSession reads every note of a walk of the vault (Files) for their
// headings, block ids and aliases. each, when set, sees every note parsed,
// from several goroutines at once.
func NewSession(ctx context.Context, v *vault.Vault, files []vault.File, opts Options, each func(*vault.Note)) (*Session, error) {
	paths, notes := vault.SplitFiles(files)
	c := newChecker(vault.NewResolver(paths), opts)
	sums := make([]*noteSummary, len(notes))
	v.Each(ctx, notes, func(i int, n *vault.Note) {
		if each != nil {
			each(n)
		}
		s := summarize(n)
		sums[i] = &s
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s := &Session{c: c}
	for i, sum := range sums {
		if sum != nil {
			s.setSummary(notes[i].Path, sum)
		}
	}
	return s, nil
}

// setSummary records a note's summary in place of the one it had, and
// its aliases in place of its old ones. The caller holds mu.
func (s *Session) setSummary(p string, sum *noteSummary) {
	c := s.c
	if old := c.summaries[p]; old != nil {
		for _, a := range old.aliases {
			k := vault.FoldName(a)
			if i := slices.Index(c.aliases[k], old.name); i >= 0 {
				c.aliases[k] = slices.Delete(slices.Clone(c.aliases[k]), i, i+1)
			}
		}
	}
	if sum == nil {
		delete(c.summaries, p)
		return
	}
	c.summaries[p] = sum
	for _, a := range sum.aliases {
		k := vault.FoldName(a)
		c.aliases[k] = append(c.aliases[k], sum.name)
	}
}

// Check checks n, the note's text as the editor holds it, and from now on
// resolves links to n against this text. Its findings are sorted; a note
// the options' Only leaves out has none.
func (s *Session) Check(n *vault.Note) []Finding {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := summarize(n)
	s.setSummary(n.Path, &sum)
	r := s.c.note(n)
	if !r.checked {
		return nil
	}
	out := r.findings
	var links []Finding
	for _, l := range r.links {
		links = s.c.linkFindings(links, r.path, l)
	}
	out = append(out, r.ignores.filter(links)...)
	SortFindings(out)
	return out
}

// Update records n's headings, block ids and aliases (a note changed
// outside the editor) without checking it.
func (s *Session) Update(n *vault.Note) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sum := summarize(n)
	s.setSummary(n.Path, &sum)
}

// SetFiles takes a new walk of the vault (a note created, deleted or
// renamed): links resolve against its files from now on, and the notes no
// longer in it are forgotten.
func (s *Session) SetFiles(files []vault.File) {
	s.mu.Lock()
	defer s.mu.Unlock()
	paths, _ := vault.SplitFiles(files)
	s.c.resolver = vault.NewResolver(paths)
	keep := map[string]bool{}
	for _, p := range paths {
		keep[p] = true
	}
	for p := range s.c.summaries {
		if !keep[p] {
			s.setSummary(p, nil)
		}
	}
}
