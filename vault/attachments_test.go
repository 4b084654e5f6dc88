package vault

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAttachmentFolder(t *testing.T) {
	tests := []struct {
		name    string
		appJSON string // "" means no app.json
		note    string
		want    string
		wantErr bool
	}{
		{"no app.json: the vault root", "", "a/b/Note.md", "", false},
		{"no setting", `{"newLinkFormat":"shortest"}`, "a/Note.md", "", false},
		{"slash is the root", `{"attachmentFolderPath":"/"}`, "a/Note.md", "", false},
		{"a vault folder", `{"attachmentFolderPath":"Assets/Images"}`, "a/Note.md", "Assets/Images", false},
		{"trailing slash", `{"attachmentFolderPath":"Assets/"}`, "a/Note.md", "Assets", false},
		{"the note's folder", `{"attachmentFolderPath":"./"}`, "a/b/Note.md", "a/b", false},
		{"the note's folder at the root", `{"attachmentFolderPath":"./"}`, "Note.md", "", false},
		{"under the note's folder", `{"attachmentFolderPath":"./attachments"}`, "a/Note.md", "a/attachments", false},
		{"outside the vault", `{"attachmentFolderPath":"../elsewhere"}`, "Note.md", "", true},
		{"broken JSON", `{"attachmentFolderPath":`, "Note.md", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.appJSON != "" {
				if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, ".obsidian", "app.json"), []byte(tt.appJSON), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			v, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			got, err := v.AttachmentFolder(tt.note)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Errorf("AttachmentFolder(%q) = %q, %v; want %q, error %v", tt.note, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestCreateFile(t *testing.T) {
	dir := t.TempDir()
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	if err := v.CreateFile("Assets/chart.svg", []byte("<svg/>")); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, "Assets", "chart.svg"))
	if err != nil || string(got) != "<svg/>" {
		t.Fatalf("read back %q, %v", got, err)
	}
	// An existing file is never replaced.
	if err := v.CreateFile("Assets/chart.svg", []byte("other")); !errors.Is(err, ErrExists) {
		t.Errorf("second create: %v, want ErrExists", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "Assets", "chart.svg")); string(got) != "<svg/>" {
		t.Errorf("the existing file became %q", got)
	}
	// Nothing outside the vault, and no temporary file left behind.
	if err := v.CreateFile("../escape.svg", nil); err == nil {
		t.Error("created a file outside the vault")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "Assets"))
	if len(entries) != 1 {
		t.Errorf("Assets holds %d entries, want only chart.svg", len(entries))
	}
}

// TestCreateFileFailedLeavesNoFolder: a create that fails (disk full, a
// name too long for the file system) takes back the folders it made for
// the file, and only those: zk new on a full disk used to leave an empty
// "Permanent Notes/" behind.
func TestCreateFileFailedLeavesNoFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "Kept"), 0o755); err != nil {
		t.Fatal(err)
	}
	v, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	long := strings.Repeat("a", 300) + ".md" // over NAME_MAX (255): the rename fails
	if err := v.CreateFile("Kept/New/Deeper/"+long, []byte("x")); err == nil {
		t.Fatal("created a file with a 303-byte name")
	}
	entries, err := os.ReadDir(filepath.Join(dir, "Kept"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Errorf("Kept holds %v after the failed create, want it empty and kept", entries)
	}
}

// TestCreateFileRefusesSymlinkedFolder: a folder on the way that is a
// symlink (a vault shipping "Permanent Notes" -> .git/hooks) would carry
// zk new's note, or a run's chart, into a dot folder zk never writes, at
// a path zk then reports as the note's; zk's scan does not follow such a
// folder either, so the note would be one zk cannot see.
func TestCreateFileRefusesSymlinkedFolder(t *testing.T) {
	for link, to := range map[string]string{"Notes": ".git/hooks", "Deep/Notes": "../.git/hooks"} {
		t.Run(link, func(t *testing.T) {
			dir := t.TempDir()
			hooks := filepath.Join(dir, ".git", "hooks")
			if err := os.MkdirAll(hooks, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755); err != nil {
				t.Fatal(err)
			}
			// Relative, as a vault can ship it: os.Root follows it.
			if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
			v, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			if err := v.CreateFile(link+"/Sub/X.md", []byte("x")); err == nil {
				t.Error("created a file through a symlinked folder")
			}
			if err := v.CreateFile(link+"/X.md", []byte("x")); err == nil {
				t.Error("created a file in a symlinked folder")
			}
			if entries, _ := os.ReadDir(hooks); len(entries) != 0 {
				t.Errorf(".git/hooks holds %v", entries)
			}
		})
	}
}
