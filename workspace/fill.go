package workspace

import (
	"context"
	"crypto/sha256"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/vault"
)

// One read of every note fills every reader's section. Each reading
// command keeps its own section of the model file (list records, details,
// zk runs' falsifiers, zk stale's cadences, properties' types, zk graph's
// printed edges, Bases' entries), and each was made by its own parse of
// the vault: after a cold zk check, the first zk stale, list, runs,
// properties, graph, backlinks and base each read every note again. Now a reader that reads every note (no section of its
// key) makes, of each note it parses, the entries of the other readers
// whose sections are missing or of another key too, and saves them with
// its own: the first of them pays for the parse, the rest read none.
//
// A filled entry is the one its reader makes: the same function of the
// same parsed note (perNote.one, which the reader's own read calls), under
// the key its reader computes, its links resolved by an index of every
// file as a read of every note resolves them.

// A filler is another reader's part of a read of every note.
type filler interface {
	// add makes the filler's entry of n, the note of files[i], with the
	// resolver resolve makes when it needs one; called from several
	// goroutines at once, each for its own i.
	add(i int, n *vault.Note, resolve func() *vault.Resolver)
	// names reports whether the filler keeps its notes' link names.
	names() bool
	// sections are the filler's sections of a save over files: for each
	// note it made an entry of, the hash of the bytes read (mine[i],
	// hashes[i]); names holds the link names of each note read, by index
	// in files, when names.
	sections(files []vault.File, hashes [][sha256.Size]byte, mine []bool, names map[int]string) []checkcache.Section
}

// fills are the fillers of a read of every note of files by the reader
// of folder, m the model file as opened (nil for none): one per other
// reader with a perNote.one whose section m lacks under its key now.
func (w *Workspace) fills(ctx context.Context, files []vault.File, m *checkcache.Model, folder string) []filler {
	ledger := w.ledger(files) // read once, for the three readers that tie runs by it
	records := w.recordOptions(0, false, files)
	records.Ledger = ledger // as recordOptions reads it for a cached read
	var out []filler
	out = appendFill(out, w, m, files, folder, w.recordsNote(ctx, files, records, nil, nil))
	out = appendFill(out, w, m, files, folder, w.detailsNote(ctx, files, ledger))
	out = appendFill(out, w, m, files, folder, w.runsNote(ctx, files, ledger))
	out = appendFill(out, w, m, files, folder, w.tendingNote(ctx, files))
	out = appendFill(out, w, m, files, folder, w.typesNote(ctx, files))
	// Bases' entries, only where bases are read: a vault holding a .base
	// file, or one a base was evaluated in (a note's ```base block).
	// Elsewhere a first reader would make them for a command never run,
	// and they are the costliest to make (a first zk base on obsidian-hub
	// cost twice any other reader's first run).
	if slices.ContainsFunc(files, func(f vault.File) bool { return strings.EqualFold(path.Ext(f.Path), ".base") }) || (m != nil && m.Has("base")) {
		out = appendFill(out, w, m, files, folder, w.baseNote())
	}
	// zk graph's printed edges, likewise only where the graph is read:
	// once it was (the model file has a section of it, under any key).
	// A vault's printed graph is as large as its notes' edges (16 MB at
	// 10,000 notes); making it for every vault cost a first reader a
	// sixth of its CPU and the cache a third of its size.
	if w.graph != nil && m != nil && m.Has("graph") {
		out = appendFill(out, w, m, files, folder, graphNote(*w.graph))
	}
	// What each note holds that a refutation follows, likewise only where
	// it is read: once a refutation's block was not in its note (the
	// model file has a section of it, under any key). Most vaults never
	// look, and would carry 10,000 paths and hashes of it for nothing.
	if m != nil && m.Has("holds") {
		out = appendFill(out, w, m, files, folder, w.holdsNote(ctx, files))
	}
	return out
}

// appendFill appends to out a filler of c, unless c is the reader of
// folder, cannot be filled, or has its section in m under its key.
func appendFill[T any](out []filler, w *Workspace, m *checkcache.Model, files []vault.File, folder string, c perNote[T]) []filler {
	if c.folder == folder || c.one == nil {
		return out
	}
	key, err := w.inputKey(c.purpose, c.inputs)
	if err != nil || (m != nil && m.Keyed(c.folder, key)) {
		return out
	}
	return append(out, &fill[T]{p: &perNoteCache[T]{w: w, c: c, key: key}, entries: make([]T, len(files)), made: make([]bool, len(files))})
}

// fill is a filler of the reader p caches.
type fill[T any] struct {
	p       *perNoteCache[T]
	entries []T
	made    []bool
}

func (f *fill[T]) names() bool { return f.p.c.names }

func (f *fill[T]) add(i int, n *vault.Note, resolve func() *vault.Resolver) {
	c := f.p.c
	if c.keeps != nil && !c.keeps(n.Path) {
		return
	}
	f.entries[i], f.made[i] = c.one(n, resolve), true
}

func (f *fill[T]) sections(files []vault.File, hashes [][sha256.Size]byte, mine []bool, names map[int]string) []checkcache.Section {
	c := f.p.c
	sec := checkcache.Section{Name: c.folder, Key: f.p.key, Hashes: make([][sha256.Size]byte, len(files))}
	n := 0
	for i := range files {
		if f.made[i] && mine[i] {
			n++
		}
	}
	entries := make([]T, 0, n) // sized once: a list record is some 200 bytes, 100,000 of them
	for i := range files {
		if f.made[i] && mine[i] {
			sec.Hashes[i] = hashes[i]
			entries = append(entries, f.entries[i])
		}
	}
	f.entries = nil // the encoding holds them now
	b, err := c.encode(entries)
	if err != nil {
		return nil
	}
	sec.Entries = [][]byte{b}
	out := []checkcache.Section{sec}
	if c.names {
		out = append(out, f.p.namesUpdate(files, sec, names, nil))
	}
	return out
}

// fillEach is what a read of every note does of each note for fills:
// each filler's entry of it, its links resolved by one index of every
// file, made once.
func fillEach(fills []filler, files []vault.File) func(n *vault.Note) {
	resolve := sync.OnceValue(func() *vault.Resolver { return vault.NewResolver(vault.Paths(files)) })
	return func(n *vault.Note) {
		i, ok := slices.BinarySearchFunc(files, n.Path, func(f vault.File, p string) int { return strings.Compare(f.Path, p) })
		if !ok {
			return
		}
		for _, f := range fills {
			f.add(i, n, resolve)
		}
	}
}
