package vault

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zk-claims/zk/internal/atomicfile"
	"github.com/zk-claims/zk/internal/ownfile"
)

// Errors of the write path. Each but ErrConcurrent leaves the note exactly
// as it was.
var (
	// ErrMidWrite: the note is empty, shorter than the base it was read as,
	// or was modified within the quiet window, so another program is
	// probably writing it right now. The note is left alone.
	ErrMidWrite = errors.New("note looks mid-write (empty, shrunk or just modified); left alone")
	// ErrChanged: the note changed under zk in a way the edit cannot follow.
	ErrChanged = errors.New("note changed while zk was editing it; left alone")
	// ErrSpliceGone is returned by an edit function when the place it splices
	// into is not in the note.
	ErrSpliceGone = errors.New("the place to edit is not in the note")
	// ErrNotRegular: the path is not a regular file (or a symlink to one
	// inside the vault).
	ErrNotRegular = errors.New("not a regular file")
	// ErrNotText: the note is binary, UTF-16 or mostly invalid UTF-8 (see
	// NotText); zk reads such a file as skipped and never writes it.
	ErrNotText = errors.New("not a UTF-8 text note; not writing it")
	// ErrNotNote: the file is not a note (.md), or is a link to one that
	// is not: zk edits notes and nothing else (a .base, a .canvas, a
	// .env would be spoiled by a Markdown edit).
	ErrNotNote = errors.New("not a note (.md); zk edits notes only")
	// ErrHardLinked: the note has other hard links. zk cannot see where
	// they are (another vault, a snapshot, a file outside the vault a
	// shared vault's note was linked to), so it writes none: a write in
	// place would change the file under every name, a rename would leave
	// the others with the old text.
	ErrHardLinked = errors.New("the note has other hard links, perhaps outside the vault; zk writes no note that has: make it a file of its own (cp -p NOTE x && mv x NOTE) to let zk write it")
	// ErrLocked: another zk process held the vault's writer lock for longer
	// than WriteOptions.LockTimeout.
	ErrLocked = errors.New("another zk process is writing to this vault")
	// ErrReadOnly: the note has no write permission; zk honours that on
	// every path, the rename included (which the folder's permission would
	// otherwise allow).
	ErrReadOnly = errors.New("the note is read-only; zk does not write it")
	// ErrConcurrent: another program wrote the note in the instant between
	// zk's last check and its write. The error says what the note holds now
	// and where each version is kept.
	ErrConcurrent = errors.New("another program wrote the note while zk was writing it")
)

// testOnlyBeforeWrite, when a test sets it, runs after zk's last check of
// the note and just before its write: where an editor's save would race
// the write.
var testOnlyBeforeWrite func()

// testOnlyBeforeWriteOf is testOnlyBeforeWrite with the note's vault path,
// for a test of a batch that races one note of many.
var testOnlyBeforeWriteOf func(target string)

// errOpenElsewhere refuses a write while another program has the note
// open (leaseWrite): an editor part way through a save, or about to start.
var errOpenElsewhere = fmt.Errorf("%w: another program has it open, try again in a moment", ErrMidWrite)

// testOnlyNoExchange, when a test sets it, makes replace rename as it does
// where the file system cannot exchange two files.
var testOnlyNoExchange bool

// testOnlyBeforeExchange, when a test sets it, runs in replace after zk's
// last look at its write lease and just before the exchange: where a
// program's open lands that zk can no longer refuse, only undo.
var testOnlyBeforeExchange func()

// testOnlyNoLease, when a test sets it, makes leaseWrite take no lease, as
// on systems and file systems that grant none.
var testOnlyNoLease bool

// Defaults of WriteOptions.
const (
	DefaultBackups     = 10
	DefaultQuiet       = time.Second
	DefaultLockTimeout = 5 * time.Second
	// WriteLock is the vault's writer lock (lockWrites).
	WriteLock = ".zk/write.lock"
	// backupDir is where previous versions of notes are kept, one folder per
	// note named by its vault path.
	backupDir = ".zk/backups"
	// BackupDir is backupDir, for what sweeps it (a move's recovery).
	BackupDir = backupDir
	// tempPrefix names temporary files (research/reliability.md §1.2 on
	// why it is short and fixed).
	tempPrefix = atomicfile.TempPrefix
	// tempMaxAge is the age past which a temp file is stale even when its
	// writer cannot be proven dead (a reused pid, or no pid check here).
	tempMaxAge = 10 * time.Minute
	// attempts bounds how often an edit is re-applied to a note that keeps
	// changing under zk.
	attempts = 3
)

// WriteOptions tune EditNote.
type WriteOptions struct {
	// Base is the note's content when the operation began (e.g. before a
	// long-running command); nil means "read it now". Used to detect that
	// the note changed, shrank or was emptied meanwhile.
	Base []byte
	// Backups is how many previous versions are kept per note under
	// .zk/backups/; 0 means DefaultBackups, negative keeps none.
	Backups int
	// Quiet is the window within which a modified note counts as mid-write;
	// 0 means DefaultQuiet, negative disables the check.
	Quiet time.Duration
	// Now is the clock, for tests; nil means time.Now.
	Now func() time.Time
	// LockTimeout is how long to wait for another zk process writing to
	// the vault; 0 means DefaultLockTimeout.
	LockTimeout time.Duration
	// Ours, when set, is what zk itself put in the note moments ago (a
	// move undoing its own write): a note holding exactly these bytes is
	// not another program's save, however recent its mtime. Unlike the
	// own-writes record, which keeps the last few hundred writes, it
	// holds for any number of notes.
	Ours []byte
}

// WriteResult says what EditNote did.
type WriteResult struct {
	// Path is the vault path of the file written: the note, or the target
	// of a symlinked note.
	Path string
	// Backup is the vault path of the copy of the previous version, or "".
	Backup string
	// Rebased is true when the edit was applied to text that changed since
	// Base.
	Rebased bool
	// InPlace is true when the edit was a same-length overwrite of a few
	// bytes in place rather than a replacement of the file.
	InPlace bool
	// Unchanged is true when the edit left the note as it was: nothing was
	// written.
	Unchanged bool
}

// Splice is the one contiguous change between two versions of a note: the
// bytes before[At:At+Old] were replaced by after[At:At+New]. Everything
// before At and after the change is byte-identical.
type Splice struct {
	At, Old, New int
}

// SpliceOf finds the smallest single splice turning before into after: the
// longest common prefix and, of the rest, the longest common suffix. Any
// two byte strings differ by one such splice; what a caller checks is that
// it is the splice they meant (its size and place, its inserted bytes).
func SpliceOf(before, after []byte) Splice {
	n := min(len(before), len(after))
	at := 0
	for at < n && before[at] == after[at] {
		at++
	}
	tail := 0
	for tail < n-at && before[len(before)-1-tail] == after[len(after)-1-tail] {
		tail++
	}
	return Splice{At: at, Old: len(before) - at - tail, New: len(after) - at - tail}
}

// inPlaceMax bounds the overwrite EditNote does in place. A same-length
// overwrite of a few bytes that stays within one page is a single pwrite
// the kernel applies whole: a SIGKILL cannot tear it, and it never
// re-publishes the rest of the note. A rename does re-publish the bytes zk
// read, and research/reliability.md §2.3 measured that a guarded
// rename-replace still re-published a torn read of a note being saved by an
// editor (3–15 times in 350–1700 writes) where an append of only the new
// bytes did so 0 times; an in-place overwrite shares what made the append
// safe: it writes back no byte it read. In place also keeps the inode, so
// hard links, extended attributes, ownership and birth time survive.
const (
	inPlaceMax = 64
	pageSize   = 4096
)

func (s Splice) inPlace() bool {
	return s.Old == s.New && s.Old > 0 && s.Old <= inPlaceMax && s.At/pageSize == (s.At+s.Old-1)/pageSize
}

// EditNote applies edit to the note's current bytes and writes the result
// safely. The edit receives the current bytes and returns them with one
// splice applied; it never re-serialises anything, so every byte outside
// its splice (CRLF, BOM, a missing final newline, non-ASCII text) stays.
//
// The write is a same-length overwrite of only the changed bytes, in place,
// when the change is a few bytes inside one page (a Last tended date: see
// inPlaceMax for why that is the safer write), and otherwise a temporary
// file in the note's folder, fsynced, renamed over the note, with the
// folder fsynced, so that a crash leaves the old note or the new one and
// never a torn one. Just before either write the note is read again: if it
// changed since it was read (or since opts.Base), the edit is applied to
// the new text (Rebased) when it can be, and ErrChanged is returned when it
// keeps changing or the edit's anchor is gone (ErrSpliceGone). A note that
// is empty, shorter than opts.Base or modified within opts.Quiet is left
// alone (ErrMidWrite). After the write the note is read back and compared.
//
// The previous version is kept under .zk/backups/ (at most opts.Backups per
// note), the file mode is kept, and a symlinked note is written through to
// its target when that is inside the vault. A note with other hard links
// (ErrHardLinked), a note that is not text or is over the vault's size cap
// is never written. zk writers take turns
// (ErrLocked after opts.LockTimeout). Every access goes through the
// vault's os.Root.
func (v *Vault) EditNote(notePath string, edit func(src []byte) ([]byte, error), opts WriteOptions) (WriteResult, error) {
	target, err := v.resolveNote(notePath)
	if err != nil {
		return WriteResult{}, fmt.Errorf("write %s: %w", notePath, err)
	}
	return v.edit(notePath, target, edit, opts)
}

// EditOwnFile edits one of zk's own files under .zk/ (zk init adding its
// table to a config.toml zk-org/zk wrote) as EditNote edits a note: never
// through a symlink, and only a regular file.
func (v *Vault) EditOwnFile(p string, edit func(src []byte) ([]byte, error), opts WriteOptions) (WriteResult, error) {
	p = path.Clean(filepath.ToSlash(p))
	if !strings.HasPrefix(p, ".zk/") {
		return WriteResult{}, fmt.Errorf("write %s: not under .zk/", p)
	}
	if _, err := ownfile.Stat(v.root, p); err != nil {
		return WriteResult{}, fmt.Errorf("write %s: %w", p, err)
	}
	return v.edit(p, p, edit, opts)
}

// edit is EditNote once the file to write, target, is known.
func (v *Vault) edit(notePath, target string, edit func(src []byte) ([]byte, error), opts WriteOptions) (WriteResult, error) {
	opts = opts.withDefaults()
	// One zk writer at a time: without it, two zk processes could each
	// pass the re-read and the later rename drop the earlier edit.
	unlock, err := lockWrites(v.root, opts.LockTimeout)
	if err != nil {
		return WriteResult{}, fmt.Errorf("write %s: %w", notePath, err)
	}
	defer unlock()
	s := v.newSession(opts, false)
	defer s.finish()
	return v.editLocked(s, notePath, target, edit, opts)
}

// withDefaults fills in the zero fields of o.
func (o WriteOptions) withDefaults() WriteOptions {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Quiet == 0 {
		o.Quiet = DefaultQuiet
	}
	if o.Backups == 0 {
		o.Backups = DefaultBackups
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	return o
}

// editLocked is EditNote once the writer lock is held and the note's
// target resolved; s is shared with the other writes under the same hold
// of the lock (EditNotes), and may be used from several goroutines.
func (v *Vault) editLocked(s *session, notePath, target string, edit func(src []byte) ([]byte, error), opts WriteOptions) (WriteResult, error) {
	res := WriteResult{Path: target}
	w := writer{root: v.root, name: filepath.FromSlash(target), target: target, opts: opts, max: v.MaxNoteSize, s: s}
	w.sweep(path.Dir(target))
	base := opts.Base
	var backedUp []byte
	for range attempts {
		cur, info, err := w.read()
		if err != nil {
			return res, fmt.Errorf("write %s: %w", notePath, err)
		}
		own := opts.Ours != nil && bytes.Equal(cur, opts.Ours) || s.isOwn(target, cur, info)
		if err := w.quiescent(cur, info, base, own); err != nil {
			return res, fmt.Errorf("write %s: %w", notePath, err)
		}
		if err := w.writable(info); err != nil {
			return res, fmt.Errorf("write %s: %w", notePath, err)
		}
		if why := NotText(cur); why != "" {
			return res, fmt.Errorf("write %s: %w: %s", notePath, ErrNotText, why)
		}
		if base != nil && !bytes.Equal(cur, base) {
			res.Rebased = true
		}
		out, err := edit(slices.Clip(cur))
		if err != nil {
			if res.Rebased && errors.Is(err, ErrSpliceGone) {
				return res, fmt.Errorf("write %s: %w: %w", notePath, ErrChanged, err)
			}
			return res, fmt.Errorf("write %s: %w", notePath, err)
		}
		if bytes.Equal(out, cur) {
			res.Unchanged = true
			return res, nil
		}
		// Nor leave one: a NUL appended near the top made the note one
		// that zk check skips and every later write refuses.
		if why := NotText(out); why != "" {
			return res, fmt.Errorf("write %s: the edit's result: %w: %s", notePath, ErrNotText, why)
		}
		// Whatever the write: in place it would change the file under
		// every other name, which may be outside the vault.
		if n := links(info); n > 1 {
			return res, fmt.Errorf("write %s: %w (%d names)", notePath, ErrHardLinked, n)
		}
		sp := SpliceOf(cur, out)
		res.InPlace = sp.inPlace()
		if opts.Backups > 0 && !bytes.Equal(backedUp, cur) {
			// The version this write replaces: on a retry, the newer one.
			if res.Backup, err = w.backup(target, cur, info); err != nil {
				return res, fmt.Errorf("write %s: keep the previous version: %w", notePath, err)
			}
			backedUp = cur
		}
		w.backupPath = res.Backup
		var wrote fs.FileInfo
		if res.InPlace {
			wrote, err = w.overwrite(cur, out, sp, info)
		} else {
			wrote, err = w.replace(cur, out, info)
		}
		if errors.Is(err, errRetry) {
			// The note changed between the read and the write: read it
			// again and re-apply the edit to what is there now.
			base = cur
			continue
		}
		if err != nil {
			return res, fmt.Errorf("write %s: %w", notePath, err)
		}
		// Under the lock still: the next zk writer knows this write for
		// its own and does not take it for an editor's save.
		s.remember(target, out, wrote, opts.Now())
		return res, nil
	}
	return res, fmt.Errorf("write %s: %w", notePath, ErrChanged)
}

// errRetry tells EditNote the note changed just before the write, which
// was therefore not done.
var errRetry = errors.New("changed before the write")

// writer is one note being written.
type writer struct {
	root       *os.Root
	name       string // the target file, OS form, relative to the root
	target     string // the same, as a vault path
	opts       WriteOptions
	max        int64  // the size above which a note is not read (0: no limit)
	backupPath string // the vault path of the backup of this write, or ""
	s          *session
}

// read returns the note's bytes and the stat of the very file they were
// read from, taken after the read: a save that began during the read shows
// in its mtime or size, which quiescent and sameFile then catch. Where the
// system grants a read lease (leaseRead), a note another program has open
// for writing is refused before it is read, and no save can begin during
// the read: a save stalled past the quiet window (a loaded machine, one
// write(2) descheduled for a second) is caught too, where mtime and size
// cannot tell a stalled half from a whole file.
func (w *writer) read() ([]byte, fs.FileInfo, error) {
	f, err := w.root.Open(w.name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	release, writing := leaseRead(f)
	defer release()
	if writing {
		return nil, nil, fmt.Errorf("%w: another program has it open for writing, try again in a moment", ErrMidWrite)
	}
	if info, err := f.Stat(); err == nil && w.max > 0 && info.Size() > w.max {
		return nil, nil, &TooLargeError{Path: filepath.ToSlash(w.name), Size: info.Size(), Max: w.max}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, nil, err
	}
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, nil, ErrNotRegular
	}
	if info.Size() != int64(len(b)) {
		return nil, nil, fmt.Errorf("%w: the note's size changed while zk read it", ErrMidWrite)
	}
	return b, info, nil
}

// quiescent refuses a note another program seems to be writing: empty,
// shorter than the base the caller read, or modified within the quiet
// window. A truncate-then-write save has exactly these shapes while it is
// under way (research/reliability.md §2.3). A note that is byte for byte
// what zk itself last wrote (own: same file, size, mtime and hash; see
// ownWrites) is no other program's save, however recent.
func (w *writer) quiescent(cur []byte, info fs.FileInfo, base []byte, own bool) error {
	switch {
	case len(cur) == 0:
		return fmt.Errorf("%w: the note is empty", ErrMidWrite)
	case own:
		return nil
	case base != nil && len(cur) < len(base):
		return fmt.Errorf("%w: the note shrank from %d to %d bytes", ErrMidWrite, len(base), len(cur))
	}
	if w.opts.Quiet > 0 {
		// A future mtime (clock skew, a sync client) is not a write in progress.
		if age := w.opts.Now().Sub(info.ModTime()); age >= 0 && age < w.opts.Quiet {
			return fmt.Errorf("%w: modified %s ago, try again in a moment", ErrMidWrite, age.Round(time.Millisecond))
		}
	}
	return nil
}

// writable refuses a note without write permission: one without its
// owner's write bit (which zk running as root would otherwise ignore), or
// one this process cannot open for writing (an ACL, another owner).
func (w *writer) writable(info fs.FileInfo) error {
	if info.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%w (mode %04o)", ErrReadOnly, info.Mode().Perm())
	}
	f, err := w.root.OpenFile(w.name, os.O_WRONLY, 0)
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("%w: %w", ErrReadOnly, err)
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// overwrite writes the changed bytes of out over cur in place. Through the
// same descriptor it first checks that the file is still the one read, at
// the same size and with the same bytes; after the write and fsync it reads
// the file back and returns its stat.
func (w *writer) overwrite(cur, out []byte, sp Splice, info fs.FileInfo) (fs.FileInfo, error) {
	f, err := w.root.OpenFile(w.name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lease, busy := leaseWrite(f)
	defer lease.release()
	if busy {
		return nil, errOpenElsewhere
	}
	if err := sameFile(f, cur, info); err != nil {
		return nil, err
	}
	if testOnlyBeforeWrite != nil {
		testOnlyBeforeWrite()
	}
	if testOnlyBeforeWriteOf != nil {
		testOnlyBeforeWriteOf(w.target)
	}
	if lease.broken() {
		// A program opened the note since zk took the lease: its save
		// waits for zk and then replaces zk's bytes, which zk would have
		// reported written. Nothing is written; the note stays as found.
		return nil, errOpenElsewhere
	}
	if _, err := f.WriteAt(out[sp.At:sp.At+sp.New], int64(sp.At)); err != nil {
		return nil, err
	}
	if err := f.Sync(); err != nil {
		return nil, err
	}
	got, after, err := readBack(f)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(got, out) {
		return after, nil
	}
	// Another program wrote the note between the check and the write, or
	// just after it. Its bytes cannot be known where zk's landed, so the
	// note is left as it is, a copy of it is kept, and the error says where
	// zk's bytes went.
	found, kerr := w.keep(got, info, "found")
	where := "a copy of it could not be kept: " + fmt.Sprint(kerr)
	if kerr == nil {
		where = "a copy of it is " + found
	}
	ours := out[sp.At : sp.At+sp.New]
	if len(got) >= sp.At+sp.New && bytes.Equal(got[sp.At:sp.At+sp.New], ours) {
		line := 1 + bytes.Count(got[:sp.At], []byte("\n"))
		return nil, fmt.Errorf("%w: zk's %d bytes (%q) went to line %d, inside that program's new text, and may have replaced its text there: check line %d; the note is left as it is now (%s); the version before both writes is %s",
			ErrConcurrent, len(ours), ours, line, line, where, w.backupName())
	}
	return nil, fmt.Errorf("%w: the note holds that program's version, without zk's edit (%s); the version before is %s", ErrConcurrent, where, w.backupName())
}

// replace writes out to a temporary file beside the note, syncs it, checks
// the note is still cur, puts the temporary file in the note's place and
// syncs the folder. Where the system can, the two are exchanged rather
// than renamed (renameat2 RENAME_EXCHANGE), so that zk sees exactly the
// file it replaced: if that is not the version it read (an editor saved in
// between), the editor's version is put back. It returns the stat of the
// note written.
func (w *writer) replace(cur, out []byte, info fs.FileInfo) (fs.FileInfo, error) {
	dir := filepath.Dir(w.name)
	note, err := w.root.Open(w.name)
	if err != nil {
		return nil, err
	}
	defer note.Close()
	tmp, err := atomicfile.Temp(w.root, dir, out, atomicfile.Options{Like: info, Attrs: note})
	if err != nil {
		return nil, err
	}
	keepTmp := false
	defer func() {
		if !keepTmp {
			w.root.Remove(tmp) // after an exchange, it names the replaced file
		}
	}()
	// The lease makes a save that starts from here on wait until zk has
	// replaced the note and looked at what it replaced (see the check on
	// lease.broken below).
	lease, busy := leaseWrite(note)
	defer lease.release()
	if busy {
		return nil, errOpenElsewhere
	}
	if err := sameFile(note, cur, info); err != nil {
		return nil, err
	}
	if now, err := w.root.Lstat(w.name); err != nil || !os.SameFile(now, info) {
		return nil, errRetry // saved by a rename since the read
	}
	if testOnlyBeforeWrite != nil {
		testOnlyBeforeWrite()
	}
	if testOnlyBeforeWriteOf != nil {
		testOnlyBeforeWriteOf(w.target)
	}
	if lease.broken() {
		// A program opened the note since zk took the lease, and its
		// open resolved to this file: after a rename its save would go
		// to a file no longer in the vault. An exchange could put the
		// file back (as below), but a signal to that program restarts
		// its open, which then resolves the name afresh, to zk's file,
		// and the exchange back would take its save away with it.
		// Nothing is written.
		return nil, errOpenElsewhere
	}
	if testOnlyBeforeExchange != nil {
		testOnlyBeforeExchange()
	}
	exchanged := false
	if !testOnlyNoExchange {
		if exchanged, err = exchange(w.root, tmp, w.name); err != nil {
			return nil, err
		}
	}
	if !exchanged {
		if err := w.root.Rename(tmp, w.name); err != nil {
			return nil, err
		}
	}
	w.s.syncDir(dir)
	// What zk replaced: the file now at tmp after an exchange, else the
	// descriptor still open on the old note (which shows a save written
	// into it in place, not one renamed over it).
	var (
		replaced []byte
		rinfo    fs.FileInfo
	)
	if !exchanged {
		replaced, rinfo, err = readBack(note)
	} else if now, lerr := w.root.Lstat(tmp); lerr == nil && os.SameFile(now, info) {
		// The file read is what was exchanged: read it through the
		// descriptor that holds its lease (opening it again would break
		// zk's own lease and wait on it).
		replaced, rinfo, err = readBack(note)
	} else {
		var old *os.File
		if old, err = w.root.Open(tmp); err == nil {
			replaced, rinfo, err = readBack(old)
			old.Close()
		}
		if err != nil {
			// What zk replaced cannot be read to compare: keep it.
			keepTmp = true
			return nil, fmt.Errorf("%w: the file zk replaced is kept as %s", err, filepath.ToSlash(tmp))
		}
	}
	if err != nil {
		return nil, err
	}
	if !os.SameFile(rinfo, info) || !bytes.Equal(replaced, cur) {
		return nil, w.putBack(tmp, out, replaced, info, exchanged)
	}
	if lease.broken() {
		// A program opened the note between the check before the write
		// and the write, and its open resolved to the file zk replaced:
		// once the lease is released it writes there, and zk would delete
		// its save with that file. Put the note back where its open will
		// land.
		return nil, w.putBack(tmp, out, replaced, info, exchanged)
	}
	f, err := w.root.Open(w.name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	got, after, err := readBack(f)
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(got, out) {
		// Saved by another program just after zk's write: its version
		// stands, zk's is kept aside.
		mine, kerr := w.keep(out, info, "zk")
		return nil, fmt.Errorf("%w: it saved the note just after zk did; its version stands, without zk's edit (zk's version: %s); the version before is %s", ErrConcurrent, keptName(mine, kerr), w.backupName())
	}
	return after, nil
}

// putBack undoes a write that replaced another program's save (theirs)
// rather than the version zk read: their version goes back in the note's
// place, zk's is kept aside, and the error says so.
func (w *writer) putBack(tmp string, out, theirs []byte, info fs.FileInfo, exchanged bool) error {
	mine, kerr := w.keep(out, info, "zk")
	var err error
	if exchanged {
		_, err = exchange(w.root, tmp, w.name)
	} else {
		err = atomicfile.WriteIn(w.root, w.name, theirs, atomicfile.Options{Like: info})
	}
	if err != nil {
		saved, serr := w.keep(theirs, info, "theirs")
		return fmt.Errorf("%w: and zk could not put that program's version back (%v): it is %s; zk's version is %s", ErrConcurrent, err, keptName(saved, serr), keptName(mine, kerr))
	}
	return fmt.Errorf("%w: that program's version is back in place, without zk's edit (zk's version: %s); the version before both is %s", ErrConcurrent, keptName(mine, kerr), w.backupName())
}

// keep saves data beside the note's backups, named by the time and why,
// and returns its vault path.
func (w *writer) keep(data []byte, info fs.FileInfo, why string) (string, error) {
	dir := path.Join(backupDir, w.target)
	if err := ownfile.MkdirAll(w.root, dir, 0o700); err != nil {
		return "", err
	}
	name := path.Join(dir, w.opts.Now().UTC().Format("20060102T150405.000000000Z")+"-"+why)
	if err := atomicfile.WriteIn(w.root, filepath.FromSlash(name), data, atomicfile.Options{Like: info, OwnerIfAllowed: true}); err != nil {
		return "", err
	}
	return name, nil
}

func keptName(name string, err error) string {
	if err != nil {
		return "lost: " + err.Error()
	}
	return name
}

// backupName is where the version before this write is kept.
func (w *writer) backupName() string {
	if w.backupPath == "" {
		return "not kept (backups are off)"
	}
	return w.backupPath
}

// readBack reads the whole of f from its start and stats it after.
func readBack(f *os.File) ([]byte, fs.FileInfo, error) {
	b, err := io.ReadAll(io.NewSectionReader(f, 0, 1<<62))
	if err != nil {
		return nil, nil, fmt.Errorf("read back: %w", err)
	}
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	return b, info, nil
}

// sameFile checks that f is the file read (same inode, size and mtime)
// and still holds cur; errRetry says it does not. The content is compared
// too because an mtime can be coarse and a same-size edit keep it
// (research/reliability.md §2.1).
func sameFile(f *os.File, cur []byte, info fs.FileInfo) error {
	now, err := f.Stat()
	if err != nil {
		return err
	}
	if !os.SameFile(now, info) || now.Size() != int64(len(cur)) || !now.ModTime().Equal(info.ModTime()) {
		return errRetry
	}
	b := make([]byte, len(cur)+1)
	n, err := f.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		return err
	}
	if !bytes.Equal(b[:n], cur) {
		return errRetry
	}
	return nil
}

// sweep removes temporary files that writers killed mid-write left in dir.
// A session sweeps each folder once.
func (w *writer) sweep(dir string) {
	w.s.sweep(dir, func() {
		atomicfile.Sweep(w.root, filepath.FromSlash(dir), w.opts.Now(), tempMaxAge)
	})
}

// SweepTemporary removes from each of dirs (vault paths) the temporary
// files writers killed mid-write left there, as a write does in its own
// folder: for the recovery of a move a kill cut short, whose writes it
// does not all make again. A folder under .zk/ reached through a symlink
// is not swept: it is not zk's.
func (v *Vault) SweepTemporary(dirs []string) {
	now := time.Now()
	for _, d := range dirs {
		if strings.HasPrefix(d, ".zk/") && ownfile.CheckDirs(v.root, path.Join(d, "x")) != nil {
			continue
		}
		atomicfile.Sweep(v.root, filepath.FromSlash(d), now, tempMaxAge)
	}
}

// backup keeps src, the version about to be replaced, under .zk/backups/
// with the note's mode and (where this user may set them) owner and group,
// and removes all but the newest opts.Backups copies.
func (w *writer) backup(notePath string, src []byte, note fs.FileInfo) (string, error) {
	dir := path.Join(backupDir, notePath)
	osDir := filepath.FromSlash(dir)
	// .zk/backups/ came with the vault: a symlink on the way (to the
	// notes' folder, say) would have prune delete notes as old backups.
	if err := ownfile.MkdirAll(w.root, dir, 0o700); err != nil {
		return "", err
	}
	w.sweep(dir)
	// Names sort by time; the nanoseconds and a counter keep two backups in
	// one second apart.
	stamp := w.opts.Now().UTC().Format("20060102T150405.000000000Z")
	name := stamp
	for i := 1; ; i++ {
		if _, err := w.root.Lstat(filepath.Join(osDir, name)); errors.Is(err, fs.ErrNotExist) {
			break
		}
		name = stamp + "-" + strconv.Itoa(i)
	}
	if err := atomicfile.WriteIn(w.root, filepath.Join(osDir, name), src, atomicfile.Options{Like: note, OwnerIfAllowed: true}); err != nil {
		return "", err
	}
	w.prune(osDir)
	return path.Join(dir, name), nil
}

// prune removes the oldest backups beyond opts.Backups: only regular
// files named as backup wrote them, so that nothing else a vault put
// there (a note, a folder, a link) is ever taken for an old backup.
func (w *writer) prune(osDir string) {
	d, err := w.root.Open(osDir)
	if err != nil {
		return
	}
	ents, _ := d.ReadDir(-1)
	d.Close()
	var names []string
	for _, e := range ents {
		if e.Type().IsRegular() && isBackupName(e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for _, n := range names[:max(0, len(names)-w.opts.Backups)] {
		w.root.Remove(filepath.Join(osDir, n))
	}
}

// isBackupName reports whether name is one backup or keep gave a file:
// its time stamp, then nothing or "-" and a counter or a reason.
func isBackupName(name string) bool {
	const layout = "20060102T150405.000000000Z"
	if len(name) < len(layout) || len(name) > len(layout) && name[len(layout)] != '-' {
		return false
	}
	_, err := time.Parse(layout, name[:len(layout)])
	return err == nil
}

// resolveNote is resolveLink for a note to be written: the path asked
// for and the file it leads to must both be notes.
func (v *Vault) resolveNote(p string) (string, error) {
	if !isNotePath(p) {
		return "", ErrNotNote
	}
	t, err := v.resolveLink(p)
	if err == nil && !isNotePath(t) {
		return "", fmt.Errorf("%w: it links to %s", ErrNotNote, t)
	}
	return t, err
}

// maxLinks bounds how many symlinks are followed to reach a note.
const maxLinks = 40

// resolveLink follows symlinks from the vault path p to the regular file
// they name, which must be inside the vault; it returns that file's vault
// path. os.Root would follow the links itself, but a rename over the link's
// path would replace the link by a file and fork the note
// (research/reliability.md §1.2), so the write must name the target.
func (v *Vault) resolveLink(p string) (string, error) {
	p = path.Clean(filepath.ToSlash(p))
	for range maxLinks {
		if !fs.ValidPath(p) {
			return "", ErrOutsideVault
		}
		info, err := v.root.Lstat(filepath.FromSlash(p))
		if err != nil {
			return "", err
		}
		if info.Mode().IsRegular() {
			return p, nil
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			return "", ErrNotRegular
		}
		dest, err := v.root.Readlink(filepath.FromSlash(p))
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(dest) {
			rel, err := filepath.Rel(v.Dir, dest)
			if err != nil {
				return "", ErrOutsideVault
			}
			p = path.Clean(filepath.ToSlash(rel))
			continue
		}
		p = path.Join(path.Dir(p), filepath.ToSlash(dest))
	}
	return "", fmt.Errorf("too many levels of symbolic links")
}
