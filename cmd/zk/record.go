package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/vault"
)

// runsDir is the vault folder holding full logs, attached copies and
// results that could not be written into their note.
const runsDir = ".zk/runs"

// newRun starts the record of a run or attachment: a fresh id, the
// environment line of DESIGN.md §5, and its log, created as
// .zk/runs/ID.log. Two runs started in the same second get different ids
// from their random digits; a clash is retried.
func newRun(v *vault.Vault) (vault.Run, *os.File, error) {
	for attempt := 0; ; attempt++ {
		started := time.Now()
		var random [2]byte
		rand.Read(random[:])
		r := vault.Run{
			ID:          vault.NewRunID(started, random),
			Started:     started.UTC(),
			Exit:        -1,
			Environment: environment(),
		}
		f, rel, err := createRunFile(v, r.ID+".log")
		if errors.Is(err, fs.ErrExist) && attempt < 3 {
			continue
		}
		if err != nil {
			return vault.Run{}, nil, err
		}
		r.Log = rel
		return r, f, nil
	}
}

// environment is the record's environment line: OS/arch · CPUs · zk version.
func environment() string {
	return fmt.Sprintf("%s/%s · %s CPU · zk %s", runtime.GOOS, runtime.GOARCH, strconv.Itoa(runtime.NumCPU()), buildVersion())
}

// createRunFile creates .zk/runs/NAME in the vault for writing, refusing
// to replace a file that is there.
func createRunFile(v *vault.Vault, name string) (*os.File, string, error) {
	rel := path.Join(runsDir, name)
	if err := v.Root().MkdirAll(filepath.FromSlash(runsDir), 0o755); err != nil {
		return nil, "", fmt.Errorf("create %s: %w", rel, err)
	}
	f, err := v.Root().OpenFile(filepath.FromSlash(rel), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, "", fmt.Errorf("create %s: %w", rel, err)
	}
	return f, rel, nil
}

// recordOptions say how a record goes into its note.
type recordOptions struct {
	// tend also sets the note's Last tended date to today, in section
	// with keys, as zk tend would (see withTending).
	tend    bool
	today   time.Time
	section string
	keys    []string
}

// withTending returns opts with the section and date keys zk tend would use
// for n, read from the vault's config, when opts.tend asks for them.
func (opts recordOptions) withTending(v *vault.Vault, n *vault.Note) (recordOptions, error) {
	opts.section = vault.DefaultTendedSection
	if !opts.tend {
		return opts, nil
	}
	cfg, _, err := config.Load(v.Dir)
	if err != nil {
		return opts, err
	}
	types, err := noteTypes(v, cfg)
	if err != nil {
		return opts, err
	}
	opts.section, opts.keys = vault.TendedSection(types, n), cfg.TendedKeys
	return opts, nil
}

// record writes r into the note at notePath, whose bytes were base when
// the run started. If the note cannot take it safely (it is mid-write, or
// changed so that the Evidence section is gone), the block is saved as
// .zk/runs/ID.block.md instead, the note is left alone, and the error says
// where the result is.
func record(v *vault.Vault, notePath string, base []byte, r vault.Run, opts recordOptions) error {
	edit := func(src []byte) ([]byte, error) {
		out, err := vault.InsertRun(src, r)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", vault.ErrSpliceGone, err)
		}
		if opts.tend {
			out, err = vault.SetLastTendedIn(notePath, out, opts.today.Format(time.DateOnly), opts.section, opts.keys)
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	// Whatever kept the note from taking the block (vault.ErrMidWrite,
	// vault.ErrChanged, vault.ErrSpliceGone, a read-only file), the
	// result is not lost.
	if _, err := v.EditNote(notePath, edit, vault.WriteOptions{Base: base}); err != nil {
		return saveBlock(v, notePath, r, err)
	}
	return nil
}

// saveBlock keeps a result the note could not take, and says where it is.
func saveBlock(v *vault.Vault, notePath string, r vault.Run, why error) error {
	rel := path.Join(runsDir, r.ID+".block.md")
	if err := v.CreateFile(rel, append(vault.RenderRun(r, "\n"), '\n')); err != nil {
		return fmt.Errorf("%s not written (%w), and the result could not be saved either: %w", notePath, why, err)
	}
	return fmt.Errorf("%s left untouched (%w); the result is in %s", notePath, why, rel)
}

// evidenceNote is the note run or attach records into, opened: the vault
// (the caller closes it), the note's path, its bytes as read (the base of
// the later edit) and its parse, the falsifier tested, and how to record.
type evidenceNote struct {
	v         *vault.Vault
	path      string
	base      []byte
	note      *vault.Note
	falsifier vault.Falsifier
	record    recordOptions
}

// openEvidenceNote opens the vault and the note arg names. A note without
// an Evidence section is refused before anything runs; what names what
// would go under it. falsifier picks the falsifier tested (pickFalsifier);
// tend asks record to set the Last tended date, today, as zk tend would.
func openEvidenceNote(ctx context.Context, root *rootOptions, arg, what, falsifier string, tend bool, today time.Time) (*evidenceNote, error) {
	v, err := root.openVault()
	if err != nil {
		return nil, err
	}
	e, err := readEvidenceNote(ctx, v, arg, what, falsifier, recordOptions{tend: tend, today: today})
	if err != nil {
		v.Close()
		return nil, err
	}
	return e, nil
}

func readEvidenceNote(ctx context.Context, v *vault.Vault, arg, what, falsifier string, ro recordOptions) (*evidenceNote, error) {
	p, _, err := locateNote(ctx, v, arg)
	if err != nil {
		return nil, err
	}
	base, err := v.ReadFile(p, v.MaxNoteSize)
	if err != nil {
		return nil, err
	}
	if _, ok := vault.EvidenceEnd(base); !ok {
		return nil, fmt.Errorf("%s: %w: add a \"## Evidence\" heading for %s to go under", p, vault.ErrNoEvidence, what)
	}
	e := &evidenceNote{v: v, path: p, base: base, note: vault.NewParser().Parse(p, base)}
	if e.record, err = ro.withTending(v, e.note); err != nil {
		return nil, err
	}
	if e.falsifier, err = pickFalsifier(e.note, falsifier); err != nil {
		return nil, err
	}
	return e, nil
}
