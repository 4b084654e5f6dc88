package workspace

import (
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/move"
)

// LintOptions are the checker's options from the vault's config, as zk
// check and zk lsp check notes.
func (w *Workspace) LintOptions() lint.Options {
	cfg := w.Config
	ledger, untrusted := ReadLedger(w.Vault)
	untrusted = append(untrusted, move.SetAside(w.Vault)...)
	return lint.Options{
		Today:      w.Today,
		Types:      w.Types,
		Relations:  cfg.Relations,
		Severity:   cfg.Severities(),
		Comments:   cfg.CheckComments,
		TendedKeys: cfg.TendedKeys,
		Interval:   cfg.Interval(),
		Ledger:     evidence.ReadLedger(ledger),
		Untrusted:  untrusted,

		PropertyTypes: w.PropTypes,
	}
}

// ReadLedger reads the run ledger: nil when there is none, or when it
// cannot be read as zk's own (then untrusted says why, for zk check).
func ReadLedger(v *vault.Vault) (b []byte, untrusted []vault.Skip) {
	b, err := evidence.ReadLedgerFile(v)
	if err != nil {
		return nil, []vault.Skip{{Path: evidence.LedgerFile, Reason: "not read: " + err.Error()}}
	}
	return b, nil
}
