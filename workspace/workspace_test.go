package workspace

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/vaulttest"
)

// open opens a vault of files for a test, collecting its notices.
func open(t *testing.T, files map[string]string, how Access) (*Workspace, *[]Notice) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	var notices []Notice
	w, err := Open(context.Background(), Options{Dir: vaulttest.Dir(t, files), Access: how, Version: "test",
		Today: time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC), Pinned: true,
		Notify: func(n Notice) { notices = append(notices, n) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, &notices
}

func TestFindNoteErrorsAreTyped(t *testing.T) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"a/Same.md":          "# Same\n",
		"b/Same.md":          "# Same\n",
		"Only.md":            "# Only\n",
		"c/Only Here.md":     "# Only Here\n",
		"Case.md":            "# Case\n",
	}, Reading)
	ctx := context.Background()
	for _, tc := range []struct {
		arg      string
		want     string
		notFound bool
		usage    bool
	}{
		{arg: "Only", want: "Only.md"},
		{arg: "a/Same.md", want: "a/Same.md"},
		{arg: "Nowhere", notFound: true},
		{arg: "Same", usage: true},
		{arg: "[[Only Here]]", want: "c/Only Here.md"},
		{arg: "c/only here", want: "c/Only Here.md"}, // a name, as a link writes it
		{arg: "case.md", want: "Case.md"},            // not a file exactly: a name
		{arg: "./Same", want: "a/Same.md"},
		{arg: "a\\Same", want: "a/Same.md"},
		{arg: "../x/Same", usage: true},
	} {
		p, _, err := Locate(ctx, w.Vault, tc.arg)
		var nf *NotFoundError
		var ue *UsageError
		if errors.As(err, &nf) != tc.notFound || errors.Is(err, vault.ErrNotFound) != tc.notFound {
			t.Errorf("%s: err %v: not found %v, want %v", tc.arg, err, !tc.notFound, tc.notFound)
		}
		if errors.As(err, &ue) != tc.usage {
			t.Errorf("%s: err %v: usage %v, want %v", tc.arg, err, !tc.usage, tc.usage)
		}
		if p != tc.want {
			t.Errorf("%s: path %q, want %q", tc.arg, p, tc.want)
		}
	}
}

func TestOpenRefusesToWriteOutsideAVault(t *testing.T) {
	t.Chdir(t.TempDir())
	_, err := Open(context.Background(), Options{Access: Writing})
	var re *RefusedError
	if !errors.As(err, &re) || !errors.Is(err, ErrNoVault) {
		t.Fatalf("open an unmarked folder for writing: %v, want a RefusedError of ErrNoVault", err)
	}
	var notices []Notice
	w, err := Open(context.Background(), Options{Access: Reading, Notify: func(n Notice) { notices = append(notices, n) }})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if len(notices) != 1 || notices[0].Warning {
		t.Errorf("notices = %+v, want one saying the working directory is the vault", notices)
	}
}

// TestParseDay: a date the calendar lacks is named as such, with the
// month's length; other text is not a date of the form.
func TestParseDay(t *testing.T) {
	for _, tt := range []struct{ in, err string }{
		{"2026-02-28", ""},
		{"2024-02-29", ""},
		{"2026-02-29", "2026-02-29 is an impossible date (February 2026 has 28 days)"},
		{"2026-04-31", "2026-04-31 is an impossible date (April 2026 has 30 days)"},
		{"2026-13-01", "2026-13-01 is an impossible date (there is no month 13)"},
		{"2026-2-3", `"2026-2-3" is not a date of the form YYYY-MM-DD`},
		{"tomorrow", `"tomorrow" is not a date of the form YYYY-MM-DD`},
	} {
		_, err := ParseDay(tt.in)
		if got := fmt.Sprint(err); (err == nil) != (tt.err == "") || (err != nil && got != tt.err) {
			t.Errorf("ParseDay(%q) = %v, want %q", tt.in, err, tt.err)
		}
	}
}

// TestNewNoteFolder: a new note goes where its type's notes live: the
// config's folder, else the shallowest folder the type's globs find notes
// in (most notes on a tie), else the folder a glob names, else the root.
func TestNewNoteFolder(t *testing.T) {
	for _, tt := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"nested", map[string]string{".obsidian/app.json": "{}", "3. Resources/Permanent Notes/A.md": "# A\n",
			"3. Resources/Permanent Notes/Old/B.md": "# B\n", "Inbox/C.md": "# C\n"}, "3. Resources/Permanent Notes"},
		{"most notes", map[string]string{".obsidian/app.json": "{}", "X/Permanent Notes/A.md": "# A\n",
			"Y/Permanent Notes/B.md": "# B\n", "Y/Permanent Notes/C.md": "# C\n"}, "Y/Permanent Notes"},
		{"case", map[string]string{".obsidian/app.json": "{}", "notes/permanent notes/A.md": "# A\n"}, "notes/permanent notes"},
		{"none yet", map[string]string{".obsidian/app.json": "{}", "Inbox/C.md": "# C\n"}, "Permanent Notes"},
		{"config", map[string]string{".obsidian/app.json": "{}", "3. Resources/Permanent Notes/A.md": "# A\n",
			".zk/config.toml": "[claims.types.permanent]\nfolder = \"Claims\"\n"}, "Claims"},
		{"no literal folder", map[string]string{".obsidian/app.json": "{}", "Inbox/C.md": "# C\n",
			".zk/config.toml": "[claims.types.permanent]\npaths = [\"**/*-claim.md\"]\n"}, ""},
		{"a dot folder is no home", map[string]string{".obsidian/app.json": "{}",
			".zk/config.toml": "[claims.types.permanent]\npaths = [\".obsidian/plugins/**\", \"../out/**\"]\n"}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := open(t, tt.files, Reading)
			got, err := w.NewNoteFolder(context.Background(), "permanent")
			if err != nil || got != tt.want {
				t.Errorf("NewNoteFolder = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

// TestNear: a misspelt note name gets the closest names (a typo, a case,
// a part of a long title), a name far from every note none.
func TestNear(t *testing.T) {
	files := []vault.File{
		{Path: "3. Resources/Permanent Notes/A Rate Needs Its Denominator to Be Compared.md"},
		{Path: "Notes/Percentiles Cannot Be Averaged.md"},
		{Path: "Notes/Rates.md"}, {Path: "Other/Rates.md"},
		{Path: "Notes/Speedups.md"},
		{Path: "Attachments/Rates.png"},
	}
	for _, tt := range []struct {
		arg  string
		want []string
	}{
		{"Speedup", []string{"Speedups"}},
		{"spedups", []string{"Speedups"}},
		{"Percentiles Cannot Be Avraged", []string{"Percentiles Cannot Be Averaged"}},
		{"Rate Needs", []string{"A Rate Needs Its Denominator to Be Compared"}},
		{"Rats", []string{"Notes/Rates.md", "Other/Rates.md"}},
		{"Quantum gravity", nil},
		{"", nil},
	} {
		if got := Near(files, tt.arg, 3); !slices.Equal(got, tt.want) {
			t.Errorf("Near(%q) = %q, want %q", tt.arg, got, tt.want)
		}
	}
	if d, ok := editDistance([]rune("kitten"), []rune("sitting"), 3); !ok || d != 3 {
		t.Errorf("editDistance(kitten, sitting) = %d, %v; want 3", d, ok)
	}
	if _, ok := editDistance([]rune("kitten"), []rune("sitting"), 2); ok {
		t.Error("kitten and sitting are within 2 edits")
	}
}

// zk links resolves a note's links over only the files they can name: as
// an index of every file resolves them, relative, cased, in frontmatter,
// to a heading, to nothing, to one of two notes of a name.
func TestLinksResolveAsOverEveryFile(t *testing.T) {
	w, _ := open(t, map[string]string{
		".obsidian/app.json": "{}",
		"sub/A.md":           "---\nup: \"[[b]]\"\nrel: \"[[../Top]]\"\n---\n# A\n[[B#H|b]] ![[pic.png]] [[Nowhere]] [[./C]] [[../top.md]] [[Same]] [[x/Same]] [[sub/c]]\n",
		"sub/B.md":           "# B\n## H\n",
		"sub/C.md":           "# C\n",
		"Top.md":             "# Top\n",
		"x/Same.md":          "# Same\n",
		"y/Same.md":          "# Same\n",
		"pic.png":            "png",
	}, Reading)
	ctx := context.Background()
	p, got, err := w.Links(ctx, "sub/A.md")
	if err != nil {
		t.Fatal(err)
	}
	files, _, err := w.Vault.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	n, err := w.Vault.ReadNote(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := vault.NoteEdges(n, vault.ResolverOf(files)); !reflect.DeepEqual(got, want) || len(want) < 10 {
		t.Errorf("links\n%+v\nover every file\n%+v", got, want)
	}
}
