package query

import (
	"context"
	"encoding/binary"
	"slices"
	"time"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
)

// Detail is what zk graph, zk backlinks and zk runs (without a note)
// keep of a note besides its record: its links resolved and its
// falsifiers' standing, each encoded as a record's cadence is and decoded
// only by the command that reads it. Details are cached apart from the
// records: they are three times their size, and a listing, which reads
// every record, reads none of them.
type Detail struct {
	Path              string
	edges, falsifiers string
}

// ReadDetail is n's detail; r resolves its links, ledger ties its run
// blocks recorded before falsifier ids (evidence.ReadLedger's entries for
// n), as zk check ties them, and rj judges a refuting run again when a
// later run supported the claim under another criterion (Options.Rejudge).
func ReadDetail(n *vault.Note, r *vault.Resolver, ledger []evidence.LedgerEntry, rj *evidence.Rejudger) Detail {
	return Detail{Path: n.Path, edges: encodeEdges(vault.NoteEdges(n, r)),
		falsifiers: encodeFalsifiers(falsifiersOf(evidence.LatestRuns(n, ledger, rj)))}
}

// ReadDetails is the detail of every note of a walk of the vault (Files),
// templates too; reuse and hashed are as ReadAll's. ledger is the run
// ledger by note path. A detail resolves the note's links, embeds and
// frontmatter links alone (NoteEdges): a few notes read again after an
// edit each get a resolver over the files those can name (resolveLinks).
func ReadDetails(ctx context.Context, v *vault.Vault, files []vault.File, ledger map[string][]evidence.LedgerEntry, rj *evidence.Rejudger,
	reuse func(path string) (Detail, bool), hashed func(*vault.Note)) ([]Detail, error) {
	return readEach(ctx, v, files, nil, resolveLinks, reuse, hashed, func(n *vault.Note, r *vault.Resolver) Detail {
		return ReadDetail(n, r, ledger[n.Path], rj)
	})
}

// detailMagic opens the encoding of details; another version is a miss.
const detailMagic = "zk-note-details\x01"

// EncodeDetails is details as bytes to cache.
func EncodeDetails(details []Detail) []byte {
	return encodeRecords(detailMagic, 3, details, func(d Detail) [3]string { return [3]string{d.Path, d.edges, d.falsifiers} })
}

// DecodeDetails reads what EncodeDetails wrote; anything else is an
// error, never a panic.
func DecodeDetails(b []byte) ([]Detail, error) { return DecodeDetailsText(string(b)) }

// DecodeDetailsText is DecodeDetails of the bytes as a string (see
// DecodeText).
func DecodeDetailsText(b string) ([]Detail, error) {
	return decodeRecords(b, detailMagic, 3, func(s [3]string) Detail { return Detail{Path: s[0], edges: s[1], falsifiers: s[2]} })
}

// Falsifier is one falsifier of a note as zk runs lists the vault's: its
// latest record's verdict (a standing refutation's first), or none.
type Falsifier struct {
	// N is its number in the note, 0 for one deleted since a refutation
	// that still stands.
	N        int
	ID, Text string
	// Criterion is the criterion as the note writes it now.
	Criterion string
	// Run, Started, Verdict and Statement are of the record shown
	// (evidence.Latest.Shown); Run is "" when there is none.
	Run       string
	Started   time.Time
	Verdict   evidence.Verdict
	Statement string
	// Changed says the criterion written now is not the one the latest
	// run was judged by (evidence.Latest.CriterionChanged): judging it
	// again reads the note and the run's log, which a record does not
	// keep.
	Changed bool
	// Flips is how its verdict alternates over its latest judged runs
	// under its criterion (evidence.Latest.Flips), kept when it is flaky
	// and zero otherwise: zk runs marks a flaky falsifier.
	Flips evidence.Flips
}

// FalsifierOf is l as a record keeps it.
func FalsifierOf(l evidence.Latest) Falsifier {
	f, r := l.Falsifier, l.Shown()
	stated := r.Criterion
	if stated == "" && r.Problem != "" {
		// A refutation the ledger keeps (its block gone or edited) has
		// no statement zk can trust: the row says what it rests on, not
		// a blank that reads as a run's record.
		stated = "as the ledger (" + evidence.LedgerFile + ") records it: " + r.Problem
	}
	return Falsifier{N: f.N, ID: f.ID, Text: f.Text, Criterion: f.Criterion, Run: r.ID, Started: r.Started,
		Verdict: r.Verdict, Statement: stated, Changed: l.CriterionChanged(), Flips: flakyFlips(l)}
}

// flakyFlips is l's Flips when they make it flaky, else zero: a record
// keeps them only then.
func flakyFlips(l evidence.Latest) evidence.Flips {
	if fl := l.Flips(); fl.Flaky() {
		return fl
	}
	return evidence.Flips{}
}

// falsifiersOf is every falsifier of a note's standing as zk runs lists
// it: each of the note's, then each deleted one whose refutation stands.
func falsifiersOf(st evidence.Standing) []Falsifier {
	var out []Falsifier
	for _, l := range st.Falsifiers {
		out = append(out, FalsifierOf(l))
	}
	for _, l := range st.Deleted {
		if l.Refuting.ID != "" {
			out = append(out, FalsifierOf(l))
		}
	}
	return out
}

// Edges are the note's links, embeds and frontmatter links, resolved
// (vault.NoteEdges); nil when the encoding is damaged.
func (n Detail) Edges() []vault.Edge {
	if out := n.AppendEdges(nil); len(out) > 0 {
		return out
	}
	return nil
}

// AppendEdges appends the note's edges (Edges) to dst: zk graph gathers
// every note's into one slice, not a slice per note copied again. A
// damaged encoding appends none.
func (n Detail) AppendEdges(dst []vault.Edge) []vault.Edge {
	if n.edges == "" {
		return dst
	}
	d := newDecoder(n.edges)
	k := d.Count(1)
	start := len(dst)
	dst = slices.Grow(dst, k)[:start+k]
	for i := range k {
		e := &dst[start+i]
		e.From = n.Path
		e.To, e.Link, e.Path = d.Str(), d.Str(), d.Str()
		e.Kind = vault.EdgeKind(d.Str())
		e.Line = int(d.Uvarint()) - 1
		e.Relation, e.Qualifier, e.Justification = d.Str(), d.Str(), d.Str()
		e.Key = d.Str()
	}
	if d.Bad() {
		return dst[:start]
	}
	return dst
}

// AppendEdgesTo appends the note's edges that resolve to the file at
// path to (Edges whose To is to): zk backlinks looks through every note's
// edges for the few into one, without a slice of each note's.
func (n Detail) AppendEdgesTo(dst []vault.Edge, to string) []vault.Edge {
	if n.edges == "" {
		return dst
	}
	d := newDecoder(n.edges)
	start := len(dst)
	for range d.Count(1) {
		if d.Str() != to {
			d.Str()
			d.Str()
			d.Str()
			d.Uvarint()
			d.Str()
			d.Str()
			d.Str()
			d.Str()
			continue
		}
		e := vault.Edge{From: n.Path, To: to}
		e.Link, e.Path = d.Str(), d.Str()
		e.Kind = vault.EdgeKind(d.Str())
		e.Line = int(d.Uvarint()) - 1
		e.Relation, e.Qualifier, e.Justification = d.Str(), d.Str(), d.Str()
		e.Key = d.Str()
		dst = append(dst, e)
	}
	if d.Bad() {
		return dst[:start]
	}
	return dst
}

// FalsifierCount is how many falsifiers the note has (Falsifiers),
// without decoding them; 0 when the encoding is damaged.
func (n Detail) FalsifierCount() int { return countFalsifiers(n.falsifiers) }

func countFalsifiers(s string) int {
	if s == "" {
		return 0
	}
	d := newDecoder(s)
	return d.Count(1)
}

// EdgeCount is how many edges the note has (Edges), without decoding
// them; 0 when the encoding is damaged.
func (n Detail) EdgeCount() int {
	if n.edges == "" {
		return 0
	}
	d := newDecoder(n.edges)
	return d.Count(1)
}

func encodeEdges(edges []vault.Edge) string {
	if len(edges) == 0 {
		return ""
	}
	size := binary.MaxVarintLen64 // sized once, not grown edge by edge
	for _, x := range edges {
		size += 8*binary.MaxVarintLen64 + len(x.To) + len(x.Link) + len(x.Path) + len(x.Kind) + len(x.Relation) + len(x.Qualifier) + len(x.Justification) + len(x.Key)
	}
	e := &encoder{b: make([]byte, 0, size)}
	e.uvarint(uint64(len(edges)))
	for _, x := range edges {
		e.str(x.To)
		e.str(x.Link)
		e.str(x.Path)
		e.str(string(x.Kind))
		e.uvarint(uint64(x.Line + 1)) // -1: a frontmatter link
		e.str(x.Relation)
		e.str(x.Qualifier)
		e.str(x.Justification)
		e.str(x.Key)
	}
	return string(e.b)
}

// Falsifiers are the note's falsifiers as zk runs lists the vault's.
func (n Detail) Falsifiers() []Falsifier { return decodeFalsifiers(n.falsifiers) }

// decodeFalsifiers reads what encodeFalsifiers wrote; nil when it is
// damaged.
func decodeFalsifiers(s string) []Falsifier {
	if out := appendFalsifiers(nil, s); len(out) > 0 {
		return out
	}
	return nil
}

// appendFalsifiers appends what encodeFalsifiers wrote to dst (nil and
// none appended for ""); dst as it was when it is damaged.
func appendFalsifiers(dst []Falsifier, s string) []Falsifier {
	if s == "" {
		return dst
	}
	d := newDecoder(s)
	n := d.Count(1)
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	for i := range n {
		// dst may be a slice reused for note after note (zk runs): what
		// is not decoded (a steady falsifier's Flips) must not be the
		// last note's.
		f := &dst[start+i]
		*f = Falsifier{}
		f.N = int(d.Uvarint())
		f.ID, f.Text, f.Criterion, f.Run = d.Str(), d.Str(), d.Str(), d.Str()
		f.Started = d.time(time.UTC)
		f.Verdict = evidence.Verdict(d.Str())
		f.Statement = d.Str()
		flags := d.Byte()
		f.Changed = flags&flagChanged != 0
		if flags&flagFlaky != 0 {
			f.Flips.Runs, f.Flips.Refutes, f.Flips.Supports, f.Flips.Flips = int(d.Uvarint()), int(d.Uvarint()), int(d.Uvarint()), int(d.Uvarint())
		}
	}
	if d.Bad() {
		return dst[:start]
	}
	return dst
}

// A falsifier's flags, one byte of its record: its criterion changed
// (Changed), and it is flaky, its Flips following.
const (
	flagChanged byte = 1 << iota
	flagFlaky
)

func encodeFalsifiers(fs []Falsifier) string {
	if len(fs) == 0 {
		return ""
	}
	e := &encoder{}
	e.uvarint(uint64(len(fs)))
	for _, f := range fs {
		e.uvarint(uint64(f.N))
		e.str(f.ID)
		e.str(f.Text)
		e.str(f.Criterion)
		e.str(f.Run)
		e.time(f.Started)
		e.str(string(f.Verdict))
		e.str(f.Statement)
		flags := byte(0)
		if f.Changed {
			flags |= flagChanged
		}
		if f.Flips.Flaky() {
			flags |= flagFlaky
		}
		e.b = append(e.b, flags)
		if flags&flagFlaky != 0 {
			for _, n := range []int{f.Flips.Runs, f.Flips.Refutes, f.Flips.Supports, f.Flips.Flips} {
				e.uvarint(uint64(n))
			}
		}
	}
	return string(e.b)
}

// Runs is what zk runs (without a note) keeps of a note: its falsifiers'
// standing alone (Detail's, without the links), in a cache section of
// its own, so that listing the vault's verdicts reads a quarter of the
// bytes the details are (2.9 of 11 MB at 10,000 notes).
type Runs struct {
	Path       string
	falsifiers string
}

// ReadRuns is what zk runs keeps of every note of a walk of the vault
// (Files), templates too, as ReadDetails reads their details; reuse,
// hashed and ledger are as ReadDetails'.
func ReadRuns(ctx context.Context, v *vault.Vault, files []vault.File, ledger map[string][]evidence.LedgerEntry, rj *evidence.Rejudger,
	reuse func(path string) (Runs, bool), hashed func(*vault.Note)) ([]Runs, error) {
	return readEach(ctx, v, files, nil, resolveNone, reuse, hashed, func(n *vault.Note, _ *vault.Resolver) Runs {
		return ReadRun(n, ledger[n.Path], rj)
	})
}

// ReadRun is what zk runs keeps of n; ledger and rj are as ReadDetail's.
func ReadRun(n *vault.Note, ledger []evidence.LedgerEntry, rj *evidence.Rejudger) Runs {
	return Runs{Path: n.Path, falsifiers: encodeFalsifiers(falsifiersOf(evidence.LatestRuns(n, ledger, rj)))}
}

// Falsifiers are the note's falsifiers as zk runs lists the vault's
// (Detail.Falsifiers).
func (r Runs) Falsifiers() []Falsifier { return decodeFalsifiers(r.falsifiers) }

// AppendFalsifiers appends the note's falsifiers (Falsifiers) to dst:
// zk runs decodes every note's into one slice it reuses, not a slice per
// note. A damaged encoding appends none.
func (r Runs) AppendFalsifiers(dst []Falsifier) []Falsifier {
	return appendFalsifiers(dst, r.falsifiers)
}

// FalsifierCount is how many falsifiers the note has, without decoding
// them; 0 when the encoding is damaged.
func (r Runs) FalsifierCount() int { return countFalsifiers(r.falsifiers) }

// runsMagic opens the encoding of Runs; another version is a miss.
const runsMagic = "zk-note-runs\x01"

// EncodeRuns is runs as bytes to cache.
func EncodeRuns(runs []Runs) []byte {
	return encodeRecords(runsMagic, 2, runs, func(r Runs) [3]string { return [3]string{r.Path, r.falsifiers} })
}

// DecodeRuns reads what EncodeRuns wrote; anything else is an error,
// never a panic.
func DecodeRuns(b []byte) ([]Runs, error) { return DecodeRunsText(string(b)) }

// DecodeRunsText is DecodeRuns of the bytes as a string (see DecodeText).
func DecodeRunsText(b string) ([]Runs, error) {
	return decodeRecords(b, runsMagic, 2, func(s [3]string) Runs { return Runs{Path: s[0], falsifiers: s[1]} })
}
