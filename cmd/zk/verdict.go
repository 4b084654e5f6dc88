package main

import (
	"errors"
	"fmt"

	"github.com/zk-claims/zk/internal/printable"
	"github.com/zk-claims/zk/runner"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// errInconclusive makes zk exit 2 without printing anything more: the run
// was recorded and said why it decided nothing.
var errInconclusive = errors.New("inconclusive")

// checkCriterion refuses a falsifier whose criterion or captures do not
// compile, naming the note line, before anything runs or is recorded.
func checkCriterion(notePath string, f evidence.Falsifier) error {
	_, _, err := f.Compile()
	var ce *evidence.CriterionError
	if errors.As(err, &ce) {
		return fmt.Errorf("%s:%d: falsifier %d: %w", notePath, ce.Line+1, f.N, ce.Err)
	}
	return err
}

// judgeRun sets r's verdict and criterion statement from the falsifier's
// criterion and the command's output, read back from its log. A command
// that could not start is an error whatever the criterion.
func judgeRun(v *vault.Vault, r *evidence.Run, f evidence.Falsifier, res runner.Result, logErr error, settings evidence.Settings) error {
	if res.StartErr != nil {
		r.Verdict = evidence.VerdictError
		if f.Criterion != "" {
			r.Criterion = evidence.NotEvaluated(f.Criterion, "the command could not start")
		}
		return nil
	}
	var data []byte
	if res.Bytes > 0 && f.Criterion != "" && logErr == nil {
		var err error
		if data, err = v.ReadFile(r.Log, res.Bytes); err != nil {
			return err
		}
	}
	o := evidence.Outcome{Exit: res.Exit, Failed: r.Status}
	switch {
	case logErr != nil:
		o.Failed = "ran, but its log is incomplete, so its output is not all there"
	case res.Truncated:
		o.Failed = "printed more than the log keeps (--max-output)"
	}
	j := evidence.Judge(f, o, data, settings)
	r.Verdict, r.Criterion = j.Verdict, j.Statement
	return nil
}

// verdictErr is how zk run and zk attach exit for a verdict: 0 supports
// or no verdict, 1 refutes, 2 inconclusive or error.
func verdictErr(v evidence.Verdict) error {
	switch v {
	case evidence.VerdictRefutes:
		return errFindings
	case evidence.VerdictInconclusive, evidence.VerdictError:
		return errInconclusive
	}
	return nil
}

// verdictWord is a verdict as zk run's summary line says it.
func verdictWord(v evidence.Verdict) string {
	if v == evidence.VerdictNone {
		return "no verdict (the falsifier has no criterion)"
	}
	return string(v)
}

// ledgerAppend notes in .zk/runs/ledger.jsonl that the note took run r,
// so that zk check can tell when a refuting run's block is deleted. A
// ledger that cannot be written costs that check, not the run: the note
// already holds the record.
func ledgerAppend(v *vault.Vault, notePath string, r evidence.Run, f evidence.Falsifier, s *streams) {
	err := evidence.AppendLedger(v, evidence.LedgerEntry{ID: r.ID, Note: notePath, Falsifier: f.N, FalsifierID: r.FalsifierID, Verdict: r.Verdict})
	if err != nil {
		fmt.Fprintf(s.err, "zk: warning: %s not updated: %s\n", evidence.LedgerFile, printable.Of(err.Error()))
	}
}
