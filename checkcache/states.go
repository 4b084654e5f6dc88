package checkcache

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"

	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
)

// A whole check's result is cached in two sections of the model file,
// saved together under one key: its findings (FindingsSection), which an
// unchanged vault reads alone, and every note's state (lint.NoteState,
// StatesSection), so that after an edit only the notes it can change are
// checked again (lint.Recheck). Both hold, for each note, the hash of the
// bytes it was checked in. A recheck appends a delta to each: the
// findings of the paths whose findings changed, and the states of the
// notes checked again.
const (
	FindingsSection = "check"
	StatesSection   = "check states"
)

// EncodeFindingsPart encodes a part of the findings section: the
// findings of the paths whose findings differ between old and now (both
// sorted, lint.SortFindings), and the number of notes checked. With old
// nil it is the section's first part, every path's findings.
func EncodeFindingsPart(old, now []lint.Finding, notes int) []byte {
	var replaced []string
	var part []lint.Finding
	if old == nil {
		part = now
	} else {
		for i, j := 0, 0; i < len(old) || j < len(now); {
			var p string
			switch {
			case i == len(old):
				p = now[j].Path
			case j == len(now):
				p = old[i].Path
			default:
				p = min(old[i].Path, now[j].Path)
			}
			i0, j0 := i, j
			for i < len(old) && old[i].Path == p {
				i++
			}
			for j < len(now) && now[j].Path == p {
				j++
			}
			if !slices.Equal(old[i0:i], now[j0:j]) {
				replaced = append(replaced, p)
				part = append(part, now[j0:j]...)
			}
		}
	}
	b := binary.AppendUvarint(nil, uint64(len(replaced)))
	for _, p := range replaced {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	return append(b, EncodeFindings(notes, part)...)
}

// DecodeFindingsParts decodes the findings section's parts, the first
// whole, each later one in place of the findings of the paths it
// replaces (an empty one replaces none). Damaged input is an error, never a panic or an allocation
// larger than the input.
func DecodeFindingsParts(parts [][]byte) (notes int, findings []lint.Finding, err error) {
	for k, b := range parts {
		if k > 0 && len(b) == 0 {
			continue // a delta of stamps alone
		}
		d := varints{b: b}
		nr := d.uvarint()
		if d.bad || nr > uint64(len(b)) || (k == 0 && nr != 0) {
			return 0, nil, errFindings
		}
		replaced := make(map[string]bool, nr)
		for range nr {
			l := d.uvarint()
			if d.bad || l > uint64(len(b)-d.off) {
				return 0, nil, errFindings
			}
			replaced[string(b[d.off:d.off+int(l)])] = true
			d.off += int(l)
		}
		n, fs, err := DecodeFindings(b[d.off:])
		if err != nil {
			return 0, nil, err
		}
		if k == 0 {
			notes, findings = n, fs
			continue
		}
		for _, f := range fs {
			if !replaced[f.Path] {
				return 0, nil, errFindings
			}
		}
		notes, findings = n, mergeFindings(findings, replaced, fs)
	}
	if len(parts) == 0 {
		return 0, nil, errFindings
	}
	return notes, findings, nil
}

// mergeFindings is old without the findings of the paths replaced, with
// those of now, both in path order.
func mergeFindings(old []lint.Finding, replaced map[string]bool, now []lint.Finding) []lint.Finding {
	out := make([]lint.Finding, 0, len(old)+len(now))
	j := 0
	for _, f := range old {
		if replaced[f.Path] {
			continue
		}
		for j < len(now) && now[j].Path < f.Path {
			out = append(out, now[j])
			j++
		}
		out = append(out, f)
	}
	return append(out, now[j:]...)
}

// EncodeStates encodes notes' states (of the walk files: a state names
// files by their place in the walk, which its section is only used with)
// and the suggestion work the check spent: every note's for the states
// section's first part, the notes checked again for a delta's.
func EncodeStates(files []vault.File, spent int, states []lint.NoteState) []byte {
	var at func(string) uint64
	if len(states) > 64 {
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
	b := make([]byte, 0, len(states)*256)
	b = binary.AppendUvarint(b, uint64(max(spent, 0)))
	b = binary.AppendUvarint(b, uint64(len(states)))
	for _, st := range states {
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

var errStates = errors.New("cache: bad check states")

// DecodeStates decodes the states section's parts on the walk files its
// stamps name: the first part's states (every note's, in the walk's
// order), each later part's in place of the note's before, and the
// suggestion work spent, the last part's. Damaged input is an error,
// never a panic or an allocation larger than the input.
func DecodeStates(parts [][]byte, files []vault.File) (spent int, states []lint.NoteState, err error) {
	if len(parts) == 0 {
		return 0, nil, errStates
	}
	if spent, states, err = decodeStates(parts[0], files); err != nil {
		return 0, nil, err
	}
	for _, b := range parts[1:] {
		if len(b) == 0 {
			continue // a delta of stamps alone
		}
		s, delta, err := decodeStates(b, files)
		if err != nil {
			return 0, nil, err
		}
		for _, st := range delta {
			i, ok := slices.BinarySearchFunc(states, st.Path, func(x lint.NoteState, p string) int { return strings.Compare(x.Path, p) })
			if !ok {
				return 0, nil, errStates
			}
			states[i] = st
		}
		spent = s
	}
	return spent, states, nil
}

// decodeStates decodes what EncodeStates encoded. Every string is sliced
// from one copy of the states: at 100k notes a string each took a third
// of an edited check.
func decodeStates(states []byte, files []vault.File) (spent int, out []lint.NoteState, err error) {
	all := string(states)
	d := varints{b: states}
	spent = int(min(d.uvarint(), 1<<62))
	n := d.uvarint()
	if d.bad || n > uint64(len(states)) { // a state takes two bytes at least
		return 0, nil, errStates
	}
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
		st := lint.NoteState{Path: path()}
		if d.bad || d.off >= len(states) {
			return 0, nil, errStates
		}
		if len(out) > 0 && out[len(out)-1].Path >= st.Path {
			return 0, nil, errStates // in the walk's order, each once
		}
		flags := states[d.off]
		d.off++
		st.Read, st.Checked = flags&1 != 0, flags&2 != 0
		if st.Read {
			sum, after, err := lint.ReadSummaryString(all[d.off:])
			if err != nil {
				return 0, nil, errStates
			}
			d.off = len(states) - len(after)
			st.Summary = sum
			k := d.uvarint()
			if k > uint64(len(states)-d.off) {
				return 0, nil, errStates
			}
			st.Targets = make([]string, 0, k)
			for range k {
				st.Targets = append(st.Targets, path())
			}
			k = d.uvarint()
			if k > uint64(len(states)-d.off) {
				return 0, nil, errStates
			}
			for range k {
				l := d.uvarint()
				if d.bad || l > uint64(len(states)-d.off) {
					return 0, nil, errStates
				}
				st.Broken = append(st.Broken, all[d.off:d.off+int(l)])
				d.off += int(l)
			}
		}
		if d.bad {
			return 0, nil, errStates
		}
		out = append(out, st)
	}
	if d.off != len(states) {
		return 0, nil, errStates
	}
	return spent, out, nil
}
