package main

import (
	"errors"

	"github.com/zk-claims/zk/vault/evidence"
)

// errInconclusive makes zk exit 2 without printing anything more: the run
// was recorded and said why it decided nothing.
var errInconclusive = errors.New("inconclusive")

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
