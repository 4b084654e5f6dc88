package workspace

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/vault"
)

// The errors a use case returns that a front end words in its own terms
// (a flag, a tool's argument) or answers differently (an exit code, a
// tool error): each is found with errors.As, never by its text.

// UsageError is a request the caller can mend by asking differently: an
// unknown note type, a title that leaves no file name, a falsifier the
// note does not list, a name that names several notes.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// usage wraps err as a UsageError.
func usage(err error) error { return &UsageError{Err: err} }

// NotStartedError is a run whose command could not start (not found, not
// executable): nothing ran, so there is nothing to record and no verdict;
// the note is left as it was and the run's logs are removed. A command
// that started and failed is a run, recorded with its exit.
type NotStartedError struct {
	Note    string // vault path
	Command string // argv[0], as given
	Err     error
}

func (e *NotStartedError) Error() string {
	return fmt.Sprintf("%s: could not start: %v; nothing recorded in %s", printable.Of(e.Command), e.Err, printable.Of(e.Note))
}
func (e *NotStartedError) Unwrap() error { return e.Err }

// NotFoundError is a note argument that names no note of the vault.
type NotFoundError struct {
	Arg   string // as given
	Vault string // the vault's folder
	// Near are the notes whose names come closest to Arg (Near), as a
	// NOTE argument names them: a misspelt note, as a misspelt command,
	// gets a suggestion.
	Near []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("%q: %v in %s", e.Arg, vault.ErrNotFound, printable.Of(e.Vault))
	if len(e.Near) == 0 {
		return msg
	}
	quoted := make([]string, len(e.Near))
	for i, n := range e.Near {
		quoted[i] = strconv.Quote(n)
	}
	if len(quoted) == 1 {
		return msg + "; did you mean " + quoted[0] + "?"
	}
	return msg + "; did you mean " + strings.Join(quoted[:len(quoted)-1], ", ") + " or " + quoted[len(quoted)-1] + "?"
}

// Unwrap makes errors.Is(err, vault.ErrNotFound) hold.
func (e *NotFoundError) Unwrap() error { return vault.ErrNotFound }

// NotApprovedError is a command written in a note that the user has not
// approved (zk trust) for that note on this machine, or approved before a
// file it names changed. Only the user approves: a front end says how,
// in its own terms.
type NotApprovedError struct {
	Note      string // vault path
	Falsifier int
	// Command is the command as it would run (runner.Quote of its argv).
	Command string
	// Changed are the files named by an approved command that changed
	// since; empty when it was never approved.
	Changed []string
	// OpaqueSince: the command was approved before zk could say it cannot
	// tell which files it runs.
	OpaqueSince bool
	// Opaque: zk cannot tell which files the command runs
	// (trust.Scope.Opaque), so only an approval made as such (zk trust
	// --opaque) covers it.
	Opaque bool
}

func (e *NotApprovedError) Error() string {
	what := "not approved on this machine"
	switch {
	case len(e.Changed) > 0:
		what = "approved, but " + ChangedFiles(e.Changed) + " since"
	case e.OpaqueSince:
		what = "approved before zk could say it cannot tell which files it runs"
	}
	return fmt.Sprintf("falsifier %d of %s runs a command written in the note, %s:\n  %s", e.Falsifier, printable.Of(e.Note), what, printable.Of(e.Command))
}

// ChangedFiles says which approved files changed, each name printable:
// "run.sh changed", "a.sh and b.sh changed"; past maxChangedNames, how
// many more ("a.go, ... and 37 other files changed"): a tree's files may
// all have.
func ChangedFiles(names []string) string {
	quoted := make([]string, min(len(names), maxChangedNames))
	for i := range quoted {
		quoted[i] = printable.Of(names[i])
	}
	if more := len(names) - len(quoted); more > 0 {
		return strings.Join(quoted, ", ") + " and " + humanize.Comma(int64(more)) + " other files changed"
	}
	if len(quoted) == 1 {
		return quoted[0] + " changed"
	}
	return strings.Join(quoted[:len(quoted)-1], ", ") + " and " + quoted[len(quoted)-1] + " changed"
}

// maxChangedNames bounds the files ChangedFiles names.
const maxChangedNames = 5

// NoCommandError is a run asked of a falsifier with no command written
// under it, and none given: Falsifier is 0 when the note lists no
// falsifier at all.
type NoCommandError struct {
	Note      string
	Falsifier int
}

func (e *NoCommandError) Error() string {
	if e.Falsifier == 0 {
		return "no command: " + e.Note + " lists no falsifier with a command written under it"
	}
	return fmt.Sprintf("falsifier %d of %s has no command written under it (- run: `CMD`)", e.Falsifier, e.Note)
}

// RefusedError is a write zk refused, leaving the vault as it was: a note
// that exists, looks mid-write, changed meanwhile or is not zk's to
// write; a folder that is not a vault (ErrNoVault).
type RefusedError struct {
	Err error
}

func (e *RefusedError) Error() string { return e.Err.Error() }
func (e *RefusedError) Unwrap() error { return e.Err }

// refusals are the vault's errors for a write it would not make.
var refusals = []error{vault.ErrExists, vault.ErrMidWrite, vault.ErrChanged, vault.ErrSpliceGone, vault.ErrNotRegular,
	vault.ErrNotText, vault.ErrNotNote, vault.ErrHardLinked, vault.ErrLocked, vault.ErrReadOnly, vault.ErrConcurrent}

// refused is err as a RefusedError when it is one of the vault's
// refusals, else err.
func refused(err error) error {
	for _, r := range refusals {
		if errors.Is(err, r) {
			return &RefusedError{Err: err}
		}
	}
	return err
}
