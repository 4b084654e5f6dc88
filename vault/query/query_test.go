package query

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

func TestParseCond(t *testing.T) {
	tests := []struct {
		in   string
		want Cond
		bad  bool
	}{
		{in: "status=draft", want: Cond{Key: "status", Op: OpEq, Value: "draft"}},
		{in: "status == \"draft\"", want: Cond{Key: "status", Op: OpEq, Value: "draft"}},
		{in: "rating > 3", want: Cond{Key: "rating", Op: OpGt, Value: "3"}},
		{in: "rating>=3", want: Cond{Key: "rating", Op: OpGe, Value: "3"}},
		{in: "rating<=3", want: Cond{Key: "rating", Op: OpLe, Value: "3"}},
		{in: "status != done", want: Cond{Key: "status", Op: OpNe, Value: "done"}},
		{in: "due date < 2024-01-01", want: Cond{Key: "due date", Op: OpLt, Value: "2024-01-01"}},
		{in: "last-tended", want: Cond{Key: "last-tended", Op: OpExists}},
		{in: "!status", want: Cond{Key: "status", Op: OpAbsent}},
		{in: "title='a = b'", want: Cond{Key: "title", Op: OpEq, Value: "a = b"}},
		{in: "", bad: true},
		{in: "=x", bad: true},
		{in: "!", bad: true},
		// A mistyped operator, and a file.* attribute zk does not know,
		// are refused rather than matching nothing.
		{in: "author => x", bad: true},
		{in: "rating =< 3", bad: true},
		{in: "a <> b", bad: true},
		{in: "a >== b", bad: true},
		{in: "author = '=> x'", want: Cond{Key: "author", Op: OpEq, Value: "=> x"}},
		{in: "file.size > 50", bad: true},
		{in: "file.size", bad: true},
		{in: "!file.ctime", bad: true},
		{in: "file.due < 2027-01-01", want: Cond{Key: "file.due", Op: OpLt, Value: "2027-01-01"}},
	}
	for _, tt := range tests {
		got, err := ParseCond(tt.in)
		if (err != nil) != tt.bad {
			t.Errorf("ParseCond(%q) error = %v, want error %v", tt.in, err, tt.bad)
			continue
		}
		if !tt.bad && got != tt.want {
			t.Errorf("ParseCond(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestCondHolds(t *testing.T) {
	props := map[string]any{
		"status":  "Draft",
		"rating":  int64(4),
		"score":   2.5,
		"text4":   "4",
		"created": "2024-03-01",
		"stamp":   "2024-03-01T10:30:00",
		"done":    false,
		"tags":    []any{"idea", "go"},
		"empty":   nil,
		"none":    []any{},
		"parent":  "[[Big Idea|the idea]]",
		"nested":  map[string]any{"a": int64(1)},
	}
	tests := []struct {
		cond string
		want bool
	}{
		{"status = draft", true}, // text ignores case
		{"status = done", false},
		{"status != done", true},
		{"missing != done", true}, // a missing property satisfies only !=
		{"missing = done", false},
		{"missing < 3", false},
		{"rating > 3", true},
		{"rating > 4", false},
		{"rating >= 4", true},
		{"rating = 4.0", true}, // numbers as numbers
		{"rating < 10", true},  // not as text ("4" > "10")
		{"score < 3", true},
		{"text4 > 3", true}, // a number written as text
		{"rating = four", false},
		{"status > 3", false},          // text is no number: not ordered by one ("draft" > "3" as text)
		{"status > 2024-01-01", false}, // nor by a date
		{"tags > 3", false},            // nor are a list's items
		{"status > c", true},           // text by text
		{"parent > 2024-01-01", false}, // a link is no date
		{"text4 != 3", true},           // != still holds for what is not the value
		{"created > 2024-02-28", true},
		{"created < 2024-12-01", true},
		{"created = 2024-03-01", true},
		{"stamp = 2024-03-01", true},       // a date & time on that date
		{"stamp > 2024-03-01T09:00", true}, // dates as dates
		{"stamp > 2024-03-01T11:00", false},
		{"created < 2024-3-1", true}, // not a date: compared as text
		{"done = false", true},
		{"done != true", true},
		{"tags = go", true}, // a list contains
		{"tags = rust", false},
		{"tags != go", false},
		{"tags != rust", true},
		{"empty", false}, // empty is absent
		{"!empty", true},
		{"none", false},
		{"status", true},
		{"!status", false},
		{"parent = big idea", true}, // a link compares as its target
		{"parent = [[Big Idea]]", true},
		{"nested = 1", false},
		{"nested != 1", true},
	}
	for _, tt := range tests {
		c, err := ParseCond(tt.cond)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Holds(props); got != tt.want {
			t.Errorf("%q holds = %v, want %v", tt.cond, got, tt.want)
		}
	}
}

func TestHasTag(t *testing.T) {
	tags := []string{"project/zk", "idea"}
	for tag, want := range map[string]bool{"project": true, "#project": true, "Project/ZK": true, "proj": false,
		"project/zk/x": false, "idea": true, "ide": false, "zk": false} {
		if got := HasTag(tags, tag); got != want {
			t.Errorf("HasTag(%q) = %v, want %v", tag, got, want)
		}
	}
}

func day(s string) time.Time {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}

// vaultNotes is a small graph: a → b → c, d → a, e alone, f → f.
func vaultNotes() []Note {
	return []Note{
		{Path: "Perm/a.md", Name: "a", Type: "permanent", Tags: []string{"project/zk"}, Links: []string{"Perm/b.md"},
			Properties: map[string]any{"status": "draft", "rating": int64(5)}, Due: day("2026-01-01"), Verdicts: []string{"refutes"},
			ModTime: day("2026-01-03")},
		{Path: "Perm/b.md", Name: "b", Type: "permanent", Links: []string{"c.md"},
			Properties: map[string]any{"status": "done", "rating": int64(2)}, Due: day("2026-06-01"), Verdicts: []string{NeverRun, "supports"},
			ModTime: day("2026-01-01")},
		{Path: "c.md", Name: "c", Properties: map[string]any{"rating": "10"}, ModTime: day("2026-01-02")},
		{Path: "d.md", Name: "d", Tags: []string{"project"}, Links: []string{"Perm/a.md"}, ModTime: day("2026-01-05")},
		{Path: "e.md", Name: "e", ModTime: day("2026-01-04")},
		{Path: "Sub/Perm/f.md", Name: "f", ModTime: day("2026-01-06")},
	}
}

func TestFilter(t *testing.T) {
	today := day("2026-03-01")
	tests := []struct {
		name string
		q    Query
		want []string
	}{
		{"all", Query{}, []string{"Perm/a.md", "Perm/b.md", "Sub/Perm/f.md", "c.md", "d.md", "e.md"}},
		{"type", Query{Types: []string{"Permanent"}}, []string{"Perm/a.md", "Perm/b.md"}},
		{"type none", Query{Types: []string{"none"}}, []string{"Sub/Perm/f.md", "c.md", "d.md", "e.md"}},
		{"folder", Query{Folders: []string{"perm/"}}, []string{"Perm/a.md", "Perm/b.md"}},
		{"folder is no prefix of a name", Query{Folders: []string{"Per"}}, nil},
		{"folder nested", Query{Folders: []string{"Sub"}}, []string{"Sub/Perm/f.md"}},
		{"tag nested", Query{Tags: []string{"#project"}}, []string{"Perm/a.md", "d.md"}},
		{"tag child", Query{Tags: []string{"project/zk"}}, []string{"Perm/a.md"}},
		{"where", Query{Where: []Cond{{Key: "rating", Op: OpGt, Value: "3"}}}, []string{"Perm/a.md", "c.md"}},
		{"where and", Query{Where: []Cond{{Key: "rating", Op: OpGt, Value: "3"}, {Key: "status", Op: OpEq, Value: "draft"}}}, []string{"Perm/a.md"}},
		{"links to", Query{LinksTo: "c.md"}, []string{"Perm/b.md"}},
		{"links to transitive", Query{LinksTo: "c.md", Transitive: true}, []string{"Perm/a.md", "Perm/b.md", "d.md"}},
		{"linked from", Query{LinkedFrom: "d.md"}, []string{"Perm/a.md"}},
		{"linked from transitive", Query{LinkedFrom: "d.md", Transitive: true}, []string{"Perm/a.md", "Perm/b.md", "c.md"}},
		{"both", Query{LinkedFrom: "d.md", LinksTo: "c.md", Transitive: true}, []string{"Perm/a.md", "Perm/b.md"}},
		{"orphans", Query{Orphans: true}, []string{"Sub/Perm/f.md", "d.md", "e.md"}},
		{"dead ends", Query{DeadEnds: true}, []string{"Sub/Perm/f.md", "c.md", "e.md"}},
		{"stale", Query{Stale: true}, []string{"Perm/a.md"}},
		{"due within", Query{DueWithin: vault.Interval{N: 3, Unit: 'm'}}, []string{"Perm/a.md", "Perm/b.md"}},
		{"due within too short", Query{DueWithin: vault.Interval{N: 1, Unit: 'w'}}, []string{"Perm/a.md"}},
		{"verdict", Query{Verdicts: []string{"refutes"}}, []string{"Perm/a.md"}},
		{"never run", Query{Verdicts: []string{NeverRun}}, []string{"Perm/b.md"}},
		{"sort name", Query{Sort: "name"}, []string{"Perm/a.md", "Perm/b.md", "c.md", "d.md", "e.md", "Sub/Perm/f.md"}},
		{"sort mtime reverse limit", Query{Sort: "mtime", Reverse: true, Limit: 2}, []string{"Sub/Perm/f.md", "d.md"}},
		{"sort property, missing last", Query{Sort: "rating"}, []string{"Perm/b.md", "Perm/a.md", "c.md", "Sub/Perm/f.md", "d.md", "e.md"}},
		{"sort property reversed, missing still last", Query{Sort: "rating", Reverse: true}, []string{"c.md", "Perm/a.md", "Perm/b.md", "Sub/Perm/f.md", "d.md", "e.md"}},
		{"sort due", Query{Sort: "due", Limit: 1}, []string{"Perm/a.md"}},
		{"sort path reversed", Query{Sort: "path", Reverse: true}, []string{"e.md", "d.md", "c.md", "Sub/Perm/f.md", "Perm/b.md", "Perm/a.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Today = today
			res, err := tt.q.Filter(vaultNotes())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range res.Notes {
				got = append(got, n.Path)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			// In the notes' own room, the same notes.
			owned, err := tt.q.FilterOwned(vaultNotes())
			if err != nil {
				t.Fatal(err)
			}
			got = got[:0]
			for _, n := range owned.Notes {
				got = append(got, n.Path)
			}
			if !slices.Equal(got, tt.want) || owned.Matched != res.Matched || owned.Read != res.Read {
				t.Errorf("in place: got %q (%d of %d), want %q (%d of %d)", got, owned.Matched, owned.Read, tt.want, res.Matched, res.Read)
			}
		})
	}
}

func TestField(t *testing.T) {
	n := vaultNotes()[0]
	n.Tended = day("2025-10-03")
	for name, want := range map[string]any{"file.name": "a", "file.folder": "Perm", "file.tended": "2025-10-03",
		"file.due": "2026-01-01", "file.mtime": "2026-01-03T00:00:00Z", "status": "draft"} {
		got, ok := n.Field(name)
		if !ok || got != want {
			t.Errorf("Field(%q) = %v, %v; want %v", name, got, ok, want)
		}
	}
	if _, ok := n.Field("nope"); ok {
		t.Error("Field(nope) found")
	}
}

func FuzzParseCond(f *testing.F) {
	for _, s := range []string{"status=draft", "rating > 3", "!x", "a == 'b'", "k<=2024-01-01", "=", "!=!=", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCond(s)
		if err != nil {
			return
		}
		if c.Key == "" {
			t.Fatalf("ParseCond(%q) = %+v: empty key", s, c)
		}
		c.Holds(map[string]any{c.Key: c.Value, "x": []any{int64(1), "2024-01-01"}})
	})
}

func TestEncodeDecode(t *testing.T) {
	in := vaultNotes()
	in[0].Properties["big"] = int64(1) << 60
	in[0].Properties["list"] = []any{int64(1), 2.5, "x", map[string]any{"n": int64(3)}}
	b, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	// The encoding is deterministic: the records decoded encode to the
	// same bytes.
	again, err := Encode(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, b) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", out, in)
	}
	if len(out) != len(in) || !out[0].ModTime.Equal(in[0].ModTime) || !out[0].Due.Equal(in[0].Due) ||
		out[0].Properties["big"] != int64(1)<<60 || !reflect.DeepEqual(out[0].Properties["list"], in[0].Properties["list"]) ||
		!slices.Equal(out[1].Verdicts, in[1].Verdicts) || out[3].Links[0] != "Perm/a.md" {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}
	for cut := range len(b) { // every torn file is refused, none panics
		if _, err := Decode(b[:cut]); err == nil {
			t.Fatalf("a file torn at %d of %d bytes decoded", cut, len(b))
		}
	}
}

// TestDecodeBrief: records read in place are their paths and types as
// decoded whole, nothing else, and encode to the bytes they were read
// from, whole or beside records read whole; a torn file is refused.
func TestDecodeBrief(t *testing.T) {
	in := vaultNotes()
	in[0].Properties["list"] = []any{int64(1), 2.5, "x", map[string]any{"n": int64(3)}, true, nil}
	b, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	brief, err := DecodeBrief(b)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range brief {
		if want := (Note{Path: whole[i].Path, Type: whole[i].Type}); n.Path != want.Path || n.Type != want.Type ||
			n.Name != "" || n.Properties != nil || n.Tags != nil || n.Links != nil || !n.ModTime.IsZero() || n.Verdicts != nil {
			t.Errorf("record %d read in place: %+v, want %+v alone", i, n, want)
		}
	}
	mixed := append(slices.Clone(brief[:2]), whole[2:]...)
	for name, notes := range map[string][]Note{"in place": brief, "mixed": mixed} {
		if again, err := Encode(notes); err != nil || !bytes.Equal(again, b) {
			t.Errorf("%s: encoded again to other bytes (%v)", name, err)
		}
	}
	for cut := range len(b) {
		if _, err := DecodeBrief(b[:cut]); err == nil {
			t.Fatalf("a file torn at %d of %d bytes decoded in place", cut, len(b))
		}
	}
}

func FuzzDecode(f *testing.F) {
	good, err := Encode(vaultNotes())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(good)
	f.Add([]byte(codecMagic + "\xff\xff\xff\xff\x0f"))
	f.Add([]byte(codecMagic + "\x01\x00\x00\x00\x00\x00\x01\x01x\x06\xff\xff\xff\xff\x0f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		// Read in place, a record is refused as it is read whole, and
		// written back as it was.
		brief, berr := DecodeBrief(b)
		notes, err := Decode(b)
		if (berr == nil) != (err == nil) {
			t.Fatalf("decoded whole: %v; in place: %v", err, berr)
		}
		if err != nil {
			return
		}
		raw, err := Encode(brief)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Decode(raw)
		if err != nil {
			t.Fatalf("records read in place do not decode when encoded: %v", err)
		}
		want, err1 := Encode(notes)
		got, err2 := Encode(back)
		if err1 != nil || err2 != nil || !bytes.Equal(got, want) {
			t.Fatalf("records read in place encode to other records (%v, %v)", err1, err2)
		}
		again, err := Encode(notes)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(again); err != nil {
			t.Fatalf("re-encoded records do not decode: %v", err)
		}
	})
}

// TestCondHoldsForFileAttributes: --where names a note's file.* attributes
// as --fields and --sort do, dates compared as dates and lists by item; a
// file.* name zk does not know is refused by ParseCond (TestParseCond).
func TestCondHoldsForFileAttributes(t *testing.T) {
	n := Note{Path: "Claims/Rate.md", Name: "Rate", ModTime: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		Properties: map[string]any{"status": "draft"}, Tags: []string{"perf", "perf/llm"},
		Links: []string{"Claims/Denominator.md"}, Tended: time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		Due: time.Date(2026, 5, 30, 0, 0, 0, 0, time.UTC), Verdicts: []string{"supports", NeverRun}}
	for _, tt := range []struct {
		cond string
		want bool
	}{
		{"file.name = rate", true},
		{"file.folder = Claims", true},
		{"file.mtime >= 2026-11-30", true},
		{"file.mtime > 2026-12-01", false},
		{"file.tended < 2026-06-01", true},
		{"file.due <= 2026-05-30", true},
		{"file.due > 2026-05-30", false},
		{"file.tags = perf/llm", true},
		{"file.verdicts = never-run", true},
		{"file.verdicts = refutes", false},
		{"file.links = Claims/Denominator.md", true},
		{"status = draft", true},
	} {
		c, err := ParseCond(tt.cond)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.HoldsFor(n); got != tt.want {
			t.Errorf("%q holds = %v, want %v", tt.cond, got, tt.want)
		}
	}
	if c, _ := ParseCond("file.due"); c.HoldsFor(Note{}) {
		t.Error("file.due holds for a note without a date")
	}
}

// TestFilterKindError: an order condition whose literal is not of the
// kind its key holds (a date, a number) is an error, not an empty answer;
// one of the same kind, or a key that holds text, is not.
func TestFilterKindError(t *testing.T) {
	notes := []Note{
		{Path: "a.md", Properties: map[string]any{"published": "2026-01-02", "rating": int64(3), "name": "x"}, Due: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)},
		{Path: "b.md", Properties: map[string]any{"published": "2026-03-04", "rating": 2.5, "name": "y"}},
		{Path: "c.md", Properties: map[string]any{"published": "soon", "rating": "high"}},
	}
	tests := []struct {
		cond string
		kind string // "" for no error
	}{
		{"published > yesterday", "date"},
		{"published >= 2026", "date"},
		{"published < 2026-02-30", "date"}, // an impossible date is not a date
		{"published > 2026-02-01", ""},
		{"published = yesterday", ""}, // = and != compare as text: a note may say "soon"
		{"rating > high", "number"},
		{"rating > 2026-01-01", "number"},
		{"rating > 2", ""},
		{"name > m", ""},
		{"file.due < tomorrow", "date"},
		{"absent > yesterday", ""},
	}
	for _, tt := range tests {
		c, err := ParseCond(tt.cond)
		if err != nil {
			t.Fatal(err)
		}
		q := Query{Where: []Cond{c}}
		_, err = q.Filter(notes)
		var ke *KindError
		if got := errors.As(err, &ke); got != (tt.kind != "") || (got && ke.Kind != tt.kind) {
			t.Errorf("%s: error %v, want kind %q", tt.cond, err, tt.kind)
		}
	}
}

// A record keeps the note's cadence, so that zk stale answers from the
// cache: a real date with its interval and a tend-every it could not
// read, a date that is not real, a typed note with none but a key
// tended-keys does not name.
func TestEncodeDecodeCadence(t *testing.T) {
	in := vaultNotes()[:3]
	day := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	cads := make([]tending.Cadence, 3)
	cads[0] = tending.Cadence{Path: in[0].Path, Typed: true, Dated: true,
		Tended:   tending.Tended{Source: tending.TendedFrontmatter, Key: "last-tended", Raw: "2026-01-02", Date: day, Start: 20, End: 30, Line: 2},
		Interval: vault.Interval{N: 6, Unit: 'w'}, Source: tending.IntervalType,
		Problem: &tending.StaleProblem{Path: in[0].Path, Line: -1, Message: "tend-every: bad"}}
	cads[1] = tending.Cadence{Path: in[1].Path, Dated: true,
		Tended: tending.Tended{Source: tending.TendedLine, Raw: "2026-02-30", Line: 7, Err: errors.New("not a real date")}}
	cads[2] = tending.Cadence{Path: in[2].Path, Typed: true, UnreadKey: "reviewed_on"}
	for i := range in {
		in[i].cadence = encodeCadence(cads[i])
	}
	b, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		got, want := out[i].Cadence(), cads[i]
		if (got.Tended.Err == nil) != (want.Tended.Err == nil) || got.Tended.Err != nil && got.Tended.Err.Error() != want.Tended.Err.Error() {
			t.Errorf("%d: date error %v, want %v", i, got.Tended.Err, want.Tended.Err)
		}
		got.Tended.Err, want.Tended.Err = nil, nil
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%d: cadence\n got %+v\nwant %+v", i, got, want)
		}
	}
}
