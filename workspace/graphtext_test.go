package workspace

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
)

// TestPrintedAsIs holds the eight-bytes-at-a-time test to the byte by
// byte one: every byte value at every place, beside line feeds and
// other bytes, and the separators JSON escapes.
func TestPrintedAsIs(t *testing.T) {
	want := func(s string) bool {
		for i := range len(s) {
			if s[i] < 0x20 && s[i] != '\n' {
				return false
			}
		}
		for _, r := range s {
			if r >= 0x80 && r != 0xfffd && (r == 0x2028 || r == 0x2029 || printable.Unsafe(r)) {
				return false
			}
		}
		return strings.ToValidUTF8(s, "\x00") == s
	}
	for _, fill := range []byte{'a', '\n', ' ', 0x1f, 0x7f} {
		for n := range 18 {
			for at := range n {
				for c := range 256 {
					b := []byte(strings.Repeat(string(fill), n))
					b[at] = byte(c)
					if got, w := printedAsIs(string(b)), want(string(b)); got != w {
						t.Fatalf("printedAsIs(%q) = %v, want %v", b, got, w)
					}
				}
			}
		}
	}
	for _, s := range []string{"日本\n", "a\u2028b", "abcdefgh\u2029", "\xe2\x82", "ok \"quoted\" \\u0001", "a\u009bb", "\u202eevil", "x\u2066", "\ufffd"} {
		if got, w := printedAsIs(s), want(s); got != w {
			t.Errorf("printedAsIs(%q) = %v, want %v", s, got, w)
		}
	}
}

// A graph section's entries decode as encoded; damaged ones, or a text
// that would print a control byte, are refused whole.
func TestGraphEntriesCodec(t *testing.T) {
	in := []graphEntry{
		{path: "a.md", text: "\n    {\n      \"from\": \"a.md\"\n    }", others: []GraphTarget{{ID: "gone", Resolved: false}, {ID: "pic.png", Resolved: true}}},
		{path: "b.md"},
	}
	b := encodeGraphEntries(in)
	out, err := decodeGraphEntries(string(b))
	if err != nil || len(out) != 2 || out[0].text != in[0].text || len(out[0].others) != 2 || out[0].others[1] != in[0].others[1] || out[1].path != "b.md" {
		t.Fatalf("decoded %+v (%v), want %+v", out, err, in)
	}
	for cut := range len(b) {
		if _, err := decodeGraphEntries(string(b[:cut])); err == nil {
			t.Fatalf("entries torn at %d of %d bytes decoded", cut, len(b))
		}
	}
	bad := encodeGraphEntries([]graphEntry{{path: "a.md", text: "\x1b[31m"}})
	if _, err := decodeGraphEntries(string(bad)); err == nil {
		t.Error("a text with an escape byte decoded")
	}
}

func FuzzDecodeGraphEntries(f *testing.F) {
	f.Add(string(encodeGraphEntries([]graphEntry{{path: "a.md", text: "\n    {}", others: []GraphTarget{{ID: "x"}}}})))
	f.Add(graphMagic + "\xff\xff\xff\xff\x0f")
	f.Fuzz(func(t *testing.T, b string) {
		out, err := decodeGraphEntries(b)
		if err != nil {
			return
		}
		for _, e := range out {
			if !printedAsIs(e.text) {
				t.Fatalf("a text decoded that is not printed as it is: %q", e.text)
			}
		}
		if _, err := decodeGraphEntries(string(encodeGraphEntries(out))); err != nil {
			t.Fatalf("entries decoded do not decode again: %v", err)
		}
	})
}

// damageSection overwrites the bytes of the model file's section name
// (after its hashes) with text, in place: a section damaged where no
// checksum covers it.
func damageSection(t *testing.T, w *Workspace, name string, text string) {
	t.Helper()
	file, err := checkcache.ModelFile(w.Vault.Dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := checkcache.OpenModel(file)
	if err != nil {
		t.Fatal(err)
	}
	sec, ok, err := m.Section(name)
	m.Close()
	if err != nil || !ok {
		t.Fatalf("no %s section (%v)", name, err)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(raw), string(sec.Entries[0]))
	if at < 0 {
		t.Fatal("section's entries not found in the file")
	}
	copy(raw[at+len(sec.Entries[0])-len(text):], text)
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
}

// zk graph's section gives, note by note, what the details give, printed
// by the format: cold, cached, after an edit, after a file is added, and
// after its section is damaged (a control byte where a text was), which
// is read again rather than printed.
// testGraphFormat prints each edge with its path and line, a line an
// edge, so that the graph tests see every field the section keeps.
var testGraphFormat = GraphFormat{Name: "test", Lead: 1, AppendEdges: func(b []byte, edges []vault.Edge) []byte {
	for _, e := range edges {
		b = fmt.Appendf(b, ";%s->%s(%s,%d)\n", e.From, e.To, e.Path, e.Line)
	}
	return b
}}

func TestGraphTextAgreesWithDetails(t *testing.T) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"A.md":               "# A\n[[B]] ![[pic.png]] [[Nowhere]]\n",
		"B.md":               "---\nup: \"[[A]]\"\n---\n# B\n[[A#H]] [[pic.png]]\n",
		"C.md":               "[[Gone]] [[A]]\n",
		"pic.png":            "png",
	}, Reading)
	ctx := context.Background()
	format := testGraphFormat
	check := func(when string) {
		t.Helper()
		for _, again := range []string{"", " (again)"} { // the second from the file as it was left
			g, ok, err := w.GraphText(ctx, format)
			if err != nil || !ok {
				t.Fatalf("%s%s: %v, every note read %v", when, again, err, ok)
			}
			var got strings.Builder
			wrote, err := g.WriteEdges(&got)
			g.Close()
			if err != nil {
				t.Fatal(err)
			}
			want, err := w.GraphEdges(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var wantText string
			var wantOthers []GraphTarget
			for _, d := range want.details {
				e := newGraphEntry(d.Path, d.Edges(), format)
				wantText += e.text
				wantOthers = append(wantOthers, e.others...)
			}
			if wantText = wantText[min(format.Lead, len(wantText)):]; got.String() != wantText || wrote != (wantText != "") {
				t.Errorf("%s%s: text %q (wrote %v), want %q", when, again, got.String(), wrote, wantText)
			}
			if !reflect.DeepEqual(g.Notes, want.Notes) || !reflect.DeepEqual(g.Others, wantOthers) {
				t.Errorf("%s%s: notes %v others %v, want %v %v", when, again, g.Notes, g.Others, want.Notes, wantOthers)
			}
		}
	}
	write := func(name, text string) {
		p := filepath.Join(w.Vault.Dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		old := time.Now().Add(-time.Hour)
		os.Chtimes(p, old, old)
	}
	check("cold")
	check("cached")
	write("C.md", "[[Gone]] [[B]] [[Later]]\n")
	check("after an edit")
	write("Later.md", "# Later\n[[C]]\n")
	check("after a file is added")
	damageSection(t, w, "graph", "\x1b")
	check("after the section is damaged")
}

// A graph's texts copied from the file are checked a buffer at a time,
// each cut so as not to split a character: what they check, and what
// they write, is what the texts would be whole, wherever a character of
// several bytes, a separator or a control byte falls.
func TestGraphSourceChecksAcrossBuffers(t *testing.T) {
	for _, insert := range []string{"日", "\U0001F600", "\u2028", "\xe6\x97", "\x1b", "\xff"} {
		for at := graphCopyBuf - 5; at <= graphCopyBuf+2; at++ {
			b := []byte(strings.Repeat("a", 2*graphCopyBuf))
			copy(b[at:], insert)
			want := printedAsIs(string(b))
			src := &graphSource{first: io.NewSectionReader(strings.NewReader("xx"+string(b)), 0, int64(2+len(b)))}
			src.add(graphSeg{off: 2, n: int64(len(b)) / 2})
			src.add(graphSeg{off: 2 + int64(len(b))/2, n: int64(len(b)) - int64(len(b))/2}) // joined to the first
			src.add(graphSeg{text: "-tail"})
			if len(src.segs) != 2 {
				t.Fatalf("%d segments, want the two ranges joined and a text", len(src.segs))
			}
			if got := src.printable(); got != want {
				t.Fatalf("%q at %d: printable %v, want %v", insert, at, got, want)
			}
			var out strings.Builder
			if wrote, err := src.write(&out, 1); err != nil || !wrote || out.String() != string(b[1:])+"-tail" {
				t.Fatalf("%q at %d: wrote %d bytes (%v), want %d", insert, at, out.Len(), err, len(b)-1+5)
			}
		}
	}
}
