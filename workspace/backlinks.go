package workspace

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/query"
)

// inbound is the edges into the note at p from every note, in walk order,
// through the details' section of the model file read a piece at a time
// (query.AppendEdgesInto), not decoded whole: zk backlinks wants the few
// edges into one note of 11 MB of details at 10,000 notes. A note whose
// entry is not of its bytes now is read again and saved as a delta, as
// Workspace.details would. ok is false when the file cannot answer so (no
// section of the details' key, other files, an entry missing or
// damaged, a save that cannot be a delta): the caller then reads the
// details whole.
func (w *Workspace) inbound(ctx context.Context, files []vault.File, p string) (in []vault.Edge, ok bool, err error) {
	pc := openPerNote(w, perNote[query.Detail]{
		folder: "details", purpose: detailPurpose, inputs: detailInputs,
		encode: func(ds []query.Detail) ([]byte, error) { return query.EncodeDetails(ds), nil },
		path:   func(d query.Detail) string { return d.Path },
		names:  true, // as Workspace.details keeps them
	})
	if pc.m == nil {
		return nil, false, nil
	}
	defer pc.m.Close()
	if pc.err != nil {
		return nil, false, nil
	}
	v, m := w.Vault, pc.m
	started := time.Now() // before the read: the stamps are the walk's
	sec, base, has, err := m.SectionAt(pc.c.folder)
	if err != nil || !has || sec.Key != pc.key || len(sec.Hashes) != len(files) {
		return nil, false, nil
	}
	sec.Entries = sec.Entries[1:] // the file's own are read from base
	st := cachedHashes(m, files, sec, true, false, nil)
	if st.state == nil {
		return nil, false, nil
	}
	// good[i]: the entry of files[i] is of its bytes now; the others'
	// are read again.
	good := make([]bool, len(files))
	stale := !st.fresh
	for i, f := range files {
		was := sec.Hashes[i]
		if !f.IsNote() {
			continue
		}
		if was == ([sha256.Size]byte{}) || st.state[i] == hashUnknown {
			stale = true
			continue
		}
		if st.state[i] == hashToCheck {
			src, err := v.ReadFile(f.Path, v.MaxNoteSize)
			if err != nil {
				stale = true
				continue
			}
			st.state[i], st.content[i] = hashKnown, checkcache.Hash(src)
		}
		if st.content[i] != was {
			stale = true
			continue
		}
		good[i] = true
	}
	var again []query.Detail // the notes read again
	if stale {
		// What is read again is saved as a delta, the good entries left
		// as they are; a file that must be written anew is the caller's
		// (m.Stamps are files' paths: cachedHashes compared them).
		if !m.Appendable(m.Stamps, pc.key, pc.c.folder) {
			return nil, false, nil
		}
		b, _ := ReadLedger(v)
		ledger := evidence.ReadLedger(b)
		// mine[i]: an entry of files[i] is of bytes of hash hashes[i].
		hashes, mine := make([][sha256.Size]byte, len(files)), make([]bool, len(files))
		for i := range files {
			if good[i] {
				hashes[i], mine[i] = sec.Hashes[i], true
			}
		}
		index := indexOf(files)
		var mu sync.Mutex
		names := map[int]string{} // the link names of the notes read, by index in files
		notes, err := query.ReadDetails(ctx, v, files, ledger, w.rejudger(), func(q string) (query.Detail, bool) {
			if i := index(q); i >= 0 && good[i] {
				return query.Detail{Path: q}, true // a stand-in: its entry is read from the file below
			}
			return query.Detail{}, false
		}, func(n *vault.Note) {
			h, ns := checkcache.Hash(n.Src), encodeNames(vault.LinkNames(n))
			mu.Lock()
			defer mu.Unlock()
			if i := indexOf(files)(n.Path); i >= 0 {
				hashes[i], mine[i], names[i] = h, true, ns
			}
		})
		if err != nil {
			return nil, false, err
		}
		at := indexOf(files)
		for _, d := range notes {
			if i := at(d.Path); i >= 0 && !good[i] {
				again = append(again, d)
			}
		}
		if !pc.save(files, st, hashes, mine, notes, started, true, names) {
			return nil, false, nil
		}
	}
	// A delta's entry of a note in place of the file's, a later delta's
	// in place of an earlier one's.
	later := map[int]query.Detail{}
	for _, b := range sec.Entries {
		ds, err := query.DecodeDetails(b)
		if err != nil {
			return nil, false, nil
		}
		at := indexOf(files)
		for _, d := range ds {
			if i := at(d.Path); i >= 0 {
				later[i] = d
			}
		}
	}
	seen := make([]bool, len(files))
	index := indexOf(files)
	in, err = query.AppendEdgesInto([]vault.Edge{}, base, base.Size(), p, func(q string) bool {
		i := index(q)
		if i < 0 {
			return false
		}
		seen[i] = true
		_, replaced := later[i]
		return good[i] && !replaced
	})
	if err != nil {
		return nil, false, nil
	}
	for i, d := range later {
		if good[i] {
			seen[i] = true
			in = d.AppendEdgesTo(in, p)
		}
	}
	for i := range files {
		if good[i] && !seen[i] { // an entry the hashes promise and the file lacks
			return nil, false, nil
		}
	}
	for _, d := range again {
		in = d.AppendEdgesTo(in, p)
	}
	return in, true, nil
}
