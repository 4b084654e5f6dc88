package checkcache

import (
	"encoding/binary"
	"errors"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
)

// A check's result is cached as its findings (EncodeFindings) followed
// by every note's state (lint.NoteState), so that after an edit only the
// notes it can change are checked again (lint.Recheck). The findings come
// first, behind their length: an unchanged vault decodes them alone.

// EncodeResult encodes a whole check's result: its findings, and the
// suggestion work it spent and every note's state, of the walk files.
// A state names files by their place in the walk, which a result is only
// used with (Entry.Changed: the same files).
func EncodeResult(files []vault.File, notes int, findings []lint.Finding, spent int, states []lint.NoteState) []byte {
	fb := EncodeFindings(notes, findings)
	b := binary.AppendUvarint(make([]byte, 0, len(fb)+len(states)*256), uint64(len(fb)))
	b = append(b, fb...)
	at := make(map[string]uint64, len(files))
	for i, f := range files {
		at[f.Path] = uint64(i)
	}
	b = binary.AppendUvarint(b, uint64(max(spent, 0)))
	b = binary.AppendUvarint(b, uint64(len(states)))
	for _, st := range states {
		b = binary.AppendUvarint(b, at[st.Path])
		var flags byte
		if st.Read {
			flags |= 1
		}
		if st.Checked {
			flags |= 2
		}
		b = append(b, flags)
		if !st.Read {
			continue
		}
		b = lint.AppendSummary(b, st.Summary)
		b = binary.AppendUvarint(b, uint64(len(st.Targets)))
		for _, t := range st.Targets {
			b = binary.AppendUvarint(b, at[t])
		}
		b = binary.AppendUvarint(b, uint64(len(st.Broken)))
		for _, k := range st.Broken {
			b = binary.AppendUvarint(b, uint64(len(k)))
			b = append(b, k...)
		}
	}
	return b
}

var errResult = errors.New("cache: bad check result")

// DecodeResultFindings decodes the findings of what EncodeResult
// encoded, and nothing else.
func DecodeResultFindings(b []byte) (notes int, findings []lint.Finding, err error) {
	fb, _, err := splitResult(b)
	if err != nil {
		return 0, nil, err
	}
	return DecodeFindings(fb)
}

// DecodeResult decodes all of what EncodeResult encoded, on the same
// walk files. Damaged input is an error, never a panic or an allocation
// larger than the input.
func DecodeResult(b []byte, files []vault.File) (prev lint.Previous, notes int, err error) {
	fb, rest, err := splitResult(b)
	if err != nil {
		return lint.Previous{}, 0, err
	}
	if notes, prev.Findings, err = DecodeFindings(fb); err != nil {
		return lint.Previous{}, 0, err
	}
	d := varints{b: rest}
	prev.Spent = int(min(d.uvarint(), 1<<62))
	n := d.uvarint()
	if d.bad || n > uint64(len(rest)) { // a state takes two bytes at least
		return lint.Previous{}, 0, errResult
	}
	path := func() string {
		i := d.uvarint()
		if i >= uint64(len(files)) {
			d.bad = true
			return ""
		}
		return files[i].Path
	}
	prev.States = make([]lint.NoteState, 0, n)
	for range n {
		st := lint.NoteState{Path: path()}
		if d.bad || d.off >= len(rest) {
			return lint.Previous{}, 0, errResult
		}
		flags := rest[d.off]
		d.off++
		st.Read, st.Checked = flags&1 != 0, flags&2 != 0
		if st.Read {
			sum, after, err := lint.ReadSummary(rest[d.off:])
			if err != nil {
				return lint.Previous{}, 0, errResult
			}
			d.off = len(rest) - len(after)
			st.Summary = sum
			k := d.uvarint()
			if k > uint64(len(rest)-d.off) {
				return lint.Previous{}, 0, errResult
			}
			st.Targets = make([]string, 0, k)
			for range k {
				st.Targets = append(st.Targets, path())
			}
			k = d.uvarint()
			if k > uint64(len(rest)-d.off) {
				return lint.Previous{}, 0, errResult
			}
			for range k {
				l := d.uvarint()
				if d.bad || l > uint64(len(rest)-d.off) {
					return lint.Previous{}, 0, errResult
				}
				st.Broken = append(st.Broken, string(rest[d.off:d.off+int(l)]))
				d.off += int(l)
			}
		}
		if d.bad {
			return lint.Previous{}, 0, errResult
		}
		prev.States = append(prev.States, st)
	}
	if d.off != len(rest) {
		return lint.Previous{}, 0, errResult
	}
	return prev, notes, nil
}

// splitResult is a result's findings and what follows them.
func splitResult(b []byte) (findings, rest []byte, err error) {
	l, w := binary.Uvarint(b)
	if w <= 0 || l > uint64(len(b)-w) {
		return nil, nil, errResult
	}
	return b[w : w+int(l)], b[w+int(l):], nil
}
