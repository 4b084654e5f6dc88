package checkcache

import (
	"crypto/sha256"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
)

func section(name string, n int, entries string) Section {
	s := Section{Name: name, Key: NewKey([]byte(name)), Hashes: make([][sha256.Size]byte, n), Entries: [][]byte{[]byte(entries)}}
	for i := range s.Hashes {
		s.Hashes[i] = Hash([]byte(name + entries))
	}
	return s
}

func openModel(t *testing.T, file string) *Model {
	t.Helper()
	m, err := OpenModel(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func save(t testing.TB, file string, u Update) {
	t.Helper()
	m, err := OpenModel(file)
	if err != nil {
		m = nil
	} else {
		defer m.Close()
	}
	if err := SaveModel(file, m, u); err != nil {
		t.Fatal(err)
	}
}

func readSection(t *testing.T, file, name string) (Section, bool) {
	t.Helper()
	s, ok, err := openModel(t, file).Section(name)
	if err != nil {
		t.Fatal(err)
	}
	return s, ok
}

// A reader's save keeps the other readers' sections while the files are
// the same ones, and drops them when the set of files changed: their
// hashes are by position.
// A save written anew removes what writers killed mid-save left beside
// the model file (a signal's grace ended a save of hundreds of
// megabytes), and nothing another writer is writing now.
func TestSaveModelSweepsKilledWriters(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.cache")
	dead := filepath.Join(dir, atomicfile.TempPrefix+"999999999-abcd") // no such process
	live := filepath.Join(dir, atomicfile.TempPrefix+"1-abcd")         // init's: a writer at work
	other := filepath.Join(dir, "other.cache")
	for _, p := range []string{dead, live, other} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	stamps := []Stamp{{Path: "a.md", Size: 1, ModTime: 2, Hash: Hash([]byte("a"))}}
	save(t, file, Update{Written: 10, Stamps: stamps, Sections: []Section{section("list", 1, "records")}})
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("a killed writer's temporary file is still there (%v)", err)
	}
	for _, p := range []string{live, other, file} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s: %v", filepath.Base(p), err)
		}
	}
}

func TestSaveModelKeepsTheOthers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.cache")
	stamps := []Stamp{{Path: "a.md", Size: 1, ModTime: 2, ChangeTime: 5, Dev: 6, Ino: 7, Hash: Hash([]byte("a"))}, {Path: "b.png", Size: 3, ModTime: 4, ChangeTime: 8, Dev: 6, Ino: 9}}
	list, details := section("list", 2, "records"), section("details", 2, "edges")
	save(t, file, Update{Written: 10, Stamps: stamps, Sections: []Section{list}})
	save(t, file, Update{Written: 11, Stamps: stamps, Sections: []Section{details}})
	for _, want := range []Section{list, details} {
		got, ok := readSection(t, file, want.Name)
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read\n%+v\nwant\n%+v", want.Name, got, want)
		}
	}
	if m := openModel(t, file); !reflect.DeepEqual(m.Stamps, stamps) || m.writtenAt(0) != 11 {
		t.Errorf("stamps %+v written %v", m.Stamps, m.written)
	}
	list2 := section("list", 2, "records 2")
	save(t, file, Update{Written: 12, Stamps: stamps, Sections: []Section{list2}})
	if got, ok := readSection(t, file, "list"); !ok || !reflect.DeepEqual(got, list2) {
		t.Errorf("list saved again: %+v", got)
	}
	if got, ok := readSection(t, file, "details"); !ok || !reflect.DeepEqual(got, details) {
		t.Errorf("details after list saved again: %+v", got)
	}
	// A file renamed: the other sections' hashes no longer line up.
	renamed := []Stamp{stamps[0], {Path: "c.png", Size: 3, ModTime: 4}}
	save(t, file, Update{Written: 13, Stamps: renamed, Sections: []Section{list2}})
	if _, ok := readSection(t, file, "details"); ok {
		t.Error("details after a rename: kept")
	}
	if _, ok := readSection(t, file, "list"); !ok {
		t.Error("list after a rename: lost")
	}
	if err := SaveModel(file, nil, Update{Stamps: renamed, Sections: []Section{section("list", 1, "x")}}); err == nil {
		t.Error("a section of 1 hash for 2 stamps: saved")
	}
}

// A note read again is appended as a delta: its stamp, its hash in the
// reader's section and its entry; the other sections keep theirs. A
// delta cut short is ignored; a section written anew drops the other
// sections' entries that a delta changed, since only their reader can
// merge them.
func TestSaveModelDelta(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.cache")
	stamps := []Stamp{{Path: "a.md", Size: 1, ModTime: 2, ChangeTime: 3, Dev: 9, Ino: 10, Hash: Hash([]byte("a"))}, {Path: "b.md", Size: 1, ModTime: 4, ChangeTime: 4, Dev: 9, Ino: 11, Hash: Hash([]byte("b"))}}
	list, details := section("list", 2, "records"), section("details", 2, "edges")
	save(t, file, Update{Written: 10e9, Stamps: stamps, Sections: []Section{list}})
	save(t, file, Update{Written: 10e9, Stamps: stamps, Sections: []Section{details}})
	whole, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}

	// b.md edited to other bytes of the same size under its old mtime: its
	// ctime and inode (a save by rename) are the delta's.
	edited := []Stamp{stamps[0], {Path: "b.md", Size: 1, ModTime: 4, ChangeTime: 5, Dev: 9, Ino: 12, Hash: Hash([]byte("c"))}}
	m := openModel(t, file)
	if !m.Appendable(edited, list.Key, "list") || m.Appendable(edited, NewKey([]byte("other")), "list") || m.Appendable(edited, list.Key, "list", "details") {
		t.Fatal("appendable: same files and key only")
	}
	d := Section{Name: "list", Key: list.Key, Hashes: [][sha256.Size]byte{list.Hashes[0], edited[1].Hash}, Entries: [][]byte{[]byte("b's record")}}
	if err := SaveModel(file, m, Update{Written: 20e9, Stamps: edited, Sections: []Section{d}, Changed: []int{1}}); err != nil {
		t.Fatal(err)
	}
	m = openModel(t, file)
	if !reflect.DeepEqual(m.Stamps, edited) || m.writtenAt(0) != 10e9 || m.writtenAt(1) != 20e9 {
		t.Errorf("stamps after a delta %+v written %v", m.Stamps, m.written)
	}
	want := Section{Name: "list", Key: list.Key, Hashes: d.Hashes, Entries: [][]byte{[]byte("records"), []byte("b's record")}}
	if got, _ := readSection(t, file, "list"); !reflect.DeepEqual(got, want) {
		t.Errorf("list after a delta\n%+v\nwant\n%+v", got, want)
	}
	if got, _ := readSection(t, file, "details"); !reflect.DeepEqual(got, details) {
		t.Errorf("details after list's delta: %+v", got)
	}

	// Cut short: the delta never happened.
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(t.TempDir(), "torn")
	if err := os.WriteFile(torn, b[:len(b)-1], 0o600); err != nil {
		t.Fatal(err)
	}
	if m := openModel(t, torn); !reflect.DeepEqual(m.Stamps, stamps) {
		t.Errorf("a torn delta applied: %+v", m.Stamps)
	}
	if got, _ := readSection(t, torn, "list"); !reflect.DeepEqual(got, list) {
		t.Errorf("a torn delta's entries read: %+v", got)
	}
	if len(b) <= len(whole) {
		t.Fatal("no delta appended")
	}

	// details written anew: list's entry of b, in a delta, is dropped.
	details2 := section("details", 2, "edges 2")
	save(t, file, Update{Written: 30e9, Stamps: edited, Sections: []Section{details2}})
	got, _ := readSection(t, file, "list")
	if want := (Section{Name: "list", Key: list.Key, Hashes: [][sha256.Size]byte{list.Hashes[0], {}}, Entries: [][]byte{[]byte("records")}}); !reflect.DeepEqual(got, want) {
		t.Errorf("list after details written anew\n%+v\nwant\n%+v", got, want)
	}
}

// A save over other files keeps the sections KeepFiles names whole, with
// the files they were made over (Paths): their hashes and entries, a
// delta's too, in parts as they were; read in place (SectionAt), mapped
// or not; kept so by later saves of other readers over the same files or
// others, dropped by one that does not keep them, and replaced by their
// reader's save. No delta is appended to them.
func TestSaveModelKeepsFiles(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.cache")
	writeKept(t, file)
	check := section("check", 2, "first")
	want := Section{Name: "check", Key: check.Key, Hashes: [][sha256.Size]byte{check.Hashes[0], Hash([]byte("b2"))},
		Entries: [][]byte{[]byte("first"), []byte("delta")}, Carried: true, Paths: []string{"a.md", "b.md"}}
	come := []Stamp{{Path: "a.md", Size: 1, ModTime: 2}, {Path: "c.md", Size: 5, ModTime: 6}}
	keep := func(name string) bool { return name == "check" }
	read := func(when string) {
		t.Helper()
		for _, m := range []*Model{openModel(t, file), openMapped(t, file)} {
			got, ok, err := m.Section("check")
			if !ok || err != nil || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: check read %v %v\n%+v\nwant\n%+v", when, ok, err, got, want)
			}
			at, first, ok, err := m.SectionAt("check")
			b := make([]byte, 16)
			n, _ := first.ReadAt(b, 0)
			if !ok || err != nil || string(b[:n]) != "first" || at.Entries[0] != nil || !reflect.DeepEqual(at.Entries[1:], want.Entries[1:]) {
				t.Errorf("%s: check read in place %v %v %q %+v", when, ok, err, b[:n], at)
			}
			if m.Appendable(m.Stamps, check.Key, "check") {
				t.Errorf("%s: a delta may be appended to a section kept with its files", when)
			}
		}
	}
	read("list saved over other files")
	save(t, file, Update{Written: 13, Stamps: come, Sections: []Section{section("details", 2, "edges")}})
	read("details saved over the same files")
	save(t, file, Update{Written: 14, Stamps: come[:1], Sections: []Section{section("list", 1, "r")}, KeepFiles: keep})
	read("list saved over other files again")
	save(t, file, Update{Written: 15, Stamps: come, Sections: []Section{section("list", 2, "r")}})
	if _, ok := readSection(t, file, "check"); ok {
		t.Error("kept over other files by a save that does not keep it")
	}
	writeKept(t, file)
	own := section("check", 2, "mine")
	save(t, file, Update{Written: 17, Stamps: come, Sections: []Section{own}, KeepFiles: keep})
	if got, ok := readSection(t, file, "check"); !ok || !reflect.DeepEqual(got, own) {
		t.Errorf("check saved by its reader: %+v", got)
	}
}

// writeKept writes a model file of a.md and b.md with a section "check"
// and a delta of it, then saves "list" over a.md and c.md, keeping
// "check" with its files.
func writeKept(t testing.TB, file string) {
	stamps := []Stamp{{Path: "a.md", Size: 1, ModTime: 2}, {Path: "b.md", Size: 3, ModTime: 4}}
	check := section("check", 2, "first")
	for _, u := range []Update{
		{Written: 10, Stamps: stamps, Sections: []Section{check}},
		{Written: 11, Stamps: stamps, Changed: []int{1}, Sections: []Section{{Name: "check", Key: check.Key,
			Hashes: [][sha256.Size]byte{check.Hashes[0], Hash([]byte("b2"))}, Entries: [][]byte{[]byte("delta")}}}},
		{Written: 12, Stamps: []Stamp{stamps[0], {Path: "c.md", Size: 5, ModTime: 6}}, Sections: []Section{section("list", 2, "r")},
			KeepFiles: func(name string) bool { return name == "check" }},
	} {
		save(t, file, u)
	}
}

// Check's two sections are saved together, stamped once, and a delta
// changes both; sections saved together must share their key.
func TestSaveModelSectionsTogether(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.cache")
	stamps := []Stamp{{Path: "a.md", Size: 1, ModTime: 2, Hash: Hash([]byte("a"))}, {Path: "b.md", Size: 1, ModTime: 4, Hash: Hash([]byte("b"))}}
	list := section("list", 2, "records")
	fs, ss := section(FindingsSection, 2, "findings"), section(StatesSection, 2, "states")
	ss.Key, ss.Hashes = fs.Key, fs.Hashes
	save(t, file, Update{Written: 10e9, Stamps: stamps, Sections: []Section{list}})
	save(t, file, Update{Written: 10e9, Stamps: stamps, Sections: []Section{fs, ss}})
	for _, want := range []Section{list, fs, ss} {
		if got, ok := readSection(t, file, want.Name); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read\n%+v\nwant\n%+v", want.Name, got, want)
		}
	}
	m := openModel(t, file)
	if !m.Appendable(stamps, fs.Key, fs.Name, ss.Name) {
		t.Fatal("check's sections: not appendable")
	}
	fd, sd := fs, ss
	fd.Entries, sd.Entries = [][]byte{[]byte("findings 2")}, [][]byte{[]byte("states 2")}
	fd.Hashes = [][sha256.Size]byte{{1}, fs.Hashes[1]}
	sd.Hashes = fd.Hashes
	if err := SaveModel(file, m, Update{Written: 20e9, Stamps: stamps, Sections: []Section{fd, sd}, Changed: []int{0}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []Section{
		{Name: fs.Name, Key: fs.Key, Hashes: fd.Hashes, Entries: [][]byte{[]byte("findings"), []byte("findings 2")}},
		{Name: ss.Name, Key: ss.Key, Hashes: fd.Hashes, Entries: [][]byte{[]byte("states"), []byte("states 2")}},
	} {
		if got, _ := readSection(t, file, want.Name); !reflect.DeepEqual(got, want) {
			t.Errorf("%s after a delta\n%+v\nwant\n%+v", want.Name, got, want)
		}
	}
	other := ss
	other.Key = NewKey([]byte("other"))
	for name, u := range map[string]Update{
		"a delta of two keys": {Stamps: stamps, Sections: []Section{fs, other}, Changed: []int{0}},
		"a section twice":     {Stamps: stamps, Sections: []Section{fs, fs}},
		"no section":          {Stamps: stamps},
	} {
		if err := SaveModel(file, nil, u); err == nil {
			t.Errorf("%s: saved", name)
		}
	}
	// Written anew, sections of two keys (a read of every note filling
	// another reader's) are each kept under its own.
	if err := SaveModel(file, nil, Update{Written: 30e9, Stamps: stamps, Sections: []Section{fs, other}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []Section{fs, other} {
		if got, _ := readSection(t, file, want.Name); got.Key != want.Key || !reflect.DeepEqual(got.Entries, want.Entries) {
			t.Errorf("%s saved with another key's: %+v, want %+v", want.Name, got, want)
		}
	}
}

// writeSample writes a model file of every kind of part: two readers'
// sections, a delta of one, check's two sections and a delta of both.
func writeSample(f testing.TB, valid string) {
	stamps := []Stamp{{Path: "a.md", Size: 3, ModTime: 7, Hash: Hash([]byte("abc"))}, {Path: "ü/b.png", Size: 9, ModTime: -1}}
	var m *Model
	for _, s := range []Section{section("list", 2, "records"), section("details", 2, "edges")} {
		if err := SaveModel(valid, m, Update{Written: 42, Stamps: stamps, Sections: []Section{s}}); err != nil {
			f.Fatal(err)
		}
		if m != nil {
			m.Close()
		}
		var err error
		if m, err = OpenModel(valid); err != nil {
			f.Fatal(err)
		}
	}
	d := section("list", 2, "delta")
	if err := SaveModel(valid, m, Update{Written: 43, Stamps: stamps, Sections: []Section{d}, Changed: []int{0}}); err != nil {
		f.Fatal(err)
	}
	m.Close()
	// check's two sections, saved together, then a delta of both.
	files := []vault.File{{Path: stamps[0].Path}, {Path: stamps[1].Path}}
	states := []lint.NoteState{{Path: "a.md", Read: true, Checked: true, Targets: []string{"ü/b.png"}, Broken: []string{"gone"}}}
	check := func(findings, states []byte) []Section {
		fs, ss := section(FindingsSection, 2, ""), section(StatesSection, 2, "")
		ss.Key = fs.Key
		fs.Entries, ss.Entries = [][]byte{findings}, [][]byte{states}
		return []Section{fs, ss}
	}
	m, err := OpenModel(valid)
	if err != nil {
		f.Fatal(err)
	}
	if err := SaveModel(valid, m, Update{Written: 44, Stamps: stamps, Sections: check(EncodeFindingsPart(nil, sampleFindings, 1), encodeStates(f, files, 3, states))}); err != nil {
		f.Fatal(err)
	}
	m.Close()
	if m, err = OpenModel(valid); err != nil {
		f.Fatal(err)
	}
	if err := SaveModel(valid, m, Update{Written: 45, Stamps: stamps, Changed: []int{0},
		Sections: check(EncodeFindingsPart(sampleFindings, sampleFindings[1:], 1), encodeStates(f, files, 4, []lint.NoteState{{Path: "a.md"}}))}); err != nil {
		f.Fatal(err)
	}
	m.Close()
}

// FuzzOpenModel feeds OpenModel damaged model files: an error or a model
// whose sections save back to the same, never a panic or an allocation
// beyond the file's size.
//
//	go test ./checkcache -run '^$' -fuzz FuzzOpenModel -fuzztime 30s
func FuzzOpenModel(f *testing.F) {
	valid := filepath.Join(f.TempDir(), "valid")
	writeSample(f, valid)
	b, err := os.ReadFile(valid)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:len(b)-3])
	kept := filepath.Join(f.TempDir(), "kept")
	writeKept(f, kept)
	if b, err = os.ReadFile(kept); err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add(b[:modelFixed])
	f.Add([]byte(modelMagic))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "m")
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, open := range []func(string) (*Model, error){OpenModel, MapModel} {
			fuzzModel(t, open, file)
		}
	})
}

func fuzzModel(t *testing.T, open func(string) (*Model, error), file string) {
	m, err := open(file)
	if err != nil {
		return
	}
	defer m.unmap() // after every use of its sections
	defer m.Close()
	for _, name := range []string{"list", "details", FindingsSection, StatesSection, "check"} {
		s, ok, err := m.Section(name)
		if err != nil || !ok {
			continue
		}
		if s.Paths != nil { // kept with its own files: as it is by another reader's save
			again := filepath.Join(t.TempDir(), "again")
			if err := SaveModel(again, m, Update{Written: 1, Stamps: m.Stamps, Sections: []Section{{Name: "other", Hashes: make([][sha256.Size]byte, len(m.Stamps))}}}); err != nil {
				t.Fatal(err)
			}
			if s2, ok, err := openModel(t, again).Section(name); err != nil || !ok || !reflect.DeepEqual(s2, s) {
				t.Errorf("kept with its files, then saved over the same: %v %v\n%+v\nwant\n%+v", ok, err, s2, s)
			}
			continue
		}
		fs := make([]vault.File, len(m.Stamps))
		for i, st := range m.Stamps {
			fs[i] = vault.File{Path: st.Path}
		}
		DecodeFindingsParts(s.Entries)
		DecodeStates(s.Entries, fs)
		all := []byte{}
		for _, e := range s.Entries {
			all = append(all, e...)
		}
		s.Entries = [][]byte{all}
		again := filepath.Join(t.TempDir(), "again")
		if err := SaveModel(again, nil, Update{Written: 1, Stamps: m.Stamps, Sections: []Section{s}}); err != nil {
			t.Fatal(err)
		}
		m2 := openModel(t, again)
		s2, ok, err := m2.Section(name)
		if err != nil || !ok {
			t.Fatalf("a section OpenModel accepted does not read back: %v", err)
		}
		if !reflect.DeepEqual(m2.Stamps, m.Stamps) || !reflect.DeepEqual(s2, s) {
			t.Errorf("SaveModel then OpenModel changed it:\n%+v %+v\n%+v %+v", m.Stamps, s, m2.Stamps, s2)
		}
	}
}

func TestOpenModelForeignFiles(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string][]byte{"empty": nil, "garbage": []byte("not a cache at all, nowhere near it, no"),
		"an earlier check cache": []byte("zk-check-cache\n\x04\x00\x00\x00"), "huge counts": append([]byte(modelMagic+"\x01\x00\x00\x00"), make([]byte, 40)...)} {
		file := filepath.Join(dir, name)
		if name == "huge counts" {
			content[len(modelMagic)+4+8] = 0xff // n
			content[len(modelMagic)+4+8+7] = 0x7f
		}
		if err := os.WriteFile(file, content, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, open := range []func(string) (*Model, error){OpenModel, MapModel} {
			if m, err := open(file); err == nil {
				m.Close()
				t.Errorf("%s model file: opened", name)
			}
		}
		if n, err := ModelFiles(file); err == nil {
			t.Errorf("%s model file: ModelFiles %d, want an error", name, n)
		}
	}
}

// ModelFiles reads the count of stamped files from the header, the same
// after a delta; a missing file is an error.
func TestModelFiles(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.cache")
	if n, err := ModelFiles(file); err == nil {
		t.Errorf("missing model file: ModelFiles %d, want an error", n)
	}
	stamps := []Stamp{{Path: "a.md", Size: 1, ModTime: 2, Hash: Hash([]byte("a"))}, {Path: "b.png", Size: 3, ModTime: 4}, {Path: "c.md", Size: 5, ModTime: 6}}
	save(t, file, Update{Stamps: stamps, Sections: []Section{section("list", 3, "records")}})
	if n, err := ModelFiles(file); err != nil || n != 3 {
		t.Errorf("ModelFiles %d, %v; want 3", n, err)
	}
	stamps[0].Size, stamps[0].Hash = 7, Hash([]byte("a, edited"))
	save(t, file, Update{Stamps: stamps, Sections: []Section{section("list", 3, "records again")}})
	if n, err := ModelFiles(file); err != nil || n != 3 || n != len(openModel(t, file).Stamps) {
		t.Errorf("ModelFiles after an edit %d, %v; want 3", n, err)
	}
}

// A mapped model file reads as one read into memory: its stamps, and
// each section with every delta applied.
func TestMapModelReadsAsOpenModel(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.cache")
	writeSample(t, file)
	read, mapped := openModel(t, file), openMapped(t, file)
	if mapped.data == nil {
		t.Fatal("not mapped")
	}
	if !reflect.DeepEqual(read.Stamps, mapped.Stamps) || read.written != mapped.written || !reflect.DeepEqual(read.rewritten, mapped.rewritten) {
		t.Errorf("stamps read %+v, mapped %+v", read.Stamps, mapped.Stamps)
	}
	for _, name := range []string{"list", "details", FindingsSection, StatesSection, "none"} {
		s1, ok1, err1 := read.Section(name)
		s2, ok2, err2 := mapped.Section(name)
		if err1 != nil || err2 != nil || ok1 != ok2 || !reflect.DeepEqual(s1, s2) {
			t.Errorf("section %q read %v %v %+v, mapped %v %v %+v", name, ok1, err1, s1, ok2, err2, s2)
		}
	}
}

func openMapped(t *testing.T, file string) *Model {
	t.Helper()
	m, err := MapModel(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// A mapped model file cut short under the mapping (by something other
// than zk, which renames a file over it or appends) is a damaged cache:
// its reads and the decoding of entries read before are errors, not a
// crash; the stamps read stay; a save writes the file anew, keeping none
// of its other sections. A panic other than a fault is not taken for one.
func TestMappedModelCutShort(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.cache")
	writeSample(t, file)
	m := openMapped(t, file)
	fs, ok, err := m.Section(FindingsSection)
	if err != nil || !ok {
		t.Fatalf("findings: %v %v", ok, err)
	}
	ss, ok, err := m.Section(StatesSection)
	if err != nil || !ok {
		t.Fatalf("states: %v %v", ok, err)
	}
	files := []vault.File{{Path: m.Stamps[0].Path}, {Path: m.Stamps[1].Path}}
	if _, _, err := DecodeFindingsParts(fs.Entries); err != nil {
		t.Fatalf("findings before: %v", err)
	}
	if err := os.Truncate(file, 0); err != nil {
		t.Fatal(err)
	}
	if _, _, err := DecodeFindingsParts(fs.Entries); err != errFault {
		t.Errorf("findings decoded from a file cut short: %v", err)
	}
	if _, _, err := DecodeStates(ss.Entries, files); err != errFault {
		t.Errorf("states decoded from a file cut short: %v", err)
	}
	if _, ok, err := m.Section("list"); err != errFault || ok {
		t.Errorf("list section read from a file cut short: %v %v", ok, err)
	}
	if m.Stamps[0].Path != "a.md" {
		t.Errorf("stamps lost: %+v", m.Stamps)
	}
	list := section("list", 2, "new records")
	if m.Appendable(m.Stamps, list.Key, "list") {
		t.Error("a file cut short takes a delta")
	}
	if err := SaveModel(file, m, Update{Written: 50, Stamps: m.Stamps, Sections: []Section{list}}); err != nil {
		t.Fatal(err)
	}
	again := openMapped(t, file)
	if s, ok, err := again.Section("list"); err != nil || !ok || string(s.Entries[0]) != "new records" {
		t.Errorf("list after the save: %v %v %q", ok, err, s.Entries)
	}
	if _, ok, _ := again.Section("details"); ok {
		t.Error("a section of the file cut short kept")
	}
	defer func() {
		if r := recover(); r != "not a fault" {
			t.Errorf("Guard turned %v into an error", r)
		}
	}()
	Guard(func() error { panic("not a fault") })
}

// States remapped from a mapped model file (in place, not read into
// memory first) that was cut short under the mapping are an error, not
// a crash; before, they remap as read into memory.
func TestRemapInPlaceCutShort(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.cache")
	stamps := []Stamp{{Path: "a.md"}, {Path: "b.md"}}
	files := []vault.File{{Path: "a.md"}, {Path: "b.md"}}
	ss := section(StatesSection, 2, "")
	ss.Entries = [][]byte{encodeStates(t, files, 3, []lint.NoteState{{Path: "a.md", Read: true, Targets: []string{"b.md"}}, {Path: "b.md"}})}
	save(t, file, Update{Written: 1, Stamps: stamps, Sections: []Section{ss}})
	remap := func(open func(*testing.T, string) *Model) ([][]byte, error) {
		m := open(t, file)
		s, first, ok, err := m.SectionAt(StatesSection)
		if err != nil || !ok {
			t.Fatalf("states: %v %v", ok, err)
		}
		states, err := OpenStatesAt(first, first.Size(), s.Entries[1:], files)
		if err != nil {
			t.Fatal(err)
		}
		return states.Remap(append(files[:2:2], vault.File{Path: "c.md"}), 3, nil) // a file come
	}
	want, err := remap(openModel)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := remap(openMapped); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("remapped in place: %v\n%q\nwant\n%q", err, got, want)
	}
	m := openMapped(t, file)
	s, first, _, _ := m.SectionAt(StatesSection)
	states, err := OpenStatesAt(first, first.Size(), s.Entries[1:], files)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(file, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := states.Remap(files, 3, nil); err != errFault {
		t.Errorf("states remapped from a file cut short: %v", err)
	}
}

// modelV2 is a model file as zk wrote it before stamps held a ctime,
// device and inode (format 2): stamps of path, size and mtime alone, and
// one section.
func modelV2(stamps []Stamp, sec Section) []byte {
	var paths, cols []byte
	for _, st := range stamps {
		paths = cachecodec.AppendStr(paths, st.Path)
	}
	for _, st := range stamps {
		cols = binary.LittleEndian.AppendUint64(cols, uint64(st.Size))
	}
	for _, st := range stamps {
		cols = binary.LittleEndian.AppendUint64(cols, uint64(st.ModTime))
	}
	for _, st := range stamps {
		cols = append(cols, st.Hash[:]...)
	}
	body := hashBytes(sec.Hashes)
	for _, e := range sec.Entries {
		body = append(body, e...)
	}
	dirLen := 1 + len(sec.Name) + sha256.Size + 1 + 16
	off := int64(modelFixed + dirLen + len(paths) + len(cols))
	b := append([]byte(modelMagic), 2, 0, 0, 0)
	b = binary.LittleEndian.AppendUint64(b, 1) // written
	b = binary.LittleEndian.AppendUint64(b, uint64(len(stamps)))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(paths)))
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = binary.LittleEndian.AppendUint64(b, uint64(off+int64(len(body))))
	b = append(b, byte(len(sec.Name)))
	b = append(b, sec.Name...)
	b = append(b, sec.Key[:]...)
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint64(b, uint64(off))
	b = binary.LittleEndian.AppendUint64(b, uint64(len(body)))
	b = append(b, paths...)
	b = append(b, cols...)
	return append(b, body...)
}

// A model file of format 2, whose stamps would settle a same-size edit
// under its old mtime, is never read: OpenModel, MapModel and ModelFiles
// refuse it (an error, no panic), and a save writes the file anew in the
// format of now.
func TestModelOfAnEarlierVersionIsAMiss(t *testing.T) {
	file := filepath.Join(t.TempDir(), "m.cache")
	stamps := []Stamp{{Path: "a.md", Size: 1, ModTime: 2, Hash: Hash([]byte("a"))}, {Path: "b.png", Size: 3, ModTime: 4}}
	list := section("list", 2, "records")
	if err := os.WriteFile(file, modelV2(stamps, list), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, open := range map[string]func(string) (*Model, error){"OpenModel": OpenModel, "MapModel": MapModel} {
		if m, err := open(file); err == nil || !strings.Contains(err.Error(), "model format 2, not 3") {
			t.Errorf("%s of a format 2 file: %v, %v", name, m, err)
		}
	}
	if n, err := ModelFiles(file); err == nil {
		t.Errorf("ModelFiles of a format 2 file: %d", n)
	}
	now := []Stamp{{Path: "a.md", Size: 1, ModTime: 2, ChangeTime: 3, Dev: 4, Ino: 5, Hash: Hash([]byte("a"))}, {Path: "b.png", Size: 3, ModTime: 4, ChangeTime: 5, Dev: 4, Ino: 6}}
	save(t, file, Update{Written: 10, Stamps: now, Sections: []Section{list}})
	if m := openModel(t, file); !reflect.DeepEqual(m.Stamps, now) {
		t.Errorf("saved over a format 2 file: stamps %+v", m.Stamps)
	}
}
