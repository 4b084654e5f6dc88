package evidence

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/zk-claims/zk/vault"
)

// A falsifier's runs, and what they say now (docs/falsifiers.md).
//
// A run belongs to a falsifier by the falsifier's identity: the block id
// of its list item, which the run block carries (Falsifier id), so that
// rewording the falsifier, reordering the list or moving the note leaves
// its runs with it. A block recorded before ids quotes only the
// falsifier's text: it belongs to the falsifier with that text, else to
// the one whose id a later block quoting that text carries, else to the
// falsifier the ledger recorded by number, when that falsifier has no
// run of its own (a falsifier reworded since); else to a deleted one.
//
// A refutation stands until a later judged run of the same falsifier (a
// run or attached result whose criterion gave supports) answers it: a
// run without a criterion, an inconclusive one, a judgement again of an
// old output, or deleting the falsifier answer nothing. Nor does a run
// judged by a criterion the refuting run's own output passes, unless a
// judgement again recorded that revision first, nor a result attached
// from a file older than the refuting run (answer.go).

// Latest is a falsifier and what its runs say.
type Latest struct {
	Falsifier Falsifier
	// Run is its latest record: a run, an attached result or a judgement
	// again; Run.ID is empty when it has none.
	Run Run
	// Measured is its latest run or attached result (not a judgement
	// again): the measurement evidence/stale-run dates.
	Measured Run
	// Refuting is the refutation that stands: its latest refuting record
	// with no later judged run answering it; ID empty when none.
	Refuting Run
	// Unanswered is the latest run since Refuting that supported the
	// claim and did not answer it (Answer says why); its Run.ID is empty
	// when there is none.
	Unanswered Answer
	// Runs are all its records, oldest first.
	Runs []Run
	// own are the ids of the runs the ledger places in the note (nil: it
	// says nothing of it), which settle read: a judgement again recording
	// a revision counts only where the ledger places it too (ToJudge).
	own map[string]bool
}

// Verdict is the falsifier's verdict as the vault states it: refutes
// while a refutation stands, else its latest record's; empty when it was
// never run.
func (l Latest) Verdict() Verdict { return l.Shown().Verdict }

// Shown is the record whose verdict Verdict is, and whose statement goes
// beside it: the standing refutation, else the latest record.
func (l Latest) Shown() Run {
	if l.Refuting.ID != "" {
		return l.Refuting
	}
	return l.Run
}

// Standing is what a note's runs say: each falsifier's, in order, and
// those of falsifiers no longer in the note.
type Standing struct {
	Falsifiers []Latest
	// Deleted are the runs of falsifiers no longer in the note, one entry
	// per falsifier, its Falsifier holding the text (and id) the latest
	// run quotes and N 0.
	Deleted []Latest
}

// Refuted returns the first record that refutes the claim and stands,
// the falsifier's entry with it, or false.
func (s Standing) Refuted() (Latest, bool) {
	for _, ls := range [][]Latest{s.Falsifiers, s.Deleted} {
		for _, l := range ls {
			if l.Refuting.ID != "" {
				return l, true
			}
		}
	}
	return Latest{}, false
}

// LatestRuns reads what the runs of n say of each of its falsifiers;
// ledger (the note's entries, may be nil) ties blocks recorded before ids
// by number; rj judges a refuting run's output under the criterion of a
// later run that supported the claim under another (answer.go): nil
// reads no log, and such a run answers nothing.
func LatestRuns(n *vault.Note, ledger []LedgerEntry, rj *Rejudger) Standing {
	return LatestRunsOf(n, Falsifiers(n), ledger, rj)
}

// LatestRunsOf is LatestRuns for the note's falsifiers fs, read already.
// A block edited since it was recorded (evidence/run-edited reports it)
// is not counted by what it says now, which is no longer the record's,
// with one exception: a block the ledger says refuted still refutes, for
// its falsifier as the ledger names it (trustLedger). The ledger is zk's
// own record, appended when the run was; an edit of the block (a line
// added, its end marker deleted, the falsifier's text replaced in it too)
// cannot turn a refutation into nothing. An edited block the ledger says
// supported, or that it does not know, answers nothing.
func LatestRunsOf(n *vault.Note, fs []Falsifier, ledger []LedgerEntry, rj *Rejudger) Standing {
	var st Standing
	if len(fs) > 0 {
		st.Falsifiers = make([]Latest, len(fs))
		for i, f := range fs {
			if rj != nil {
				// Judged as the command judges: the config's numbers
				// and confidence where the falsifier says none.
				f = f.Under(rj.settings)
			}
			st.Falsifiers[i].Falsifier = f
		}
	}
	// A refutation whose block is gone from the note stands: deleting a
	// block answers nothing, as editing it does not (trustLedger).
	gone := Vanished(n.Src, ledger)
	if len(gone) == 0 && !bytes.Contains(n.Src, []byte("<!-- zk:run")) {
		return st
	}
	var runs []Run
	for _, e := range gone {
		runs = append(runs, goneRun(e))
	}
	for _, r := range ParseRuns(n.Src) {
		if r.Problem != "" {
			e, ok := ledgerRefuting(ledger, r.ID)
			if !ok {
				continue
			}
			r = trustLedger(r, e)
			runs = append(runs, r) // placed by its ids, else the ledger's number
			continue
		}
		if r.Falsifier != "" || r.FalsifierID != "" {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return st
	}
	byID := map[string]int{}
	byText := map[string]int{}
	for i, f := range fs {
		if f.ID != "" {
			if _, dup := byID[f.ID]; !dup {
				byID[f.ID] = i
			}
		}
		if _, dup := byText[oneLine(f.Text)]; !dup {
			byText[oneLine(f.Text)] = i
		}
	}
	// The id a block carrying one gives the text it quotes, for the
	// blocks before ids that quote the same text.
	alias := map[string]string{}
	for _, r := range runs {
		// An edited block's text is not the record's: it names nothing.
		if r.FalsifierID != "" && r.Falsifier != "" && r.Problem == "" {
			alias[oneLine(r.Falsifier)] = r.FalsifierID
		}
	}
	owner := make([]int, len(runs)) // index in fs, or -1
	deletedKey := make([]string, len(runs))
	var byNumber []int // blocks before ids that only the ledger can place
	for k, r := range runs {
		owner[k] = -1
		text := oneLine(r.Falsifier)
		id := r.FalsifierID
		if id == "" {
			if i, ok := byText[text]; ok && text != "" {
				owner[k] = i
				continue
			}
			id = alias[text]
		}
		if id != "" {
			if i, ok := byID[id]; ok {
				owner[k] = i
				continue
			}
			// The id is gone from the note: its item lost it (the text
			// still matches one without an id) or was deleted.
			if i, ok := byText[text]; ok && text != "" && fs[i].ID == "" {
				owner[k] = i
				continue
			}
			deletedKey[k] = "id:" + id
			continue
		}
		deletedKey[k] = "text:" + text
		byNumber = append(byNumber, k)
	}
	if len(byNumber) > 0 && len(ledger) > 0 {
		has := make([]bool, len(fs))
		for _, i := range owner {
			if i >= 0 {
				has[i] = true
			}
		}
		number := map[string]int{}
		for _, e := range ledger {
			number[e.ID] = e.Falsifier
		}
		for _, k := range byNumber {
			if i := number[runs[k].ID] - 1; i >= 0 && i < len(fs) && !has[i] {
				owner[k], deletedKey[k] = i, ""
			}
		}
	}
	deleted := map[string]int{} // key → index in st.Deleted
	for k, r := range runs {
		var l *Latest
		if i := owner[k]; i >= 0 {
			l = &st.Falsifiers[i]
		} else {
			d, ok := deleted[deletedKey[k]]
			if !ok {
				d = len(st.Deleted)
				deleted[deletedKey[k]] = d
				st.Deleted = append(st.Deleted, Latest{})
			}
			l = &st.Deleted[d]
		}
		l.Runs = append(l.Runs, r)
	}
	var own map[string]bool
	if len(ledger) > 0 {
		own = make(map[string]bool, len(ledger))
		for _, e := range ledger {
			own[e.ID] = true
		}
	}
	for i := range st.Falsifiers {
		st.Falsifiers[i].settle(rj, own)
	}
	for i := range st.Deleted {
		l := &st.Deleted[i]
		l.settle(rj, own)
		l.Falsifier = Falsifier{Text: l.Run.Falsifier, ID: l.Run.FalsifierID}
		for _, r := range l.Runs {
			if l.Falsifier.ID == "" && r.FalsifierID != "" {
				l.Falsifier.ID = r.FalsifierID
			}
		}
	}
	return st
}

// PlaceForeign names, in st, the note the ledger (ReadLedger's, or
// Rehome's Notes) places each run that did not answer a refutation
// because it is not this note's (Answer.Foreign), so that what reports
// it can say whose run it is. It looks through the whole ledger, and
// only for such a run: there is seldom one.
func PlaceForeign(st *Standing, ledger map[string][]LedgerEntry) {
	for _, ls := range [][]Latest{st.Falsifiers, st.Deleted} {
		for i := range ls {
			a := &ls[i].Unanswered
			if !a.Foreign || a.RecordedIn != "" {
				continue
			}
			for _, p := range slices.Sorted(maps.Keys(ledger)) {
				if slices.ContainsFunc(ledger[p], func(e LedgerEntry) bool { return e.ID == a.Run.ID }) {
					a.RecordedIn = p
					break
				}
			}
		}
	}
}

// ledgerRefuting is the ledger's entry that says run id refuted, if
// there is one.
func ledgerRefuting(ledger []LedgerEntry, id string) (LedgerEntry, bool) {
	for _, e := range ledger {
		if e.ID == id && e.Verdict == VerdictRefutes {
			return e, true
		}
	}
	return LedgerEntry{}, false
}

// trustLedger is an edited block r (r.Problem set) as the ledger's entry
// e records it: it refutes, for the falsifier whose id the ledger names
// (the block's may have been edited), and says nothing else that can be
// read as the record's (its statement, what judged it).
func trustLedger(r Run, e LedgerEntry) Run {
	r.Verdict = VerdictRefutes
	if e.FalsifierID != "" {
		r.FalsifierID = e.FalsifierID
	}
	r.Criterion, r.JudgedWith, r.Before = "", "", ""
	return r
}

// goneRun is the record of refuting run e whose block is gone from the
// note, as the ledger keeps it: it refutes, for the falsifier whose id
// the ledger names (else by the ledger's number), started when its id
// says, and states nothing else.
func goneRun(e LedgerEntry) Run {
	r := Run{ID: e.ID, Started: startedOf(e.ID), Verdict: VerdictRefutes, Exit: -1, Gone: true, Problem: "its block is gone from the note"}
	if IsBlockID(e.FalsifierID) {
		r.FalsifierID = e.FalsifierID
	}
	return r
}

// settle orders l's records oldest first (by start, then by place in the
// note) and reads what they say; rj judges a refuting run again for a
// supporting one judged by another criterion (answer); own are the ids
// of the runs the ledger places in the note (answer).
func (l *Latest) settle(rj *Rejudger, own map[string]bool) {
	l.own = own
	slices.SortStableFunc(l.Runs, func(a, b Run) int { return a.Started.Compare(b.Started) })
	for k, r := range l.Runs {
		l.Run = r
		if r.Rejudges == "" {
			l.Measured = r
		}
		switch {
		case r.Verdict == VerdictRefutes:
			l.Refuting, l.Unanswered = r, Answer{}
		case r.Verdict == VerdictSupports && r.Rejudges == "" && l.Refuting.ID != "":
			if a := l.answer(k, rj, own); a.Answers {
				l.Refuting, l.Unanswered = Run{}, Answer{}
			} else {
				l.Unanswered = a
			}
		}
	}
}

// IsBlockID says s can be an Obsidian block id: letters, digits and
// dashes, at most 64 of them.
func IsBlockID(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for _, c := range []byte(s) {
		if !isIDByte(c) {
			return false
		}
	}
	return true
}

// isIDByte says c may be in a block id (IsBlockID).
func isIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

// newFalsifierID makes a block id for a falsifier, "f-" and four random
// hex digits, that no block of the note uses; prefer, when free, is the
// id the falsifier's runs already carry (its item lost it).
func newFalsifierID(n *vault.Note, prefer string) (string, error) {
	taken := map[string]bool{}
	for _, b := range n.BlockIDs {
		taken[strings.ToLower(b.ID)] = true
	}
	if prefer != "" && !taken[strings.ToLower(prefer)] {
		return prefer, nil
	}
	for range 64 {
		var b [2]byte
		rand.Read(b[:])
		id := "f-" + hex.EncodeToString(b[:])
		if !taken[id] {
			return id, nil
		}
	}
	return "", fmt.Errorf("no free block id for a falsifier of %s", n.Path)
}

// IdentifyFalsifier gives the falsifier r tests an identity in src: the
// block id its item has, or a new one written at the end of the item's
// paragraph (its first run). It returns src with the id written, when
// one was, and r with FalsifierID set. The falsifier is found by r's
// falsifier id, else by the text r quotes, among src's falsifiers as they
// are now (the note may have changed since the run started); when it
// cannot be found, or an id cannot be written where Obsidian reads it,
// src and r are returned as they are, and the block is tied by its text;
// so are they for an item whose id another item shares (PickFalsifier
// refuses to run either).
func IdentifyFalsifier(src []byte, notePath string, r Run) ([]byte, Run) {
	if r.Falsifier == "" && r.FalsifierID == "" {
		return src, r
	}
	n := vault.NewParser().Parse(notePath, src)
	fs := Falsifiers(n)
	var hit []int
	for i, f := range fs {
		if r.FalsifierID != "" && f.ID == r.FalsifierID || r.FalsifierID == "" && oneLine(f.Text) == oneLine(r.Falsifier) {
			hit = append(hit, i)
		}
	}
	if len(hit) != 1 {
		return src, r
	}
	f := fs[hit[0]]
	if f.ID != "" {
		if sharedID(fs, f) == nil {
			r.FalsifierID = f.ID
		}
		return src, r
	}
	// The id this falsifier's runs carry, if its item lost it.
	prefer := ""
	for _, l := range LatestRunsOf(n, fs, nil, nil).Falsifiers {
		if l.Falsifier.N == f.N {
			for _, x := range l.Runs {
				if x.FalsifierID != "" {
					prefer = x.FalsifierID
				}
			}
		}
	}
	id, err := newFalsifierID(n, prefer)
	if err != nil {
		return src, r
	}
	at, ok := paragraphEnd(src, f)
	if !ok {
		return src, r
	}
	out := vault.SpliceBytes(src, at, at, " ^"+id)
	// Written only where Obsidian, and zk, read it back as this item's id.
	back := Falsifiers(vault.NewParser().Parse(notePath, out))
	if len(back) != len(fs) || back[f.N-1].ID != id || oneLine(back[f.N-1].Text) != oneLine(f.Text) {
		return src, r
	}
	r.FalsifierID = id
	return out, r
}

// sharedID returns another of fs with f's block id, or nil: a pasted
// copy of an item, whose id no longer tells the two apart.
func sharedID(fs []Falsifier, f Falsifier) *Falsifier {
	for i, g := range fs {
		if g.N != f.N && f.ID != "" && strings.EqualFold(g.ID, f.ID) {
			return &fs[i]
		}
	}
	return nil
}

// paragraphEnd is the offset after the last non-blank byte of the
// paragraph that starts falsifier f's item: its first line and the lines
// continuing it, up to a blank line, a nested item, a fence or the next
// item.
func paragraphEnd(src []byte, f Falsifier) (int, bool) {
	// starts[l] is where line l starts; a line ends at the next's start.
	starts := []int{0}
	for i, c := range src {
		if c == '\n' && i+1 < len(src) {
			starts = append(starts, i+1)
		}
	}
	line := func(l int) []byte {
		end := len(src)
		if l+1 < len(starts) {
			end = starts[l+1]
		}
		return src[starts[l]:end]
	}
	if f.Line < 0 || f.Line >= len(starts) {
		return 0, false
	}
	last := f.Line
	for l := f.Line + 1; l < len(starts); l++ {
		t := strings.TrimSpace(string(line(l)))
		if t == "" || startsBlock(t) {
			break
		}
		last = l
	}
	end := starts[last] + len(bytes.TrimRight(line(last), " \t\r\n"))
	return end, end > starts[last]
}

// startsBlock says a trimmed line starts something other than a
// paragraph's continuation: a list item, a fence, a quote, a heading.
func startsBlock(t string) bool {
	switch {
	case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "),
		t == "-", t == "*", t == "+",
		strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"),
		strings.HasPrefix(t, ">"), strings.HasPrefix(t, "#"), strings.HasPrefix(t, "<"):
		return true
	}
	i := 0
	for i < len(t) && i < 10 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i < len(t) && (t[i] == '.' || t[i] == ')')
}
