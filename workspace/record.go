package workspace

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/probe"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/trust"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/tending"
)

// environment is a record's environment line: OS/arch · CPUs · zk's
// version.
func (w *Workspace) environment() string {
	return fmt.Sprintf("%s/%s · %s CPU · zk %s", runtime.GOOS, runtime.GOARCH, strconv.Itoa(runtime.NumCPU()), w.version)
}

// recordOptions say how a record goes into its note.
type recordOptions struct {
	// tend also sets the note's Last tended date to today, in section
	// with keys, as Tend would (see withTending).
	tend    bool
	today   time.Time
	section string
	keys    []string
}

// evidenceNote is the note a run or an attached result is recorded in:
// its path, its bytes as read (the base of the later edit) and its parse,
// the falsifier tested, and how to record.
type evidenceNote struct {
	path      string
	base      []byte
	note      *vault.Note
	falsifier evidence.Falsifier
	record    recordOptions
}

// evidenceNote reads the note arg names. A note without an Evidence
// section is refused before anything runs; what names what would go under
// it. falsifier picks the falsifier tested (PickFalsifier); tend asks
// record to set the Last tended date, today, as Tend would.
func (w *Workspace) evidenceNote(ctx context.Context, arg, what, falsifier string, tend bool) (*evidenceNote, error) {
	p, _, err := LocatePaths(ctx, w.Vault, arg)
	if err != nil {
		return nil, err
	}
	return w.readEvidenceNote(p, what, falsifier, tend)
}

// readEvidenceNote is evidenceNote for the note at vault path p.
func (w *Workspace) readEvidenceNote(p, what, falsifier string, tend bool) (*evidenceNote, error) {
	v := w.Vault
	base, err := v.ReadFile(p, v.MaxNoteSize)
	if err != nil {
		return nil, err
	}
	if _, ok := evidence.EvidenceEnd(base); !ok {
		return nil, usage(fmt.Errorf("%s: %w: add a \"## Evidence\" heading for %s to go under", p, evidence.ErrNoEvidence, what))
	}
	e := &evidenceNote{path: p, base: base, note: vault.NewParser().Parse(p, base)}
	e.record = recordOptions{tend: tend, today: w.Today, section: vault.DefaultTendedSection}
	if tend {
		e.record.section, e.record.keys = vault.TendedSection(w.Types, e.note), w.Config.TendedKeys
	}
	if falsifier == anyFalsifier {
		return e, nil
	}
	if e.falsifier, err = PickFalsifier(e.note, falsifier, w.term); err != nil {
		return nil, err
	}
	return e, nil
}

// anyFalsifier asks readEvidenceNote to pick no falsifier: the caller
// looks at them all (RejudgeRuns without a falsifier).
const anyFalsifier = "\x00any"

// record writes r into the note (evidence.Record), setting the Last
// tended date in the same write when opts say so, notes it in the run
// ledger, and returns the run recorded (with its falsifier's id).
func (w *Workspace) record(e *evidenceNote, r evidence.Run) (evidence.Run, error) {
	var also func([]byte) ([]byte, error)
	if opts := e.record; opts.tend {
		also = func(src []byte) ([]byte, error) {
			return tending.SetLastTended(e.path, src, opts.today.Format(time.DateOnly), opts.section, opts.keys)
		}
	}
	r, err := evidence.Record(w.Vault, e.path, e.base, r, also)
	if err != nil {
		return r, refused(err)
	}
	w.ledgerAppend(e.path, r, e.falsifier)
	w.warnUnanswered(e.path, r)
	return r, nil
}

// warnUnanswered warns when r, just recorded in the note at p, supports
// the claim and yet does not answer the refutation standing before it
// (evidence.Answer): zk run and zk attach exit 0 for a run that
// supports, and the refutation, which zk check keeps reporting, must not
// pass for answered.
func (w *Workspace) warnUnanswered(p string, r evidence.Run) {
	if r.Verdict != evidence.VerdictSupports {
		return
	}
	n, err := w.Vault.ReadNote(p)
	if err != nil {
		return
	}
	ledger := w.ledger(nil)
	st := evidence.LatestRuns(n, ledger[p], w.rejudger())
	evidence.PlaceForeign(&st, ledger)
	for _, l := range st.Falsifiers {
		if l.Refuting.ID != "" && l.Unanswered.Run.ID == r.ID {
			w.warn("falsifier %d's refutation by run %s still stands%s", l.Falsifier.N, l.Refuting.ID, lint.UnansweredText(p, l, lint.CommandLine))
		}
	}
}

// ledgerAppend notes in .zk/runs/ledger.jsonl that the note took run r,
// so that zk check can tell when a refuting run's block is deleted. A
// ledger that cannot be written costs that check, not the run: the note
// already holds the record.
func (w *Workspace) ledgerAppend(notePath string, r evidence.Run, f evidence.Falsifier) {
	err := evidence.AppendLedger(w.Vault, evidence.LedgerEntry{ID: r.ID, Note: notePath, Falsifier: f.N, FalsifierID: r.FalsifierID, Verdict: r.Verdict})
	if err != nil {
		w.warn("%s not updated: %s", evidence.LedgerFile, err)
	}
}

// PickFalsifier is the falsifier of n that arg names: its number, or a
// piece of its text; "" for the only one (or none, when the note lists
// none). A falsifier arg does not name is a UsageError; term names the
// request's falsifier field in the front end's words (nil: "falsifier").
func PickFalsifier(n *vault.Note, arg string, term func(string) string) (evidence.Falsifier, error) {
	if fs := evidence.Falsifiers(n); arg == "" && len(fs) > 1 {
		if term == nil {
			term = func(s string) string { return s }
		}
		var b strings.Builder
		for _, f := range fs {
			fmt.Fprintf(&b, "\n  %d. %s", f.N, f.Text)
		}
		return evidence.Falsifier{}, usage(fmt.Errorf("%s lists %d falsifiers; say which with %s N:%s", n.Path, len(fs), term("falsifier"), b.String()))
	}
	f, err := evidence.PickFalsifier(n, arg)
	if err != nil {
		return f, usage(err)
	}
	return f, nil
}

// checkCriterion refuses a falsifier whose criterion or captures do not
// compile, naming the note line, before anything runs or is recorded.
func checkCriterion(notePath string, f evidence.Falsifier) error {
	_, _, err := f.Compile()
	var ce *evidence.CriterionError
	if errors.As(err, &ce) {
		return usage(fmt.Errorf("%s:%d: falsifier %d: %w", notePath, ce.Line+1, f.N, ce.Err))
	}
	return err
}

// ApprovalOf is the approval that would let command, split into argv, run
// from the note: it names the files the command names, with their
// content's hashes as they are now, and says whether zk can tell them all;
// and the store that holds approvals.
func ApprovalOf(v *vault.Vault, notePath, command string, argv []string) (*trust.Store, trust.Approval, error) {
	store, a, _, err := ApprovalScope(v, nil, notePath, command, argv)
	return store, a, err
}

// ApprovalScope is ApprovalOf with what the approval covers, to show. A
// memo shared by the approvals of one pass reads each file they name once
// (trust.Memo); nil reads them all now.
func ApprovalScope(v *vault.Vault, memo *trust.Memo, notePath, command string, argv []string) (*trust.Store, trust.Approval, trust.Scope, error) {
	path, err := trust.DefaultPath()
	if err != nil {
		return nil, trust.Approval{}, trust.Scope{}, err
	}
	dir, err := filepath.EvalSymlinks(v.Dir)
	if err != nil {
		return nil, trust.Approval{}, trust.Scope{}, fmt.Errorf("vault: %w", err)
	}
	scope, err := memo.Inspect(v.Dir, argv)
	if err != nil {
		return nil, trust.Approval{}, trust.Scope{}, err
	}
	a := scope.Bind(trust.Approval{Vault: dir, Note: notePath, Command: command})
	return trust.Open(path), a, scope, nil
}

// noteCommand is the command written under a falsifier, split into argv,
// if the user approved it for this note of this vault: else a
// NotApprovedError, or a NoCommandError when there is none.
func noteCommand(v *vault.Vault, notePath string, f evidence.Falsifier) ([]string, error) {
	if f.N == 0 || f.Command == "" {
		return nil, &NoCommandError{Note: notePath, Falsifier: f.N}
	}
	argv, err := runner.Split(f.Command)
	if err != nil {
		return nil, usage(fmt.Errorf("%s:%d: %w", notePath, f.CommandLine+1, err))
	}
	store, a, err := ApprovalOf(v, notePath, f.Command, argv)
	if err != nil {
		return nil, err
	}
	verdict, err := store.Check(a)
	if err != nil {
		return nil, err
	}
	if !verdict.Approved {
		return nil, &NotApprovedError{Note: notePath, Falsifier: f.N, Command: runner.Quote(argv), Changed: verdict.Changed,
			OpaqueSince: verdict.Opaque, Opaque: a.Opaque}
	}
	return argv, nil
}

// probeEvidence is how a run or an attached result records a zk probe
// result: when output is probe JSON (zk probe --format json), it returns
// the markdown to put in the evidence block, the table with its
// denominators and an embed of the chart, and writes the chart as a new
// SVG attachment of the note at notePath, in the folder Obsidian's
// attachmentFolderPath names, as zk-probe-ID.svg. It reports false, and
// writes nothing, for any other output. The markdown is plain; a caller
// putting it inside a callout prefixes each line with "> ".
func probeEvidence(v *vault.Vault, notePath, id string, output []byte) (string, bool, error) {
	res, ok := probe.Detect(output)
	if !ok {
		return "", false, nil
	}
	dir, err := v.AttachmentFolder(notePath)
	if err != nil {
		return "", true, err
	}
	var svg bytes.Buffer
	if err := probe.WriteSVG(&svg, res); err != nil {
		return "", true, err
	}
	chart := path.Join(dir, "zk-probe-"+id+".svg")
	if err := v.CreateFile(chart, svg.Bytes()); err != nil {
		return "", true, fmt.Errorf("probe chart: %w", err)
	}
	return probe.RenderMarkdown(res) + "\n![[" + chart + "]]\n", true, nil
}
