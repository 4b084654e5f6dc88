package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"

	"github.com/zk-claims/zk/internal/ownfile"
	"github.com/zk-claims/zk/vault"
)

// LedgerFile is the vault path of the run ledger: one JSON line per run
// recorded in a note, appended when the note took the block. The note is
// the record a person reads; the ledger is what tells zk check that a
// refuting run's block was deleted from it (evidence/run-vanished).
const LedgerFile = ".zk/runs/ledger.jsonl"

// ledgerMax caps the ledger zk reads: some 300,000 runs. Past it, the
// check the ledger serves is skipped (ReadLedgerFile says why).
const ledgerMax = 64 << 20

// AppendLedger appends e to the vault's ledger in one write. The ledger
// came with the vault: it is appended to only as a regular file reached
// through no symlink (one pointing at a note would have every run append
// a line to that note).
func AppendLedger(v *vault.Vault, e LedgerEntry) error {
	if err := ownfile.MkdirAll(v.Root(), RunsDir, 0o755); err != nil {
		return err
	}
	f, err := ownfile.OpenFile(v.Root(), LedgerFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(LedgerLine(e))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ReadLedgerFile reads the vault's ledger: nil and no error when there is
// none, an error when it is there and cannot be read as zk's own (a
// symlink, not a regular file, too large).
func ReadLedgerFile(v *vault.Vault) ([]byte, error) {
	b, err := ownfile.Read(v.Root(), LedgerFile, ledgerMax)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// LedgerEntry is one line of the ledger.
type LedgerEntry struct {
	ID        string `json:"id"`
	Note      string `json:"note"`
	Falsifier int    `json:"falsifier,omitempty"`
	// FalsifierID is the falsifier's block id, as the run block carries
	// it; empty in lines written before ids.
	FalsifierID string  `json:"falsifier_id,omitempty"`
	Verdict     Verdict `json:"verdict"`
}

// ReadLedger reads the ledger's lines by note path. A line that does not
// parse (a write cut short) is skipped.
func ReadLedger(data []byte) map[string][]LedgerEntry {
	out := map[string][]LedgerEntry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		var e LedgerEntry
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.ID == "" || e.Note == "" {
			continue
		}
		out[e.Note] = append(out[e.Note], e)
	}
	return out
}

// LedgerLine is e as the ledger's line, with its newline.
func LedgerLine(e LedgerEntry) []byte {
	b, _ := json.Marshal(e) // strings and ints only: cannot fail
	return append(b, '\n')
}

// Vanished returns the entries of ledger for a note that refuted its claim
// and whose block is no longer in src.
func Vanished(src []byte, ledger []LedgerEntry) []LedgerEntry {
	var out []LedgerEntry
	var ids map[string]bool
	for _, e := range ledger {
		if e.Verdict != VerdictRefutes {
			continue
		}
		if ids == nil {
			ids = map[string]bool{}
			for _, r := range ParseRuns(src) {
				ids[r.ID] = true
			}
		}
		if !ids[e.ID] {
			out = append(out, e)
		}
	}
	return out
}
