package query

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/tending"
)

// The cache of zk list holds every note's record; reading it is most of
// what a listing of an unchanged vault costs. encoding/json took 85% of
// that time at 10k notes, so the records are written in a compact binary
// form instead: strings as a length and their bytes, read back as slices
// of one string made of the whole file (one allocation for every path,
// tag and value), numbers as fixed-size integers.

// codecMagic opens the encoding; another version is a miss.
const codecMagic = "zk-list-records\x02"

// Value tags.
const (
	tagNil byte = iota
	tagString
	tagInt
	tagFloat
	tagTrue
	tagFalse
	tagList
	tagMap
)

// maxDepth bounds the nesting of a decoded value, as the frontmatter
// decoder bounds it, so that a damaged file cannot exhaust the stack.
const maxDepth = 128

// Encode is notes read with every Need, as bytes to cache: a later run on
// the unchanged vault decodes them instead of parsing every note again.
func Encode(notes []Note) ([]byte, error) {
	e := &encoder{b: []byte(codecMagic)}
	e.uvarint(uint64(len(notes)))
	for _, n := range notes {
		if n.raw != "" { // read in place (DecodeTextBrief): as it was read
			e.b = append(e.b, n.raw...)
			continue
		}
		e.str(n.Path)
		e.str(n.Name)
		e.time(n.ModTime)
		e.str(n.Type)
		keys := make([]string, 0, len(n.Properties))
		for k := range n.Properties {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the same bytes for the same records
		e.uvarint(uint64(len(keys)))
		for _, k := range keys {
			e.str(k)
			if err := e.value(n.Properties[k], 0); err != nil {
				return nil, fmt.Errorf("%s: property %q: %w", n.Path, k, err)
			}
		}
		e.strs(n.Tags)
		e.strs(n.Links)
		e.time(n.Tended)
		e.time(n.Due)
		e.strs(n.Verdicts)
		e.str(n.cadence)
	}
	return e.b, nil
}

// Cadence flags.
const (
	cadTyped byte = 1 << iota
	cadDated
	cadErr
	cadProblem
	cadUnreadKey
)

// encodeCadence is what zk stale needs of a note, as a record keeps it
// (its path is the record's).
func encodeCadence(c tending.Cadence) string {
	e := &encoder{}
	e.cadence(c)
	return string(e.b)
}

// Cadence is what the note says of its tending (tending.CadenceOf), for
// zk stale (tending.StaleFrom); the zero Cadence for a record read without
// NeedTending.
func (n Note) Cadence() tending.Cadence {
	if n.cadence == "" {
		return tending.Cadence{Path: n.Path}
	}
	d := newDecoder(n.cadence)
	return d.cadence(n.Path)
}

func (e *encoder) cadence(c tending.Cadence) {
	var flags byte
	if c.Typed {
		flags |= cadTyped
	}
	if c.Dated {
		flags |= cadDated
	}
	if c.Tended.Err != nil {
		flags |= cadErr
	}
	if c.Problem != nil {
		flags |= cadProblem
	}
	if c.UnreadKey != "" {
		flags |= cadUnreadKey
	}
	e.b = append(e.b, flags)
	if c.Dated {
		t := c.Tended
		e.str(string(t.Source))
		e.str(t.Key)
		e.str(t.Raw)
		e.time(t.Date)
		e.uvarint(uint64(t.Start))
		e.uvarint(uint64(t.End))
		e.uvarint(uint64(t.Line))
		if t.Err != nil {
			e.str(t.Err.Error())
		}
	}
	e.uvarint(uint64(c.Interval.N))
	e.b = append(e.b, c.Interval.Unit)
	e.str(string(c.Source))
	if c.Problem != nil {
		e.uvarint(uint64(c.Problem.Line + 1)) // -1: not known
		e.str(c.Problem.Message)
	}
	if c.UnreadKey != "" {
		e.str(c.UnreadKey)
	}
}

type encoder struct{ b []byte }

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }

func (e *encoder) str(s string) { e.b = cachecodec.AppendStr(e.b, s) }

func (e *encoder) strs(ss []string) { e.b = cachecodec.AppendStrs(e.b, ss) }

// time writes a zero time as one 0, any other as 1 and its Unix
// nanoseconds.
func (e *encoder) time(t time.Time) {
	if t.IsZero() {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.b = binary.LittleEndian.AppendUint64(e.b, uint64(t.UnixNano()))
}

func (e *encoder) value(v any, depth int) error {
	if depth > maxDepth {
		return errors.New("nested too deep")
	}
	switch x := v.(type) {
	case nil:
		e.b = append(e.b, tagNil)
	case string:
		e.b = append(e.b, tagString)
		e.str(x)
	case int64:
		e.b = append(e.b, tagInt)
		e.b = binary.LittleEndian.AppendUint64(e.b, uint64(x))
	case float64:
		e.b = append(e.b, tagFloat)
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x))
	case bool:
		if x {
			e.b = append(e.b, tagTrue)
		} else {
			e.b = append(e.b, tagFalse)
		}
	case []any:
		e.b = append(e.b, tagList)
		e.uvarint(uint64(len(x)))
		for _, el := range x {
			if err := e.value(el, depth+1); err != nil {
				return err
			}
		}
	case map[string]any:
		e.b = append(e.b, tagMap)
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		e.uvarint(uint64(len(keys)))
		for _, k := range keys {
			e.str(k)
			if err := e.value(x[k], depth+1); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("a value of type %T", v)
	}
	return nil
}

// errCorrupt is Decode's answer to bytes Encode did not write.
var errCorrupt = errors.New("list cache: not a record file of this version, or damaged")

// minRecord is the fewest bytes a record takes: eleven fields of a byte
// at least (an empty string, list or map, a zero time).
const minRecord = 11

// Decode reads what Encode wrote; anything else (another version, a torn
// or damaged file) is an error, never a panic.
func Decode(b []byte) ([]Note, error) { return DecodeText(string(b)) }

// DecodeText is Decode of the bytes as a string, which every string
// decoded is a slice of: a caller holding the bytes as a string already
// (a cache section read) spares a copy of them all.
func DecodeText(b string) ([]Note, error) { return decodeText(b, false) }

// DecodeTextBrief is DecodeText of each record's path and type alone, for
// a query that reads nothing else of a record (Query.Brief): every other
// field is read over, as bounded as DecodeText reads it, without a value
// made of it (10,000 records' tags, links and dates were most of an
// unchanged zk list's decoding). Each record keeps its bytes, which
// Encode writes back as they are.
func DecodeTextBrief(b string) ([]Note, error) { return decodeText(b, true) }

// DecodeBrief is DecodeTextBrief of bytes.
func DecodeBrief(b []byte) ([]Note, error) { return decodeText(string(b), true) }

func decodeText(b string, brief bool) ([]Note, error) {
	if len(b) < len(codecMagic) || b[:len(codecMagic)] != codecMagic {
		return nil, errCorrupt
	}
	rest := b[len(codecMagic):]
	d := newDecoder(rest)
	n := d.Count(minRecord)
	if d.Bad() {
		return nil, errCorrupt // more records than the bytes can hold
	}
	notes := make([]Note, n) // each decoded in place: a Note is some 200 bytes
	for i := range notes {
		r := &notes[i]
		if brief {
			start := d.Off()
			r.Path = d.Str()
			d.Str() // name
			d.skipTime()
			r.Type = d.Str()
			for range d.Count(1) {
				d.Str()
				d.skipValue(0)
			}
			for range 2 { // tags, links
				for range d.Count(1) {
					d.Str()
				}
			}
			d.skipTime()
			d.skipTime()
			for range d.Count(1) { // verdicts
				d.Str()
			}
			d.Str() // cadence
			if d.Bad() {
				return nil, errCorrupt
			}
			r.raw = rest[start:d.Off()]
			continue
		}
		r.Path = d.Str()
		r.Name = d.Str()
		r.ModTime = d.time(time.Local)
		r.Type = d.Str()
		if k := d.Count(1); k > 0 {
			r.Properties = make(map[string]any, k)
			for range k {
				key := d.Str()
				r.Properties[key] = d.value(0)
			}
		}
		r.Tags = d.Strs()
		r.Links = d.Strs()
		r.Tended = d.time(time.UTC)
		r.Due = d.time(time.UTC)
		r.Verdicts = d.Strs()
		r.cadence = d.Str()
		if d.Bad() {
			return nil, errCorrupt
		}
	}
	if !d.Done() {
		return nil, errCorrupt
	}
	return notes, nil
}

// cadence reads what encoder.cadence wrote, for the note at path.
func (d *decoder) cadence(path string) tending.Cadence {
	flags := d.Byte()
	c := tending.Cadence{Path: path, Typed: flags&cadTyped != 0, Dated: flags&cadDated != 0}
	if c.Dated {
		t := &c.Tended
		t.Source = tending.TendedSource(d.Str())
		t.Key = d.Str()
		t.Raw = d.Str()
		t.Date = d.time(time.UTC)
		t.Start, t.End, t.Line = int(d.Uvarint()), int(d.Uvarint()), int(d.Uvarint())
		if flags&cadErr != 0 {
			t.Err = errors.New(d.Str())
		}
	}
	c.Interval.N = int(d.Uvarint())
	c.Interval.Unit = d.Byte()
	c.Source = tending.IntervalSource(d.Str())
	if flags&cadProblem != 0 {
		c.Problem = &tending.StaleProblem{Path: path, Line: int(d.Uvarint()) - 1, Message: d.Str()}
	}
	if flags&cadUnreadKey != 0 {
		c.UnreadKey = d.Str()
	}
	return c
}

// encodeRecords is recs as bytes to cache: magic, their count, then each
// record's first k strings (fields gives them, k of 3 at most) in order.
// Sized once: 12 MB of details at 10,000 notes, which growing by
// doubling copied about twice over on every first zk graph, runs or
// backlinks.
func encodeRecords[T any](magic string, k int, recs []T, fields func(T) [3]string) []byte {
	size := len(magic) + binary.MaxVarintLen64
	for _, r := range recs {
		f := fields(r)
		for _, s := range f[:k] {
			size += binary.MaxVarintLen64 + len(s)
		}
	}
	e := &encoder{b: append(make([]byte, 0, size), magic...)}
	e.uvarint(uint64(len(recs)))
	for _, r := range recs {
		f := fields(r)
		for _, s := range f[:k] {
			e.str(s)
		}
	}
	return e.b
}

// decodeRecords reads what encodeRecords wrote (k strings a record),
// each record's strings slices of b made into a T by build; anything else
// is an error, never a panic or an allocation larger than b.
func decodeRecords[T any](b, magic string, k int, build func([3]string) T) ([]T, error) {
	if len(b) < len(magic) || b[:len(magic)] != magic {
		return nil, errCorrupt
	}
	d := newDecoder(b[len(magic):])
	n := d.Count(k) // a length a string at the least
	if d.Bad() {
		return nil, errCorrupt
	}
	out := make([]T, n)
	var s [3]string
	for i := range out {
		for j := range k {
			s[j] = d.Str()
		}
		out[i] = build(s)
	}
	if !d.Done() {
		return nil, errCorrupt
	}
	return out, nil
}

// decoder reads an encoding; once a read runs past the end or finds
// what Encode never writes, it is bad and every read returns a zero
// value.
type decoder struct{ cachecodec.Reader[string] }

func newDecoder(s string) *decoder { return &decoder{cachecodec.NewReader(s)} }

func (d *decoder) time(loc *time.Location) time.Time {
	switch d.Byte() {
	case 0:
		return time.Time{}
	case 1:
		return time.Unix(0, int64(d.Uint64())).In(loc)
	}
	d.Fail()
	return time.Time{}
}

// skipTime reads over what time reads.
func (d *decoder) skipTime() {
	switch d.Byte() {
	case 0:
	case 1:
		d.Uint64()
	default:
		d.Fail()
	}
}

// skipValue reads over what value reads, as bounded, making nothing.
func (d *decoder) skipValue(depth int) {
	if depth > maxDepth {
		d.Fail()
		return
	}
	switch d.Byte() {
	case tagNil, tagTrue, tagFalse:
	case tagString:
		d.Str()
	case tagInt, tagFloat:
		d.Uint64()
	case tagList:
		for range d.Count(1) {
			d.skipValue(depth + 1)
		}
	case tagMap:
		for range d.Count(1) {
			d.Str()
			d.skipValue(depth + 1)
		}
	default:
		d.Fail()
	}
}

func (d *decoder) value(depth int) any {
	if depth > maxDepth {
		d.Fail()
		return nil
	}
	switch d.Byte() {
	case tagNil:
		return nil
	case tagString:
		return d.Str()
	case tagInt:
		return int64(d.Uint64())
	case tagFloat:
		return math.Float64frombits(d.Uint64())
	case tagTrue:
		return true
	case tagFalse:
		return false
	case tagList:
		n := d.Count(1)
		out := make([]any, 0, n)
		for range n {
			out = append(out, d.value(depth+1))
		}
		return out
	case tagMap:
		n := d.Count(1)
		out := make(map[string]any, n)
		for range n {
			k := d.Str()
			out[k] = d.value(depth + 1)
		}
		return out
	}
	d.Fail()
	return nil
}

// ReadAll reads every note of a walk of the vault (Files) with every
// Need, for a cache: the records any query can be answered from (Filter).
// reuse, when set, gives the record of a note that has not changed since
// it was cached, and that note is not read again; hashed, when set, sees
// the source of each note read, from several goroutines at once. Notes
// that cannot be read are left out. Records are in walk order.
func ReadAll(ctx context.Context, v *vault.Vault, files []vault.File, opts Options,
	reuse func(path string) (Note, bool), hashed func(*vault.Note)) ([]Note, error) {
	return readEach(ctx, v, files, opts.Skip, resolveLinks, reuse, hashed, func(n *vault.Note, r *vault.Resolver) Note { return ReadRecord(n, r, opts) })
}

// ReadEach is what read makes of every note of files, its links resolved
// as ReadAll resolves them, reusing what reuse gives; see ReadAll. It is
// the read of a reader whose entries are not one of this package's.
func ReadEach[T any](ctx context.Context, v *vault.Vault, files []vault.File,
	reuse func(path string) (T, bool), hashed func(*vault.Note), read func(*vault.Note, *vault.Resolver) T) ([]T, error) {
	return readEach(ctx, v, files, nil, resolveLinks, reuse, hashed, read)
}

// ReadRecord is n's record as ReadAll reads it, every Need met: what a
// cache keeps of it.
func ReadRecord(n *vault.Note, r *vault.Resolver, opts Options) Note {
	opts.Need = NeedLinks | NeedTending | NeedVerdicts
	return Read(n, r, opts)
}

// resolving says what a reader's read resolves of a note, and so what
// resolver readEach gives it.
type resolving int

const (
	// resolveNone: nothing; read is given no resolver.
	resolveNone resolving = iota
	// resolveLinks: the note's links, embeds and frontmatter links alone
	// (LinkedFiles, NoteEdges: a Links entry is one of the note's links).
	// A few notes read again after an edit each get a resolver over the
	// files those can name (vault.ResolverFor: one pass over the paths,
	// which resolves them as an index of every file does), not an index
	// of every file (most of what reading one note again cost at 10,000
	// notes); more share one index of every file.
	resolveLinks
)

// fewNotes is the most notes read again that readEach gives a resolver
// each (resolveLinks): past it, one index of every file costs less.
const fewNotes = 8

// linkPaths are what the note's links, embeds and frontmatter links name,
// as LinkedFiles resolves them.
func linkPaths(n *vault.Note) []string {
	var out []string
	for l := range n.GraphLinks() {
		out = append(out, l.Path)
	}
	return out
}

// readEach is what read makes of every note of files but those skip
// leaves out, reusing what reuse gives; see ReadAll.
func readEach[T any](ctx context.Context, v *vault.Vault, files []vault.File, skip func(string) bool, resolving resolving,
	reuse func(path string) (T, bool), hashed func(*vault.Note), read func(*vault.Note, *vault.Resolver) T) ([]T, error) {
	// The notes by index into files, not a copy of each note's File and a
	// slice of every path: a vault whose entries are all reused needs
	// neither (800 KB less memory to fault in at 10,000 notes).
	notes := make([]int32, 0, len(files))
	for i, f := range files {
		if f.IsNote() && (skip == nil || !skip(f.Path)) {
			notes = append(notes, int32(i))
		}
	}
	kept, have := make([]T, len(notes)), make([]bool, len(notes))
	var stale []int // indexes into notes of those to read
	for i, fi := range notes {
		if reuse != nil {
			if kept[i], have[i] = reuse(files[fi].Path); have[i] {
				continue
			}
		}
		stale = append(stale, i)
	}
	if len(stale) > 0 {
		var (
			paths []string
			r     *vault.Resolver
		)
		switch {
		case resolving == resolveNone:
		case resolving == resolveLinks && len(stale) <= fewNotes:
			paths = vault.Paths(files) // a resolver for each note, below
		default:
			paths = vault.Paths(files)
			r = vault.NewResolver(paths)
		}
		toRead := make([]vault.File, len(stale))
		for k, i := range stale {
			toRead[k] = files[notes[i]]
		}
		v.Each(ctx, toRead, func(k int, n *vault.Note) {
			res := r
			if res == nil && paths != nil {
				res = vault.ResolverFor(paths, n.Path, linkPaths(n))
			}
			kept[stale[k]], have[stale[k]] = read(n, res), true
			if hashed != nil {
				hashed(n)
			}
		})
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	out := kept[:0] // in place: notes that cannot be read are left out
	for i := range kept {
		if have[i] {
			out = append(out, kept[i])
		}
	}
	return out, nil
}
