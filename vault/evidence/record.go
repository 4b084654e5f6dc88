package evidence

// Recording a run: its id and log under .zk/runs/, the block written into
// the note through the vault's safe write path, or kept beside it when the
// note cannot take it. What ran, and how it is judged, is the caller's.

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/vault"
)

// RunsDir is the vault folder holding full logs, attached copies and
// results that could not be written into their note.
const RunsDir = ".zk/runs"

// NewRun starts the record of a run or attachment: a fresh id, the
// environment line (OS/arch · CPUs · zk version: the caller's), and its log, created as
// .zk/runs/ID.log.PID.partial and named .zk/runs/ID.log by Finish. Two
// runs started in the same second get different ids from their random
// digits; a clash is retried. The partial logs of zk processes killed
// before they finished (SIGKILL, a power cut) are swept first: nothing
// records them.
func NewRun(v *vault.Vault, environment string) (Run, *Log, error) {
	SweepLogs(v, time.Now())
	for attempt := 0; ; attempt++ {
		started := time.Now()
		var random [2]byte
		rand.Read(random[:])
		r := Run{
			ID:          NewRunID(started, random),
			Started:     started.UTC(),
			Exit:        -1,
			Environment: environment,
		}
		final := path.Join(RunsDir, r.ID+".log")
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
				return r, &Log{File: f, v: v, partial: filepath.FromSlash(rel), final: final}, nil
			}
		}
		if errors.Is(err, fs.ErrExist) && attempt < 3 {
			continue
		}
		return Run{}, nil, err
	}
}

// NewID is a fresh run id for a record that has no log of its own (a
// judgement again): the time and four random hex digits.
func NewID(now time.Time) string {
	var random [2]byte
	rand.Read(random[:])
	return NewRunID(now, random)
}

// ErrLogName is the name, under RunsDir, of the stderr log of run id: the
// stdout log (ID.log) is the measurement a criterion reads, this one what
// the command said about itself.
func ErrLogName(id string) string { return id + ".stderr.log" }

// RepeatLogName is the name, under RunsDir, of the stdout log of the
// k-th run (from 2) of run id's command, for a falsifier that repeats
// it (repeat: N); the first run's is ID.log.
func RepeatLogName(id string, k int) string { return fmt.Sprintf("%s.%d.log", id, k) }

// NewLog creates .zk/runs/NAME as NewRun creates a run's log (partial
// until Finish), and returns it with its vault path.
func NewLog(v *vault.Vault, name string) (*Log, string, error) {
	final := path.Join(RunsDir, name)
	f, rel, err := createRunFile(v, name+"."+strconv.Itoa(os.Getpid())+partialSuffix)
	if err != nil {
		return nil, "", err
	}
	return &Log{File: f, v: v, partial: filepath.FromSlash(rel), final: final}, final, nil
}

// NewErrLog creates the stderr log of r, as NewRun creates its log, and
// sets r.ErrLog to its vault path.
func NewErrLog(v *vault.Vault, r *Run) (*Log, error) {
	final := path.Join(RunsDir, ErrLogName(r.ID))
	f, rel, err := createRunFile(v, ErrLogName(r.ID)+"."+strconv.Itoa(os.Getpid())+partialSuffix)
	if err != nil {
		return nil, err
	}
	r.ErrLog = final
	return &Log{File: f, v: v, partial: filepath.FromSlash(rel), final: final}, nil
}

// partialSuffix marks a run's log while the run is under way.
const partialSuffix = ".partial"

// PartialMaxAge is the age past which a partial log is swept even when
// its pid is alive (a reused pid): no run takes that long.
const PartialMaxAge = 7 * 24 * time.Hour

// Log is a run's log being written.
type Log struct {
	*os.File
	v       *vault.Vault
	partial string // OS path relative to the vault root, as created
	final   string // vault path
}

// Finish closes the log and gives it its final name; the close's error
// (the end of the log may be lost) is returned after the rename.
func (l *Log) Finish() error {
	err := l.Close()
	if rerr := l.v.Root().Rename(l.partial, filepath.FromSlash(l.final)); rerr != nil {
		return fmt.Errorf("name %s: %w", l.final, rerr)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", l.final, err)
	}
	return nil
}

// SweepLogs removes the partial logs of runs whose zk is gone, or that
// are older than PartialMaxAge.
func SweepLogs(v *vault.Vault, now time.Time) {
	atomicfile.SweepOrphans(v.Root(), filepath.FromSlash(RunsDir), now, PartialMaxAge, func(name string) (int, bool) {
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

// createRunFile creates .zk/runs/NAME in the vault for writing, refusing
// to replace a file that is there.
func createRunFile(v *vault.Vault, name string) (*os.File, string, error) {
	rel := path.Join(RunsDir, name)
	if err := ownfile.MkdirAll(v.Root(), RunsDir, 0o755); err != nil {
		return nil, "", fmt.Errorf("create %s: %w", rel, err)
	}
	f, err := ownfile.OpenFile(v.Root(), rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, "", fmt.Errorf("create %s: %w", rel, err)
	}
	return f, rel, nil
}

// Record writes r into the note at notePath, whose bytes were base when
// the run started; also, when set, is a further edit of the same write
// (zk run --tend sets the Last tended date with it). The falsifier r
// tests gets its identity in the same write (IdentifyFalsifier: a block id
// on its item, on its first run), and the run recorded, with its
// FalsifierID, is returned. If the note cannot take it safely (it is
// mid-write, or changed so that the Evidence section is gone), the block
// is saved as .zk/runs/ID.block.md instead, the note is left alone, and
// the error says where the result is.
func Record(v *vault.Vault, notePath string, base []byte, r Run, also func(src []byte) ([]byte, error)) (Run, error) {
	out, err := RecordAll(v, notePath, base, []Run{r}, also)
	if len(out) == 0 {
		return r, err
	}
	return out[0], err
}

// RecordAll is Record for several records in one write, in order: all of
// them go into the note, or none does (each is then saved aside).
func RecordAll(v *vault.Vault, notePath string, base []byte, runs []Run, also func(src []byte) ([]byte, error)) ([]Run, error) {
	recorded := slices.Clone(runs)
	edit := func(src []byte) ([]byte, error) {
		for i, r := range runs {
			var withID Run
			src, withID = IdentifyFalsifier(src, notePath, r)
			out, err := InsertRun(src, withID)
			if err != nil {
				return nil, fmt.Errorf("%w: %w", vault.ErrSpliceGone, err)
			}
			src, recorded[i] = out, withID
		}
		if also != nil {
			return also(src)
		}
		return src, nil
	}
	// Whatever kept the note from taking the block (vault.ErrMidWrite,
	// vault.ErrChanged, vault.ErrSpliceGone, a read-only file), the
	// result is not lost.
	if _, err := v.EditNote(notePath, edit, vault.WriteOptions{Base: base}); err != nil {
		var errs []error
		for _, r := range runs {
			errs = append(errs, SaveBlock(v, notePath, r, err))
		}
		return runs, errors.Join(errs...)
	}
	return recorded, nil
}

// SaveBlock keeps a result the note could not take, and says where it is.
func SaveBlock(v *vault.Vault, notePath string, r Run, why error) error {
	rel := path.Join(RunsDir, r.ID+".block.md")
	block := append(RenderRun(r, "\n"), '\n')
	if err := v.CreateFile(rel, block); err != nil {
		// The last place left is the terminal: the block goes with the
		// error, so that a full disk does not cost the result.
		return fmt.Errorf("%s not written (%w), and the result could not be saved either (%w); here it is, to paste under ## Evidence:\n\n%s", notePath, why, err, block)
	}
	return fmt.Errorf("%s left untouched (%w); the result is in %s", notePath, why, rel)
}

// PickFalsifier finds the falsifier --falsifier names: a number, or a
// piece of text that only one falsifier contains. Left out, it is the
// note's only falsifier, or none when the note lists none.
func PickFalsifier(n *vault.Note, arg string) (Falsifier, error) {
	fs := Falsifiers(n)
	list := func() string {
		var b strings.Builder
		for _, f := range fs {
			fmt.Fprintf(&b, "\n  %d. %s", f.N, f.Text)
		}
		return b.String()
	}
	if arg == "" {
		switch len(fs) {
		case 0:
			return Falsifier{}, nil
		case 1:
			return distinct(fs, fs[0])
		}
		return Falsifier{}, fmt.Errorf("%s lists %d falsifiers; say which with --falsifier N:%s", n.Path, len(fs), list())
	}
	if k, err := strconv.Atoi(arg); err == nil {
		if k < 1 || k > len(fs) {
			return Falsifier{}, fmt.Errorf("%s has no falsifier %d (it lists %d)%s", n.Path, k, len(fs), list())
		}
		return distinct(fs, fs[k-1])
	}
	var hits []Falsifier
	for _, f := range fs {
		if strings.Contains(strings.ToLower(f.Text), strings.ToLower(arg)) {
			hits = append(hits, f)
		}
	}
	switch len(hits) {
	case 1:
		return distinct(fs, hits[0])
	case 0:
		return Falsifier{}, fmt.Errorf("no falsifier of %s contains %q:%s", n.Path, arg, list())
	}
	return Falsifier{}, fmt.Errorf("%d falsifiers of %s contain %q; give its number:%s", len(hits), n.Path, arg, list())
}

// distinct returns f, or an error when another falsifier of fs has its
// block id: their runs could not be told apart.
func distinct(fs []Falsifier, f Falsifier) (Falsifier, error) {
	if g := sharedID(fs, f); g != nil {
		return Falsifier{}, fmt.Errorf("falsifiers %d and %d share the block id ^%s: give one of them another (or none: zk gives one on its first run), so that their runs are told apart",
			min(f.N, g.N), max(f.N, g.N), f.ID)
	}
	return f, nil
}
