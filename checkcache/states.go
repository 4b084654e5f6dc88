package checkcache

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"slices"
	"strings"
	"unsafe"

	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/internal/hugepage"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
)

// A whole check's result is cached in two sections of the model file,
// saved together under one key: its findings (FindingsSection), which an
// unchanged vault reads alone, and every note's state (lint.NoteState,
// StatesSection), so that after an edit only the notes it can change are
// checked again (lint.Recheck). Both hold, for each note, the hash of the
// bytes it was checked in. A recheck appends a delta to each: the
// findings of the paths whose findings changed, and the states of the
// notes checked again.
const (
	FindingsSection = "check"
	StatesSection   = "check states"
)

// EncodeFindingsPart encodes a part of the findings section: the
// findings of the paths whose findings differ between old and now (both
// sorted, lint.SortFindings), and the number of notes checked. With old
// nil it is the section's first part, every path's findings.
func EncodeFindingsPart(old, now []lint.Finding, notes int) []byte {
	return bytes.Join(EncodeFindingsPieces(old, now, notes), nil)
}

// EncodeFindingsPieces is EncodeFindingsPart in pieces to be written one
// after the other (a section's Entries, or a delta's), not copied into
// one.
func EncodeFindingsPieces(old, now []lint.Finding, notes int) [][]byte {
	var replaced []string
	var part []lint.Finding
	if old == nil {
		part = now
	} else {
		for i, j := 0, 0; i < len(old) || j < len(now); {
			var p string
			switch {
			case i == len(old):
				p = now[j].Path
			case j == len(now):
				p = old[i].Path
			default:
				p = min(old[i].Path, now[j].Path)
			}
			i0, j0 := i, j
			for i < len(old) && old[i].Path == p {
				i++
			}
			for j < len(now) && now[j].Path == p {
				j++
			}
			if !slices.Equal(old[i0:i], now[j0:j]) {
				replaced = append(replaced, p)
				part = append(part, now[j0:j]...)
			}
		}
	}
	b := binary.AppendUvarint(nil, uint64(len(replaced)))
	for _, p := range replaced {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return findingsPieces(b, notes, part)
}

// DecodeFindingsParts decodes the findings section's parts, the first
// whole, each later one in place of the findings of the paths it
// replaces (an empty one replaces none): every delta read first, then
// one merge with the first part, however many deltas there are. Damaged
// input is an error, never a panic or an allocation larger than the
// input; so is a mapped model file cut short under it (Guard). The
// findings' strings are slices of parts (DecodeFindings).
func DecodeFindingsParts(parts [][]byte) (notes int, findings []lint.Finding, err error) {
	err = Guard(func() error {
		var err error
		notes, findings, err = decodeFindingsParts(parts)
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return notes, findings, nil
}

func decodeFindingsParts(parts [][]byte) (notes int, findings []lint.Finding, err error) {
	if len(parts) == 0 {
		return 0, nil, errFindings
	}
	var later map[string][]lint.Finding // a path's findings, as the last delta replacing them has them
	for k, b := range parts {
		if k > 0 && len(b) == 0 {
			continue // a delta of stamps alone
		}
		d := cachecodec.NewReader(b)
		nr := d.Count(1)
		if k == 0 && nr != 0 {
			return 0, nil, errFindings
		}
		replaced := make([]string, 0, nr)
		for range nr {
			replaced = append(replaced, string(d.Str()))
		}
		if d.Bad() {
			return 0, nil, errFindings
		}
		n, fs, err := DecodeFindings(d.Rest())
		if err != nil {
			return 0, nil, err
		}
		notes = n
		if k == 0 {
			findings = fs
			continue
		}
		if later == nil {
			later = map[string][]lint.Finding{}
		}
		for _, p := range replaced {
			later[p] = nil
		}
		for _, f := range fs {
			old, ok := later[f.Path]
			if !ok {
				return 0, nil, errFindings // a finding of a path the part does not replace
			}
			later[f.Path] = append(old, f)
		}
	}
	if later == nil {
		return notes, findings, nil
	}
	return notes, mergeFindings(findings, later), nil
}

// mergeFindings is old (sorted by path) without the findings of the
// paths replaced, with theirs now in their place.
func mergeFindings(old []lint.Finding, replaced map[string][]lint.Finding) []lint.Finding {
	paths := make([]string, 0, len(replaced))
	n := len(old)
	for p, fs := range replaced {
		paths = append(paths, p)
		n += len(fs)
	}
	slices.Sort(paths)
	out := make([]lint.Finding, 0, n)
	j := 0
	for _, f := range old {
		for j < len(paths) && paths[j] < f.Path {
			out = append(out, replaced[paths[j]]...)
			j++
		}
		if _, ok := replaced[f.Path]; ok {
			continue
		}
		out = append(out, f)
	}
	for ; j < len(paths); j++ {
		out = append(out, replaced[paths[j]]...)
	}
	return out
}

// The states section's first part holds every note's state, and
// indexes that let a recheck read only the states it needs: where each
// state starts, the notes linking to each file (their Targets), the
// notes declaring each alias and naming each broken link, folded, and
// the files of each name (vault.NameKey), by which the recheck's
// resolver finds the files a link names without indexing them all. Its
// layout, after five uvarints (spent, notes refuted, states, files,
// links), is fixed-width little-endian uint32 columns, read in place:
//
//	state offsets [states+1], state file indexes [states]
//	linking offsets [files+1], linking notes [links]
//	alias table, broken-link table, name table (see appendTable; the
//	name table's entries are file indexes)
//	the states, each as a delta's
//
// A delta's part is the spent, the number of states and the states, each
// its path's file index, its flags (read, checked, refuted), its
// targets' file indexes, its summary and its broken links' paths: what
// a remap moves comes first, and the rest is copied as it is, unread.

// maxColumn is the largest number the first part's uint32 columns hold:
// a state's offset, a file's index, a count of links, a table's key
// bytes. A variable, so that a test reaches it without 4 GiB of states.
var maxColumn uint64 = math.MaxUint32

// ErrStatesTooLarge is EncodeStates' answer to states its uint32
// columns cannot place (more than 4 GiB of them, or of their links or
// names): the section is not written, rather than written with offsets
// wrapped, and a check after an edit checks every note.
var ErrStatesTooLarge = errors.New("cache: the notes' states take more than 4 GiB; not kept")

// EncodeStates encodes every note's state (of the walk files: a state
// names files by their place in the walk, which its section is only
// used with) and the suggestion work the check spent, for the states
// section's first part, in parts to be written one after the other (as
// Remap's: its columns and tables, then the states, not copied into one
// piece); ErrStatesTooLarge when its columns cannot place them.
func EncodeStates(files []vault.File, spent int, states []lint.NoteState) ([][]byte, error) {
	if uint64(len(files)) > maxColumn {
		return nil, ErrStatesTooLarge
	}
	index := make(map[string]uint32, len(files))
	for i, f := range files {
		index[f.Path] = uint32(i)
	}
	e := newStatesEncoder(files, len(states))
	size := 0
	for _, st := range states {
		size += stateLen(st)
	}
	// Made once (some MB), in huge pages, as Remap makes its copies'.
	e.body = hugepage.Make[byte](size)[:0]
	for _, st := range states {
		if !e.add(st, func(p string) uint64 { return uint64(index[p]) }) {
			return nil, ErrStatesTooLarge
		}
	}
	head, body, err := e.finish(spent)
	if err != nil {
		return nil, err
	}
	return [][]byte{head, body}, nil
}

// statesEncoder builds the states section's first part, state by state
// (add, or copy for a state's bytes as an earlier part holds them).
type statesEncoder struct {
	files   []vault.File
	body    []byte
	offs    []uint32
	fileOf  []uint32
	linking [][]uint32
	aliases []tableEntry
	broken  []tableEntry
	// names, when set, is the name table's entries (Remap's, moved from
	// the table it copies); nil: made from the files' paths. sorted says
	// aliases and broken are sorted by key then state, each once, as
	// appendTable writes them (Remap merged them so).
	names  []tableEntry
	sorted bool
	// linkOffs and links, when set (Remap's), are the linking column
	// made whole (linkOffs [files+1] into links); copied counts the
	// targets of the states copied. A remap has no linking: the states
	// it encodes anew enter theirs in added, by file (a few of them, not
	// a list for every file to look through).
	linkOffs, links []uint32
	copied          int
	added           map[uint64][]uint32
	refuted         int
}

func newStatesEncoder(files []vault.File, n int) *statesEncoder {
	return &statesEncoder{files: files, offs: make([]uint32, 0, n+1),
		fileOf: make([]uint32, 0, n), linking: make([][]uint32, len(files))}
}

// add encodes st, at giving each file's place; false when the body
// outgrows its offsets.
func (e *statesEncoder) add(st lint.NoteState, at func(string) uint64) bool {
	if uint64(len(e.body)) > maxColumn {
		return false
	}
	k := uint32(len(e.offs))
	e.offs = append(e.offs, uint32(len(e.body)))
	e.fileOf = append(e.fileOf, uint32(at(st.Path)))
	e.body = appendState(e.body, st, at)
	for _, t := range st.Targets {
		if i := at(t); i < uint64(len(e.files)) && e.files[i].Path == t {
			if e.linking == nil {
				e.added[i] = append(e.added[i], k)
			} else {
				e.linking[i] = append(e.linking[i], k)
			}
		}
	}
	for _, a := range st.Summary.Aliases() {
		e.aliases = append(e.aliases, tableEntry{vault.FoldName(a), k})
	}
	for _, b := range st.Broken {
		e.broken = append(e.broken, tableEntry{vault.FoldName(b), k})
	}
	if st.Summary.Refuted() {
		e.refuted++
	}
	return true
}

// copy appends the state b (appendState's bytes, its file and targets
// by their places among other files) for the walk file at fi, each
// place moved (move: an old place's new one, -1 for a file gone); its
// aliases and broken links are the caller's to enter in the tables.
// false when b is damaged, names another file than fi's, or a target
// gone, or the body outgrows its offsets.
func (e *statesEncoder) copy(b []byte, move []int32, fi int) bool {
	if uint64(len(e.body)) > maxColumn {
		return false
	}
	d := cachecodec.NewReader(b)
	if old := d.Uvarint(); d.Bad() || old >= uint64(len(move)) || move[old] != int32(fi) {
		return false
	}
	e.offs = append(e.offs, uint32(len(e.body)))
	e.fileOf = append(e.fileOf, uint32(fi))
	e.body = binary.AppendUvarint(e.body, uint64(fi))
	flags := d.Byte()
	e.body = append(e.body, flags)
	if flags&1 == 0 {
		return d.Done()
	}
	if flags&4 != 0 {
		e.refuted++
	}
	n := d.Count(1)
	e.body = binary.AppendUvarint(e.body, uint64(n))
	for range n {
		old := d.Uvarint()
		if d.Bad() || old >= uint64(len(move)) || move[old] < 0 {
			return false
		}
		e.body = binary.AppendUvarint(e.body, uint64(move[old]))
	}
	if d.Bad() {
		return false
	}
	e.copied += n
	// The summary and the broken links, copied as they are, unread: a
	// state's summary is read, and its damage found, when it is decoded.
	e.body = append(e.body, b[d.Off():]...)
	return true
}

// finish is the first part: the columns and the tables (head), then the
// states (body), apart: a file written anew writes one after the other,
// not a copy of both.
func (e *statesEncoder) finish(spent int) (head, body []byte, err error) {
	files, body := e.files, e.body
	nlinks := len(e.links)
	if e.linkOffs == nil {
		for _, l := range e.linking {
			nlinks += len(l)
		}
	}
	if uint64(len(body)) > maxColumn || uint64(nlinks) > maxColumn {
		return nil, nil, ErrStatesTooLarge
	}
	n := len(e.offs)
	offs := append(e.offs, uint32(len(body)))
	keys := 0
	for _, t := range [][]tableEntry{e.aliases, e.broken} {
		for _, x := range t {
			keys += len(x.key) + 8
		}
	}
	for _, f := range files {
		keys += len(f.Path) + 8
	}
	b := make([]byte, 0, n*8+len(files)*4+nlinks*4+keys+64) // one allocation: the tables' too
	for _, x := range []int{max(spent, 0), e.refuted, n, len(files), nlinks} {
		b = binary.AppendUvarint(b, uint64(x))
	}
	for _, o := range offs {
		b = binary.LittleEndian.AppendUint32(b, o)
	}
	for _, i := range e.fileOf {
		b = binary.LittleEndian.AppendUint32(b, i)
	}
	if e.linkOffs != nil {
		for _, o := range e.linkOffs {
			b = binary.LittleEndian.AppendUint32(b, o)
		}
		for _, k := range e.links {
			b = binary.LittleEndian.AppendUint32(b, k)
		}
	} else {
		at := uint32(0)
		for _, l := range e.linking {
			b = binary.LittleEndian.AppendUint32(b, at)
			at += uint32(len(l))
		}
		b = binary.LittleEndian.AppendUint32(b, at)
		for _, l := range e.linking {
			for _, k := range l {
				b = binary.LittleEndian.AppendUint32(b, k)
			}
		}
	}
	names := e.names
	if names == nil {
		paths := make([]string, len(files))
		for i, f := range files {
			paths[i] = f.Path
		}
		names = make([]tableEntry, len(files))
		for i, k := range vault.NameKeys(paths) {
			names[i] = tableEntry{k, uint32(i)}
		}
		names = sortEntries(names)
	}
	aliases, broken := e.aliases, e.broken
	if !e.sorted {
		aliases, broken = sortEntries(aliases), sortEntries(broken)
	}
	b, ok1 := appendTable(b, aliases)
	b, ok2 := appendTable(b, broken)
	b, ok3 := appendTable(b, names)
	if !ok1 || !ok2 || !ok3 {
		return nil, nil, ErrStatesTooLarge
	}
	return b, body, nil
}

// Remap encodes the states section's first part, in parts to be written
// one after the other, for the walk files
// (files: s's, but for some that came or went), with the suggestion work
// spent: the states of again (the notes checked again, sorted by path)
// for their notes, and every other note's as s holds it, its bytes
// copied with the places of its file and its targets moved, not decoded
// and encoded again (most of a save after a file was added, at 10,000
// notes). A note of the walk neither holds gets a state not read. An
// error (s damaged, a state naming a file gone, which Recheck would
// have checked again; ErrStatesTooLarge) leaves the caller to encode
// every state (EncodeStates).
//
// The states of a mapped model file (MapModel) are copied from the
// mapping, not read into memory first (a tenth of a check after an add
// at 10,000 notes), under Guard: a file cut short under it is an error.
func (s *States) Remap(files []vault.File, spent int, again []lint.NoteState) (parts [][]byte, err error) {
	err = Guard(func() error {
		var err error
		parts, err = s.remap(files, spent, again)
		return err
	})
	return parts, err
}

func (s *States) remap(files []vault.File, spent int, again []lint.NoteState) (parts [][]byte, err error) {
	if uint64(len(files)) > maxColumn {
		return nil, ErrStatesTooLarge
	}
	body := s.body
	if body == nil {
		var ok bool
		if body, ok = inPlace(s.bodyAt, s.bodyLen); !ok { // one read of them all, not one a state
			body = make([]byte, s.bodyLen)
			if got, _ := s.bodyAt.ReadAt(body, 0); got != len(body) {
				return nil, errStates
			}
			s.body = body
		}
	}
	move := make([]int32, len(s.files)) // an old file's place among files, -1 when gone
	var came []tableEntry               // the name table's entries of the files that came
	j := 0
	for i := range s.files {
		for ; j < len(files) && files[j].Path < s.files[i].Path; j++ {
			came = append(came, tableEntry{vault.NameKey(files[j].Path), uint32(j)})
		}
		move[i] = -1
		if j < len(files) && files[j].Path == s.files[i].Path {
			move[i] = int32(j)
			j++
		}
	}
	for ; j < len(files); j++ {
		came = append(came, tableEntry{vault.NameKey(files[j].Path), uint32(j)})
	}
	at := func(p string) uint64 {
		i, _ := slices.BinarySearchFunc(files, p, func(f vault.File, p string) int { return strings.Compare(f.Path, p) })
		return uint64(i)
	}
	newOf := make([]int32, s.n) // an old state's place among the new ones, -1 when not copied
	for i := range newOf {
		newOf[i] = -1
	}
	e := &statesEncoder{files: files, added: map[uint64][]uint32{}}
	// The copies, moved places a byte longer at most: some MB, in huge
	// pages (a page fault every 4 KiB was a tenth of a save).
	e.body = hugepage.Make[byte](int(s.bodyLen) + len(again)*512 + len(files)*2)[:0]
	e.offs, e.fileOf = make([]uint32, 0, s.n+len(again)+1), make([]uint32, 0, s.n+len(again))
	old, a := 0, 0
	for fi, f := range files {
		if !f.IsNote() {
			continue
		}
		for old < s.n && s.files[s.fileOf.at(old)].Path < f.Path {
			old++
		}
		had := old < s.n && s.files[s.fileOf.at(old)].Path == f.Path
		var ok bool
		switch over, isOver := s.over[old]; {
		case a < len(again) && again[a].Path == f.Path:
			ok = e.add(again[a], at)
			a++
		case had && isOver:
			ok = e.add(over, at)
		case had:
			newOf[old] = int32(len(e.offs))
			ok = e.copy(body[s.offs.at(old):s.offs.at(old+1)], move, fi)
		default:
			ok = e.add(lint.NoteState{Path: f.Path}, at)
		}
		if !ok {
			return nil, errStates
		}
	}
	if a != len(again) {
		return nil, errStates // a state of a note not walked, or out of order
	}
	if !e.moveLinks(s, move, newOf) {
		return nil, errStates
	}
	// The tables: the old ones' entries, moved, merged with those of
	// the states encoded anew (added) and of the files that came, not
	// made and sorted again.
	copied := func(k uint32) (uint32, bool) {
		if int(k) >= len(newOf) || newOf[k] < 0 {
			return 0, false
		}
		return uint32(newOf[k]), true
	}
	e.aliases = moveTable(s.aliases, copied, e.aliases)
	e.broken = moveTable(s.broken, copied, e.broken)
	e.names = moveTable(s.names, func(i uint32) (uint32, bool) {
		if int(i) >= len(move) || move[i] < 0 {
			return 0, false
		}
		return uint32(move[i]), true
	}, came)
	e.sorted = true
	head, body, err := e.finish(spent)
	if err != nil {
		return nil, err
	}
	return [][]byte{head, body}, nil
}

// moveLinks makes the linking column of a remap (e.linkOffs, e.links):
// each file's notes linking to it as s lists them, those copied at their
// new places (a copy's targets are its old ones, moved), merged with
// those of the states encoded anew (e.added), not gathered a target at
// a time from the copies. false when s's lists do not hold the copies'
// targets.
func (e *statesEncoder) moveLinks(s *States, move, newOf []int32) bool {
	n := s.linking.len()
	for _, l := range e.added {
		n += len(l)
	}
	e.linkOffs, e.links = make([]uint32, 0, len(e.files)+1), make([]uint32, 0, n)
	copied, i := 0, 0 // i: the old place of files[j], move's places rising with it
	for j := range e.files {
		e.linkOffs = append(e.linkOffs, uint32(len(e.links)))
		added := e.added[uint64(j)]
		for i < len(move) && int(move[i]) < j { // a file gone (-1) or before
			i++
		}
		if i < len(move) && int(move[i]) == j {
			for x := s.linkOff.at(i); x < s.linkOff.at(i+1); x++ {
				k := s.linking.at(int(x))
				if int(k) >= len(newOf) || newOf[k] < 0 {
					continue // not copied: encoded anew, or gone
				}
				for len(added) > 0 && added[0] < uint32(newOf[k]) {
					e.links, added = append(e.links, added[0]), added[1:]
				}
				e.links = append(e.links, uint32(newOf[k]))
				copied++
			}
		}
		e.links = append(e.links, added...)
	}
	e.linkOffs = append(e.linkOffs, uint32(len(e.links)))
	return copied == e.copied
}

// inPlace are the first n bytes of r when r is a part of a mapped model
// file (Model.SectionAt), a slice of the mapping; false otherwise. Read
// them under Guard.
func inPlace(r io.ReaderAt, n int64) ([]byte, bool) {
	off := int64(0)
	for {
		switch x := r.(type) {
		case *io.SectionReader:
			outer, o, size := x.Outer()
			if n > size-off {
				return nil, false
			}
			r, off = outer, off+o
		case mapping:
			if off < 0 || n < 0 || off > int64(len(x)) || n > int64(len(x))-off {
				return nil, false
			}
			return x[off : off+n : off+n], true
		default:
			return nil, false
		}
	}
}

// EncodeStatesDelta encodes the states of the notes checked again, and
// the suggestion work the check spent, for a delta's part.
func EncodeStatesDelta(files []vault.File, spent int, states []lint.NoteState) []byte {
	at := func(p string) uint64 {
		i, _ := slices.BinarySearchFunc(files, p, func(f vault.File, p string) int { return strings.Compare(f.Path, p) })
		return uint64(i)
	}
	b := binary.AppendUvarint(nil, uint64(max(spent, 0)))
	b = binary.AppendUvarint(b, uint64(len(states)))
	for _, st := range states {
		b = appendState(b, st, at)
	}
	return b
}

func appendState(b []byte, st lint.NoteState, at func(string) uint64) []byte {
	b = binary.AppendUvarint(b, at(st.Path))
	var flags byte
	if st.Read {
		flags |= 1
	}
	if st.Checked {
		flags |= 2
	}
	if st.Read && st.Summary.Refuted() {
		flags |= 4
	}
	b = append(b, flags)
	if !st.Read {
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(st.Targets)))
	for _, t := range st.Targets {
		b = binary.AppendUvarint(b, at(t))
	}
	b = lint.AppendSummary(b, st.Summary)
	b = binary.AppendUvarint(b, uint64(len(st.Broken)))
	for _, k := range st.Broken {
		b = binary.AppendUvarint(b, uint64(len(k)))
		b = append(b, k...)
	}
	return b
}

// stateLen is at most the length of appendState's encoding of st: its
// places as uint32's uvarints at their longest, its summary and broken
// links as they are.
func stateLen(st lint.NoteState) int {
	size := binary.MaxVarintLen32 + 1
	if !st.Read {
		return size
	}
	size += binary.MaxVarintLen32 * (2 + len(st.Targets))
	size += lint.SummaryLen(st.Summary)
	for _, k := range st.Broken {
		size += binary.MaxVarintLen64 + len(k)
	}
	return size
}

// tableEntry is a folded name and a state's index.
type tableEntry struct {
	key   string
	state uint32
}

// compareEntries orders a table's entries by key, then state.
func compareEntries(x, y tableEntry) int {
	if c := strings.Compare(x.key, y.key); c != 0 {
		return c
	}
	return cmp.Compare(x.state, y.state)
}

// sortEntries sorts a table's entries as appendTable takes them, each
// once.
func sortEntries(es []tableEntry) []tableEntry {
	slices.SortFunc(es, compareEntries)
	return slices.Compact(es)
}

// moveTable is the entries of t whose states to moves (ok), at their new
// states, merged with added (in any order): sorted as sortEntries sorts
// them, without sorting t's again, as to keeps the order of the states it
// moves. Its keys are t's bytes (read them while t's are there); t out
// of order (damaged) is sorted.
func moveTable(t table, to func(uint32) (uint32, bool), added []tableEntry) []tableEntry {
	added = sortEntries(added)
	out := make([]tableEntry, 0, t.states.len()+len(added))
	sorted := true
	push := func(x tableEntry) {
		if len(out) > 0 && compareEntries(out[len(out)-1], x) >= 0 {
			sorted = false
		}
		out = append(out, x)
	}
	for i := range t.states.len() {
		st, ok := to(t.states.at(i))
		if !ok {
			continue
		}
		x := tableEntry{state: st}
		if lo, hi := t.offs.at(i), t.offs.at(i+1); hi > lo {
			x.key = unsafe.String(&t.keys[lo], hi-lo)
		}
		for len(added) > 0 && compareEntries(added[0], x) < 0 {
			push(added[0])
			added = added[1:]
		}
		push(x)
	}
	for _, x := range added {
		push(x)
	}
	if !sorted {
		return sortEntries(out)
	}
	return out
}

// appendTable appends entries sorted by key then state, each once
// (sortEntries): their count and keys' length (uvarints), every key's
// offset [count+1] and state [count] (uint32 each), then the keys; false
// when the keys are more bytes than an offset holds.
func appendTable(b []byte, es []tableEntry) ([]byte, bool) {
	n := 0
	for _, e := range es {
		n += len(e.key)
	}
	if uint64(n) > maxColumn {
		return b, false
	}
	b = binary.AppendUvarint(b, uint64(len(es)))
	b = binary.AppendUvarint(b, uint64(n))
	at := uint32(0)
	for _, e := range es {
		b = binary.LittleEndian.AppendUint32(b, at)
		at += uint32(len(e.key))
	}
	b = binary.LittleEndian.AppendUint32(b, at)
	for _, e := range es {
		b = binary.LittleEndian.AppendUint32(b, e.state)
	}
	for _, e := range es {
		b = append(b, e.key...)
	}
	return b, true
}

var errStates = errors.New("cache: bad check states")

// u32s is a column of little-endian uint32s, read in place.
type u32s []byte

func (c u32s) len() int        { return len(c) / 4 }
func (c u32s) at(i int) uint32 { return binary.LittleEndian.Uint32(c[i*4:]) }

// table is a table appendTable wrote, read in place.
type table struct {
	offs, states u32s
	keys         []byte
}

// readTable reads a table at d; false when it does not read as one.
func readTable(d *cachecodec.Reader[[]byte]) (table, bool) {
	n, l := d.Uvarint(), d.Uvarint()
	rest := uint64(d.Left())
	if d.Bad() || n > rest/8 || l > rest {
		return table{}, false
	}
	t := table{offs: u32s(d.Take(int(n+1) * 4)), states: u32s(d.Take(int(n) * 4)), keys: d.Take(int(l))}
	if d.Bad() {
		return table{}, false
	}
	prev := uint32(0)
	for i := range t.offs.len() {
		o := t.offs.at(i)
		if o < prev || o > uint32(l) {
			return table{}, false
		}
		prev = o
	}
	return t, prev == uint32(l)
}

// find are the states of the entries of key k.
func (t table) find(k string) []int {
	n := t.states.len()
	key := func(i int) string { return string(t.keys[t.offs.at(i):t.offs.at(i+1)]) }
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if key(m) < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	var out []int
	for ; lo < n && key(lo) == k; lo++ {
		out = append(out, int(t.states.at(lo)))
	}
	return out
}

// States are a check's states as its section holds them (the first part
// and every delta's), read note by note: lint.Cached. A state is decoded
// when asked for, each delta's at once.
type States struct {
	files   []vault.File
	spent   int
	refuted int
	n       int
	offs    u32s // [n+1], into body
	fileOf  u32s // [n]
	linkOff u32s // [files+1], into linking
	linking u32s
	aliases table
	broken  table
	names   table
	// The states' bytes, bodyLen of them: read from bodyAt as asked for,
	// or all of them in body when the part was given whole or All read
	// them.
	bodyAt  io.ReaderAt
	bodyLen int64
	body    []byte
	// over are the deltas' states, the last of each note's, by index.
	over map[int]lint.NoteState
}

// OpenStates reads the states section's parts on the walk files its
// stamps name: the first part's indexes (checked whole) and every
// delta's states. Damaged input is an error, never a panic or an
// allocation larger than the input; a state damaged in the first part is
// found when it is read (State's false).
func OpenStates(parts [][]byte, files []vault.File) (*States, error) {
	if len(parts) == 0 {
		return nil, errStates
	}
	return openStates(bytes.NewReader(parts[0]), int64(len(parts[0])), parts[0], parts[1:], files)
}

// OpenStatesAt is OpenStates with the first part in a file (first, size
// bytes; Model.SectionAt) and the deltas' parts: the first part's
// indexes are read, and each state's bytes when it is asked for.
// A mapped model file's deltas cut short under it are an error (Guard).
func OpenStatesAt(first io.ReaderAt, size int64, deltas [][]byte, files []vault.File) (s *States, err error) {
	err = Guard(func() error {
		var err error
		s, err = openStates(first, size, nil, deltas, files)
		return err
	})
	return s, err
}

// statesHeadLen is the length of the first part's indexes, before the
// states: read a few bytes at a time, from the lengths they give.
func statesHeadLen(r io.ReaderAt, size int64) (int64, error) {
	at := int64(0)
	uvarints := func(k int) ([]uint64, bool) {
		var buf [5 * binary.MaxVarintLen64]byte
		got, _ := r.ReadAt(buf[:min(int64(k*binary.MaxVarintLen64), max(size-at, 0))], at)
		d := cachecodec.NewReader(buf[:got])
		out := make([]uint64, k)
		for j := range out {
			out[j] = d.Uvarint()
		}
		at += int64(d.Off())
		return out, !d.Bad()
	}
	h, ok := uvarints(5)
	if !ok {
		return 0, errStates
	}
	n, nfiles, nlinks := h[2], h[3], h[4]
	if n > uint64(size)/8 || nfiles > uint64(size)/4 || nlinks > uint64(size)/4 {
		return 0, errStates
	}
	at += int64((n+1)*4 + n*4 + (nfiles+1)*4 + nlinks*4)
	for range 3 { // the alias, broken-link and name tables
		if at > size {
			return 0, errStates
		}
		t, ok := uvarints(2)
		if !ok || t[0] > uint64(size)/8 || t[1] > uint64(size) {
			return 0, errStates
		}
		at += int64((t[0]+1)*4 + t[0]*4 + t[1])
	}
	if at > size {
		return 0, errStates
	}
	return at, nil
}

// openStates reads the first part from r (size bytes; whole, when set,
// the part itself) and the deltas.
func openStates(r io.ReaderAt, size int64, whole []byte, deltas [][]byte, files []vault.File) (*States, error) {
	hl, err := statesHeadLen(r, size)
	if err != nil {
		return nil, err
	}
	b := whole
	if b == nil {
		b = make([]byte, hl)
		if got, _ := r.ReadAt(b, 0); got != len(b) {
			return nil, errStates
		}
	}
	b = b[:hl]
	d := cachecodec.NewReader(b)
	spent, refuted, n, nfiles, nlinks := d.Uvarint(), d.Uvarint(), d.Uvarint(), d.Uvarint(), d.Uvarint()
	rest := uint64(size)
	if d.Bad() || n > rest/8 || nfiles != uint64(len(files)) || nfiles > rest/4 || nlinks > rest/4 || size-hl > math.MaxUint32 {
		return nil, errStates
	}
	s := &States{files: files, spent: int(min(spent, 1<<62)), refuted: int(min(refuted, n)), n: int(n), over: map[int]lint.NoteState{}}
	s.bodyLen, s.bodyAt = size-hl, io.NewSectionReader(r, hl, size-hl)
	if whole != nil {
		s.body = whole[hl:]
	}
	s.offs, s.fileOf = u32s(d.Take(int(n+1)*4)), u32s(d.Take(int(n)*4))
	s.linkOff, s.linking = u32s(d.Take(int(nfiles+1)*4)), u32s(d.Take(int(nlinks)*4))
	if d.Bad() {
		return nil, errStates
	}
	var ok1, ok2, ok3 bool
	s.aliases, ok1 = readTable(&d)
	s.broken, ok2 = readTable(&d)
	s.names, ok3 = readTable(&d)
	if !d.Done() || !ok1 || !ok2 || !ok3 {
		return nil, errStates
	}
	// The columns, checked whole: offsets in order and in the body, each
	// state of a note of its own, in the walk's order.
	prev := uint32(0)
	for i := range s.offs.len() {
		o := s.offs.at(i)
		if o < prev || o > uint32(s.bodyLen) || i == 0 && o != 0 {
			return nil, errStates
		}
		prev = o
	}
	if prev != uint32(s.bodyLen) {
		return nil, errStates
	}
	k := 0 // a state for every note of the files, in their order: the notes' places are the states'
	for i, f := range files {
		if !f.IsNote() {
			continue
		}
		if k >= s.n || s.fileOf.at(k) != uint32(i) {
			return nil, errStates
		}
		k++
	}
	if k != s.n {
		return nil, errStates
	}
	prev = 0
	for i := range s.linkOff.len() {
		o := s.linkOff.at(i)
		if o < prev || o > uint32(nlinks) {
			return nil, errStates
		}
		prev = o
	}
	if prev != uint32(nlinks) {
		return nil, errStates
	}
	for _, p := range deltas {
		if len(p) == 0 {
			continue // a delta of stamps alone
		}
		spent, delta, err := decodeStates(p, files)
		if err != nil {
			return nil, err
		}
		for _, st := range delta {
			i, ok := s.stateOf(st.Path)
			if !ok {
				return nil, errStates
			}
			s.over[i] = st
		}
		s.spent = spent
	}
	for i, st := range s.over {
		old, ok := s.base(i)
		if !ok {
			return nil, errStates
		}
		if old.Summary.Refuted() {
			s.refuted--
		}
		if st.Summary.Refuted() {
			s.refuted++
		}
	}
	s.refuted = max(s.refuted, 0)
	return s, nil
}

// stateOf is the index of the state of the note at p.
func (s *States) stateOf(p string) (int, bool) {
	fi, ok := slices.BinarySearchFunc(s.files, p, func(f vault.File, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return 0, false
	}
	lo, hi := 0, s.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.fileOf.at(m) < uint32(fi) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < s.n && s.fileOf.at(lo) == uint32(fi)
}

// base is state i as the first part holds it.
func (s *States) base(i int) (lint.NoteState, bool) {
	if i < 0 || i >= s.n {
		return lint.NoteState{}, false
	}
	lo, hi := s.offs.at(i), s.offs.at(i+1)
	var b []byte
	if s.body != nil {
		b = s.body[lo:hi]
	} else {
		b = make([]byte, hi-lo)
		if got, _ := s.bodyAt.ReadAt(b, int64(lo)); got != len(b) {
			return lint.NoteState{}, false
		}
	}
	d := cachecodec.NewReader(string(b))
	st, err := decodeState(&d, s.files)
	if err != nil || !d.Done() || st.Path != s.files[s.fileOf.at(i)].Path {
		return lint.NoteState{}, false
	}
	return st, true
}

// Len is how many notes have a state.
func (s *States) Len() int { return s.n }

// Spent is the suggestion work the last check spent.
func (s *States) Spent() int { return s.spent }

// State is the state of the note at i, among the walk's notes.
func (s *States) State(i int) (lint.NoteState, bool) {
	if st, ok := s.over[i]; ok {
		return st, true
	}
	return s.base(i)
}

// Refuted is how many notes are refuted.
func (s *States) Refuted() int { return s.refuted }

// Linking are the notes whose targets may hold the file at p: those the
// first part lists, but for notes a delta holds, and those whose delta
// state does.
func (s *States) Linking(p string) ([]int, bool) {
	fi, ok := slices.BinarySearchFunc(s.files, p, func(f vault.File, p string) int { return strings.Compare(f.Path, p) })
	if !ok {
		return nil, true
	}
	var out []int
	for j := s.linkOff.at(fi); j < s.linkOff.at(fi+1); j++ {
		out = append(out, int(s.linking.at(int(j))))
	}
	return s.withOver(out, func(st lint.NoteState) bool { return slices.Contains(st.Targets, p) }), true
}

// AliasOwners are the notes that may declare the folded alias k.
func (s *States) AliasOwners(k string) ([]int, bool) {
	return s.withOver(s.aliases.find(k), func(st lint.NoteState) bool {
		return slices.ContainsFunc(st.Summary.Aliases(), func(a string) bool { return vault.FoldName(a) == k })
	}), true
}

// BrokenNaming are the notes that may have a broken link naming k.
func (s *States) BrokenNaming(k string) ([]int, bool) {
	return s.withOver(s.broken.find(k), func(st lint.NoteState) bool {
		return slices.ContainsFunc(st.Broken, func(b string) bool { return vault.FoldName(b) == k })
	}), true
}

// BrokenWhere are the notes that may have a broken link whose folded
// path keep keeps: every key of the table is asked, once each.
func (s *States) BrokenWhere(keep func(k string) bool) ([]int, bool) {
	var out []int
	t := s.broken
	for i := 0; i < t.states.len(); {
		lo, hi := t.offs.at(i), t.offs.at(i+1)
		j := i + 1
		for j < t.states.len() && string(t.keys[t.offs.at(j):t.offs.at(j+1)]) == string(t.keys[lo:hi]) {
			j++
		}
		if keep(string(t.keys[lo:hi])) {
			for k := i; k < j; k++ {
				out = append(out, int(t.states.at(k)))
			}
		}
		i = j
	}
	return s.withOver(out, func(st lint.NoteState) bool {
		return slices.ContainsFunc(st.Broken, func(b string) bool { return keep(vault.FoldName(b)) })
	}), true
}

// Named are the files whose name is k (vault.NameKey), perhaps among
// others: the files are the walk's, which no delta changes. false when
// the table names a file not walked.
func (s *States) Named(k string) ([]string, bool) {
	is := s.names.find(k)
	out := make([]string, 0, len(is))
	for _, i := range is {
		if i >= len(s.files) {
			return nil, false
		}
		out = append(out, s.files[i].Path)
	}
	return out, true
}

// withOver is the first part's notes of a lookup but those a delta
// holds, and the delta states keep keeps.
func (s *States) withOver(base []int, keep func(lint.NoteState) bool) []int {
	out := base[:0]
	for _, i := range base {
		if _, ok := s.over[i]; !ok {
			out = append(out, i)
		}
	}
	for i, st := range s.over {
		if keep(st) {
			out = append(out, i)
		}
	}
	slices.Sort(out)
	return out
}

// All are every note's state, in the walk's order.
func (s *States) All() ([]lint.NoteState, error) {
	if s.body == nil { // one read of them all, not one a state
		b := make([]byte, s.bodyLen)
		if got, _ := s.bodyAt.ReadAt(b, 0); got != len(b) {
			return nil, errStates
		}
		s.body = b
	}
	out := make([]lint.NoteState, s.n)
	for i := range out {
		st, ok := s.State(i)
		if !ok {
			return nil, errStates
		}
		out[i] = st
	}
	return out, nil
}

// DecodeStates decodes the states section's parts (OpenStates) whole:
// the suggestion work spent and every note's state, in the walk's order.
// A mapped model file cut short under them is an error (Guard).
func DecodeStates(parts [][]byte, files []vault.File) (spent int, states []lint.NoteState, err error) {
	err = Guard(func() error {
		s, err := OpenStates(parts, files)
		if err != nil {
			return err
		}
		spent = s.spent
		states, err = s.All()
		return err
	})
	if err != nil {
		return 0, nil, err
	}
	return spent, states, nil
}

// decodeStates decodes a delta's part. Every string is sliced from one
// copy of the part.
func decodeStates(states []byte, files []vault.File) (spent int, out []lint.NoteState, err error) {
	d := cachecodec.NewReader(string(states))
	spent = int(min(d.Uvarint(), 1<<62))
	n := d.Count(2) // a state takes two bytes at least
	if d.Bad() {
		return 0, nil, errStates
	}
	out = make([]lint.NoteState, 0, n)
	for range n {
		st, err := decodeState(&d, files)
		if err != nil {
			return 0, nil, err
		}
		if len(out) > 0 && out[len(out)-1].Path >= st.Path {
			return 0, nil, errStates // in the walk's order, each once
		}
		out = append(out, st)
	}
	if !d.Done() {
		return 0, nil, errStates
	}
	return spent, out, nil
}

// decodeState decodes one state at d, its strings sliced from d's.
func decodeState(d *cachecodec.Reader[string], files []vault.File) (lint.NoteState, error) {
	path := func() string {
		i := d.Uvarint()
		if i >= uint64(len(files)) {
			d.Fail()
			return ""
		}
		return files[i].Path
	}
	st := lint.NoteState{Path: path()}
	flags := d.Byte()
	st.Read, st.Checked = flags&1 != 0, flags&2 != 0
	if st.Read && !d.Bad() {
		k := d.Count(1)
		st.Targets = make([]string, 0, k)
		for range k {
			st.Targets = append(st.Targets, path())
		}
		st.Summary = lint.ReadSummary(d)
		st.Broken = d.Strs()
	}
	if d.Bad() {
		return st, errStates
	}
	return st, nil
}
