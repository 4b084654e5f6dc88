package vault

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/internal/ownfile"
)

// appConfig is the part of .obsidian/app.json that says where attachments go.
type appConfig struct {
	AttachmentFolderPath string `json:"attachmentFolderPath"`
}

// maxAppConfig bounds .obsidian/app.json; Obsidian's own is a few hundred bytes.
const maxAppConfig = 1 << 20

// AttachmentFolder returns the vault-relative folder where Obsidian puts a
// new attachment of the note at notePath, from attachmentFolderPath in
// .obsidian/app.json:
//
//	absent, "" or "/"  the vault root ("")
//	"./"               the note's own folder
//	"./sub"            sub, inside the note's folder
//	"Assets/img"       that folder, from the vault root
//
// A vault without .obsidian/app.json uses the root, as Obsidian does. A
// setting that leaves the vault ("../x") is an error.
func (v *Vault) AttachmentFolder(notePath string) (string, error) {
	data, err := v.ReadFile(".obsidian/app.json", maxAppConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("attachment folder: %w", err)
	}
	var cfg appConfig
	if err := json.Unmarshal(data, &cfg); err != nil {
		return "", fmt.Errorf("attachment folder: .obsidian/app.json: %w", err)
	}
	setting := strings.TrimSpace(cfg.AttachmentFolderPath)
	var dir string
	switch {
	case setting == "" || setting == "/":
		return "", nil
	case setting == "." || strings.HasPrefix(setting, "./"):
		dir = path.Join(path.Dir(notePath), strings.TrimPrefix(setting, "."))
	default:
		dir = path.Clean(strings.TrimPrefix(setting, "/"))
	}
	if dir == "." {
		return "", nil
	}
	if !fs.ValidPath(dir) {
		return "", fmt.Errorf("attachment folder %q is outside the vault", setting)
	}
	return dir, nil
}

// ErrExists is returned when a file to be created is already there.
var ErrExists = errors.New("file already exists")

// CreateFile writes a new file at the vault-relative path rel, creating its
// folder: the data goes to a temporary file in that folder, is synced, and
// is renamed into place, so a crash leaves no half-written file under the
// final name. It never replaces a file (ErrExists). Every access goes
// through the vault's os.Root, so nothing outside the vault is written.
func (v *Vault) CreateFile(rel string, data []byte) error {
	root := v.Root()
	name := filepath.FromSlash(rel)
	if _, err := root.Lstat(name); err == nil {
		return fmt.Errorf("%s: %w", rel, ErrExists)
	}
	dir := filepath.Dir(name)
	// No folder on the way may be a symlink: under .zk/ one would redirect
	// zk's own file into the notes, and among the notes one (a vault's
	// "Permanent Notes" -> .git/hooks) would carry a new note into a dot
	// folder, where zk's scan, which follows no symlinked folder, would
	// not see it.
	mkdir := func(dir string, perm fs.FileMode) error { return ownfile.MkdirAll(root, filepath.ToSlash(dir), perm) }
	// The folders this create makes, deepest first: a failed create takes
	// them back, so that zk new on a full disk leaves no empty folder.
	var made []string
	for d := dir; d != "." && d != string(filepath.Separator); d = filepath.Dir(d) {
		if _, err := root.Lstat(d); err == nil {
			break
		}
		made = append(made, d)
	}
	unmake := func() {
		for _, d := range made {
			root.Remove(d) // only while empty: never what another program put there meanwhile
		}
	}
	if err := mkdir(dir, 0o755); err != nil {
		unmake()
		return fmt.Errorf("create %s: %w", rel, FolderLink(err))
	}
	// The check before the rename narrows the window in which a file
	// created meanwhile would be replaced.
	err := atomicfile.WriteIn(root, name, data, atomicfile.Options{Check: func() error {
		if _, err := root.Lstat(name); err == nil {
			return ErrExists
		}
		return nil
	}})
	if err != nil {
		unmake()
		return fmt.Errorf("create %s: %w", rel, err)
	}
	return nil
}

// FolderLink words ownfile's refusal of a symlinked folder for a note's
// path, where "zk's own files" would mislead; other errors pass as they are.
func FolderLink(err error) error {
	var pe *ownfile.PathError
	if errors.As(err, &pe) && errors.Is(err, ownfile.ErrSymlink) {
		return fmt.Errorf("%s is a symbolic link, which zk follows neither to read notes nor to write them", pe.At)
	}
	return err
}

// InDotFolder reports whether the vault path p is, or is under, a dot
// folder (.zk, .obsidian, .git, .trash): not a note's, never reached
// through a symlink by zk, and never a place a vault's config may direct
// zk's writes (git runs what .git/hooks holds; Obsidian loads what
// .obsidian/plugins holds).
func InDotFolder(p string) bool {
	for part := range strings.SplitSeq(path.Clean(filepath.ToSlash(p)), "/") {
		if strings.HasPrefix(part, ".") && part != "." && part != ".." {
			return true
		}
	}
	return false
}
