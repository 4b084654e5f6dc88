package property

import (
	"reflect"
	"testing"
)

// TestAddTypesCountsAsAdd: a census of the notes' types (what the model
// file keeps) is the census of their values.
func TestAddTypesCountsAsAdd(t *testing.T) {
	notes := []map[string]any{
		{"rating": int64(3), "tags": []any{"a"}, "done": true, "due": "2020-08-21", "at": "2020-08-21T10:30:00"},
		{"rating": "three", "tags": nil, "meta": map[string]any{"a": 1.5}, "": "empty name"},
		nil,
		{},
		{"rating": 2.5, "due": "2020-02-30", "aliases": []any{}},
	}
	var byValues, byTypes Census
	for i, values := range notes {
		byValues.Add(values)
		byTypes.AddTypes(TypesOf("n.md", values))
		if i == 2 {
			byTypes.AddTypes(NoteTypes{}) // a note without properties
		}
	}
	declared := map[string]Type{"rating": Number}
	if got, want := byTypes.Summaries(declared), byValues.Summaries(declared); !reflect.DeepEqual(got, want) {
		t.Errorf("census of the types:\n%+v\nof the values:\n%+v", got, want)
	}
}

// TestNoteTypesCodec: the section reads back what it wrote, and a cut
// anywhere, a byte after it, or a type zk does not know is refused.
func TestNoteTypesCodec(t *testing.T) {
	notes := []NoteTypes{
		TypesOf("A.md", map[string]any{"rating": int64(3), "tags": []any{"a"}}),
		TypesOf("B.md", nil),
		TypesOf("C.md", map[string]any{"due": "2020-08-21"}),
	}
	b := EncodeNoteTypes(notes)
	got, err := DecodeNoteTypes(b)
	if err != nil || !reflect.DeepEqual(got, notes) {
		t.Fatalf("DecodeNoteTypes = %+v, %v; want %+v", got, err, notes)
	}
	for cut := range len(b) {
		if _, err := DecodeNoteTypes(b[:cut]); err == nil {
			t.Fatalf("types cut at %d of %d bytes decoded", cut, len(b))
		}
	}
	if _, err := DecodeNoteTypes(append(b, 0)); err == nil {
		t.Error("types with a byte after them decoded")
	}
	bad := EncodeNoteTypes([]NoteTypes{{Path: "A.md", types: "\x01\x01r" + string(rune(len(Types)))}})
	if _, err := DecodeNoteTypes(bad); err == nil {
		t.Error("a type past property.Types decoded")
	}
	if _, err := DecodeNoteTypes(EncodeNoteTypes([]NoteTypes{{Path: "A.md", types: "\x00"}})); err == nil {
		t.Error("a note's types counting none decoded (TypesOf writes none as nothing)")
	}
}

// FuzzDecodeNoteTypes: any bytes decode or fail with an error, never a
// panic; what decodes is counted without a panic and encodes back to
// the same notes.
//
//	go test ./vault/property -run '^$' -fuzz FuzzDecodeNoteTypes -fuzztime 30s
func FuzzDecodeNoteTypes(f *testing.F) {
	f.Add(EncodeNoteTypes([]NoteTypes{TypesOf("A.md", map[string]any{"rating": int64(3), "tags": []any{"a"}}), {Path: "B.md"}}))
	f.Add([]byte(noteTypesMagic + "\xff\xff\xff\xff\x0f"))
	f.Add([]byte(noteTypesMagic + "\x01\x04A.md\x04\x01\x01r\x09"))
	f.Fuzz(func(t *testing.T, b []byte) {
		notes, err := DecodeNoteTypes(b)
		if err != nil {
			return
		}
		var c Census
		for _, n := range notes {
			c.AddTypes(n)
		}
		for _, s := range c.Summaries(nil) {
			total := 0
			for _, n := range s.Types {
				total += n
			}
			if total != s.Notes {
				t.Fatalf("%q: %d notes, %d by type", s.Name, s.Notes, total)
			}
		}
		if again, err := DecodeNoteTypes(EncodeNoteTypes(notes)); err != nil || !reflect.DeepEqual(again, notes) {
			t.Fatalf("re-encoded types decode as %+v, %v; want %+v", again, err, notes)
		}
	})
}
