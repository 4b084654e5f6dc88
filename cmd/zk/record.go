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
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/tending"
)

// runsDir is the vault folder holding full logs, attached copies and
// results that could not be written into their note.
const runsDir = ".zk/runs"

// newRun starts the record of a run or attachment: a fresh id, the
// environment line of DESIGN.md §5, and its log, created as
// .zk/runs/ID.log.PID.partial and named .zk/runs/ID.log by finish. Two
// runs started in the same second get different ids from their random
// digits; a clash is retried. The partial logs of zk processes killed
// before they finished (SIGKILL, a power cut) are swept first: nothing
// records them.
func newRun(v *vault.Vault) (evidence.Run, *runLog, error) {
	sweepRunLogs(v, time.Now())
	for attempt := 0; ; attempt++ {
		started := time.Now()
		var random [2]byte
		rand.Read(random[:])
		r := evidence.Run{
			ID:          evidence.NewRunID(started, random),
			Started:     started.UTC(),
			Exit:        -1,
			Environment: environment(),
		}
		final := path.Join(runsDir, r.ID+".log")
		_, err := v.Root().Lstat(filepath.FromSlash(final))
		if err == nil {
			err = fs.ErrExist
		} else if errors.Is(err, fs.ErrNotExist) {
			var (
				f   *os.File
				rel string
			)
			f, rel, err = createRunFile(v, r.ID+".log."+strconv.Itoa(os.Getpid())+partialSuffix)
			if err == nil {
				r.Log = final
				return r, &runLog{File: f, v: v, partial: filepath.FromSlash(rel), final: final}, nil
			}
		}
		if errors.Is(err, fs.ErrExist) && attempt < 3 {
			continue
		}
		return evidence.Run{}, nil, err
	}
}

// partialSuffix marks a run's log while the run is under way.
const partialSuffix = ".partial"

// partialMaxAge is the age past which a partial log is swept even when
// its pid is alive (a reused pid): no run takes that long.
const partialMaxAge = 7 * 24 * time.Hour

// runLog is a run's log being written.
type runLog struct {
	*os.File
	v       *vault.Vault
	partial string // OS path relative to the vault root, as created
	final   string // vault path
}

// finish closes the log and gives it its final name; the close's error
// (the end of the log may be lost) is returned after the rename.
func (l *runLog) finish() error {
	err := l.Close()
	if rerr := l.v.Root().Rename(l.partial, filepath.FromSlash(l.final)); rerr != nil {
		return fmt.Errorf("name %s: %w", l.final, rerr)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", l.final, err)
	}
	return nil
}

// sweepRunLogs removes the partial logs of runs whose zk is gone, or that
// are older than partialMaxAge.
func sweepRunLogs(v *vault.Vault, now time.Time) {
	atomicfile.SweepOrphans(v.Root(), filepath.FromSlash(runsDir), now, partialMaxAge, func(name string) (int, bool) {
		rest, ok := strings.CutSuffix(name, partialSuffix)
		if !ok {
			return 0, false
		}
		pid, err := strconv.Atoi(rest[strings.LastIndexByte(rest, '.')+1:])
		if err != nil || pid == os.Getpid() {
			return -1, true
		}
		return pid, true
	})
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
func (opts recordOptions) withTending(w *workspace, n *vault.Note) recordOptions {
	opts.section = vault.DefaultTendedSection
	if opts.tend {
		opts.section, opts.keys = vault.TendedSection(w.types, n), w.cfg.TendedKeys
	}
	return opts
}

// record writes r into the note at notePath, whose bytes were base when
// the run started. If the note cannot take it safely (it is mid-write, or
// changed so that the Evidence section is gone), the block is saved as
// .zk/runs/ID.block.md instead, the note is left alone, and the error says
// where the result is.
func record(v *vault.Vault, notePath string, base []byte, r evidence.Run, opts recordOptions) error {
	edit := func(src []byte) ([]byte, error) {
		out, err := evidence.InsertRun(src, r)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", vault.ErrSpliceGone, err)
		}
		if opts.tend {
			out, err = tending.SetLastTended(notePath, out, opts.today.Format(time.DateOnly), opts.section, opts.keys)
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
func saveBlock(v *vault.Vault, notePath string, r evidence.Run, why error) error {
	rel := path.Join(runsDir, r.ID+".block.md")
	block := append(evidence.RenderRun(r, "\n"), '\n')
	if err := v.CreateFile(rel, block); err != nil {
		// The last place left is the terminal: the block goes with the
		// error, so that a full disk does not cost the result.
		return fmt.Errorf("%s not written (%w), and the result could not be saved either (%w); here it is, to paste under ## Evidence:\n\n%s", notePath, why, err, block)
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
	falsifier evidence.Falsifier
	record    recordOptions
}

// openEvidenceNote opens the vault and the note arg names. A note without
// an Evidence section is refused before anything runs; what names what
// would go under it. falsifier picks the falsifier tested (pickFalsifier);
// tend asks record to set the Last tended date, today, as zk tend would.
func openEvidenceNote(ctx context.Context, root *rootOptions, s *streams, arg, what, falsifier string, tend bool) (*evidenceNote, error) {
	w, err := root.open(s, writing, arg)
	if err != nil {
		return nil, err
	}
	e, err := readEvidenceNote(ctx, w, arg, what, falsifier, recordOptions{tend: tend, today: w.today})
	if err != nil {
		w.Close()
		return nil, err
	}
	return e, nil
}

func readEvidenceNote(ctx context.Context, w *workspace, arg, what, falsifier string, ro recordOptions) (*evidenceNote, error) {
	v := w.vault
	p, _, err := locateNote(ctx, v, arg)
	if err != nil {
		return nil, err
	}
	base, err := v.ReadFile(p, v.MaxNoteSize)
	if err != nil {
		return nil, err
	}
	if _, ok := evidence.EvidenceEnd(base); !ok {
		return nil, fmt.Errorf("%s: %w: add a \"## Evidence\" heading for %s to go under", p, evidence.ErrNoEvidence, what)
	}
	e := &evidenceNote{v: v, path: p, base: base, note: vault.NewParser().Parse(p, base)}
	e.record = ro.withTending(w, e.note)
	if e.falsifier, err = pickFalsifier(e.note, falsifier); err != nil {
		return nil, err
	}
	return e, nil
}
