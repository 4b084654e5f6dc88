package base

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/internal/hugepage"
)

// A note's entry (File: its properties as Bases values, tags, links
// resolved, sizes and times) is cached in the model file, so that a base
// over an unchanged vault parses no note. The entries are written in a
// compact binary form, strings read back as slices of one string made of
// the whole section. What is read back is hostile input: a damaged or
// foreign section is an error, never a panic or an allocation larger
// than the bytes.

// codecMagic opens the encoding; another version is a miss. Version 1
// kept each file's size, times and birth flag, which the walk gives
// (Read) and a reused entry never used.
const codecMagic = "zk-base-notes\x02"

// Value tags.
const (
	vNil byte = iota
	vString
	vFloat
	vTrue
	vFalse
	vDate
	vDateTime
	vLink
	vLinkDisplay
	vTag
	vList
	vMap
)

// EncodeNotes is notes' entries (Snapshot.Notes) as bytes to cache:
// each note's path, properties, tags and links, not its size and times,
// which Read takes from the walk. The entries hold values made under the
// snapshot's time zone and declared types, and links resolved against
// its files: the cache's key must hold the first two, its stamps the
// files.
func EncodeNotes(notes []*File) ([]byte, error) {
	e := &encoder{b: []byte(codecMagic)}
	e.uvarint(uint64(len(notes)))
	for _, f := range notes {
		e.str(f.Path)
		if f.body != "" { // decoded from a cache and not read since: as it was
			e.b = append(e.b, f.body...)
			continue
		}
		if err := e.body(f); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, err)
		}
	}
	return e.b, nil
}

// body writes a note's properties, tags, links and embeds.
func (e *encoder) body(f *File) error {
	keys := make([]string, 0, len(f.Props))
	for k := range f.Props {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same bytes for the same entries
	e.uvarint(uint64(len(keys)))
	for _, k := range keys {
		e.str(k)
		if err := e.value(f.Props[k], 0); err != nil {
			return fmt.Errorf("property %q: %w", k, err)
		}
	}
	e.uvarint(uint64(len(f.Tags)))
	for _, t := range f.Tags {
		e.str(t)
	}
	for _, ls := range [][]Link{f.Links, f.Embeds} {
		e.uvarint(uint64(len(ls)))
		for _, l := range ls {
			if err := e.link(l); err != nil {
				return err
			}
		}
	}
	return nil
}

type encoder struct{ b []byte }

func (e *encoder) uvarint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }

func (e *encoder) str(s string) { e.b = cachecodec.AppendStr(e.b, s) }

// time writes an instant (its location is the snapshot's, given again to
// DecodeNotes): seconds, then nanoseconds.
func (e *encoder) time(t time.Time) {
	e.b = binary.AppendVarint(e.b, t.Unix())
	e.uvarint(uint64(t.Nanosecond()))
}

func (e *encoder) link(l Link) error {
	switch d := l.Display.(type) {
	case nil:
		e.b = append(e.b, vLink)
	case string:
		e.b = append(e.b, vLinkDisplay)
		e.str(d)
	default:
		return fmt.Errorf("a link's display of type %T", l.Display)
	}
	e.str(l.Text)
	e.str(l.Target)
	return nil
}

func (e *encoder) value(v any, depth int) error {
	if depth > maxDepth+1 {
		return errors.New("nested too deep")
	}
	switch x := v.(type) {
	case nil:
		e.b = append(e.b, vNil)
	case string:
		e.b = append(e.b, vString)
		e.str(x)
	case float64:
		e.b = append(e.b, vFloat)
		e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x))
	case bool:
		if x {
			e.b = append(e.b, vTrue)
		} else {
			e.b = append(e.b, vFalse)
		}
	case Date:
		if x.HasTime {
			e.b = append(e.b, vDateTime)
		} else {
			e.b = append(e.b, vDate)
		}
		e.time(x.T)
	case Link:
		return e.link(x)
	case Tag:
		e.b = append(e.b, vTag)
		e.str(string(x))
	case []any:
		e.b = append(e.b, vList)
		e.uvarint(uint64(len(x)))
		for _, el := range x {
			if err := e.value(el, depth+1); err != nil {
				return err
			}
		}
	case map[string]any:
		e.b = append(e.b, vMap)
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

// minEntry is the fewest bytes an entry is written in: a path's
// length, the counts of properties, tags, links and embeds.
const minEntry = 1 + 4

// errCorrupt is DecodeNotes' answer to bytes EncodeNotes did not write.
var errCorrupt = errors.New("base cache: not an entry file of this version, or damaged")

// DecodeNotes reads what EncodeNotes wrote, its times in loc (the zone
// they were encoded under); anything else (another version, torn or
// damaged bytes) is an error, never a panic. Each entry is checked whole,
// but its properties, tags and links are built when first read (load):
// most views read a few fields of every note, and building every note's
// map of properties was most of a decode.
func DecodeNotes(b []byte, loc *time.Location) ([]*File, error) {
	return DecodeNotesText(string(b), loc)
}

// DecodeNotesText is DecodeNotes of the bytes as a string, every string
// decoded a slice of it: a caller whose bytes are never written after
// (the model file's section) passes them without a copy of them all.
func DecodeNotesText(b string, loc *time.Location) ([]*File, error) {
	if len(b) < len(codecMagic) || b[:len(codecMagic)] != codecMagic {
		return nil, errCorrupt
	}
	if loc == nil {
		loc = time.Local
	}
	d := &decoder{Reader: cachecodec.NewReader(b), loc: loc, check: true}
	d.Take(len(codecMagic))
	n := d.Count(minEntry)
	// One allocation for every entry (19 MB at 100,000 notes), in huge
	// pages: faulted in 4 KiB at a time it cost more than the decode.
	files := hugepage.Make[File](n)
	out := make([]*File, n)
	for i := range files {
		f := &files[i]
		f.Path = d.Str()
		at := d.Off()
		d.body(f)
		if d.Bad() {
			return nil, errCorrupt
		}
		f.body, f.bodyLoc = b[at:d.Off()], loc
		out[i] = f
	}
	if !d.Done() {
		return nil, errCorrupt
	}
	return out, nil
}

// load builds the properties, tags and links of an entry DecodeNotes
// left encoded; DecodeNotes checked them, so the same reads cannot fail.
// Every reader of those fields in this package calls it first.
func (f *File) load() {
	if f.body == "" {
		return
	}
	d := &decoder{Reader: cachecodec.NewReader(f.body), loc: f.bodyLoc}
	f.body = ""
	d.body(f)
}

// body reads what encoder.body wrote into f; when d only checks, f is
// left as it is.
func (d *decoder) body(f *File) {
	k := d.Count(1)
	if !d.check {
		f.Props = make(map[string]any, k)
	}
	for range k {
		key := d.Str()
		v := d.value(0)
		if !d.check {
			f.Props[key] = v
		}
	}
	if k := d.Count(1); k > 0 && !d.check {
		f.Tags = make([]string, k)
		for j := range f.Tags {
			f.Tags[j] = d.Str()
		}
	} else {
		for range k {
			d.Str()
		}
	}
	links, embeds := d.links(), d.links()
	if !d.check {
		f.Links, f.Embeds = links, embeds
	}
}

// decoder reads an encoding; once a read runs past the end or finds
// what EncodeNotes never writes, it is bad and every read returns a zero
// value.
type decoder struct {
	cachecodec.Reader[string]
	loc *time.Location
	// check reads values without building them: DecodeNotes' pass over
	// every entry, which load's reads of one then repeat.
	check bool
}

func (d *decoder) time() time.Time {
	sec, nsec := d.Varint(), d.Uvarint()
	if nsec >= 1e9 {
		d.Fail()
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).In(d.loc)
}

func (d *decoder) links() []Link {
	n := d.Count(3) // a tag, a text's length, a target's length
	if n == 0 {
		return nil
	}
	var out []Link
	if !d.check {
		out = make([]Link, n)
	}
	for i := range n {
		l, ok := d.link(d.Byte())
		if !ok {
			d.Fail()
			return nil
		}
		if !d.check {
			out[i] = l
		}
	}
	return out
}

// link reads a link after its tag; ok false for a tag not a link's.
func (d *decoder) link(tag byte) (Link, bool) {
	var l Link
	switch tag {
	case vLink:
	case vLinkDisplay:
		l.Display = d.Str()
	default:
		return l, false
	}
	l.Text = d.Str()
	l.Target = d.Str()
	return l, true
}

func (d *decoder) value(depth int) any {
	if depth > maxDepth+1 {
		d.Fail()
		return nil
	}
	switch tag := d.Byte(); tag {
	case vNil:
		return nil
	case vString:
		s := d.Str()
		if d.check {
			return nil
		}
		return s
	case vFloat:
		v := d.Uint64()
		if d.check {
			return nil
		}
		return math.Float64frombits(v)
	case vTrue:
		return true
	case vFalse:
		return false
	case vDate, vDateTime:
		t := d.time()
		if d.check {
			return nil
		}
		return Date{T: t, HasTime: tag == vDateTime}
	case vLink, vLinkDisplay:
		l, _ := d.link(tag)
		if d.check {
			return nil
		}
		return l
	case vTag:
		t := d.Str()
		if d.check {
			return nil
		}
		return Tag(t)
	case vList:
		n := d.Count(1)
		if d.check {
			for range n {
				d.value(depth + 1)
			}
			return nil
		}
		out := make([]any, 0, n)
		for range n {
			out = append(out, d.value(depth+1))
		}
		return out
	case vMap:
		n := d.Count(1)
		if d.check {
			for range n {
				d.Str()
				d.value(depth + 1)
			}
			return nil
		}
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
