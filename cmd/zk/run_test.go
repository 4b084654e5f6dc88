package main

import (
	"testing"

	"github.com/zk-claims/zk/vault/evidence"
)

// A run's exit status follows its verdict.
func TestVerdictErr(t *testing.T) {
	for v, want := range map[evidence.Verdict]error{
		evidence.VerdictSupports: nil, evidence.VerdictNone: nil, evidence.VerdictAttached: nil,
		evidence.VerdictRefutes: errFindings, evidence.VerdictInconclusive: errInconclusive, evidence.VerdictError: errInconclusive,
	} {
		if got := verdictErr(v); got != want {
			t.Errorf("verdictErr(%s) = %v, want %v", v, got, want)
		}
	}
}
