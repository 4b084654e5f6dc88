package vault

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zk-claims/zk/vault/vaulttest"
)

// writeVault makes a vault holding files and returns it with its folder.
// Every file's mtime is an hour old, past any quiet window.
func writeVault(t *testing.T, files map[string]string) (*Vault, string) {
	t.Helper()
	dir := vaulttest.Dir(t, files)
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v, dir
}

func replaceEdit(old, new string) func([]byte) ([]byte, error) {
	return func(src []byte) ([]byte, error) {
		i := bytes.Index(src, []byte(old))
		if i < 0 {
			return nil, ErrSpliceGone
		}
		return SpliceBytes(src, i, i+len(old), new), nil
	}
}

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEditNoteBytes(t *testing.T) {
	tests := []struct {
		name, src, old, new, want string
		inPlace                   bool
	}{
		{"date LF", "# A\n- Last tended: 2026-01-01\n", "2026-01-01", "2026-12-02", "# A\n- Last tended: 2026-12-02\n", true},
		{"date CRLF", "# A\r\n- Last tended: 2026-01-01\r\n", "2026-01-01", "2026-12-02", "# A\r\n- Last tended: 2026-12-02\r\n", true},
		{"date BOM no final newline", "\ufeff# Ä\n- Last tended: 2026-01-01", "2026-01-01", "2026-12-02", "\ufeff# Ä\n- Last tended: 2026-12-02", true},
		{"insertion", "# A\r\n## Evidence\r\nx\r\n", "x\r\n", "x\r\nnew\r\n", "# A\r\n## Evidence\r\nx\r\nnew\r\n", false},
		{"across a page", strings.Repeat("a", 4090) + "2026-01-01\n", "2026-01-01", "2026-12-02", strings.Repeat("a", 4090) + "2026-12-02\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, dir := writeVault(t, map[string]string{"n.md": tt.src})
			res, err := v.EditNote("n.md", replaceEdit(tt.old, tt.new), WriteOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := readString(t, filepath.Join(dir, "n.md")); got != tt.want {
				t.Errorf("note = %q, want %q", got, tt.want)
			}
			if res.InPlace != tt.inPlace {
				t.Errorf("InPlace = %v, want %v", res.InPlace, tt.inPlace)
			}
			if got := readString(t, filepath.Join(dir, filepath.FromSlash(res.Backup))); got != tt.src {
				t.Errorf("backup = %q, want the old note %q", got, tt.src)
			}
			if tmps, _ := filepath.Glob(filepath.Join(dir, tempPrefix+"*")); len(tmps) > 0 {
				t.Errorf("temp files left: %v", tmps)
			}
		})
	}
}

func TestEditNoteKeepsMode(t *testing.T) {
	for _, edit := range []func([]byte) ([]byte, error){replaceEdit("01", "02"), replaceEdit("01", "long")} {
		v, dir := writeVault(t, map[string]string{"n.md": "2026-01-01\n"})
		p := filepath.Join(dir, "n.md")
		if err := os.Chmod(p, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := v.EditNote("n.md", edit, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		info, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o600 {
			t.Errorf("mode = %v, want 0600", info.Mode().Perm())
		}
	}
}

func TestEditNoteSymlink(t *testing.T) {
	v, dir := writeVault(t, map[string]string{"real/n.md": "# N\nbody\n"})
	if err := os.Symlink("real/n.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc/hostname", filepath.Join(dir, "out.md")); err != nil {
		t.Fatal(err)
	}
	res, err := v.EditNote("link.md", replaceEdit("body", "body and more"), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != "real/n.md" {
		t.Errorf("Path = %q, want the link's target", res.Path)
	}
	if got := readString(t, filepath.Join(dir, "real", "n.md")); got != "# N\nbody and more\n" {
		t.Errorf("target = %q", got)
	}
	if info, err := os.Lstat(filepath.Join(dir, "link.md")); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.md is no longer a symlink: %v %v", info, err)
	}
	if _, err := v.EditNote("out.md", replaceEdit("a", "b"), WriteOptions{}); !errors.Is(err, ErrOutsideVault) {
		t.Errorf("a link out of the vault: err = %v, want ErrOutsideVault", err)
	}
}

func TestEditNoteRefuses(t *testing.T) {
	now := time.Now()
	tests := []struct {
		name  string
		src   string
		opts  WriteOptions
		edit  func([]byte) ([]byte, error)
		want  error
		mtime time.Time
	}{
		{"empty", "", WriteOptions{}, replaceEdit("a", "b"), ErrMidWrite, now.Add(-time.Hour)},
		{"shrunk", "# A\n", WriteOptions{Base: []byte("# A\nlonger text\n")}, replaceEdit("A", "B"), ErrMidWrite, now.Add(-time.Hour)},
		{"just modified", "# A\n", WriteOptions{}, replaceEdit("A", "B"), ErrMidWrite, now.Add(-100 * time.Millisecond)},
		{"anchor gone after a change", "# A\nother text\n", WriteOptions{Base: []byte("# A\nanchor\n")}, replaceEdit("anchor", "x"), ErrChanged, now.Add(-time.Hour)},
		{"anchor missing", "# A\n", WriteOptions{}, replaceEdit("anchor", "x"), ErrSpliceGone, now.Add(-time.Hour)},
		{"binary", "# A\x00\x01", WriteOptions{}, replaceEdit("A", "B"), ErrNotText, now.Add(-time.Hour)},
		{"UTF-16", "\xff\xfe#\x00 \x00A\x00", WriteOptions{}, replaceEdit("A", "B"), ErrNotText, now.Add(-time.Hour)},
		// An edit that would leave what zk reads as no note (an agent's
		// append_section of "a\x00b"): every later check skipped it and
		// every later write refused it.
		{"an edit adding a NUL", "# A\n", WriteOptions{}, replaceEdit("A", "A\x00"), ErrNotText, now.Add(-time.Hour)},
		{"an edit making UTF-16", "# A\n", WriteOptions{}, func([]byte) ([]byte, error) { return []byte("\xff\xfe#\x00 \x00A\x00"), nil }, ErrNotText, now.Add(-time.Hour)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, dir := writeVault(t, map[string]string{"n.md": tt.src})
			p := filepath.Join(dir, "n.md")
			if err := os.Chtimes(p, tt.mtime, tt.mtime); err != nil {
				t.Fatal(err)
			}
			tt.opts.Now = func() time.Time { return now }
			_, err := v.EditNote("n.md", tt.edit, tt.opts)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if got := readString(t, p); got != tt.src {
				t.Errorf("note changed to %q", got)
			}
			if _, err := os.Stat(filepath.Join(dir, ".zk", "backups")); err == nil {
				t.Errorf("a refused write made a backup")
			}
		})
	}
}

func TestEditNoteTooLarge(t *testing.T) {
	v, _ := writeVault(t, map[string]string{"n.md": "# A note over the limit\n"})
	v.MaxNoteSize = 10
	var tooLarge *TooLargeError
	if _, err := v.EditNote("n.md", replaceEdit("A", "B"), WriteOptions{}); !errors.As(err, &tooLarge) {
		t.Errorf("err = %v, want a TooLargeError", err)
	}
}

func TestEditNoteRebases(t *testing.T) {
	v, dir := writeVault(t, map[string]string{"n.md": "# A\nnew line\n- Last tended: 2026-01-01\n"})
	res, err := v.EditNote("n.md", replaceEdit("2026-01-01", "2026-12-02"), WriteOptions{Base: []byte("# A\n- Last tended: 2026-01-01\n")})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Rebased {
		t.Error("Rebased = false")
	}
	if got := readString(t, filepath.Join(dir, "n.md")); got != "# A\nnew line\n- Last tended: 2026-12-02\n" {
		t.Errorf("note = %q", got)
	}
}

func TestEditNoteBackupsBounded(t *testing.T) {
	v, dir := writeVault(t, map[string]string{"n.md": "# A\n0\n"})
	for i := range 7 {
		edit := func(src []byte) ([]byte, error) { return append(src, byte('a'+i), '\n'), nil }
		if _, err := v.EditNote("n.md", edit, WriteOptions{Backups: 3, Quiet: -1}); err != nil {
			t.Fatal(err)
		}
	}
	backups, err := os.ReadDir(filepath.Join(dir, ".zk", "backups", "n.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(backups) != 3 {
		t.Fatalf("%d backups, want 3", len(backups))
	}
	newest := readString(t, filepath.Join(dir, ".zk", "backups", "n.md", backups[2].Name()))
	if newest != "# A\n0\na\nb\nc\nd\ne\nf\n" {
		t.Errorf("newest backup = %q, want the version before the last write", newest)
	}
}

func TestEditNoteSweepsDeadTemps(t *testing.T) {
	v, dir := writeVault(t, map[string]string{
		"n.md":                         "# A\n",
		tempPrefix + "999999999-abcd":  "left by a killed writer",
		tempPrefix + "notapid":         "left by a killed writer",
		"keep" + tempPrefix + "1-abcd": "not ours",
	})
	if _, err := v.EditNote("n.md", replaceEdit("A", "B"), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	left, _ := filepath.Glob(filepath.Join(dir, "*"+tempPrefix+"*"))
	if len(left) != 1 || filepath.Base(left[0]) != "keep"+tempPrefix+"1-abcd" {
		t.Errorf("after the sweep: %v", left)
	}
}

func TestSpliceOf(t *testing.T) {
	tests := []struct {
		before, after string
		want          Splice
	}{
		{"abc", "abc", Splice{3, 0, 0}},
		{"abc", "abXc", Splice{2, 0, 1}},
		{"2026-01-01", "2026-12-02", Splice{5, 5, 5}},
		{"aaa", "aaaa", Splice{3, 0, 1}},
		{"", "x", Splice{0, 0, 1}},
		{"xy", "", Splice{0, 2, 0}},
	}
	for _, tt := range tests {
		if got := SpliceOf([]byte(tt.before), []byte(tt.after)); got != tt.want {
			t.Errorf("SpliceOf(%q, %q) = %+v, want %+v", tt.before, tt.after, got, tt.want)
		}
	}
}
