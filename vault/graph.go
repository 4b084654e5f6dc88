package vault

import (
	"context"
	"slices"
	"sort"
	"sync"
)

// EdgeKind tells what kind of reference an edge is.
type EdgeKind string

// Edge kinds.
const (
	EdgeLink        EdgeKind = "link"
	EdgeEmbed       EdgeKind = "embed"
	EdgeFrontmatter EdgeKind = "frontmatter"
)

// Edge is one reference from a note to a file of the vault, or to nothing.
type Edge struct {
	From string
	// To is the vault path the link resolves to, or "" when unresolved.
	To string
	// Link is the link text as written ("Note#Heading").
	Link string
	// Path is the part of Link that names a file.
	Path string
	Kind EdgeKind
	// Line is the 0-based line of the link in From (-1 for frontmatter
	// links, whose line Obsidian does not record).
	Line int
	// Relation, Qualifier and Justification come from the note's Links
	// section entry for this link, when it has one.
	Relation, Qualifier, Justification string
	// Key is a frontmatter link's property path ("up", "related.1" for a
	// list's second item): where the link is, as it has no line.
	Key string
}

// Resolved reports whether the edge leads to a file.
func (e Edge) Resolved() bool { return e.To != "" }

// Graph is every reference of a scanned vault.
type Graph struct {
	Edges []Edge

	// The edges by note they leave and file they reach, made when first
	// asked (Out, In, Backlinks): zk graph prints Edges alone, and
	// indexing 40,000 edges at 10k notes was a sixth of its CPU.
	index   sync.Once
	out, in map[string][]int
}

// GraphVault resolves every link, embed and frontmatter link of the notes
// of a walk of the vault (Files). It reads and parses the notes as it goes
// (Each) and keeps only their edges, so memory grows with the links rather
// than with the vault's text; edges are added in note order, so the graph
// is the same on every run. notes are the paths of the notes read, in walk
// order; notes that cannot be read are left out.
func GraphVault(ctx context.Context, v *Vault, files []File) (g *Graph, notes []string, err error) {
	paths, noteFiles := SplitFiles(files)
	r := NewResolver(paths)
	edges := make([][]Edge, len(noteFiles))
	read := make([]bool, len(noteFiles))
	v.Each(ctx, noteFiles, func(i int, n *Note) { edges[i], read[i] = NoteEdges(n, r), true })
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for i, ok := range read {
		if ok {
			notes = append(notes, noteFiles[i].Path)
		}
	}
	return NewGraph(edges), notes, nil
}

// NewGraph adds every note's edges, note by note, so that the graph is the
// same on every run whatever order the notes were resolved in.
func NewGraph(edges [][]Edge) *Graph {
	total := 0
	for _, es := range edges {
		total += len(es)
	}
	// Sized once: zk graph builds this from every note's cached edges on
	// each run, and regrowing 40,000 edges at 10k notes cost it about a
	// tenth of its CPU.
	all := make([]Edge, 0, total)
	for _, es := range edges {
		all = append(all, es...)
	}
	return GraphOf(all)
}

// GraphOf is the graph of edges, in the order given (every note's in
// turn, as NewGraph adds them); it keeps edges.
func GraphOf(edges []Edge) *Graph { return &Graph{Edges: edges} }

// NoteEdges are n's links, embeds and frontmatter links, resolved by r.
func NoteEdges(n *Note, r *Resolver) []Edge {
	entries := map[int]LinkEntry{}
	for _, e := range LinkEntries(n) {
		entries[e.Link.Span.Start.Offset] = e
	}
	out := make([]Edge, 0, len(n.Links)+len(n.Embeds)+len(n.FrontmatterLinks))
	fm := 0 // GraphLinks gives the frontmatter links last, in their order
	for l := range n.GraphLinks() {
		e := Edge{From: n.Path, Link: l.Link, Path: l.Path, Kind: EdgeLink, Line: l.Span.Start.Line}
		switch {
		case l.Frontmatter:
			e.Kind, e.Line = EdgeFrontmatter, -1
			if fm < len(n.FrontmatterLinks) {
				e.Key = n.FrontmatterLinks[fm].Key
			}
			fm++
		case l.Embed:
			e.Kind = EdgeEmbed
		}
		if le, ok := entries[l.Span.Start.Offset]; ok && !l.Frontmatter {
			e.Relation, e.Qualifier, e.Justification = le.Relation, le.Qualifier, le.Justification
		}
		e.To, _ = r.Resolve(l.Path, n.Path)
		out = append(out, e)
	}
	return out
}

// LinkedFiles are the distinct files n links to (links, embeds,
// frontmatter links), n itself excluded: the edges Obsidian's resolvedLinks
// records, what a backlink count, an orphan or a dead end is made of.
func LinkedFiles(n *Note, r *Resolver) []string {
	var out []string
	var seen map[string]bool // past a few targets: a note linking every file in a big vault
	add := func(target string) {
		to, _ := r.Resolve(target, n.Path)
		if to == "" || to == n.Path {
			return
		}
		if seen == nil && len(out) >= 16 {
			seen = make(map[string]bool, 2*len(out))
			for _, o := range out {
				seen[o] = true
			}
		}
		if seen != nil {
			if seen[to] {
				return
			}
			seen[to] = true
		} else if slices.Contains(out, to) {
			return
		}
		out = append(out, to)
	}
	for l := range n.GraphLinks() {
		add(l.Path)
	}
	return out
}

// indexed indexes the edges by note and target, once.
func (g *Graph) indexed() *Graph {
	g.index.Do(func() {
		g.out, g.in = map[string][]int{}, map[string][]int{}
		for i, e := range g.Edges {
			g.out[e.From] = append(g.out[e.From], i)
			if e.To != "" {
				g.in[e.To] = append(g.in[e.To], i)
			}
		}
	})
	return g
}

// Out returns the edges from a note, in source order.
func (g *Graph) Out(p string) []Edge { return g.pick(g.indexed().out[p]) }

// In returns the edges into a file from other notes and itself, sorted by
// source path and line.
func (g *Graph) In(p string) []Edge {
	es := g.pick(g.indexed().in[p])
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].From != es[j].From {
			return es[i].From < es[j].From
		}
		return es[i].Line < es[j].Line
	})
	return es
}

// Backlinks counts the distinct other notes that link to p: how much of
// the vault leans on it.
func (g *Graph) Backlinks(p string) int {
	seen := map[string]bool{}
	for _, i := range g.indexed().in[p] {
		if f := g.Edges[i].From; f != p {
			seen[f] = true
		}
	}
	return len(seen)
}

func (g *Graph) pick(idx []int) []Edge {
	out := make([]Edge, len(idx))
	for k, i := range idx {
		out[k] = g.Edges[i]
	}
	return out
}
