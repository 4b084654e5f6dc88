package base

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// codecNotes are the test vault's notes' entries, with a note whose
// properties hold every kind of value an entry keeps, read in zone.
func codecNotes(t testing.TB, zone *time.Location) []*File {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/vault")); err != nil {
		t.Fatal(err)
	}
	note := "---\ntags: [x, Y]\nwhen: 2024-01-05\nat: 2024-01-05T10:00:00+02:00\ndue: 2024-03-10 02:30\nold: 0001-01-01\n" +
		"n: 1.5\nb: false\nnil:\nlink: \"[[Dune|D]]\"\nnested:\n  a: [1, \"[[Essay]]\", {c: 2024-02-02}]\n---\n" +
		"[[Launch]] ![[cover.png]] [[Dune|the book]] #inline\n"
	if err := os.WriteFile(filepath.Join(dir, "Every.md"), []byte(note), 0o644); err != nil {
		t.Fatal(err)
	}
	return loadDir(t, dir, zone, nil).Notes()
}

// TestCodecRoundTrip: every entry decodes as it was encoded (encoded
// again, the same bytes), its times in the zone given, its values of the
// same kinds.
func TestCodecRoundTrip(t *testing.T) {
	zone := time.FixedZone("UTC-5", -5*3600)
	notes := codecNotes(t, zone)
	b, err := EncodeNotes(notes)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeNotes(b, zone)
	if err != nil {
		t.Fatal(err)
	}
	// Encoded again before their properties are built (their bytes as
	// read), and after.
	for _, built := range []bool{false, true} {
		if built {
			for _, f := range got {
				f.load()
			}
		}
		again, err := EncodeNotes(got)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, b) {
			t.Errorf("decoded and encoded again (built %v), the entries are other bytes", built)
		}
	}
	if len(got) != len(notes) {
		t.Fatalf("%d entries, want %d", len(got), len(notes))
	}
	for i, f := range got {
		want := notes[i]
		if f.Path != want.Path {
			t.Errorf("entry %d: %s, want %s", i, f.Path, want.Path)
		}
		if show(f.Props) != show(want.Props) || len(f.Props) != len(want.Props) {
			t.Errorf("%s: properties %v, want %v", want.Path, f.Props, want.Props)
		}
		for k, v := range want.Props {
			if d, ok := v.(Date); ok && f.Props[k] != d {
				t.Errorf("%s: %s = %#v, want %#v", want.Path, k, f.Props[k], d)
			}
		}
	}
	var every *File
	for _, f := range got {
		if f.Path == "Every.md" {
			every = f
		}
	}
	if every == nil {
		t.Fatal("no entry of Every.md")
	}
	for k, want := range map[string]string{
		"when": "date(2024-01-05)", "at": "date(2024-01-05 03:00:00)", "due": "date(2024-03-10 02:30:00)",
		"old": "date(0001-01-01)", "link": "link(Dune->Books/Dune.md)", "nested": "[1,link(Essay->Required Reading/Essay.md),date(2024-02-02)]",
	} {
		v := every.Props[k]
		if k == "nested" {
			v = v.(map[string]any)["a"].([]any)
			v.([]any)[2] = v.([]any)[2].(map[string]any)["c"]
		}
		if show(v) != want {
			t.Errorf("%s = %s, want %s", k, show(v), want)
		}
	}
	if l := every.Props["link"].(Link); l.Display != "D" {
		t.Errorf("link display %#v", l.Display)
	}
	if tags := every.Props["tags"].([]any); show(tags) != `["x","Y"]` || tags[0] != Tag("x") {
		t.Errorf("tags %#v, want Tags x and Y", tags)
	}
	if show(linkList(every.Links)) != "[link(Launch->Projects/Launch.md),link(Dune->Books/Dune.md),link(Dune->Books/Dune.md)]" || every.Links[1].Display != "the book" ||
		show(linkList(every.Embeds)) != "[link(cover.png->Attachments/cover.png)]" || every.Links[0].Display != nil {
		t.Errorf("links %#v, embeds %#v", every.Links, every.Embeds)
	}
}

// TestDecodeDamaged: bytes EncodeNotes did not write (cut short at any
// length, a count larger than the bytes, a tag of no kind, another
// version: version 1's entries, which held sizes and times) are an
// error, never a panic or a large allocation.
func TestDecodeDamaged(t *testing.T) {
	b, err := EncodeNotes(codecNotes(t, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	for n := range len(b) {
		if _, err := DecodeNotes(b[:n], time.UTC); err == nil {
			t.Fatalf("cut at %d of %d bytes: no error", n, len(b))
		}
	}
	huge := binary.AppendUvarint([]byte(codecMagic), 1<<60)
	other := append([]byte("zk-base-notes\x03"), b[len(codecMagic):]...)
	// Version 1: a note a.md of 0 bytes, modified at 1 s and born at
	// 2 s, with no properties, tags or links. Its bytes read as version
	// 2's too, as another entry (two tags, one of four NULs): only the
	// magic tells them apart.
	v1entry := []byte{1, 4, 'a', '.', 'm', 'd', 0, 2, 0, 4, 0, 0, 0, 0, 0, 0}
	v1 := append([]byte("zk-base-notes\x01"), v1entry...)
	if misread, err := DecodeNotes(append([]byte(codecMagic), v1entry...), time.UTC); err != nil || len(misread) != 1 {
		t.Fatalf("version 1's entry after version 2's magic: %v, %v; the fixture no longer shows a misread", misread, err)
	}
	badTag := append([]byte(codecMagic), 1, 1, 'a', 1, 1, 'k', 99, 0, 0, 0)
	for name, in := range map[string][]byte{"huge count": huge, "another version": other, "version 1": v1, "bad tag": badTag, "empty": nil,
		"trailing byte": append(bytes.Clone(b), 0)} {
		if _, err := DecodeNotes(in, time.UTC); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if testing.AllocsPerRun(10, func() { DecodeNotes(huge, time.UTC) }) > 10 {
		t.Error("a huge count allocates")
	}
}

// FuzzDecodeNotes: any bytes decode or fail with an error, never a panic,
// and what decodes builds its properties (load) without one; what is
// built encodes again and decodes to the same bytes.
//
//	go test ./vault/base -run '^$' -fuzz FuzzDecodeNotes -fuzztime 30s
func FuzzDecodeNotes(f *testing.F) {
	b, err := EncodeNotes(codecNotes(f, time.UTC))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add([]byte(codecMagic))
	f.Fuzz(func(t *testing.T, in []byte) {
		notes, err := DecodeNotes(in, time.UTC)
		if err != nil {
			return
		}
		if _, err := EncodeNotes(notes); err != nil {
			t.Fatalf("decoded, not encoded again as read: %v", err)
		}
		for _, f := range notes {
			f.load() // built from what DecodeNotes checked: never a panic
		}
		out, err := EncodeNotes(notes)
		if err != nil {
			t.Fatalf("decoded, not encoded again: %v", err)
		}
		back, err := DecodeNotes(out, time.UTC)
		if err != nil {
			t.Fatalf("encoded again, not decoded: %v", err)
		}
		for _, f := range back {
			f.load() // built from what DecodeNotes checked: never a panic
		}
		if again, _ := EncodeNotes(back); !bytes.Equal(again, out) {
			t.Fatal("not stable")
		}
	})
}
