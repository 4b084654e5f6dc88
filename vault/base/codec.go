package base

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// A note's entry (File: its properties as Bases values, tags, links
// resolved, sizes and times) is cached in the model file, so that a base
// over an unchanged vault parses no note. The entries are written in a
// compact binary form, strings read back as slices of one string made of
// the whole section. What is read back is hostile input: a damaged or
// foreign section is an error, never a panic or an allocation larger
// than the bytes.

// codecMagic opens the encoding; another version is a miss.
const codecMagic = "zk-base-notes\x01"

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

// EncodeNotes is notes' entries (Snapshot.Notes) as bytes to cache. The
// entries hold values made under the snapshot's time zone and declared
// types, and links resolved against its files: the cache's key must
// hold the first two, its stamps the files.
func EncodeNotes(notes []*File) ([]byte, error) {
	e := &encoder{b: []byte(codecMagic)}
	e.uvarint(uint64(len(notes)))
	for _, f := range notes {
		e.str(f.Path)
		e.uvarint(uint64(f.Size))
		e.time(f.MTime)
		e.time(f.CTime)
		if f.noBirth {
			e.b = append(e.b, 1)
		} else {
			e.b = append(e.b, 0)
		}
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

func (e *encoder) str(s string) {
	e.uvarint(uint64(len(s)))
	e.b = append(e.b, s...)
}

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
// length, a size, two times of two varints, the birth flag, the counts of
// properties, tags, links and embeds.
const minEntry = 1 + 1 + 4 + 1 + 4

// errCorrupt is DecodeNotes' answer to bytes EncodeNotes did not write.
var errCorrupt = errors.New("base cache: not an entry file of this version, or damaged")

// DecodeNotes reads what EncodeNotes wrote, its times in loc (the zone
// they were encoded under); anything else (another version, torn or
// damaged bytes) is an error, never a panic. Each entry is checked whole,
// but its properties, tags and links are built when first read (load):
// most views read a few fields of every note, and building every note's
// map of properties was most of a decode.
func DecodeNotes(b []byte, loc *time.Location) ([]*File, error) {
	if len(b) < len(codecMagic) || string(b[:len(codecMagic)]) != codecMagic {
		return nil, errCorrupt
	}
	if loc == nil {
		loc = time.Local
	}
	d := &decoder{s: string(b), i: len(codecMagic), loc: loc, check: true}
	n := d.countOf(minEntry)
	files := make([]File, n) // one allocation for every entry
	out := make([]*File, n)
	for i := range files {
		f := &files[i]
		f.Path = d.str()
		f.Size = int64(d.uvarint())
		f.MTime = d.time()
		f.CTime = d.time()
		switch d.byte() {
		case 0:
		case 1:
			f.noBirth = true
		default:
			d.bad = true
		}
		at := d.i
		d.body(f)
		if d.bad {
			return nil, errCorrupt
		}
		f.body, f.bodyLoc = d.s[at:d.i], loc
		out[i] = f
	}
	if d.bad || d.i != len(d.s) {
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
	d := &decoder{s: f.body, loc: f.bodyLoc}
	f.body = ""
	d.body(f)
}

// body reads what encoder.body wrote into f; when d only checks, f is
// left as it is.
func (d *decoder) body(f *File) {
	k := d.count()
	if !d.check {
		f.Props = make(map[string]any, k)
	}
	for range k {
		key := d.str()
		v := d.value(0)
		if !d.check {
			f.Props[key] = v
		}
	}
	if k := d.count(); k > 0 && !d.check {
		f.Tags = make([]string, k)
		for j := range f.Tags {
			f.Tags[j] = d.str()
		}
	} else {
		for range k {
			d.str()
		}
	}
	links, embeds := d.links(), d.links()
	if !d.check {
		f.Links, f.Embeds = links, embeds
	}
}

// decoder reads from s; once a read runs past the end or finds what
// EncodeNotes never writes, bad is set and every read returns a zero
// value.
type decoder struct {
	s   string
	i   int
	bad bool
	loc *time.Location
	// check reads values without building them: DecodeNotes' pass over
	// every entry, which load's reads of one then repeat.
	check bool
}

func (d *decoder) uvarint() uint64 {
	if d.bad {
		return 0
	}
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if d.i >= len(d.s) {
			break
		}
		c := d.s[d.i]
		d.i++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.bad = true
	return 0
}

// varint reads what binary.AppendVarint wrote.
func (d *decoder) varint() int64 {
	u := d.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// count is a length that the rest of the input can hold (each item takes
// a byte at least), so that a damaged length cannot allocate without
// bound.
func (d *decoder) count() int { return d.countOf(1) }

// countOf is a count of items each written in size bytes at least.
func (d *decoder) countOf(size int) int {
	n := d.uvarint()
	if n > uint64((len(d.s)-d.i)/size) {
		d.bad = true
		return 0
	}
	return int(n)
}

func (d *decoder) str() string {
	n := d.count()
	if d.bad {
		return ""
	}
	s := d.s[d.i : d.i+n]
	d.i += n
	return s
}

func (d *decoder) byte() byte {
	if d.bad || d.i >= len(d.s) {
		d.bad = true
		return 0
	}
	c := d.s[d.i]
	d.i++
	return c
}

func (d *decoder) time() time.Time {
	sec, nsec := d.varint(), d.uvarint()
	if nsec >= 1e9 {
		d.bad = true
		return time.Time{}
	}
	return time.Unix(sec, int64(nsec)).In(d.loc)
}

func (d *decoder) links() []Link {
	n := d.countOf(3) // a tag, a text's length, a target's length
	if n == 0 {
		return nil
	}
	var out []Link
	if !d.check {
		out = make([]Link, n)
	}
	for i := range n {
		l, ok := d.link(d.byte())
		if !ok {
			d.bad = true
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
		l.Display = d.str()
	default:
		return l, false
	}
	l.Text = d.str()
	l.Target = d.str()
	return l, true
}

func (d *decoder) value(depth int) any {
	if depth > maxDepth+1 {
		d.bad = true
		return nil
	}
	switch tag := d.byte(); tag {
	case vNil:
		return nil
	case vString:
		s := d.str()
		if d.check {
			return nil
		}
		return s
	case vFloat:
		if d.bad || len(d.s)-d.i < 8 {
			d.bad = true
			return nil
		}
		v := binary.LittleEndian.Uint64([]byte(d.s[d.i : d.i+8]))
		d.i += 8
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
		t := d.str()
		if d.check {
			return nil
		}
		return Tag(t)
	case vList:
		n := d.count()
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
		n := d.count()
		if d.check {
			for range n {
				d.str()
				d.value(depth + 1)
			}
			return nil
		}
		out := make(map[string]any, n)
		for range n {
			k := d.str()
			out[k] = d.value(depth + 1)
		}
		return out
	}
	d.bad = true
	return nil
}
