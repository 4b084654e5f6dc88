package checkcache

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
)

// A check's result is cached as its findings (EncodeFindings), in the
// cache entry, and every note's state (lint.NoteState), in a file of its
// own beside it (StatesFile), so that after an edit only the notes it can
// change are checked again (lint.Recheck), while an unchanged vault reads
// the findings alone. The entry's result ends with a random tag that
// opens the states it goes with: states written by another check are not
// used. (A tag rather than their hash: hashing 33 MB of states twice was
// a tenth of an edited check at 100k notes.)

// EncodeResult encodes a whole check's result: its findings and the hash
// of its states (result, for the entry), and the suggestion work it spent
// and every note's state, of the walk files (states, for StatesFile). A
// state names files by their place in the walk, which a result is only
// used with (Entry.Changed: the same files).
//
// old, when set, are the states decoded from the cache for the same
// files, and again reports the states made again since: every other
// state's bytes are copied from old rather than encoded.
func EncodeResult(files []vault.File, notes int, findings []lint.Finding, spent int, states []lint.NoteState,
	old *Encoded, again func(i int) bool) (result, stateBytes []byte) {
	fb := EncodeFindings(notes, findings)
	var tag [tagSize]byte
	rand.Read(tag[:])
	sb := encodeStates(tag, files, spent, states, old, again)
	result = binary.AppendUvarint(make([]byte, 0, len(fb)+16+tagSize), uint64(len(fb)))
	result = append(result, fb...)
	return append(result, tag[:]...), sb
}

// StatesFile is the file of the states going with the cache entry file.
func StatesFile(file string) string { return file + ".states" }

// SaveStates writes the states of a result atomically, before its entry.
func SaveStates(file string, b []byte) error {
	return writeFile(StatesFile(file), func(w io.Writer) error {
		_, err := w.Write(b)
		return err
	})
}

// ReadStates reads the states going with the entry file's result.
func ReadStates(file string) ([]byte, error) { return os.ReadFile(StatesFile(file)) }

// Encoded are states as the cache holds them: the bytes of each, to be
// copied into the next encoding when it did not change.
type Encoded struct {
	b     []byte
	spans []int // state i is b[spans[i]:spans[i+1]]
}

// tagSize is the length of the tag tying states to their result.
const tagSize = 16

func encodeStates(tag [tagSize]byte, files []vault.File, spent int, states []lint.NoteState, old *Encoded, again func(int) bool) []byte {
	if old != nil && len(old.spans) != len(states)+1 {
		old = nil
	}
	var at func(string) uint64
	if old == nil {
		index := make(map[string]uint64, len(files))
		for i, f := range files {
			index[f.Path] = uint64(i)
		}
		at = func(p string) uint64 { return index[p] }
	} else { // a few states: searched for rather than indexed
		at = func(p string) uint64 {
			i, _ := slices.BinarySearchFunc(files, p, func(f vault.File, p string) int { return strings.Compare(f.Path, p) })
			return uint64(i)
		}
	}
	size := len(states) * 256
	if old != nil {
		size = len(old.b) + 4096
	}
	b := append(make([]byte, 0, size), tag[:]...)
	b = binary.AppendUvarint(b, uint64(max(spent, 0)))
	b = binary.AppendUvarint(b, uint64(len(states)))
	for i, st := range states {
		if old != nil && !again(i) {
			b = append(b, old.b[old.spans[i]:old.spans[i+1]]...)
			continue
		}
		b = binary.AppendUvarint(b, at(st.Path))
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
			b = binary.AppendUvarint(b, at(t))
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

// DecodeResultFindings decodes the findings of a result EncodeResult
// encoded, and nothing else.
func DecodeResultFindings(result []byte) (notes int, findings []lint.Finding, err error) {
	fb, _, err := splitResult(result)
	if err != nil {
		return 0, nil, err
	}
	return DecodeFindings(fb)
}

// DecodeResult decodes all of what EncodeResult encoded, on the same
// walk files; states of another result are an error. Damaged input is an
// error, never a panic or an allocation larger than the input.
func DecodeResult(result, states []byte, files []vault.File) (prev lint.Previous, old *Encoded, err error) {
	fb, sum, err := splitResult(result)
	if err != nil {
		return lint.Previous{}, nil, err
	}
	if len(sum) != tagSize || len(states) < tagSize || !bytes.Equal(states[:tagSize], sum) {
		return lint.Previous{}, nil, errors.New("cache: states of another check")
	}
	if _, prev.Findings, err = DecodeFindings(fb); err != nil {
		return lint.Previous{}, nil, err
	}
	old = &Encoded{b: states}
	if prev.Spent, prev.States, old.spans, err = decodeStates(states, files); err != nil {
		return lint.Previous{}, nil, err
	}
	return prev, old, nil
}

// decodeStates decodes what encodeStates encoded. Every string is sliced
// from one copy of the states: at 100k notes a string each took a third
// of an edited check.
func decodeStates(states []byte, files []vault.File) (spent int, out []lint.NoteState, spans []int, err error) {
	if len(states) < tagSize {
		return 0, nil, nil, errResult
	}
	all := string(states)
	d := varints{b: states, off: tagSize}
	spent = int(min(d.uvarint(), 1<<62))
	n := d.uvarint()
	if d.bad || n > uint64(len(states)) { // a state takes two bytes at least
		return 0, nil, nil, errResult
	}
	spans = make([]int, 0, n+1)
	path := func() string {
		i := d.uvarint()
		if i >= uint64(len(files)) {
			d.bad = true
			return ""
		}
		return files[i].Path
	}
	out = make([]lint.NoteState, 0, n)
	for range n {
		spans = append(spans, d.off)
		st := lint.NoteState{Path: path()}
		if d.bad || d.off >= len(states) {
			return 0, nil, nil, errResult
		}
		flags := states[d.off]
		d.off++
		st.Read, st.Checked = flags&1 != 0, flags&2 != 0
		if st.Read {
			sum, after, err := lint.ReadSummaryString(all[d.off:])
			if err != nil {
				return 0, nil, nil, errResult
			}
			d.off = len(states) - len(after)
			st.Summary = sum
			k := d.uvarint()
			if k > uint64(len(states)-d.off) {
				return 0, nil, nil, errResult
			}
			st.Targets = make([]string, 0, k)
			for range k {
				st.Targets = append(st.Targets, path())
			}
			k = d.uvarint()
			if k > uint64(len(states)-d.off) {
				return 0, nil, nil, errResult
			}
			for range k {
				l := d.uvarint()
				if d.bad || l > uint64(len(states)-d.off) {
					return 0, nil, nil, errResult
				}
				st.Broken = append(st.Broken, all[d.off:d.off+int(l)])
				d.off += int(l)
			}
		}
		if d.bad {
			return 0, nil, nil, errResult
		}
		out = append(out, st)
	}
	if d.off != len(states) {
		return 0, nil, nil, errResult
	}
	return spent, out, append(spans, d.off), nil
}

// splitResult is a result's findings and what follows them.
func splitResult(b []byte) (findings, rest []byte, err error) {
	l, w := binary.Uvarint(b)
	if w <= 0 || l > uint64(len(b)-w) {
		return nil, nil, errResult
	}
	return b[w : w+int(l)], b[w+int(l):], nil
}
