package checkcache

import (
	"bytes"
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/zk-claims/zk/bench/vaultgen"
	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// sameStates compares states field by field (a summary compares by its
// encoding: its fields are lint's own).
// encodeStates is EncodeStates of states its columns place.
func encodeStates(t testing.TB, files []vault.File, spent int, states []lint.NoteState) []byte {
	t.Helper()
	parts, err := EncodeStates(files, spent, states)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Join(parts, nil)
}

// States whose first part's columns would pass 4 GiB (a state's offset,
// a file's index, the links, a table's keys) are not encoded, rather
// than encoded with their offsets wrapped; up to it, they are.
func TestStatesTooLarge(t *testing.T) {
	files := []vault.File{{Path: "a.md"}, {Path: "b.md"}}
	states := []lint.NoteState{
		{Path: "a.md", Read: true, Targets: []string{"b.md"}, Broken: []string{"gone"}},
		{Path: "b.md", Read: true},
	}
	at := func(p string) uint64 {
		return uint64(slices.IndexFunc(files, func(f vault.File) bool { return f.Path == p }))
	}
	first := uint64(len(appendState(nil, states[0], at)))
	body := uint64(len(appendState(appendState(nil, states[0], at), states[1], at)))
	whole, err := EncodeStates(files, 0, states)
	if err != nil {
		t.Fatal(err)
	}
	defer func(m uint64) { maxColumn = m }(maxColumn)
	for _, tt := range []struct {
		limit uint64
		fits  bool
	}{{1, false}, {first - 1, false}, {body - 1, false}, {body, true}} {
		maxColumn = tt.limit
		parts, err := EncodeStates(files, 0, states)
		b := bytes.Join(parts, nil)
		if tt.fits && (err != nil || !bytes.Equal(b, bytes.Join(whole, nil))) || !tt.fits && (!errors.Is(err, ErrStatesTooLarge) || parts != nil) {
			t.Errorf("columns up to %d (states of %d bytes): %d bytes, %v", tt.limit, body, len(b), err)
		}
	}
}

func sameStates(t *testing.T, got, want []lint.NoteState) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d states, want %d", len(got), len(want))
	}
	for i, st := range got {
		w := want[i]
		if st.Path != w.Path || st.Read != w.Read || st.Checked != w.Checked ||
			!reflect.DeepEqual(st.Targets, w.Targets) || !reflect.DeepEqual(st.Broken, w.Broken) ||
			!reflect.DeepEqual(lint.AppendSummary(nil, st.Summary), lint.AppendSummary(nil, w.Summary)) {
			t.Errorf("state %d: %+v, want %+v", i, st, w)
		}
	}
}

// A check's states decode to what was encoded, a delta's in place of the
// first part's; every truncation and every byte changed decodes to an
// error or to something, never a panic.
func TestStatesRoundTripAndDamage(t *testing.T) {
	files, rep := checkedStates(t, map[string]string{
		"a.md":    "---\naliases: [Ay]\n---\n# A\n\n## H\n\ntext ^blk\n\n[[b#H]] [[missing]] [[pic.png]]\n\n## Links\n\n- [[b]] — extends: why.\n",
		"b.md":    "# B\n\n[[a]]\n",
		"pic.png": "png",
	})
	sb := encodeStates(t, files, rep.Spent, rep.States)
	spent, states, err := DecodeStates([][]byte{sb}, files)
	if err != nil {
		t.Fatal(err)
	}
	if spent != rep.Spent {
		t.Errorf("spent %d, want %d", spent, rep.Spent)
	}
	sameStates(t, states, rep.States)

	// A delta: b's state in place of the first part's, and its spent.
	b := lint.NoteState{Path: "b.md", Read: true, Checked: true, Targets: []string{"pic.png"}, Broken: []string{"gone"}}
	delta := EncodeStatesDelta(files, 9, []lint.NoteState{b})
	spent, states, err = DecodeStates([][]byte{sb, nil, delta}, files)
	if err != nil {
		t.Fatal(err)
	}
	want := append([]lint.NoteState{rep.States[0]}, b)
	if spent != 9 {
		t.Errorf("spent after a delta %d, want 9", spent)
	}
	sameStates(t, states, want)

	// Read note by note: each lookup gives every note that answers it,
	// a delta's state in place of the first part's.
	sts, err := OpenStates([][]byte{sb, delta}, files)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		got  func() ([]int, bool)
		want []int
	}{
		{"linking to b", func() ([]int, bool) { return sts.Linking("b.md") }, []int{0}},
		{"linking to a (b's delta state no longer does)", func() ([]int, bool) { return sts.Linking("a.md") }, nil},
		{"linking to pic.png (b's delta state does)", func() ([]int, bool) { return sts.Linking("pic.png") }, []int{0, 1}},
		{"linking to a file not walked", func() ([]int, bool) { return sts.Linking("zz.md") }, nil},
		{"owning the alias ay", func() ([]int, bool) { return sts.AliasOwners(vault.FoldName("Ay")) }, []int{0}},
		{"owning no alias", func() ([]int, bool) { return sts.AliasOwners("nobody") }, nil},
		{"naming missing", func() ([]int, bool) { return sts.BrokenNaming("missing") }, []int{0}},
		{"naming gone (b's delta state)", func() ([]int, bool) { return sts.BrokenNaming("gone") }, []int{1}},
	} {
		if got, ok := tt.got(); !ok || !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v %v, want %v", tt.name, got, ok, tt.want)
		}
	}
	// Read from a file: the indexes at once, each state as asked for.
	at, err := OpenStatesAt(bytes.NewReader(sb), int64(len(sb)), [][]byte{delta}, files)
	if err != nil {
		t.Fatal(err)
	}
	for i := range at.Len() {
		got, ok1 := at.State(i)
		want, ok2 := sts.State(i)
		if !ok1 || !ok2 {
			t.Fatalf("state %d: %v %v", i, ok1, ok2)
		}
		sameStates(t, []lint.NoteState{got}, []lint.NoteState{want})
	}
	if all, err := at.All(); err != nil {
		t.Error(err)
	} else {
		sameStates(t, all, want)
	}
	for _, tt := range []struct{ name, want string }{
		{"a.md", "a.md"}, {"pic.png", "pic.png"}, {vault.NameKey("B.MD"), "b.md"}, {"pic", ""}, {"c.md", ""},
	} {
		got, ok := sts.Named(tt.name)
		if want := []string{tt.want}; !ok || tt.want == "" && len(got) > 0 || tt.want != "" && !slices.Equal(got, want) {
			t.Errorf("the files named %q: %v %v, want %v", tt.name, got, ok, tt.want)
		}
	}
	if sts.Refuted() != 0 || sts.Spent() != 9 || sts.Len() != 2 {
		t.Errorf("refuted %d spent %d len %d", sts.Refuted(), sts.Spent(), sts.Len())
	}

	for _, bad := range []struct {
		name  string
		parts [][]byte
	}{
		{"no part", nil},
		{"an empty first part", [][]byte{nil}},
		{"a delta of a file that is no note's state", [][]byte{sb, EncodeStatesDelta(files, 0, []lint.NoteState{{Path: "pic.png"}})}},
		{"a delta's states out of order", [][]byte{sb, EncodeStatesDelta(files, 0, []lint.NoteState{rep.States[1], rep.States[0]})}},
		{"a first part without a note's state", [][]byte{encodeStates(t, files, 0, rep.States[:1])}},
		{"a delta as the first part", [][]byte{delta}},
		{"states out of order", [][]byte{encodeStates(t, files, 0, []lint.NoteState{rep.States[1], rep.States[0]})}},
		{"a state twice", [][]byte{encodeStates(t, files, 0, []lint.NoteState{rep.States[0], rep.States[0]})}},
		{"states of more files", [][]byte{encodeStates(t, append(files, vault.File{Path: "z.md"}), 0, []lint.NoteState{{Path: "z.md"}})}},
	} {
		if _, _, err := DecodeStates(bad.parts, files); err == nil {
			t.Errorf("%s: decoded", bad.name)
		}
	}
	for n := range len(sb) {
		DecodeStates([][]byte{sb[:n]}, files)
		readAll(sb[:n], files)
		DecodeStates([][]byte{sb, delta[:min(n, len(delta))]}, files)
		c := append([]byte(nil), sb...)
		c[n] ^= 0xff
		DecodeStates([][]byte{c}, files)
		readAll(c, files)
		DecodeStates([][]byte{sb}, files[:1])
	}
}

// readAll opens states b as a first part and asks every lookup of it:
// damaged states are an error or answers, never a panic.
func readAll(b []byte, files []vault.File) {
	readStates(OpenStates([][]byte{b}, files))
	readStates(OpenStatesAt(bytes.NewReader(b), int64(len(b)), nil, files))
}

func readStates(s *States, err error) {
	if err != nil {
		return
	}
	files := s.files
	for i := range s.Len() + 1 {
		s.State(i)
	}
	for _, f := range files {
		s.Linking(f.Path)
		s.AliasOwners(f.Path)
		s.BrokenNaming(f.Path)
		s.Named(vault.NameKey(f.Path))
	}
	s.Refuted()
	s.All()
}

// A findings part holds the findings of the paths whose findings
// changed; decoded after the first part, it gives the findings it was
// made from, in order.
func TestFindingsParts(t *testing.T) {
	a1 := lint.Finding{Path: "a.md", Line: 1, Column: 1, Rule: "structure/title", Severity: lint.Error, Message: "no title"}
	a2 := lint.Finding{Path: "a.md", Line: 3, Column: 1, Rule: "links/broken", Severity: lint.Error, Message: "[[x]]"}
	b1 := lint.Finding{Path: "b.md", Line: 2, Column: 1, Rule: "links/broken", Severity: lint.Error, Message: "[[y]]"}
	c1 := lint.Finding{Path: "c.md", Line: 1, Column: 1, Rule: "file/skipped", Severity: lint.Warning, Message: "not checked"}
	first := []lint.Finding{a1, a2, b1}
	for _, tt := range []struct {
		name     string
		now      []lint.Finding
		replaced int
	}{
		{"unchanged", first, 0},
		{"one finding gone", []lint.Finding{a1, b1}, 1},
		{"a path's findings gone", []lint.Finding{a1, a2}, 1},
		{"a path's findings come", []lint.Finding{a1, a2, b1, c1}, 1},
		{"a path's findings before all", []lint.Finding{{Path: "0.md", Line: 1}, a1, a2, b1}, 1},
		{"a message changed", []lint.Finding{a1, a2, {Path: "b.md", Line: 2, Column: 1, Rule: "links/broken", Message: "[[z]]"}}, 1},
		{"every path's", []lint.Finding{c1}, 3},
		{"none left", []lint.Finding{}, 2},
	} {
		part := EncodeFindingsPart(first, tt.now, 7)
		notes, got, err := DecodeFindingsParts([][]byte{EncodeFindingsPart(nil, first, 3), part})
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if notes != 7 || !reflect.DeepEqual(got, tt.now) && len(got)+len(tt.now) > 0 {
			t.Errorf("%s: %d %+v, want 7 %+v", tt.name, notes, got, tt.now)
		}
		d := cachecodec.NewReader(part)
		if n := d.Uvarint(); n != uint64(tt.replaced) {
			t.Errorf("%s: a part replacing %d paths, want %d", tt.name, n, tt.replaced)
		}
	}
	bad := EncodeFindingsPart(nil, first, 3)
	for name, parts := range map[string][][]byte{
		"no part":                    nil,
		"a first part that replaces": {EncodeFindingsPart([]lint.Finding{c1}, first, 3)},
		"a part with findings of a path it does not replace": {bad, append([]byte{0}, EncodeFindings(3, []lint.Finding{c1})...)},
	} {
		if _, _, err := DecodeFindingsParts(parts); err == nil {
			t.Errorf("%s: decoded", name)
		}
	}
}

// FuzzDecodeStates feeds DecodeStates damaged states, and
// DecodeFindingsParts damaged parts: an error or something, never a
// panic or an allocation beyond the input's size.
//
//	go test ./checkcache -run '^$' -fuzz FuzzDecodeStates -fuzztime 30s
func FuzzDecodeStates(f *testing.F) {
	files := []vault.File{{Path: "a.md"}, {Path: "b.md"}, {Path: "pic.png"}}
	sb := encodeStates(f, files, 7, []lint.NoteState{
		{Path: "a.md", Read: true, Checked: true, Targets: []string{"b.md", "pic.png"}, Broken: []string{"missing"}},
		{Path: "b.md"},
	})
	f.Add(sb)
	f.Add(EncodeStatesDelta(files, 7, []lint.NoteState{{Path: "b.md"}}))
	f.Add(EncodeFindingsPart(sampleFindings[:1], sampleFindings, 2))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		DecodeStates([][]byte{b}, files)
		DecodeStates([][]byte{sb, b}, files)
		readAll(b, files)
		DecodeFindingsParts([][]byte{b})
		DecodeFindingsParts([][]byte{EncodeFindingsPart(nil, sampleFindings, 2), b})
	})
}

// States remapped onto another set of files (some came, some went) are
// the bytes EncodeStates makes of the same states: every note's as the
// cache held it (a delta's in place of the first part's), but those
// checked again, and a state not read for a note neither holds. A state
// whose target went is not copied.
func TestStatesRemap(t *testing.T) {
	files, rep := checkedStates(t, map[string]string{
		"a.md":    "---\naliases: [Ay]\n---\n# A\n\n## H\n\ntext ^blk\n\n[[b#H]] [[missing]] [[pic.png]] [[d]]\n\n## Links\n\n- [[b]] — extends: why.\n",
		"b.md":    "# B\n\n[[a]] [[nowhere]]\n",
		"c.md":    "---\naliases: [See]\n---\n# C\n\n[[a]] [[b]]\n",
		"d.md":    "# D\n",
		"e.md":    "# E\n\n[[c]]\n",
		"r.md":    vaulttest.RefutedC, // copied: refuted, as its flags say
		"pic.png": "png",
	})
	sb := encodeStates(t, files, rep.Spent, rep.States)
	// b's state changed by a delta; c gone; "aa.md" and "f.md" came.
	bState := lint.NoteState{Path: "b.md", Read: true, Checked: true, Targets: []string{"pic.png", "e.md"}, Broken: []string{"gone"}}
	delta := EncodeStatesDelta(files, 9, []lint.NoteState{bState})
	var now []vault.File
	for _, f := range files {
		if f.Path != "c.md" {
			now = append(now, f)
		}
	}
	now = append(now, vault.File{Path: "aa.md"}, vault.File{Path: "f.md"})
	slices.SortFunc(now, func(x, y vault.File) int { return strings.Compare(x.Path, y.Path) })
	byPath := map[string]lint.NoteState{}
	for _, st := range rep.States {
		byPath[st.Path] = st
	}
	byPath["b.md"] = bState
	// e linked to c, gone: checked again, as a recheck would.
	again := []lint.NoteState{{Path: "aa.md", Read: true, Checked: true, Targets: []string{"a.md"}, Broken: []string{"c"}},
		{Path: "e.md", Read: true, Checked: true, Broken: []string{"c"}}}
	for _, st := range again {
		byPath[st.Path] = st
	}
	var want []lint.NoteState
	for _, f := range now {
		if f.IsNote() {
			st, ok := byPath[f.Path]
			if !ok {
				st = lint.NoteState{Path: f.Path}
			}
			want = append(want, st)
		}
	}
	s, err := OpenStates([][]byte{sb, delta}, files)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Remap(now, 11, again)
	if err != nil {
		t.Fatal(err)
	}
	if w := encodeStates(t, now, 11, want); !bytes.Equal(bytes.Join(got, nil), w) {
		t.Errorf("remapped states differ from those encoded:\n%q\n%q", got, w)
	}
	if moved, err := OpenStates([][]byte{bytes.Join(got, nil)}, now); err != nil {
		t.Error(err)
	} else if moved.Refuted() != 1 {
		t.Errorf("remapped states hold %d refuted notes, want r's", moved.Refuted())
	}
	// e not checked again: its state names c, gone.
	if _, err := s.Remap(now, 11, again[:1]); err == nil {
		t.Error("a state naming a file gone copied")
	}
}

// checkedStates writes notes to a vault and checks it, keeping the notes'
// states: the files and the report the states tests encode.
func checkedStates(t *testing.T, notes map[string]string) ([]vault.File, *lint.Report) {
	t.Helper()
	return checkedDir(t, vaulttest.Dir(t, notes))
}

// checkedDir checks the vault at dir, keeping the notes' states.
func checkedDir(tb testing.TB, dir string) ([]vault.File, *lint.Report) {
	tb.Helper()
	v, err := vault.Open(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer v.Close()
	ctx := context.Background()
	files, skips, err := v.Files(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	rep, err := lint.Check(ctx, v, files, skips, lint.Options{States: true}, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return files, rep
}

// BenchmarkRemap remaps the states of a check of 10,000 generated notes
// onto their files and one note more, as zk check saves them after its
// own add: every state copied with its places moved, the added note's
// encoded anew.
func BenchmarkRemap(b *testing.B) {
	dir := b.TempDir()
	if err := vaultgen.Generate(dir, 10000, 1); err != nil {
		b.Fatal(err)
	}
	files, rep := checkedDir(b, dir)
	s, err := OpenStates([][]byte{encodeStates(b, files, rep.Spent, rep.States)}, files)
	if err != nil {
		b.Fatal(err)
	}
	added := vault.File{Path: "Permanent Notes/00/Added.md"}
	now := append(slices.Clone(files), added)
	slices.SortFunc(now, func(x, y vault.File) int { return strings.Compare(x.Path, y.Path) })
	again := []lint.NoteState{{Path: added.Path, Read: true, Checked: true, Targets: []string{vaultgen.Path(50)}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Remap(now, rep.Spent, again); err != nil {
			b.Fatal(err)
		}
	}
}
