package lint

import (
	"strconv"
	"strings"
)

// Next is the step a finding proposes, as data rather than words: the
// CLI and the editor word it as the zk command line that takes it
// (CommandLine), the MCP server as the tool call (an agent has no shell
// to type `zk run` into, and was told to when the step was part of the
// message). The step acts on the finding's note.
type Next struct {
	Step Step
	// Falsifier is the number of the falsifier the step acts on.
	Falsifier int
}

// Step is what a Next does.
type Step uint8

const (
	// NoStep: the finding proposes nothing beyond its message.
	NoStep Step = iota
	// StepRun runs the falsifier (zk run NOTE --falsifier N).
	StepRun
	// StepRejudge judges the falsifier's latest run again under its
	// criterion as written and records that (zk run --rejudge); nothing
	// runs.
	StepRejudge
	// StepRejudgeUnjudged is StepRejudge for a run the check did not
	// judge again itself (past its budget of logs): the step judges it.
	StepRejudgeUnjudged
	// StepRevise is StepRejudge recording a revision: the standing
	// refutation's run judged under the criterion as written, after which
	// a run under that criterion answers it.
	StepRevise

	// LastStep is the last Step there is, for a decoder to refuse others.
	LastStep = StepRevise
)

// Wording words a finding's next step for one front end: the name of
// the step as the reader takes it, for the note at path.
type Wording func(path string, n Next) string

// Text is the finding's message with its next step, if any, worded by
// word.
func (f Finding) Text(word Wording) string {
	if f.Next.Step == NoStep {
		return f.Message
	}
	s := f.Message + "; " + word(f.Path, f.Next)
	switch f.Next.Step {
	case StepRejudge:
		s += " records that"
	case StepRejudgeUnjudged:
		s += " judges it"
	case StepRevise:
		s += " records that revision, and a run after it answers"
	}
	return s
}

// CommandLine words a step as the zk command line that takes it, the
// note's path quoted for a POSIX shell where it needs to be.
func CommandLine(path string, n Next) string {
	switch n.Step {
	case StepRun:
		return "zk run " + shellWord(path) + " --falsifier " + strconv.Itoa(n.Falsifier)
	case StepRejudge, StepRejudgeUnjudged, StepRevise:
		return "zk run --rejudge " + shellWord(path) + " --falsifier " + strconv.Itoa(n.Falsifier)
	}
	return ""
}

// shellWord quotes a note path for a command line the message suggests.
func shellWord(s string) string {
	if strings.ContainsAny(s, " '\"$`\\&;|<>()*?[]#~!") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
