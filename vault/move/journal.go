package move

// The journal of a move: what the move will do, sealed with a key that
// never leaves the user's machine. A vault arrives from others (cloned,
// synced, unzipped) with whatever .zk/journal/ its sender put there, and
// the next zk command acts on a journal without asking: so a journal is
// acted on only when zk can prove it wrote it, for this vault, on this
// machine, and then only for what a move does to notes and attachments.

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/vault"
)

// journalVersion 2 is sealed and holds each file's content before and
// after; version 1 (zk before it) was neither, and is never acted on.
const journalVersion = 2

// journalMax caps a journal: zk refuses to plan a move whose journal
// would be larger (some 50,000 notes of 2 KB), and never reads a larger
// one.
const journalMax = 256 << 20

// KeySize is the size of a journal key.
const KeySize = 32

// The states a journal records. A move under way is rolled forward when
// a crash cuts it short: the user asked for it. A move being undone (one
// of its writes failed) is rolled back: the user was told it failed.
const (
	stateApply = "apply"
	stateUndo  = "undo"
)

// ErrForeign: a journal zk did not write here, or that names what no
// move of zk's does.
var ErrForeign = errors.New("not a journal zk wrote for this vault on this machine; not acted on")

// journal is what a move will do, complete enough for the next zk command
// to finish or undo it: each file's content before and after, and the
// renames. Contents are bytes (base64 in JSON): a note need not be valid
// UTF-8 throughout.
type journal struct {
	Version int           `json:"version"`
	State   string        `json:"state"`
	Files   []journalFile `json:"files"`
	Renames []Rename      `json:"renames"`
	// interrupted: an undo mark beside the journal (markUndo) says the
	// user interrupted the move, which is therefore to be undone. Never
	// written into the journal itself.
	interrupted bool
}

type journalFile struct {
	Path string `json:"path"`
	Old  []byte `json:"old"`
	New  []byte `json:"new"`
}

// sealed is a journal file: the journal's JSON, and its MAC.
type sealed struct {
	MAC     string          `json:"mac"`
	Journal json.RawMessage `json:"journal"`
}

// mac binds body to the key and to the vault's folder: a journal copied
// from another vault, or from another machine, does not verify.
func mac(key []byte, vaultDir string, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "zk move journal v%d\x00%s\x00", journalVersion, vaultID(vaultDir))
	h.Write(body)
	return h.Sum(nil)
}

// vaultID is the vault's folder as the system resolves it.
func vaultID(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	return filepath.ToSlash(dir)
}

// seal renders j as a journal file.
func seal(key []byte, vaultDir string, j journal) ([]byte, error) {
	if len(key) < KeySize {
		return nil, errors.New("no journal key")
	}
	body, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	return json.Marshal(sealed{MAC: hex.EncodeToString(mac(key, vaultDir, body)), Journal: body})
}

// unseal reads a journal file, refusing one whose MAC does not verify
// with key, or that names what a move does not do (checkJournal).
func unseal(key []byte, vaultDir string, data []byte) (journal, error) {
	var s sealed
	if len(key) < KeySize {
		return journal{}, fmt.Errorf("%w (no journal key on this machine)", ErrForeign)
	}
	if err := json.Unmarshal(data, &s); err != nil || len(s.Journal) == 0 {
		return journal{}, fmt.Errorf("%w (not a sealed journal)", ErrForeign)
	}
	got, err := hex.DecodeString(s.MAC)
	if err != nil || !hmac.Equal(got, mac(key, vaultDir, s.Journal)) {
		return journal{}, fmt.Errorf("%w (its seal does not verify)", ErrForeign)
	}
	var j journal
	if err := json.Unmarshal(s.Journal, &j); err != nil {
		return journal{}, fmt.Errorf("%w: %w", ErrForeign, err)
	}
	if err := checkJournal(j); err != nil {
		return journal{}, fmt.Errorf("%w: %w", ErrForeign, err)
	}
	return j, nil
}

// checkJournal holds even a sealed journal to what zk's moves do: edit
// notes, rename notes, attachments and folders of notes; never a dot
// folder or dot file (.git, .obsidian, .zk, .trash), never a path that
// leaves the vault.
func checkJournal(j journal) error {
	if j.Version != journalVersion || (j.State != stateApply && j.State != stateUndo) {
		return fmt.Errorf("version %d, state %q", j.Version, j.State)
	}
	for _, f := range j.Files {
		if err := movablePath(f.Path); err != nil {
			return err
		}
		if !vault.IsNotePath(f.Path) {
			return fmt.Errorf("%s: edits a file that is not a note", f.Path)
		}
	}
	for _, r := range j.Renames {
		for _, p := range []string{r.From, r.To} {
			if err := movablePath(p); err != nil {
				return err
			}
		}
	}
	return nil
}

// movablePath refuses a path no move of zk's touches.
func movablePath(p string) error {
	if p == "" || !fs.ValidPath(p) || p == "." {
		return fmt.Errorf("%q: not a path inside the vault", p)
	}
	for part := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(part, ".") {
			return fmt.Errorf("%q: inside a dot folder or a dot file, which zk never moves", p)
		}
	}
	return nil
}

// DefaultKeyPath is where the journal key lives: the user's config
// folder, beside the approvals of commands (zk trust), never in a vault.
func DefaultKeyPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("journal key: %w", err)
	}
	return filepath.Join(dir, "zk", "journal.key"), nil
}

// LoadKey reads the journal key at file, making it (KeySize random
// bytes, mode 0600, in a folder made 0700) when create is set and it is
// not there. It lives in the user's config folder, never in a vault.
func LoadKey(file string, create bool) ([]byte, error) {
	b, err := os.ReadFile(file)
	if err == nil {
		if len(b) != KeySize {
			return nil, fmt.Errorf("journal key %s: %d bytes, want %d", file, len(b), KeySize)
		}
		return b, nil
	}
	if !errors.Is(err, fs.ErrNotExist) || !create {
		return nil, err
	}
	key := make([]byte, KeySize)
	rand.Read(key)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return nil, fmt.Errorf("journal key: %w", err)
	}
	root, err := os.OpenRoot(filepath.Dir(file))
	if err != nil {
		return nil, fmt.Errorf("journal key: %w", err)
	}
	defer root.Close()
	// Two zk processes making the key at once: the rename of the second
	// replaces the first's, whose journal would then not verify; so the
	// key is created exclusively, and the loser reads the winner's.
	f, err := root.OpenFile(filepath.Base(file), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadKey(file, false)
	}
	if err != nil {
		return nil, fmt.Errorf("journal key: %w", err)
	}
	_, err = f.Write(key)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		root.Remove(filepath.Base(file))
		return nil, fmt.Errorf("journal key: %w", err)
	}
	atomicfile.SyncDir(root, ".")
	return key, nil
}

// writeJournal writes j under name, sealed, replacing what is there. ctx
// ending stops it between megabytes, nothing written: a journal of
// 10,000 notes is a hundred megabytes, seconds of writing on a busy disk.
func writeJournal(ctx context.Context, v *vault.Vault, key []byte, name string, j journal) error {
	data, err := seal(key, v.Dir, j)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(data) > journalMax {
		return fmt.Errorf("the move's journal would be %d MB, over zk's %d MB: move fewer files at once", len(data)>>20, journalMax>>20)
	}
	if err := ownfile.CheckDirs(v.Root(), name); err != nil {
		return err
	}
	return atomicfile.WriteInFrom(v.Root(), filepath.FromSlash(name), func(w io.Writer) error {
		for len(data) > 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
			n := min(len(data), 1<<20)
			if _, err := w.Write(data[:n]); err != nil {
				return err
			}
			data = data[n:]
		}
		return nil
	}, atomicfile.Options{Perm: 0o600})
}

// readJournal reads the journal file name: a regular file, reached
// through no symlink, under journalMax.
func readJournal(v *vault.Vault, key []byte, name string) (journal, error) {
	data, err := ownfile.Read(v.Root(), name, journalMax)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return journal{}, err
		}
		return journal{}, fmt.Errorf("%w: %w", ErrForeign, err)
	}
	j, err := unseal(key, v.Dir, data)
	if err == nil && markedUndo(v, key, name) {
		j.State, j.interrupted = stateUndo, true
	}
	return j, err
}

// journalName is a new journal's vault path.
func journalName(nanos int64) string {
	return path.Join(journalDir, fmt.Sprintf("mv-%d-%d.json", nanos, os.Getpid()))
}

// asideName is where a journal is set aside: .failed.json for one zk
// could not finish, .foreign.json for one it will not act on.
func asideName(name, why string) string {
	return strings.TrimSuffix(name, ".json") + "." + why + ".json"
}

// isSetAside reports whether a journal's name says it was set aside.
func isSetAside(name string) bool {
	return strings.HasSuffix(name, ".failed.json") || strings.HasSuffix(name, ".foreign.json")
}

// SetAside lists the journals set aside as foreign (Recover), for zk
// check to report: a journal zk will not act on is the user's to look at
// and delete.
func SetAside(v *vault.Vault) []vault.Skip {
	if info, err := v.Root().Lstat(filepath.FromSlash(journalDir)); err != nil || !info.IsDir() {
		return nil
	}
	d, err := v.Root().Open(filepath.FromSlash(journalDir))
	if err != nil {
		return nil
	}
	defer d.Close()
	names, _ := d.Readdirnames(4096)
	slices.Sort(names)
	var out []vault.Skip
	for _, n := range names {
		if strings.HasSuffix(n, ".foreign.json") {
			out = append(out, vault.Skip{Path: path.Join(journalDir, n),
				Reason: "a move journal zk did not write for this vault on this machine (or one naming what no move does): set aside, never acted on"})
		}
	}
	return out
}

// undoMax caps an undo mark's read: it holds one MAC.
const undoMax = 1 << 10

// undoName is the mark beside journal name that says its move was
// interrupted and is to be undone (markUndo). It does not end in .json:
// Recover never takes it for a journal.
func undoName(name string) string {
	return strings.TrimSuffix(name, ".json") + ".undo"
}

// undoMAC binds an undo mark to its journal, by name, and to the vault:
// a mark copied beside another journal, or from another vault or
// machine, does not verify.
func undoMAC(key []byte, vaultDir, name string) []byte {
	h := hmac.New(sha256.New, key)
	fmt.Fprintf(h, "zk move undo v%d\x00%s\x00%s", journalVersion, vaultID(vaultDir), path.Base(name))
	return h.Sum(nil)
}

// markUndo says, beside the journal name, that its move is to be undone,
// now and by the next zk command if this one cannot finish undoing it:
// the user interrupted the move. Rewriting the journal in state undo, as
// a failed move does, would write again every file's content before and
// after (a hundred megabytes for 10,000 notes) while the user waits for
// zk to stop; the mark is a few bytes, sealed as the journal is.
func markUndo(v *vault.Vault, key []byte, name string) error {
	if len(key) < KeySize {
		return errors.New("no journal key")
	}
	mark := undoName(name)
	if err := ownfile.CheckDirs(v.Root(), mark); err != nil {
		return err
	}
	data := []byte(hex.EncodeToString(undoMAC(key, v.Dir, name)) + "\n")
	return atomicfile.WriteIn(v.Root(), filepath.FromSlash(mark), data, atomicfile.Options{Perm: 0o600})
}

// markedUndo reports whether the journal name carries an undo mark that
// verifies (markUndo); a mark that does not is no mark.
func markedUndo(v *vault.Vault, key []byte, name string) bool {
	data, err := ownfile.Read(v.Root(), undoName(name), undoMax)
	if err != nil || len(key) < KeySize {
		return false
	}
	got, err := hex.DecodeString(strings.TrimSpace(string(data)))
	return err == nil && hmac.Equal(got, undoMAC(key, v.Dir, name))
}

// removeJournal removes the journal name, then its undo mark: in that
// order, so that a crash between the two leaves a mark without a journal
// (removed by the next Recover) rather than a journal of a move to be
// undone without the mark that says so.
func removeJournal(root *os.Root, name string) error {
	if err := root.Remove(filepath.FromSlash(name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	root.Remove(filepath.FromSlash(undoName(name)))
	atomicfile.SyncDir(root, filepath.FromSlash(journalDir))
	return nil
}
