package evidence

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"maps"
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

// Homed is the ledger as the vault is now (Rehome): its entries by the
// note each is checked against, and the refutations whose note, block
// and falsifier are gone from every note (Orphans).
type Homed struct {
	Notes   map[string][]LedgerEntry
	Orphans []LedgerEntry
	// Moved says where each refuting entry Rehome placed elsewhere than
	// its note went ("id note"), or that it is an orphan: what a cache of
	// findings read with Notes must take in its key, since it depends on
	// other notes than the entry's own.
	Moved []string
}

// Rehome places each refuting entry of ledger (ReadLedger's) whose block
// is not in the note it names (notes exist and read say what notes there
// are and what they hold) where the vault keeps it now: in its own note
// when that is there and holds its falsifier id (its block moved
// elsewhere alone); else in the note that holds its block (a note renamed
// outside zk, a block moved with its falsifier; of several, the first by
// path); else in its own note, when it is there and its falsifier id is
// nowhere else (or it has none); else in the one
// note that holds its falsifier id (a note renamed outside zk and its
// block deleted, a falsifier merged into another note with its id); else
// in its own note, when it is there; else it is an orphan: the refutation
// of a note deleted outright. The other notes are looked at (all, through
// each, as what each holds: Held) only when some refuting entry's block is
// not in its note: most vaults never pay for it. A run id or falsifier id
// that is no block id (none zk writes) is found in no other note.
func Rehome(ledger map[string][]LedgerEntry, read func(p string) ([]byte, bool), each func(f func(p string, h Held))) Homed {
	type lost struct {
		e              LedgerEntry
		exists, hasID  bool
		blocks, holdID []string
	}
	var out []*lost
	for p, es := range ledger {
		var src []byte
		var exists, readOnce bool
		for _, e := range es {
			if e.Verdict != VerdictRefutes {
				continue
			}
			if !readOnce {
				src, exists = read(p)
				readOnce = true
			}
			if exists && bytes.Contains(src, runStartMarker(e.ID)) {
				continue
			}
			out = append(out, &lost{e: e, exists: exists, hasID: exists && e.FalsifierID != "" && hasBlockID(src, e.FalsifierID)})
		}
	}
	if len(out) == 0 {
		return Homed{Notes: ledger}
	}
	each(func(p string, h Held) {
		for _, l := range out {
			if p == l.e.Note {
				continue
			}
			if h.HasRun(l.e.ID) {
				l.blocks = append(l.blocks, p)
			}
			if l.e.FalsifierID != "" && h.HasBlock(l.e.FalsifierID) {
				l.holdID = append(l.holdID, p)
			}
		}
	})
	h := Homed{Notes: make(map[string][]LedgerEntry, len(ledger))}
	for p, es := range ledger {
		h.Notes[p] = es
	}
	slices.SortFunc(out, func(a, b *lost) int { return a.e.Line - b.e.Line })
	renamed := map[string]string{} // a note gone → where its refutations went
	for _, l := range out {
		slices.Sort(l.blocks)
		// A note the ledger placed runs of the same falsifier in before
		// the refutation had that falsifier while the refutation was
		// recorded elsewhere: a copy of the note (cp A.md B.md, B run and
		// refuted, B deleted), not the note renamed, and its claim is
		// not the one refuted. Followed by its id, the copy's refutation
		// became the original's.
		l.holdID = slices.DeleteFunc(l.holdID, func(p string) bool {
			return slices.ContainsFunc(ledger[p], func(e LedgerEntry) bool {
				return e.FalsifierID == l.e.FalsifierID && e.Line < l.e.Line
			})
		})
		home := ""
		switch {
		case l.exists && l.hasID:
			// Its falsifier is still in its note: the refutation is of
			// that note's claim, wherever its block went (cut and pasted
			// into an archive of old runs, say). Followed, its block
			// took the refutation with it, and the note whose claim it
			// refutes checked clean.
			continue
		case len(l.blocks) > 0:
			home = l.blocks[0]
		case l.exists && (len(l.holdID) == 0 || l.e.FalsifierID == ""):
			continue // its own note: evidence/run-vanished there, as always
		case len(l.holdID) == 1:
			home = l.holdID[0]
		case l.exists:
			continue
		}
		es := h.Notes[l.e.Note]
		h.Notes[l.e.Note] = slices.DeleteFunc(slices.Clone(es), func(e LedgerEntry) bool { return e.Line == l.e.Line })
		if len(h.Notes[l.e.Note]) == 0 {
			delete(h.Notes, l.e.Note)
		}
		if home == "" {
			h.Orphans = append(h.Orphans, l.e)
			h.Moved = append(h.Moved, l.e.ID+" -")
			continue
		}
		h.Notes[home] = append(slices.Clone(h.Notes[home]), l.e)
		h.Moved = append(h.Moved, l.e.ID+" "+home)
		if !l.exists {
			if _, ok := renamed[l.e.Note]; !ok {
				renamed[l.e.Note] = home
			}
		}
	}
	// A note gone whose refutation went to another note was renamed
	// outside zk (or copied and deleted): its other runs went with it,
	// to where its first refutation went, so that a run that answered
	// the refutation there still answers it (a run answers only in the
	// note the ledger places it in: answer.go).
	for _, from := range slices.Sorted(maps.Keys(renamed)) {
		es := h.Notes[from]
		if len(es) == 0 {
			continue
		}
		home := renamed[from]
		h.Notes[home] = append(slices.Clone(h.Notes[home]), es...)
		delete(h.Notes, from)
		h.Moved = append(h.Moved, from+" -> "+home)
	}
	return h
}

// runStart opens a run's block, its id after it.
const runStart = "<!-- zk:run id="

// runStartMarker is the start of run id's block, as a note holds it.
func runStartMarker(id string) []byte { return []byte(runStart + id + " ") }

// Held is what a note holds that Rehome follows a refutation to: the ids
// of the run blocks it holds and its block ids (a falsifier's id is the
// block id of its item, zk's "f-3f9c" or one the item had), each list
// sorted, without repeats, joined by spaces. It is made of the note's
// bytes alone (HeldIn), so a cache of it per note is good while the
// note's bytes are, and placing a refutation whose note is gone is a
// lookup of every note's, not a read of every note.
type Held struct{ Runs, Blocks string }

// HeldIn is what src holds (Held). Of an id that is a block id
// (IsBlockID), HasRun says what bytes.Contains(src, runStartMarker(id))
// says, and HasBlock what hasBlockID(src, id) says: each records, after
// each "<!-- zk:run id=" (a space after it) or "^", the longest run of a
// block id's characters there, when it is a block id.
func HeldIn(src []byte) Held {
	var runs, blocks []string
	after := func(at int) (string, int) { // the id's characters from at, and where they end
		end := at
		for end < len(src) && end-at <= 64 && isIDByte(src[end]) {
			end++
		}
		return string(src[at:end]), end
	}
	for i := 0; ; {
		j := bytes.Index(src[i:], []byte(runStart))
		if j < 0 {
			break
		}
		i += j + 1
		if id, end := after(i - 1 + len(runStart)); end < len(src) && src[end] == ' ' && IsBlockID(id) {
			runs = append(runs, id)
		}
	}
	for i := 0; ; {
		j := bytes.IndexByte(src[i:], '^')
		if j < 0 {
			break
		}
		i += j + 1
		if id, end := after(i); (end == len(src) || !isIDByte(src[end])) && IsBlockID(id) {
			blocks = append(blocks, id)
		}
	}
	return Held{Runs: idList(runs), Blocks: idList(blocks)}
}

// idList is ids sorted, without repeats, joined by spaces.
func idList(ids []string) string {
	slices.Sort(ids)
	return strings.Join(slices.Compact(ids), " ")
}

// HasRun says the note holds the block of run id.
func (h Held) HasRun(id string) bool { return inIDList(h.Runs, id) }

// HasBlock says the note holds block id id.
func (h Held) HasBlock(id string) bool { return inIDList(h.Blocks, id) }

// inIDList says list (idList's) holds id, a block id.
func inIDList(list, id string) bool {
	if !IsBlockID(id) {
		return false
	}
	for list != "" {
		var one string
		one, list, _ = strings.Cut(list, " ")
		if one == id {
			return true
		}
	}
	return false
}

// hasBlockID says src holds block id as an Obsidian block id: "^id" not
// followed by another character of an id.
func hasBlockID(src []byte, id string) bool {
	pat := []byte("^" + id)
	for i := 0; ; {
		j := bytes.Index(src[i:], pat)
		if j < 0 {
			return false
		}
		end := i + j + len(pat)
		if end == len(src) || !IsBlockID(string(src[end:end+1])) {
			return true
		}
		i = end
	}
}
