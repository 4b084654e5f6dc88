package main

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/tending"
	"github.com/zk-claims/zk/workspace"
)

// environment is the record's environment line: OS/arch · CPUs · zk version.
func environment() string {
	return fmt.Sprintf("%s/%s · %s CPU · zk %s", runtime.GOOS, runtime.GOARCH, strconv.Itoa(runtime.NumCPU()), buildVersion())
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
func (opts recordOptions) withTending(w *workspace.Workspace, n *vault.Note) recordOptions {
	opts.section = vault.DefaultTendedSection
	if opts.tend {
		opts.section, opts.keys = vault.TendedSection(w.Types, n), w.Config.TendedKeys
	}
	return opts
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
	// judging is the config's part of how a run is judged, for a run id.
	judging func(runID string) evidence.Settings
}

// openEvidenceNote opens the vault and the note arg names. A note without
// an Evidence section is refused before anything runs; what names what
// would go under it. falsifier picks the falsifier tested (pickFalsifier);
// tend asks record to set the Last tended date, today, as zk tend would.
func openEvidenceNote(ctx context.Context, root *rootOptions, s *streams, arg, what, falsifier string, tend bool) (*evidenceNote, error) {
	w, err := root.open(s, workspace.Writing, arg)
	if err != nil {
		return nil, err
	}
	e, err := readEvidenceNote(ctx, w, arg, what, falsifier, recordOptions{tend: tend, today: w.Today})
	if err != nil {
		w.Close()
		return nil, err
	}
	return e, nil
}

func readEvidenceNote(ctx context.Context, w *workspace.Workspace, arg, what, falsifier string, ro recordOptions) (*evidenceNote, error) {
	v := w.Vault
	p, _, err := workspace.Locate(ctx, v, arg)
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
	e := &evidenceNote{v: v, path: p, base: base, note: vault.NewParser().Parse(p, base), judging: w.Config.Judging}
	e.record = ro.withTending(w, e.note)
	if e.falsifier, err = pickFalsifier(e.note, falsifier); err != nil {
		return nil, err
	}
	return e, nil
}

// record writes r into the note (evidence.Record), setting the Last tended
// date in the same write when opts say so, and returns the run recorded
// (with its falsifier's id).
func record(v *vault.Vault, notePath string, base []byte, r evidence.Run, opts recordOptions) (evidence.Run, error) {
	var also func([]byte) ([]byte, error)
	if opts.tend {
		also = func(src []byte) ([]byte, error) {
			return tending.SetLastTended(notePath, src, opts.today.Format(time.DateOnly), opts.section, opts.keys)
		}
	}
	return evidence.Record(v, notePath, base, r, also)
}

// pickFalsifier is evidence.PickFalsifier, a bad --falsifier a usage
// error.
func pickFalsifier(n *vault.Note, arg string) (evidence.Falsifier, error) {
	f, err := evidence.PickFalsifier(n, arg)
	if err != nil {
		return f, usageError{err}
	}
	return f, nil
}
