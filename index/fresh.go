package index

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zk-claims/zk/internal/cachecodec"
	"github.com/zk-claims/zk/vault"
)

// folderRecord is what the index knows of the vault's folders: each
// folder's modification time when the update that wrote the index walked
// it. A search stats the folders, not the notes, to learn which notes
// were added, removed or renamed since (a folder's time moves with its
// list of entries), and reads again only the folders whose time moved.
// It is stored inside the index (foldersKey), in the same batch as the
// manifest, and small enough to read on every search: a search of a vault
// that did not change never decodes the manifest.
type folderRecord struct {
	// Walked is when the walk began, in Unix nanoseconds: a folder whose
	// time is within racyWindow of it may have changed again in the same
	// clock tick, and is read again by every search.
	Walked int64
	// Notes is how many notes the index holds (skipped ones aside).
	Notes   int
	Folders []folderEntry
}

type folderEntry struct {
	Path    string
	ModTime int64
}

var foldersKey = []byte("zk.folders")

const foldersMagic = "zkf1"

var errBadFolders = errors.New("index folder record is corrupt")

func newFolderRecord(walked time.Time, notes int, folders []vault.Folder) *folderRecord {
	r := &folderRecord{Walked: walked.UnixNano(), Notes: notes, Folders: make([]folderEntry, len(folders))}
	for i, f := range folders {
		r.Folders[i] = folderEntry{Path: f.Path, ModTime: f.ModTime.UnixNano()}
	}
	slices.SortFunc(r.Folders, func(a, b folderEntry) int { return strings.Compare(a.Path, b.Path) })
	return r
}

// hasRacy reports whether a folder's time is too close to the walk to
// trust.
func (r *folderRecord) hasRacy() bool {
	for _, f := range r.Folders {
		if f.ModTime >= r.Walked-int64(racyWindow) {
			return true
		}
	}
	return false
}

// sameFolders reports whether two records hold the same folders and times.
func (r *folderRecord) sameFolders(o *folderRecord) bool {
	return o != nil && slices.Equal(r.Folders, o.Folders)
}

func (r *folderRecord) encode() []byte {
	b := make([]byte, 0, 32+len(r.Folders)*40)
	b = append(b, foldersMagic...)
	b = binary.AppendVarint(b, r.Walked)
	b = binary.AppendUvarint(b, uint64(r.Notes))
	b = binary.AppendUvarint(b, uint64(len(r.Folders)))
	for _, f := range r.Folders {
		b = cachecodec.AppendStr(b, f.Path)
		b = binary.AppendVarint(b, f.ModTime)
	}
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

func decodeFolders(b []byte) (*folderRecord, error) {
	if len(b) < len(foldersMagic)+4 || string(b[:len(foldersMagic)]) != foldersMagic {
		return nil, errBadFolders
	}
	body, sum := b[:len(b)-4], binary.BigEndian.Uint32(b[len(b)-4:])
	if crc32.ChecksumIEEE(body) != sum {
		return nil, errBadFolders
	}
	r := cachecodec.NewReader(string(body[len(foldersMagic):])) // one string; each path a slice of it
	rec := &folderRecord{Walked: r.Varint()}
	notes := r.Uvarint()
	if notes > 1<<40 {
		return nil, errBadFolders
	}
	rec.Notes = int(notes)
	count := r.Count(2) // a path's length, a time
	rec.Folders = make([]folderEntry, 0, count)
	for range count {
		rec.Folders = append(rec.Folders, folderEntry{Path: r.Str(), ModTime: r.Varint()})
	}
	if !r.Done() {
		return nil, errBadFolders
	}
	return rec, nil
}

// freshness is what a search learned of the vault's changes since the
// index was written.
type freshness struct {
	// d holds the notes known to have changed.
	d diff
	// complete is set when every note was compared, not only every
	// folder: then d is every change there is.
	complete bool
	// why says what was not compared when complete is not set.
	why string
}

// checkFresh compares the vault with the index: every folder's time, the
// notes of every folder whose time moved, and, when the index holds at
// most maxNotes notes, the size and time of every other note too (an
// edit in place moves no folder's time). The note stats stop at
// deadline or when stop is closed; the answer is then the folders' alone.
func (r *reader) checkFresh(ctx context.Context, v *vault.Vault, maxNotes int, deadline time.Time, stop <-chan struct{}) (freshness, error) {
	rec := r.folders
	racy := rec.Walked - int64(racyWindow)
	known := make(map[string]bool, len(rec.Folders))
	var moved []string // folders to read again, gone ones included
	for _, f := range rec.Folders {
		known[f.Path] = true
		st, err := v.Root().Stat(filepath.FromSlash(f.Path))
		if err != nil || !st.IsDir() || st.ModTime().UnixNano() != f.ModTime || f.ModTime >= racy {
			moved = append(moved, f.Path)
		}
	}
	if err := ctx.Err(); err != nil {
		return freshness{}, err
	}
	// The notes of the folders that moved, and of any folder new since.
	listed := map[string]bool{}
	var current []vault.File
	for len(moved) > 0 {
		dir := moved[0]
		moved = moved[1:]
		if listed[dir] {
			continue
		}
		listed[dir] = true
		files, subs, _, err := v.ListFolder(ctx, dir)
		if err != nil {
			if ctx.Err() != nil {
				return freshness{}, ctx.Err()
			}
			continue // gone, or unreadable now: its notes are not there
		}
		current = append(current, notes(files)...)
		for _, sub := range subs[1:] {
			if !known[sub.Path] {
				moved = append(moved, sub.Path) // new: every note in it is
			}
		}
	}
	complete := rec.Notes <= maxNotes
	if len(listed) == 0 && !complete {
		return freshness{why: inPlaceWhy(maxNotes)}, nil
	}
	m, err := r.manifest()
	if err != nil {
		return freshness{}, err
	}
	// Every other note: as the index has it, or stat-ed when complete.
	var stat []entry
	for _, e := range m.Entries {
		// A folder that moved was listed (a gone one too, listing
		// nothing): its notes are what the listing found.
		if listed[dirOf(e.Path)] {
			continue
		}
		if complete {
			stat = append(stat, e)
		} else {
			current = append(current, e.file())
		}
	}
	why := ""
	if complete {
		files, ok := statNotes(ctx, v, stat, deadline, stop)
		if ctx.Err() != nil {
			return freshness{}, ctx.Err()
		}
		if ok {
			for _, f := range files {
				if f.Path != "" { // "" is a note gone: the comparison finds it deleted
					current = append(current, f)
				}
			}
		} else {
			complete, why = false, "notes edited in place since the index was updated may not be seen: the stat of every note was not done when the answer was"
			for _, e := range stat {
				current = append(current, e.file())
			}
		}
	} else {
		why = inPlaceWhy(maxNotes)
	}
	slices.SortFunc(current, func(a, b vault.File) int { return strings.Compare(a.Path, b.Path) })
	return freshness{d: m.compare(current), complete: complete, why: why}, nil
}

// inPlaceWhy says what a check of the folders alone does not see.
func inPlaceWhy(maxNotes int) string {
	return "notes edited in place since the index was updated are not seen: over " +
		strconv.Itoa(maxNotes) + " notes, a search checks the folders (notes added, removed, renamed), not every note"
}

func dirOf(p string) string { return path.Dir(p) }

// statNotes stats the notes of the index, in parallel, until deadline;
// false when it passed first.
func statNotes(ctx context.Context, v *vault.Vault, es []entry, deadline time.Time, stop <-chan struct{}) ([]vault.File, bool) {
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	out := make([]vault.File, len(es))
	// Notes are sorted by path, so a folder's are together: each worker
	// takes whole folders, and stats its notes from the folder's handle.
	var groups [][2]int
	for i := 0; i < len(es); {
		j, dir := i+1, dirOf(es[i].Path)
		for j < len(es) && dirOf(es[j].Path) == dir {
			j++
		}
		groups = append(groups, [2]int{i, j})
		i = j
	}
	work := make(chan [2]int)
	var wg sync.WaitGroup
	var finished atomic.Int64
	for range vault.Workers() {
		wg.Go(func() {
			for g := range work {
				if !statGroup(v, es[g[0]:g[1]], out[g[0]:g[1]], ctx.Done(), stop) {
					return
				}
				finished.Add(1)
			}
		})
	}
	ok := true
feed:
	for _, g := range groups {
		select {
		case work <- g:
		case <-ctx.Done():
			ok = false
			break feed
		case <-stop:
			ok = false
			break feed
		}
	}
	close(work)
	wg.Wait()
	return out, ok && int(finished.Load()) == len(groups)
}

// statGroup stats the notes of one folder; a note it cannot stat is left
// out (gone: the comparison finds it deleted). It stops, false, when done
// or stop is closed.
func statGroup(v *vault.Vault, es []entry, out []vault.File, done, stop <-chan struct{}) bool {
	st := newFolderStat(v, dirOf(es[0].Path))
	defer st.close()
	for i, e := range es {
		if i%64 == 0 {
			select {
			case <-done:
				return false
			case <-stop:
				return false
			default:
			}
		}
		if f, ok := st.stat(e.Path); ok {
			out[i] = f
		}
	}
	return true
}
