package lint

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// genNote is a note of the generated vault: what an edit changes.
type genNote struct {
	title    string
	headings []string
	blocks   []string
	aliases  []string
	links    []string // body links: "n03", "n03#H1", "n03#^b1", an alias, "missing"
	rests    []string // Links entries: "extends|n03", "contrasts|n04"
	refuted  bool
	falsify  string
	prose    string // a paragraph: what most edits change, and no summary
}

func (g *genNote) text() string {
	var b strings.Builder
	if len(g.aliases) > 0 {
		fmt.Fprintf(&b, "---\naliases: [%s]\n---\n", strings.Join(g.aliases, ", "))
	}
	fmt.Fprintf(&b, "# %s\n\n", g.title)
	for i, h := range g.headings {
		fmt.Fprintf(&b, "## %s\n\nText %d", h, i)
		if i < len(g.blocks) {
			fmt.Fprintf(&b, " ^%s", g.blocks[i])
		}
		b.WriteString("\n\n")
	}
	for _, l := range g.links {
		fmt.Fprintf(&b, "See [[%s]].\n", l)
	}
	if g.prose != "" {
		fmt.Fprintf(&b, "\n%s\n", g.prose)
	}
	if len(g.rests) > 0 {
		b.WriteString("\n## Links\n\n")
		for _, r := range g.rests {
			rel, to, _ := strings.Cut(r, "|")
			fmt.Fprintf(&b, "- [[%s]] — %s: because.\n", to, rel)
		}
	}
	if g.refuted {
		// RefutedC's falsifier and the run that refutes it.
		_, body, _ := strings.Cut(vaulttest.RefutedC, "\n")
		b.WriteString("\n" + body)
	} else if g.falsify != "" {
		fmt.Fprintf(&b, "\n## Tests / falsifiers\n\n- %s\n", g.falsify)
	}
	return b.String()
}

// genVault is a random vault of n notes linking to one another by name,
// heading, block id and alias, resting on one another, a few refuted.
func genVault(r *rand.Rand, n int) map[string]*genNote {
	name := func(i int) string { return fmt.Sprintf("n%02d", i) }
	notes := map[string]*genNote{}
	for i := range n {
		g := &genNote{title: name(i), falsify: "It fails."}
		for k := range 1 + r.IntN(3) {
			g.headings = append(g.headings, fmt.Sprintf("H%d", k))
			if r.IntN(2) == 0 {
				g.blocks = append(g.blocks, fmt.Sprintf("b%d", k))
			}
		}
		if r.IntN(4) == 0 {
			g.aliases = []string{fmt.Sprintf("Alias%d", r.IntN(n/2))}
		}
		for range r.IntN(5) {
			g.links = append(g.links, randomLink(r, n))
		}
		for range r.IntN(3) {
			rel := []string{"extends", "supports", "contrasts", "evidence-for"}[r.IntN(4)]
			g.rests = append(g.rests, rel+"|"+name(r.IntN(n)))
		}
		g.refuted = r.IntN(8) == 0
		dir := "A"
		if i%3 == 0 {
			dir = "B"
		}
		notes[dir+"/"+name(i)+".md"] = g
		if r.IntN(6) == 0 { // a name two notes have, from the start
			notes["C/"+name(i)+".md"] = &genNote{title: name(i) + " too", headings: []string{"H1"}, links: []string{randomLink(r, n)}}
		}
	}
	return notes
}

func randomLink(r *rand.Rand, n int) string {
	to := fmt.Sprintf("n%02d", r.IntN(n))
	switch r.IntN(9) {
	case 0:
		return to + "#H" + fmt.Sprint(r.IntN(3))
	case 1:
		return to + "#^b" + fmt.Sprint(r.IntN(3))
	case 2:
		return fmt.Sprintf("Alias%d", r.IntN(n/2))
	case 3:
		return "missing"
	case 4: // by folder: C/ holds notes of names A/ and B/ have
		return []string{"A/", "B/", "C/", "../C/"}[r.IntN(4)] + to
	case 5: // an attachment, there or not
		return fmt.Sprintf("n0%d.png", r.IntN(3))
	}
	return to
}

// edits are the edits the property test makes to one note.
var edits = []struct {
	name string
	edit func(r *rand.Rand, g *genNote, n int)
}{
	{"rename a heading", func(r *rand.Rand, g *genNote, n int) {
		i := r.IntN(len(g.headings))
		g.headings[i] = fmt.Sprintf("H%d", r.IntN(4))
	}},
	{"remove a block id", func(r *rand.Rand, g *genNote, n int) {
		if len(g.blocks) > 0 {
			g.blocks = g.blocks[:len(g.blocks)-1]
		}
	}},
	{"add a block id", func(r *rand.Rand, g *genNote, n int) {
		if len(g.blocks) < len(g.headings) {
			g.blocks = append(g.blocks, fmt.Sprintf("b%d", len(g.blocks)))
		}
	}},
	{"change the aliases", func(r *rand.Rand, g *genNote, n int) {
		g.aliases = nil
		if r.IntN(3) > 0 {
			g.aliases = []string{fmt.Sprintf("Alias%d", r.IntN(n/2))}
		}
	}},
	{"add a link", func(r *rand.Rand, g *genNote, n int) { g.links = append(g.links, randomLink(r, n)) }},
	{"remove a link", func(r *rand.Rand, g *genNote, n int) {
		if len(g.links) > 0 {
			g.links = g.links[1:]
		}
	}},
	{"rest on another", func(r *rand.Rand, g *genNote, n int) {
		g.rests = append(g.rests, fmt.Sprintf("extends|n%02d", r.IntN(n)))
	}},
	{"refute or stop refuting", func(r *rand.Rand, g *genNote, n int) { g.refuted = !g.refuted }},
	{"change a falsifier", func(r *rand.Rand, g *genNote, n int) { g.falsify = fmt.Sprintf("It fails %d times.", r.IntN(9)) }},
	{"edit the text", func(r *rand.Rand, g *genNote, n int) { g.prose = fmt.Sprintf("Edited %d times.", r.IntN(99)) }},
	{"edit the text", func(r *rand.Rand, g *genNote, n int) { g.prose = fmt.Sprintf("Edited %d times.", r.IntN(99)) }},
}

// Recheck finds what a whole Check finds, after each of a series of
// random edits to random notes of a random vault, each on the states the
// one before left, while files come and go: notes added, removed and
// renamed, names made ambiguous (C/ holds names A/ and B/ have, from the
// start and as notes are added), names that broken links and aliases
// name coming and going, attachments too. The links name notes by name,
// by folder and by a relative path. The cached seeds resolve by the
// lazy resolver: one that gave a name's first file only, or knew only
// the names of the notes changed, fails them. Every third seed names the
// chains to refuted notes of every note checked again by one walk of
// what they reach (restsOnDeferred), however few they are.
func TestRecheckMatchesCheck(t *testing.T) {
	ctx := context.Background()
	defer func(was int) { walkEachMax = was }(walkEachMax)
	for seed := range uint64(12) {
		// Seeds 6 and up give Recheck the states as a cache does, read
		// note by note (Previous.Cached), the odd ones with lookups that
		// give every note.
		cached, loose := seed >= 6, seed%2 == 1
		walkEachMax = 8
		if seed%3 == 0 {
			walkEachMax = 0
		}
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 24))
			const n = 40
			notes := genVault(r, n)
			dir := t.TempDir()
			write := func(p string) {
				full := filepath.Join(dir, filepath.FromSlash(p))
				if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(full, []byte(notes[p].text()), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var paths []string
			for p := range notes {
				write(p)
				paths = append(paths, p)
			}
			v, err := vault.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			files, skips, err := v.Files(ctx)
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{Today: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), States: true}
			full, err := Check(ctx, v, files, skips, opts, nil)
			if err != nil {
				t.Fatal(err)
			}
			prev := full.Previous()
			slices.Sort(paths)
			remove := func(p string) {
				if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
					t.Fatal(err)
				}
				delete(notes, p)
				paths = slices.DeleteFunc(paths, func(q string) bool { return q == p })
			}
			for step := range 40 {
				var changed []string
				for range 1 + r.IntN(2) {
					p := paths[r.IntN(len(paths))]
					e := edits[r.IntN(len(edits))]
					e.edit(r, notes[p], n)
					write(p)
					changed = append(changed, p)
				}
				// Files come and go: a note added under a name others
				// link to, a note removed or renamed, an attachment added
				// or removed.
				switch r.IntN(8) {
				case 0:
					p := fmt.Sprintf("C/n%02d.md", r.IntN(n+5))
					if notes[p] == nil {
						notes[p] = genVault(r, n)["A/n01.md"]
						write(p)
						paths = append(paths, p)
					}
				case 1:
					if p := paths[r.IntN(len(paths))]; !slices.Contains(changed, p) {
						remove(p)
					}
				case 2:
					if p := paths[r.IntN(len(paths))]; !slices.Contains(changed, p) {
						g := notes[p]
						remove(p)
						if q := fmt.Sprintf("B/n%02d.md", r.IntN(n+5)); notes[q] == nil {
							notes[q] = g
							write(q)
							paths = append(paths, q)
						}
					}
				case 3:
					att := filepath.Join(dir, "A", fmt.Sprintf("n0%d.png", r.IntN(3)))
					if _, err := os.Stat(att); err == nil {
						os.Remove(att)
					} else if err := os.WriteFile(att, []byte("png"), 0o644); err != nil {
						t.Fatal(err)
					}
				case 4: // a name links name, broken or an alias, comes or goes
					p := []string{"C/missing.md", "missing.md", fmt.Sprintf("C/Alias%d.md", r.IntN(n/2))}[r.IntN(3)]
					if notes[p] != nil {
						if !slices.Contains(changed, p) {
							remove(p)
						}
					} else {
						notes[p] = &genNote{title: "Now here", headings: []string{"H0"}, falsify: "It fails."}
						write(p)
						paths = append(paths, p)
					}
				}
				slices.Sort(paths)
				if files, skips, err = v.Files(ctx); err != nil {
					t.Fatal(err)
				}
				if cached {
					prev.Cached, prev.Notes, prev.States = sliceCached{states: prev.States, files: prev.Files, loose: loose}, len(prev.States), nil
					for _, st := range prev.Cached.(sliceCached).states {
						if !st.Checked {
							prev.Notes--
						}
					}
				}
				got, ok, err := Recheck(ctx, v, files, skips, opts, prev, changed, nil)
				if err != nil || !ok {
					t.Fatalf("step %d: recheck: ok %v, %v", step, ok, err)
				}
				if got.States == nil { // the cached states but for those checked again, by path
					byPath := map[string]NoteState{}
					for _, st := range prev.Cached.(sliceCached).states {
						byPath[st.Path] = st
					}
					for _, st := range got.Again {
						byPath[st.Path] = st
					}
					for _, f := range files {
						if f.IsNote() {
							got.States = append(got.States, byPath[f.Path])
						}
					}
				}
				want, err := Check(ctx, v, files, skips, opts, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got.Findings, want.Findings) || got.Notes != want.Notes {
					t.Fatalf("step %d (%v changed): recheck found\n%s\ncheck found\n%s", step, changed, show(got.Findings), show(want.Findings))
				}
				prev = got.Previous()
			}
		})
	}
}

// sliceCached are states as Previous.Cached: looked up exactly, or
// (loose) every note for every lookup.
type sliceCached struct {
	states []NoteState
	files  []string
	loose  bool
}

func (c sliceCached) State(i int) (NoteState, bool) {
	if i < 0 || i >= len(c.states) {
		return NoteState{}, false
	}
	return c.states[i], true
}

func (c sliceCached) find(keep func(st NoteState) bool) ([]int, bool) {
	var out []int
	for i, st := range c.states {
		if c.loose || keep(st) {
			out = append(out, i)
		}
	}
	return out, true
}

func (c sliceCached) Linking(p string) ([]int, bool) {
	return c.find(func(st NoteState) bool { return slices.Contains(st.Targets, p) })
}

func (c sliceCached) AliasOwners(k string) ([]int, bool) {
	return c.find(func(st NoteState) bool {
		return slices.ContainsFunc(st.Summary.sum.aliases, func(a string) bool { return vault.FoldName(a) == k })
	})
}

func (c sliceCached) BrokenNaming(k string) ([]int, bool) {
	return c.find(func(st NoteState) bool {
		return slices.ContainsFunc(st.Broken, func(b string) bool { return vault.FoldName(b) == k })
	})
}

func (c sliceCached) BrokenWhere(keep func(k string) bool) ([]int, bool) {
	return c.find(func(st NoteState) bool {
		return slices.ContainsFunc(st.Broken, func(b string) bool { return keep(vault.FoldName(b)) })
	})
}

func (c sliceCached) Named(k string) ([]string, bool) {
	if c.loose {
		return c.files, true
	}
	var out []string
	for _, p := range c.files {
		if vault.NameKey(p) == k {
			out = append(out, p)
		}
	}
	return out, true
}

func (c sliceCached) Refuted() int {
	n := 0
	for _, st := range c.states {
		if st.Summary.Refuted() {
			n++
		}
	}
	return n
}

// A note whose text alone is edited (y) while a file it rests on goes (x)
// keeps no finding of the notes resting on it (z) through that file: its
// summary's bytes are the same, but not where its Links entries lead.
func TestRecheckTextEditWhileARestedOnFileGoes(t *testing.T) {
	ctx := context.Background()
	w := &genNote{title: "w", refuted: true}
	x := &genNote{title: "x", rests: []string{"extends|w"}, falsify: "It fails."}
	y := &genNote{title: "y", rests: []string{"extends|x"}, falsify: "It fails.", prose: "Written."}
	z := &genNote{title: "z", rests: []string{"extends|y"}, falsify: "It fails."}
	_, v, files := sessionVault(t, map[string]string{"w.md": w.text(), "x.md": x.text(), "y.md": y.text(), "z.md": z.text()})
	opts := Options{Today: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), States: true}
	full, err := Check(ctx, v, files, nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(full.Findings, func(f Finding) bool { return f.Path == "z.md" && f.Rule == RuleRestsOnRefuted }) {
		t.Fatalf("z rests on nothing refuted before the edit:\n%s", show(full.Findings))
	}
	// y edited once, so that the states compared next are a recheck's.
	root := v.Root().Name()
	edit := func(text string) {
		y.prose = text
		if err := os.WriteFile(filepath.Join(root, "y.md"), []byte(y.text()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	edit("Edited.")
	got, ok, err := Recheck(ctx, v, files, nil, opts, full.Previous(), []string{"y.md"}, nil)
	if err != nil || !ok {
		t.Fatalf("recheck: ok %v, %v", ok, err)
	}
	if err := os.Remove(filepath.Join(root, "x.md")); err != nil {
		t.Fatal(err)
	}
	edit("Edited again.")
	files, skips, err := v.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok, err = Recheck(ctx, v, files, skips, opts, got.Previous(), []string{"y.md"}, nil); err != nil || !ok {
		t.Fatalf("recheck: ok %v, %v", ok, err)
	}
	want, err := Check(ctx, v, files, skips, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Findings, want.Findings) {
		t.Errorf("recheck found\n%s\ncheck found\n%s", show(got.Findings), show(want.Findings))
	}
}

// An alias one note drops and another takes in the same recheck is an
// alias changed: the broken links naming it name its new owner.
func TestRecheckAliasMovingBetweenNotes(t *testing.T) {
	ctx := context.Background()
	p := &genNote{title: "p", aliases: []string{"Al"}, falsify: "It fails."}
	q := &genNote{title: "q", falsify: "It fails."}
	r := &genNote{title: "r", links: []string{"Al"}, falsify: "It fails."}
	_, v, files := sessionVault(t, map[string]string{"p.md": p.text(), "q.md": q.text(), "r.md": r.text()})
	opts := Options{Today: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), States: true}
	full, err := Check(ctx, v, files, nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.aliases, q.aliases = nil, []string{"Al"}
	for name, g := range map[string]*genNote{"p.md": p, "q.md": q} {
		if err := os.WriteFile(filepath.Join(v.Root().Name(), name), []byte(g.text()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, ok, err := Recheck(ctx, v, files, nil, opts, full.Previous(), []string{"p.md", "q.md"}, nil)
	if err != nil || !ok {
		t.Fatalf("recheck: ok %v, %v", ok, err)
	}
	want, err := Check(ctx, v, files, nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Findings, want.Findings) || !strings.Contains(show(want.Findings), `alias of "q"`) {
		t.Errorf("recheck found\n%s\ncheck found\n%s", show(got.Findings), show(want.Findings))
	}
}

// Recheck declines when the suggestion budget, vault-wide in Check, may
// have run out.
func TestRecheckDeclinesPastTheBudget(t *testing.T) {
	ctx := context.Background()
	_, v, files := sessionVault(t, map[string]string{"a.md": "# A\n\n[[b]]\n", "b.md": "# B\n"})
	opts := Options{States: true}
	full, err := Check(ctx, v, files, nil, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	prev := full.Previous()
	if _, ok, err := Recheck(ctx, v, files, nil, opts, prev, nil, nil); !ok || err != nil {
		t.Errorf("recheck: ok %v, %v", ok, err)
	}
	prev.Spent = suggestCells + 1
	if _, ok, err := Recheck(ctx, v, files, nil, opts, prev, nil, nil); ok || err != nil {
		t.Errorf("recheck after the suggestion budget ran out: ok %v, %v; want declined", ok, err)
	}
}

func show(fs []Finding) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "  %s:%d:%d %s %s\n", f.Path, f.Line, f.Column, f.Rule, f.Message)
	}
	return b.String()
}

// appendMerged gives what SortFindings gives the lists together, ties
// (the same path, line, column and rule) in the lists' order.
func TestAppendMerged(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var lists [][]Finding
		var all []Finding
		for k := range r.IntN(5) {
			var l []Finding
			for j := range r.IntN(12) {
				l = append(l, Finding{Path: []string{"a.md", "b.md"}[r.IntN(2)], Line: r.IntN(3), Column: r.IntN(2),
					Rule: []string{RuleBrokenLink, RuleBrokenHeading}[r.IntN(2)], Message: fmt.Sprint(k, j)})
			}
			SortFindings(l)
			lists = append(lists, l)
			all = append(all, l...)
		}
		SortFindings(all)
		if got := appendMerged(nil, lists...); !reflect.DeepEqual(got, all) && len(all) > 0 {
			t.Fatalf("merged\n%s\nsorted together\n%s", show(got), show(all))
		}
	}
}
