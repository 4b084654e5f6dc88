package workspace

import (
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"unsafe"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/internal/hugepage"
	"github.com/zk-claims/zk/vault"
)

// A reader whose entries resolve links (perNote.names) keeps, beside its
// section, each note's link names (vault.LinkNames) in a section of the
// same key saved with it (namesSection): when a file is added, removed
// or renamed, an entry still holds for a note whose bytes are unchanged
// and whose links name none of the files that came or went, and only the
// others, and the notes added, are read again. Without it every note was
// read again (at 10,000 notes 700 to 1,100 ms CPU of zk list, stale,
// graph, backlinks or base after a note was added).

// namesSection is the name of the section of c's link names.
func namesSection(folder string) string { return folder + ".names" }

// namesMagic opens the encoding of a names section's entries.
const namesMagic = "zk-link-names\x01"

// linkNames is one note's link names as kept: its path, and its names
// encoded (cachecodec.AppendStrs).
type linkNames struct{ path, names string }

// encodeNames is a note's link names as an entry keeps them.
func encodeNames(names []string) string { return string(cachecodec.AppendStrs(nil, names)) }

// encodeLinkNames is entries as bytes to cache.
func encodeLinkNames(entries []linkNames) []byte {
	return cachecodec.AppendPairs(namesMagic, len(entries), func(i int) (string, string) { return entries[i].path, entries[i].names })
}

var errNames = errors.New("cache: damaged link names")

// decodeLinkNames reads what encodeLinkNames wrote, each string a slice
// of b; anything else is an error, never a panic.
func decodeLinkNames(b string) ([]linkNames, error) {
	if !strings.HasPrefix(b, namesMagic) {
		return nil, errNames
	}
	d := cachecodec.NewReader(b[len(namesMagic):])
	n := d.Count(2)
	if d.Bad() {
		return nil, errNames
	}
	out := make([]linkNames, n)
	for i := range out {
		out[i] = linkNames{d.Str(), d.Str()}
	}
	if !d.Done() {
		return nil, errNames
	}
	return out, nil
}

// namesAny reports whether a note's names (encodeNames) hold one of
// keys; true too when they do not decode (the note is read again).
func namesAny(names string, keys map[string]bool) bool {
	d := cachecodec.NewReader(names)
	for range d.Count(1) {
		if keys[d.Str()] {
			return true
		}
	}
	return !d.Done()
}

// heldNames is a note's link names and the hash of the bytes they were
// made from (zero: none kept).
type heldNames struct {
	hash  [sha256.Size]byte
	names string
}

// loadNames reads the names section of p's reader, by the index of the
// model file's stamps; nil when there is none, of another key, or
// damaged. Once. The file's entries come in the stamps' order, and are
// matched to them as they come, not through a table of every path.
func (p *perNoteCache[T]) loadNames() []heldNames {
	if p.namesRead || p.r == nil {
		return p.names
	}
	p.namesRead = true
	p.names = readNames(p.r, p.c.folder, p.key)
	return p.names
}

// readNames reads the names section of the reader of folder from m, by
// the index of its stamps; nil when there is none, of another key than
// key, or damaged.
func readNames(m *checkcache.Model, folder string, key checkcache.Key) []heldNames {
	stamps := m.Stamps
	sec, ok, err := m.Section(namesSection(folder))
	if err != nil || !ok || sec.Key != key || len(sec.Hashes) != len(stamps) || !byStamps(sec, stamps) {
		return nil
	}
	out := make([]heldNames, len(stamps))
	err = checkcache.Guard(func() error {
		for _, b := range sec.Entries { // a delta's in place of the file's
			es, err := decodeLinkNames(ownString(b))
			if err != nil {
				return err
			}
			j := 0
			for _, e := range es {
				if j >= len(stamps) || stamps[j].Path != e.path {
					var found bool
					j, found = slices.BinarySearchFunc(stamps, e.path, func(s checkcache.Stamp, q string) int { return strings.Compare(s.Path, q) })
					if !found {
						continue
					}
				}
				if h := sec.Hashes[j]; h != ([sha256.Size]byte{}) {
					out[j] = heldNames{h, e.names}
				}
				j++
			}
		}
		return nil
	})
	if err != nil {
		return nil
	}
	return out
}

// ownString is b copied into memory of its own, as a string the held
// names are slices of: they are read after Guard, where a mapped model
// file cut short would fault. Some MB at 10,000 notes, it is made in
// huge pages, not faulted in 4 KiB at a time (a twentieth of zk stale
// after its own add).
func ownString(b []byte) string {
	c := hugepage.Make[byte](len(b))
	copy(c, b)
	return unsafe.String(unsafe.SliceData(c), len(c))
}

// byStamps reports whether sec's hashes are by stamps: its own files
// (Section.Paths) are theirs, or it has none of its own and stamps are
// the model file's (Model.Kept makes other stamps for a section with
// its own files alone).
func byStamps(sec checkcache.Section, stamps []checkcache.Stamp) bool {
	if sec.Paths == nil {
		return true
	}
	for i, p := range sec.Paths {
		if stamps[i].Path != p {
			return false
		}
	}
	return true
}

// unaffected is, for a model file stamping other files than files, which
// of its entries (by the index of their stamp) still hold among files:
// those whose note's link names, kept of the bytes the entry was made
// from, name no file added or removed (vault.NameKey). nil when the names
// are not kept (no section of them): then none does.
func (p *perNoteCache[T]) unaffected(files []vault.File) func(j int) bool {
	held := p.loadNames()
	if held == nil || len(p.section.Hashes) != len(p.r.Stamps) {
		return nil
	}
	keys := vault.NamingKeys(cameOrWent(p.r.Stamps, files))
	return func(j int) bool {
		h := held[j]
		return h.hash != ([sha256.Size]byte{}) && h.hash == p.section.Hashes[j] && !namesAny(h.names, keys)
	}
}

// namesUpdate is the names section to save with c's section sec (whose
// hashes are the files'): each note's names read now (now, by index in
// files), else those kept of the same bytes. With changed (a delta), the
// entries of those files alone.
func (p *perNoteCache[T]) namesUpdate(files []vault.File, sec checkcache.Section, now map[int]string, changed []int) checkcache.Section {
	out := checkcache.Section{Name: namesSection(p.c.folder), Key: sec.Key, Hashes: make([][sha256.Size]byte, len(files))}
	var entries []linkNames
	if changed != nil {
		for _, i := range changed {
			if names, ok := now[i]; ok && sec.Hashes[i] != ([sha256.Size]byte{}) {
				out.Hashes[i] = sec.Hashes[i]
				entries = append(entries, linkNames{files[i].Path, names})
			}
		}
	} else {
		held, stamps := p.loadNames(), []checkcache.Stamp(nil)
		if held != nil {
			stamps = p.r.Stamps
		}
		entries = make([]linkNames, 0, len(files))
		j := 0 // the stamp of files[i]'s path, if any: both sorted by path
		for i, f := range files {
			for j < len(stamps) && stamps[j].Path < f.Path {
				j++
			}
			h := sec.Hashes[i]
			if h == ([sha256.Size]byte{}) {
				continue
			}
			names, ok := now[i]
			if !ok && j < len(stamps) && stamps[j].Path == f.Path {
				e := held[j]
				names, ok = e.names, e.hash == h
			}
			if ok {
				out.Hashes[i] = h
				entries = append(entries, linkNames{f.Path, names})
			}
		}
	}
	out.Entries = [][]byte{encodeLinkNames(slices.Clip(entries))}
	return out
}

// How a reader's section fares when a save writes the model file anew
// over other files than it stamps (checkcache.Update.Carry): every
// reader's section is its own to keep, and a command reading one reader
// after another reading another (zk list, then zk graph) after a file
// was added read every note again in the second, its section dropped.
const (
	// dropOnFiles: a reader not named here: dropped.
	dropOnFiles = iota
	// keepOwnFiles: its entries hold other files by their place among
	// those it was made over, and its reader reads again what a file
	// that came or went changes (zk check's findings and states, by
	// lint.Recheck; zk stale's links, by perNote.remap and its names
	// section): kept whole with those files (Update.KeepFiles), so that
	// it does after another reader's save what it does after its own.
	keepOwnFiles
	// carryOwn: an entry is made of its note's bytes alone
	// (perNote.ownBytes): every entry kept.
	carryOwn
	// carryNames: an entry resolves its note's links by name
	// (perNote.names, with its names section): kept but for the notes
	// whose link names name a file that came or went, or whose names are
	// not kept of the same bytes, which are read again.
	carryNames
)

// carryOf is how the section of reader folder fares (see dropOnFiles),
// as its perNote says (ownBytes; names, without remap): a reader added
// is dropped until it is named here.
func carryOf(folder string) int {
	switch folder {
	case "runs", "properties", "holds":
		return carryOwn
	case "list", "details", "graph", "base", "lsp":
		return carryNames
	case checkcache.FindingsSection, checkcache.StatesSection, "stale":
		return keepOwnFiles
	}
	return dropOnFiles
}

// keepFiles is checkcache.Update.KeepFiles: the sections carryOf keeps
// with their own files, a reader's names section as its own.
func keepFiles(name string) bool {
	folder, _ := strings.CutSuffix(name, ".names")
	return carryOf(folder) == keepOwnFiles
}

// carry is checkcache.Update.Carry for a save over files of the model
// file m (nil: none to carry): each section as carryOf says, a names
// reader's section and its names section alike.
func carry(m *checkcache.Model, files []vault.File) func(name string, key checkcache.Key) (func(int) bool, bool) {
	if m == nil {
		return nil
	}
	var keys map[string]bool // the link names of the files that came or went, once
	drops := map[string]func(int) bool{}
	return func(name string, key checkcache.Key) (func(int) bool, bool) {
		folder, isNames := strings.CutSuffix(name, ".names")
		switch carryOf(folder) {
		case carryOwn:
			return nil, !isNames
		case carryNames:
		default:
			return nil, false
		}
		if d, ok := drops[folder]; ok {
			return d, d != nil
		}
		drops[folder] = nil
		held := readNames(m, folder, key)
		sec, _, ok, err := m.SectionAt(folder)
		if held == nil || err != nil || !ok || sec.Key != key || len(sec.Hashes) != len(m.Stamps) {
			return nil, false
		}
		if keys == nil {
			keys = vault.NamingKeys(cameOrWent(m.Stamps, files))
		}
		d := func(j int) bool {
			h := held[j]
			return h.hash == ([sha256.Size]byte{}) || h.hash != sec.Hashes[j] || namesAny(h.names, keys)
		}
		drops[folder] = d
		return d, true
	}
}

// cameOrWent are the paths of files or stamps, not both (each sorted by
// path).
func cameOrWent(stamps []checkcache.Stamp, files []vault.File) []string {
	var out []string
	i, j := 0, 0
	for i < len(files) || j < len(stamps) {
		switch {
		case j == len(stamps) || i < len(files) && files[i].Path < stamps[j].Path:
			out = append(out, files[i].Path)
			i++
		case i == len(files) || stamps[j].Path < files[i].Path:
			out = append(out, stamps[j].Path)
			j++
		default:
			i, j = i+1, j+1
		}
	}
	return out
}
