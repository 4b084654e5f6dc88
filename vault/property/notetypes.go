package property

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"

	"github.com/zk-claims/zk/internal/cachecodec"
)

// NoteTypes is what zk properties keeps of a note in the model file: its
// path and the type of each of its frontmatter values (TypeOf), by
// property name. A census of the vault decodes these few bytes a note,
// not every note's record with its values.
type NoteTypes struct {
	Path string
	// types is the count of properties, then each one's name and type
	// (its index in Types), by name.
	types string
}

// TypesOf is the types of a note's frontmatter values
// (vault.Frontmatter.Values; nil for none).
func TypesOf(path string, values map[string]any) NoteTypes {
	if len(values) == 0 {
		return NoteTypes{Path: path}
	}
	b := binary.AppendUvarint(nil, uint64(len(values)))
	for _, k := range slices.Sorted(maps.Keys(values)) { // the same bytes for the same values
		b = cachecodec.AppendStr(b, k)
		b = append(b, byte(slices.Index(Types, TypeOf(values[k]))))
	}
	return NoteTypes{Path: path, types: string(b)}
}

// AddTypes counts one note's properties as Add counts its values.
func (c *Census) AddTypes(n NoteTypes) {
	if n.types == "" {
		return
	}
	if c.m == nil {
		c.m = map[string]*Summary{}
	}
	r := cachecodec.NewReader(n.types)
	for range r.Count(2) {
		k, t := r.Str(), r.Byte()
		if r.Bad() || int(t) >= len(Types) { // checked by the decode; never so when made by TypesOf
			return
		}
		s := c.m[k]
		if s == nil {
			s = &Summary{Name: k, Types: map[Type]int{}}
			c.m[k] = s
		}
		s.Notes++
		s.Types[Types[t]]++
	}
}

// noteTypesMagic opens the encoding of notes' types; another version is a
// miss.
const noteTypesMagic = "zk-property-types\x01"

// EncodeNoteTypes is notes' types as bytes to cache.
func EncodeNoteTypes(notes []NoteTypes) []byte {
	return cachecodec.AppendPairs(noteTypesMagic, len(notes), func(i int) (string, string) { return notes[i].Path, notes[i].types })
}

var errNoteTypes = errors.New("damaged property types")

// DecodeNoteTypes reads what EncodeNoteTypes wrote; anything else is an
// error, never a panic or an allocation larger than the bytes.
func DecodeNoteTypes(b []byte) ([]NoteTypes, error) { return DecodeNoteTypesText(string(b)) }

// DecodeNoteTypesText is DecodeNoteTypes of the bytes as a string, every
// string decoded a slice of it (a section of the model file, never
// written after it is read).
func DecodeNoteTypesText(b string) ([]NoteTypes, error) {
	r := cachecodec.NewReader(b)
	if r.Take(len(noteTypesMagic)) != noteTypesMagic {
		return nil, errNoteTypes
	}
	n := r.Count(2) // a path's length and the types' at least
	out := make([]NoteTypes, 0, n)
	for range n {
		nt := NoteTypes{Path: r.Str(), types: r.Str()}
		if nt.types != "" && !validTypes(nt.types) {
			return nil, errNoteTypes
		}
		out = append(out, nt)
	}
	if !r.Done() {
		return nil, errNoteTypes
	}
	return out, nil
}

// validTypes reports whether types reads as TypesOf writes them: a count
// of one or more, each name with a type of Types, nothing after them.
func validTypes(types string) bool {
	r := cachecodec.NewReader(types)
	k := r.Count(2)
	for range k {
		r.Str()
		if t := r.Byte(); int(t) >= len(Types) {
			return false
		}
	}
	return k > 0 && r.Done()
}
