package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"

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
	return appendLedgerBytes(v, LedgerLine(e))
}

// appendLedgerBytes appends lines b to the ledger in one write.
func appendLedgerBytes(v *vault.Vault, b []byte) error {
	if err := ownfile.MkdirAll(v.Root(), RunsDir, 0o755); err != nil {
		return err
	}
	f, err := ownfile.OpenFile(v.Root(), LedgerFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
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
	// Line is the entry's line in the ledger, from 1 (ReadLedger): where a
	// refutation whose note is gone is reported.
	Line int `json:"-"`
}

// LedgerMove is a ledger line that says zk mv renamed a note: the entries
// before it of the note at Moved are the note's at To. A run's entry names
// the note it was recorded in, and the ledger is only appended to, so a
// move is a line of its own rather than an edit of the entries it moves.
// zk before it skips the line (it has no id).
type LedgerMove struct {
	Moved string `json:"moved"`
	To    string `json:"to"`
}

// ReadLedger reads the ledger's lines by note path, each entry under the
// path its note has after the moves recorded after it (LedgerMove). A
// line that does not parse (a write cut short) is skipped.
func ReadLedger(data []byte) map[string][]LedgerEntry {
	out := map[string][]LedgerEntry{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		var l struct {
			LedgerEntry
			LedgerMove
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		if m := l.LedgerMove; m.Moved != "" && m.To != "" && m.Moved != m.To && l.ID == "" {
			moved, ok := out[m.Moved]
			if !ok {
				continue
			}
			delete(out, m.Moved)
			for i := range moved {
				moved[i].Note = m.To
			}
			out[m.To] = append(out[m.To], moved...)
			continue
		}
		e := l.LedgerEntry
		if e.ID == "" || e.Note == "" {
			continue
		}
		e.Line = line
		out[e.Note] = append(out[e.Note], e)
	}
	return out
}

// LedgerMoves are the move lines (LedgerMove) that keep the entries of
// ledger (ReadLedger's) with their notes when from is renamed to: the
// note at from, or, for a folder, each note under it. The entries then
// stay with their note, and evidence/run-vanished checks it at its new
// path.
func LedgerMoves(ledger map[string][]LedgerEntry, from, to string, folder bool) []LedgerMove {
	var out []LedgerMove
	for p := range ledger {
		switch {
		case p == from:
			out = append(out, LedgerMove{Moved: p, To: to})
		case folder && strings.HasPrefix(p, from+"/"):
			out = append(out, LedgerMove{Moved: p, To: to + strings.TrimPrefix(p, from)})
		}
	}
	slices.SortFunc(out, func(a, b LedgerMove) int { return strings.Compare(a.Moved, b.Moved) })
	return out
}

// AppendLedgerMoves appends moves to the vault's ledger in one write.
func AppendLedgerMoves(v *vault.Vault, moves []LedgerMove) error {
	if len(moves) == 0 {
		return nil
	}
	var b []byte
	for _, m := range moves {
		l, _ := json.Marshal(m) // strings only: cannot fail
		b = append(append(b, l...), '\n')
	}
	return appendLedgerBytes(v, b)
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
