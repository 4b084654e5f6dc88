// Package trust keeps the user's approvals of commands written in notes.
// A note can carry a falsifier's command; zk runs it only if the user
// approved that exact text for that note of that vault. Approvals live in
// the user's config folder, never in the vault, so a shared or synced
// vault cannot approve its own commands (git's safe.directory lesson), and
// an edited command needs a new approval (direnv's lesson). An approval
// also holds the content hash of every file the command names, wherever
// it leads (sh run.sh: run.sh; sh -c 'sh r""un.sh': run.sh, as the shell
// reads it), or that it reads on its own (make test: the Makefile), and
// of the tree of code a build or test tool runs (go test ./...: the
// module's packages), so an edited script or test needs a new approval
// too; a command whose
// files zk cannot tell (Inspect) is approved only on the user's explicit
// word, and says so (Approval.Opaque).
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/atomicfile"
)

// ErrUnsafe is returned for an approvals file others could write to.
var ErrUnsafe = errors.New("approvals file is writable by other users")

// maxFile bounds the approvals file read into memory.
const maxFile = 16 << 20

// DefaultPath is where approvals are kept: zk/trust.json in the user's
// config folder ($XDG_CONFIG_HOME, ~/.config, ~/Library/Application
// Support, %AppData%).
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("trust: %w", err)
	}
	return filepath.Join(dir, "zk", "trust.json"), nil
}

// Approval is one approved command.
type Approval struct {
	Vault   string `json:"vault"`
	Note    string `json:"note"`
	Command string `json:"command"`
	// Files maps each file the command names or its programs read on
	// their own (its vault path, or its absolute path outside the vault)
	// to "sha256:" and the hex hash of its content (see Inspect).
	Files map[string]string `json:"files,omitempty"`
	// Trees maps each tree of code the command runs (Scope.Trees, by its
	// name) to "sha256:" and the hex hash of its manifest.
	Trees map[string]string `json:"trees,omitempty"`
	// Opaque: zk could not tell every file the command runs (Scope.Opaque),
	// and the user approved it so.
	Opaque   bool      `json:"opaque,omitempty"`
	Approved time.Time `json:"approved"`
	// manifests are the trees' manifests by their sums (Scope.Bind): the
	// store keeps them beside the approvals, so that a check can name the
	// file of a tree that changed.
	manifests map[string][]byte
}

// Verdict is what the store says of an approval.
type Verdict struct {
	// Approved: the command text is approved for the note, and every file
	// it names holds what it held then.
	Approved bool
	// Changed lists, sorted, the files named by an approved command text
	// that changed, appeared or went since it was approved: of a tree it
	// runs, the files of it that did, or the tree's name when the store
	// no longer has its manifest as approved (or it was approved before zk
	// bound trees).
	Changed []string
	// Opaque: the command text was approved before zk told the user it
	// cannot tell which files it runs; it needs approving as such.
	Opaque bool
}

// Key is what an approval is found by: a sha256 over the vault's real
// path, the note's vault path and a sha256 of the command text, so that
// the same command in another note or another vault is not approved by
// this one.
func (a Approval) Key() string {
	cmd := sha256.Sum256([]byte(a.Command))
	h := sha256.New()
	for _, part := range []string{a.Vault, a.Note, hex.EncodeToString(cmd[:])} {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// file is the JSON the approvals are kept in.
type file struct {
	Version  int                 `json:"version"`
	Approved map[string]Approval `json:"approved"`
}

// Store is the approvals file at a path.
type Store struct {
	path string
}

// Open returns the store at path; the file is created by the first Approve.
func Open(path string) *Store { return &Store{path: path} }

// Path is the file the store reads and writes.
func (s *Store) Path() string { return s.path }

// Trusted reports whether a's command is approved for a's vault and note,
// with the files it names as they are now (a.Files) and, if it is opaque
// (a.Opaque), approved as such. Approved is ignored.
func (s *Store) Trusted(a Approval) (bool, error) {
	v, err := s.Check(a)
	return v.Approved, err
}

// Check says whether a is approved, and if its command text is but a file
// it names changed since, which; or that it is opaque and was not approved
// as such (an approval made before zk could tell).
func (s *Store) Check(a Approval) (Verdict, error) {
	f, err := s.load()
	if err != nil {
		return Verdict{}, err
	}
	prev, ok := f.Approved[a.Key()]
	if !ok {
		return Verdict{}, nil
	}
	var changed []string
	for p, sum := range a.Files {
		if prev.Files[p] != sum {
			changed = append(changed, p)
		}
	}
	for p := range prev.Files {
		if _, ok := a.Files[p]; !ok {
			changed = append(changed, p)
		}
	}
	for name, sum := range a.Trees {
		old, ok := prev.Trees[name]
		if old == sum {
			continue
		}
		var files []string
		if ok {
			files = s.treeChanges(old, a.manifests[sum])
		}
		if len(files) == 0 {
			files = []string{name}
		}
		for _, f := range files {
			if !slices.Contains(changed, f) {
				changed = append(changed, f)
			}
		}
	}
	for name := range prev.Trees {
		if _, ok := a.Trees[name]; !ok {
			changed = append(changed, name)
		}
	}
	slices.Sort(changed)
	opaque := a.Opaque && !prev.Opaque
	return Verdict{Approved: len(changed) == 0 && !opaque, Changed: changed, Opaque: opaque}, nil
}

// maxHashed bounds the files Inspect reads: a command does not name a
// script of gigabytes, and a hash must not take minutes.
const maxHashed = 64 << 20

// Approve records approvals. The file is replaced atomically and is
// readable by its owner only.
func (s *Store) Approve(as ...Approval) error {
	f, err := s.load()
	if err != nil {
		return err
	}
	for _, a := range as {
		f.Approved[a.Key()] = a
		for _, sum := range a.Trees {
			if err := s.keepManifest(sum, a.manifests[sum]); err != nil {
				return err
			}
		}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if err := atomicfile.Write(s.path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	s.pruneManifests(f)
	return nil
}

// manifests is the folder the trees' manifests are kept in, beside the
// approvals file, each named by the hex of its sum.
func (s *Store) manifests() string { return filepath.Join(filepath.Dir(s.path), "trust-trees") }

// maxManifest bounds a manifest read back: a line a file of a tree within
// maxTreeFiles.
const maxManifest = 32 << 20

// keepManifest writes the manifest m of sum, unless it is kept already.
// A manifest only names what changed: the approval's sum decides.
func (s *Store) keepManifest(sum string, m []byte) error {
	hexSum, ok := strings.CutPrefix(sum, "sha256:")
	if !ok || m == nil {
		return nil
	}
	p := filepath.Join(s.manifests(), hexSum)
	if _, err := os.Lstat(p); err == nil {
		return nil
	}
	if err := os.MkdirAll(s.manifests(), 0o700); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if err := atomicfile.Write(p, m, 0o600); err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	return nil
}

// treeChanges is the files that differ between the manifest kept for the
// sum old and cur; nil when it is not kept, or not what old says it was.
func (s *Store) treeChanges(old string, cur []byte) []string {
	hexSum, ok := strings.CutPrefix(old, "sha256:")
	if !ok || cur == nil || strings.ContainsAny(hexSum, `/\.`) {
		return nil
	}
	f, err := os.Open(filepath.Join(s.manifests(), hexSum))
	if err != nil {
		return nil
	}
	defer f.Close()
	m, err := io.ReadAll(io.LimitReader(f, maxManifest+1))
	if err != nil || len(m) > maxManifest {
		return nil
	}
	if h := sha256.Sum256(m); hex.EncodeToString(h[:]) != hexSum {
		return nil
	}
	return diffManifests(m, cur)
}

// pruneManifests removes the manifests no approval in f holds: each
// approval of a changed tree leaves its old one behind. Best effort: one
// left is only disk.
func (s *Store) pruneManifests(f *file) {
	keep := map[string]bool{}
	for _, a := range f.Approved {
		for _, sum := range a.Trees {
			keep[strings.TrimPrefix(sum, "sha256:")] = true
		}
	}
	es, err := os.ReadDir(s.manifests())
	if err != nil {
		return
	}
	for _, e := range es {
		if n := e.Name(); len(n) == 64 && !keep[n] && e.Type().IsRegular() {
			os.Remove(filepath.Join(s.manifests(), n))
		}
	}
}

func (s *Store) load() (*file, error) {
	f := &file{Version: 1, Approved: map[string]Approval{}}
	fh, err := os.Open(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, fmt.Errorf("trust: %w", err)
	}
	// As ssh does with its keys: a file others can write could approve
	// anything.
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("trust: %s: %w (chmod go-w it)", s.path, ErrUnsafe)
	}
	if st.Size() > maxFile {
		return nil, fmt.Errorf("trust: %s is over %d bytes", s.path, maxFile)
	}
	dec := json.NewDecoder(fh)
	if err := dec.Decode(f); err != nil {
		return nil, fmt.Errorf("trust: %s: %w", s.path, err)
	}
	if f.Approved == nil {
		f.Approved = map[string]Approval{}
	}
	return f, nil
}
