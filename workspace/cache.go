package workspace

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/evidence"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/property"
)

// Inputs name what a cached result is derived from besides the notes
// themselves. Every cache key is made by one function, inputKey, from the
// inputs its cache declares: an input added to inputParts reaches every
// cache that declares its kind, and none is kept by hand in a list of its
// own (TestEveryInputChangesTheKey holds each).
type Inputs uint

const (
	// InBuild is zk's version and, for a development build, its
	// executable's size and time: a rule changed between two builds.
	InBuild Inputs = 1 << iota
	// InConfig is .zk/config.toml as read (types, severities, tended
	// keys, intervals, languages, the templates folder).
	InConfig
	// InTemplates is each note type's name and template, and the folder
	// of Obsidian's Templates plugin, whose notes are not checked.
	InTemplates
	// InPropTypes is .obsidian/types.json, which frontmatter/type-mismatch
	// checks against.
	InPropTypes
	// InToday is the day notes are measured against.
	InToday
	// InLedger is the run ledger: a run recorded, or its block saved
	// aside, changes what evidence/run-vanished finds, and its numbers tie
	// run blocks recorded before falsifier ids to their falsifier; with it
	// where a refutation was placed away from its own note
	// (evidence.Rehome), which other notes decide.
	InLedger
	// InUntrusted is the files under .zk/ zk will not act on, which
	// file/untrusted reports.
	InUntrusted
	// InZone is the time zone dates are read in (a base's date properties
	// are instants in it).
	InZone
	// InRunLogs is the runs' logs a verdict may read: whether a later
	// run answers a refutation under another criterion is decided by
	// judging the refuting run's log again (evidence.Answer), and
	// falsifiers/criterion-changed judges the latest run's. It is the
	// .zk/runs folder's modification time (a log added, renamed or
	// deleted) and the size and time of the log of every run the ledger
	// says refuted (a log rewritten in place).
	InRunLogs
	// InJudging is the config's [claims] confidence and numbers, which
	// judge a falsifier that says none: a record states them, so that a
	// change of them is a changed criterion (evidence.Falsifier.Under),
	// and a refuting run judged again to decide an answer is judged
	// under them.
	InJudging

	allInputs = InBuild | InConfig | InTemplates | InPropTypes | InToday | InLedger | InUntrusted | InZone | InRunLogs | InJudging
)

// The inputs of each cache.
const (
	// checkInputs: a whole-vault check's findings depend on all of them
	// but the time zone (its dates are days, compared as written).
	checkInputs = allInputs &^ InZone
	// listInputs: a note's list record holds dates that a query compares
	// with today when it runs, and its verdicts read the ledger (runs
	// recorded before falsifier ids) and the logs of refuting runs; no
	// record reads the property types.
	listInputs = InBuild | InConfig | InTemplates | InLedger | InRunLogs
	// detailInputs: a note's details (its links resolved, its
	// falsifiers' standing) read the ledger, whose numbers tie runs
	// recorded before falsifier ids, the logs of refuting runs and the
	// config's judging (not the rest of the config: a details cache
	// outlives an edit of a rule's severity); links resolve against the
	// files, which the stamps hold.
	detailInputs = InBuild | InLedger | InRunLogs | InJudging
	// indexInputs: the index's documents hold each note's Last tended
	// date, read under the config's keys and the type's section, and its
	// language; the index keeps its own format version, so zk's build is
	// not one.
	indexInputs = InConfig | InTemplates
	// baseInputs: a note's entry for Bases holds its properties as Bases
	// values, read under the declared types (a text property stays text)
	// and the time zone (a date is an instant in it); links resolve
	// against the files, which the stamps hold.
	baseInputs = InBuild | InPropTypes | InZone
)

// inputKey is the key of a cache entry derived from the inputs in set,
// for the cache named purpose (so that two caches never share a key).
func (w *Workspace) inputKey(purpose string, set Inputs) (checkcache.Key, error) {
	parts, err := w.inputParts(set)
	if err != nil {
		return checkcache.Key{}, err
	}
	return checkcache.NewKey(append([][]byte{[]byte(purpose)}, parts...)...), nil
}

// inputParts is each input in set, named and in a fixed order: the one
// list of what zk's caches depend on.
func (w *Workspace) inputParts(set Inputs) ([][]byte, error) {
	v, cfg := w.Vault, w.Config
	var parts [][]byte
	add := func(name string, data ...[]byte) {
		parts = append(parts, []byte(name))
		parts = append(parts, data...)
	}
	if set&InBuild != 0 {
		add("build", []byte(w.version), []byte(buildStamp(w.version)))
	}
	if set&InToday != 0 {
		add("today", []byte(w.Today.Format(time.DateOnly)))
	}
	if set&InConfig != 0 {
		raw, _ := config.Read(v.Root()) // none: the defaults
		add("config", raw)
	}
	if set&InJudging != 0 {
		j := cfg.Judging("")
		add("judging", []byte(j.Numbers), []byte(strconv.FormatFloat(j.Confidence, 'g', -1, 64)))
	}
	if set&InPropTypes != 0 {
		raw, _ := v.ReadFile(property.TypesFile, 1<<20) // none: no declared types
		add(property.TypesFile, raw)
	}
	if set&InZone != 0 {
		add("zone", zoneKey(w.zone()))
	}
	var ledger []byte
	if set&(InLedger|InRunLogs) != 0 {
		ledger, _ = ReadLedger(v)
	}
	if set&InLedger != 0 {
		add("ledger", ledger)
		// Where a refutation was placed away from its own note (renamed
		// outside zk, merged into another, deleted) depends on other
		// notes than the one it is checked in: a change of it checks
		// every note again.
		for _, m := range w.homedLedgerOf(ledger, true, nil).Moved {
			add("ledger home", []byte(m))
		}
	}
	if set&InRunLogs != 0 {
		add("run logs", w.runLogsStamp(ledger))
	}
	if set&InUntrusted != 0 {
		for _, u := range untrustedFiles(v) {
			add("untrusted", []byte(u.Path), []byte(u.Reason))
		}
	}
	if set&InTemplates != 0 {
		for _, name := range cfg.TypeNames() {
			tmpl, _, err := cfg.Template(name, readTemplate(v))
			if err != nil {
				return nil, err
			}
			add("template", []byte(name), tmpl)
		}
		add("obsidian templates", []byte(strings.Join(w.ObsidianTemplates, "\n")))
	}
	return parts, nil
}

// runLogsStamp tells the logs a verdict may read (InRunLogs) from what
// they were: the .zk/runs folder's modification time, which a log added,
// renamed or deleted changes, and the size and modification time of the
// log of each run the ledger (its bytes, read already) says refuted,
// which a log rewritten in place changes: stamped as the model file
// stamps a note (checkcache.StampOf: its ctime, device and inode too, so
// that a rewrite of the same size given back its mtime changes it). A
// stat each: a vault's refuting runs are few, and a key is made by every
// command.
func (w *Workspace) runLogsStamp(ledger []byte) []byte {
	stamp := func(b []byte, p string) []byte {
		st, err := w.Vault.Root().Lstat(filepath.FromSlash(p))
		if err != nil {
			return append(b, " -\n"...)
		}
		s := checkcache.StampOf(vault.FileOf(p, st))
		return fmt.Appendf(b, " %v %d %d %d %d %d\n", st.Mode(), s.Size, s.ModTime, s.ChangeTime, s.Dev, s.Ino)
	}
	b := stamp([]byte(evidence.RunsDir), evidence.RunsDir)
	var ids []string
	// The refuting runs are the ledger's whichever note each is placed
	// in (Rehome moves entries between notes, never adds one): read
	// unplaced, so that a key needs no look at the notes.
	for _, es := range evidence.ReadLedger(ledger) {
		for _, e := range es {
			if e.Verdict == evidence.VerdictRefutes {
				ids = append(ids, e.ID)
			}
		}
	}
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		if p, ok := evidence.LogOf(id, 1); ok {
			b = stamp(append(b, p...), p)
		}
	}
	return b
}

// zone is the time zone a base reads dates in.
func (w *Workspace) zone() *time.Location {
	if w.Zone != nil {
		return w.Zone
	}
	return time.Local
}

// zoneKey tells one time zone from another. A zone's name may say little
// ("Local"), so the key also holds where Go takes the local zone from
// ($TZ, set or not, and /etc/localtime) and the zone's offsets twice a
// year over the years notes are dated in.
func zoneKey(loc *time.Location) []byte {
	b := []byte(loc.String())
	if loc == time.Local {
		tz, set := os.LookupEnv("TZ")
		b = fmt.Appendf(b, "\x00%v %q\x00", set, tz)
		if lt, err := os.ReadFile("/etc/localtime"); err == nil && len(lt) < 1<<20 {
			b = append(b, lt...)
		}
	}
	for y := 1900; y <= 2100; y++ {
		for _, m := range []time.Month{time.January, time.July} {
			name, off := time.Date(y, m, 1, 12, 0, 0, 0, loc).Zone()
			b = fmt.Appendf(b, "%s%d;", name, off)
		}
	}
	return b
}

// buildStamp tells one development build from the next: a build that is
// not a release says "devel" (or a commit, +dirty) before and after an edit
// of the rules, so its cache key also takes the executable's size and
// modification time. A release's version says it all.
func buildStamp(version string) string {
	if !strings.HasPrefix(version, "devel") && !strings.Contains(version, "+dirty") {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s %d %d", exe, st.Size(), st.ModTime().UnixNano())
}

// IndexKey names what the search index's documents were derived from
// besides the notes (index.Options.TendedKey): an index built under
// another config or other templates is rebuilt rather than trusted.
func (w *Workspace) IndexKey() (string, error) {
	k, err := w.inputKey("zk index", indexInputs)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%x", k[:8]), nil
}

// openModel opens the model file, mapped when the workspace maps it
// (Options.MapCache).
func (w *Workspace) openModel(file string) (*checkcache.Model, error) {
	if w.mapCache {
		return checkcache.MapModel(file)
	}
	return checkcache.OpenModel(file)
}

// encodeStates is checkcache.EncodeStates; a test makes it refuse, as
// it does states of more than 4 GiB.
var encodeStates = checkcache.EncodeStates

// checkPurpose names check's sections of the model file in their key;
// another encoding of its result is another purpose (v6: a state's
// targets hold where its rests-on entries lead, which a recheck after
// files came or went looks notes up by; v7: a state's targets come
// before its summary, and its flags say it is refuted; v8: a finding
// carries its next step, lint.Next).
const checkPurpose = "zk check v8"

// checkCached checks the whole vault through check's sections of the
// model file (checkcache.FindingsSection, StatesSection): when no file
// changed since the last check (and no input of checkInputs did), the
// last result is returned again after one walk that stats every file;
// when notes changed, only they and the notes they can change are
// checked again (lint.Recheck), and what changed is appended to the file;
// a file added, removed or renamed checks again the notes it can change
// and writes the file anew. A cache that cannot be read or written costs
// a full check and a warning, never the check itself.
func (w *Workspace) checkCached(ctx context.Context, copts lint.Options, walk checkWalk) (CheckResult, error) {
	v := w.Vault
	files, skips, started := walk.files, walk.skips, walk.started
	file, err := checkcache.ModelFile(v.Dir)
	if err != nil {
		return w.checkVault(ctx, files, skips, copts, nil, nil)
	}
	key, err := w.inputKey(checkPurpose, checkInputs)
	if err != nil {
		return CheckResult{}, err
	}
	m, err := w.openModel(file)
	if err != nil {
		m = nil // none, or none to trust: a whole check writes it anew
	} else {
		defer m.Close()
	}
	var mu sync.Mutex
	hashes := map[string][sha256.Size]byte{}
	hash := func(n *vault.Note) {
		h := checkcache.Hash(n.Src)
		mu.Lock()
		hashes[n.Path] = h
		mu.Unlock()
	}
	copts.Only, copts.States = w.SkipTemplates(nil), true
	c := checkSave{w: w, file: file, m: m, key: key, files: files, started: started}
	if sec, ok := c.section(checkcache.FindingsSection); ok {
		read := func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) }
		c.was = sec.Hashes
		c.stampsOf(sec)
		changed, same, fresh := c.changed(read)
		if same && len(changed) == 0 {
			if notes, findings, err := checkcache.DecodeFindingsParts(sec.Entries); err == nil {
				if !fresh { // touched but unchanged: stamp them again
					c.restamp(notes, findings)
				}
				return CheckResult{Findings: findings, Notes: notes}, nil
			}
		} else if ssec, first, ok := c.sectionAt(checkcache.StatesSection); ok && slices.Equal(ssec.Hashes, sec.Hashes) && slices.Equal(ssec.Paths, sec.Paths) {
			before, prev := files, lint.Previous{Same: same} // the same files: the walk's
			if !same {
				before, prev.Files = make([]vault.File, len(c.old)), make([]string, len(c.old))
				for i, st := range c.old {
					before[i], prev.Files[i] = vault.File{Path: st.Path}, st.Path
				}
			}
			notes, findings, ferr := checkcache.DecodeFindingsParts(sec.Entries)
			states, serr := checkcache.OpenStatesAt(first, first.Size(), ssec.Entries[1:], before)
			if ferr == nil && serr == nil {
				// The states read as the recheck needs them: after an
				// edit, those of the notes it can change.
				prev.Findings, prev.Cached, prev.Notes, prev.Spent = findings, states, notes, states.Spent()
				c.states = states
				rep, ok, err := lint.Recheck(ctx, v, files, skips, copts, prev, changed, hash)
				if err != nil {
					return CheckResult{}, err
				}
				if ok {
					for _, p := range changed {
						if _, read := hashes[p]; !read {
							hashes[p] = [sha256.Size]byte{} // not read: checked again when its stamp moves
						}
					}
					if !same {
						prev.Findings = nil // a file came or went: written anew
					}
					c.save(hashes, rep, prev.Findings)
					return CheckResult{Findings: rep.Findings, Notes: rep.Notes, Read: rep.Read}, nil
				}
			}
		}
	}
	if len(hashes) == 0 {
		// Every note is hashed: grown a note at a time, the map was
		// rehashed over and over, under the lock (1% of a cold check of
		// the help vault).
		hashes = make(map[string][sha256.Size]byte, len(files))
	}
	rep, err := lint.Check(ctx, v, files, skips, copts, hash) // the walk above, not a second one
	if err != nil {
		return CheckResult{}, err
	}
	c.was = nil
	c.save(hashes, rep, nil)
	return CheckResult{Findings: rep.Findings, Notes: rep.Notes, Read: rep.Read}, nil
}

// checkWalk is the one walk a check reads (Workspace.Check): the files,
// the skipped, and when it began, which the stamps are dated by.
type checkWalk struct {
	files   []vault.File
	skips   []vault.Skip
	started time.Time
}

// checkSave is what a check through the model file knows of it: the
// file, as opened after the walk (m; nil when there is none to trust),
// check's key, the walk's files and when it began, and, once compared,
// check's hash of each stamped file (was, by index in m.Stamps) and what
// is known of each walked file's bytes (content, by index in files; zero
// when not known).
type checkSave struct {
	w       *Workspace
	file    string
	m       *checkcache.Model
	key     checkcache.Key
	files   []vault.File
	started time.Time
	was     [][sha256.Size]byte
	content [][sha256.Size]byte
	// same is set when changed found the walk's files the ones stamped.
	same bool
	// states are check's states as the file holds them, when a recheck
	// read them.
	states *checkcache.States
	// old are the stamps of the files check's sections are by: the model
	// file's, or, when another reader's save over other files kept them
	// whole (checkcache.Section.Paths), those of their own files; settled
	// is checkcache.Model.Settled for them.
	old     []checkcache.Stamp
	settled func(j int, f vault.File) bool
}

// stampsOf sets c.old and c.settled for check's section sec.
func (c *checkSave) stampsOf(sec checkcache.Section) {
	if sec.Paths == nil {
		c.old, c.settled = c.m.Stamps, c.m.Settled
		return
	}
	k := c.m.Kept(sec.Paths)
	c.old, c.settled = k.Stamps, k.Settled
}

// files is how many files check's section sec is by.
func (c *checkSave) filesOf(sec checkcache.Section) int {
	if sec.Paths != nil {
		return len(sec.Paths)
	}
	return len(c.m.Stamps)
}

// section is check's section of name, when the model file has it under
// check's key.
func (c *checkSave) section(name string) (checkcache.Section, bool) {
	if c.m == nil {
		return checkcache.Section{}, false
	}
	sec, ok, err := c.m.Section(name)
	if err != nil || !ok || sec.Key != c.key || len(sec.Hashes) != c.filesOf(sec) {
		return checkcache.Section{}, false
	}
	return sec, true
}

// sectionAt is section with the entries the file was written with left
// in it, read from first (checkcache.Model.SectionAt).
func (c *checkSave) sectionAt(name string) (checkcache.Section, *io.SectionReader, bool) {
	if c.m == nil {
		return checkcache.Section{}, nil, false
	}
	sec, first, ok, err := c.m.SectionAt(name)
	if err != nil || !ok || sec.Key != c.key || len(sec.Hashes) != c.filesOf(sec) {
		return checkcache.Section{}, nil, false
	}
	return sec, first, true
}

// changed compares the walk's files with the model file's stamps and
// check's hashes (c.was). same is true when they are the files stamped,
// none added, removed or renamed; fresh when also every stamp is settled
// by size and time (nothing to stamp again); changed are the notes of
// both whose bytes may differ from those checked (read again and found
// different, or not checked then). Other files changed change nothing a
// check finds.
func (c *checkSave) changed(read func(string) ([]byte, error)) (changed []string, same, fresh bool) {
	stamps, files := c.old, c.files
	same = len(stamps) == len(files)
	c.content = make([][sha256.Size]byte, len(files))
	stale := false
	j := 0
	for i, f := range files {
		for j < len(stamps) && stamps[j].Path < f.Path { // both lists are sorted by path
			j++
			same = false
		}
		if j == len(stamps) || stamps[j].Path != f.Path {
			same = false
			continue // added
		}
		s, was := stamps[j], c.was[j]
		j++
		if c.settled(j-1, f) {
			c.content[i] = s.Hash
			if f.IsNote() && (was == [sha256.Size]byte{} || s.Hash != was) {
				changed = append(changed, f.Path)
			}
			continue
		}
		stale = true
		switch {
		case !f.IsNote():
		case was == [sha256.Size]byte{} || s.Hash == was && s.Size != f.Size:
			changed = append(changed, f.Path) // not checked, or other bytes without reading them
		default:
			src, err := read(f.Path)
			if err != nil {
				changed = append(changed, f.Path)
				continue
			}
			if c.content[i] = checkcache.Hash(src); c.content[i] != was {
				changed = append(changed, f.Path)
			}
		}
	}
	if j < len(stamps) {
		same = false
	}
	c.same = same
	return changed, same, same && !stale
}

// stamps are the walk's files stamped: a note's hash that of its bytes
// read now (hashes), else known unchanged (c.content).
func (c *checkSave) stamps(hashes map[string][sha256.Size]byte) []checkcache.Stamp {
	stamps := make([]checkcache.Stamp, len(c.files))
	for i, f := range c.files {
		stamps[i] = checkcache.StampOf(f)
		if c.content != nil {
			stamps[i].Hash = c.content[i]
		}
	}
	c.eachHash(hashes, func(i int, h [sha256.Size]byte) { stamps[i].Hash = h })
	return stamps
}

// eachHash calls f with each note's hash in hashes and its index among
// the walk's files: after an edit, hashes holds a few notes, found by
// their paths (a lookup of every file's path in it was a tenth of a
// recheck at 100,000 notes); after a whole check, every note.
func (c *checkSave) eachHash(hashes map[string][sha256.Size]byte, f func(i int, h [sha256.Size]byte)) {
	if len(hashes) < len(c.files)/16 {
		for p, h := range hashes {
			if i, ok := slices.BinarySearchFunc(c.files, p, func(f vault.File, p string) int { return strings.Compare(f.Path, p) }); ok {
				f(i, h)
			}
		}
		return
	}
	for i, file := range c.files {
		if h, ok := hashes[file.Path]; ok {
			f(i, h)
		}
	}
}

// save writes a check's result into the model file: as a delta when the
// file stamps the same files and has check's sections (the findings of
// the paths whose findings changed since old, the states of the notes
// checked again), else anew. The stamps are the walk's, dated from before
// it, so that a note changed during the check is never trusted by its
// time. A note's hash is hashes' (the notes read now), else check's
// before (c.was), for the notes not read again.
func (c *checkSave) save(hashes map[string][sha256.Size]byte, rep *lint.Report, old []lint.Finding) {
	files := c.files
	stamps := c.stamps(hashes)
	checked := c.wasByPath()
	c.eachHash(hashes, func(i int, h [sha256.Size]byte) { checked[i] = h })
	fsec := checkcache.Section{Name: checkcache.FindingsSection, Key: c.key, Hashes: checked}
	ssec := checkcache.Section{Name: checkcache.StatesSection, Key: c.key, Hashes: checked}
	u := checkcache.Update{Written: c.started.UnixNano(), Stamps: stamps, Sections: []checkcache.Section{fsec, ssec},
		Carry: carry(c.m, files), KeepFiles: keepFiles}
	if c.was != nil && c.m.Appendable(stamps, c.key, fsec.Name, ssec.Name) {
		u.Changed = []int{}
		for i := range checked {
			if checked[i] != c.was[i] {
				u.Changed = append(u.Changed, i)
			}
		}
		if rep.Files != nil { // a recheck, not a stamping again
			u.Sections[0].Entries = checkcache.EncodeFindingsPieces(old, rep.Findings, rep.Notes)
			u.Sections[1].Entries = [][]byte{checkcache.EncodeStatesDelta(files, rep.Spent, rep.Again)}
		}
	} else {
		var sb [][]byte
		err := errors.New("no states to copy")
		if rep.States == nil { // a recheck of the cached states: those checked again, the others' bytes copied
			sb, err = c.states.Remap(files, rep.Spent, rep.Again)
		}
		if err != nil {
			states := rep.States
			if states == nil { // every note's, read now
				all, err := c.states.All()
				if err != nil {
					return
				}
				states = mergeStates(files, all, rep.Rechecked, rep.Again)
			}
			sb, err = encodeStates(files, rep.Spent, states)
		}
		u.Sections[0].Entries = checkcache.EncodeFindingsPieces(nil, rep.Findings, rep.Notes)
		if err != nil {
			// The findings alone: an unchanged vault still reads them, an
			// edit checks every note (no states to recheck from).
			c.w.warn("%v", err)
			u.Sections = u.Sections[:1]
		} else {
			u.Sections[1].Entries = sb
		}
	}
	if err := checkcache.SaveModel(c.file, c.m, u); err != nil {
		c.w.warn("%v", err)
		return
	}
	for _, f := range checkcache.Retired(c.file) {
		_ = os.Remove(f) // an earlier zk's: nothing reads it
	}
}

// mergeStates are the states of the notes of files: those checked again
// (again, at their places among the notes, rechecked), else those of
// the same path in old (sorted by path, as the cache's walk was), which
// may hold notes gone and lack notes come.
func mergeStates(files []vault.File, old []lint.NoteState, rechecked []int, again []lint.NoteState) []lint.NoteState {
	out := make([]lint.NoteState, 0, len(old)+len(again))
	j, k := 0, 0
	for _, f := range files {
		if !f.IsNote() {
			continue
		}
		i := len(out)
		for j < len(old) && old[j].Path < f.Path {
			j++
		}
		switch {
		case k < len(rechecked) && rechecked[k] == i:
			out = append(out, again[k])
			k++
		case j < len(old) && old[j].Path == f.Path:
			out = append(out, old[j])
		default:
			out = append(out, lint.NoteState{Path: f.Path})
		}
	}
	return out
}

// restamp saves the stamps of files touched but unchanged since the
// check whose result the file holds (notes, findings): a delta of the
// stamps alone, or, when the file takes no more deltas, the result
// written anew with its states as they are.
func (c *checkSave) restamp(notes int, findings []lint.Finding) {
	if c.m.Appendable(c.stamps(nil), c.key, checkcache.FindingsSection, checkcache.StatesSection) {
		c.save(nil, &lint.Report{}, nil)
		return
	}
	sec, ok := c.section(checkcache.StatesSection)
	if !ok {
		return
	}
	spent, states, err := checkcache.DecodeStates(sec.Entries, c.files)
	if err != nil {
		return
	}
	c.was = nil // written anew
	c.save(nil, &lint.Report{Findings: findings, Notes: notes, Files: c.files, States: states, Spent: spent}, nil)
}

// wasByPath is check's hash before this check of each file of the walk,
// by index: by index when the model file stamps the same files, by path
// otherwise (both lists are sorted by path, walked together); zero when
// there is none.
func (c *checkSave) wasByPath() [][sha256.Size]byte {
	out := make([][sha256.Size]byte, len(c.files))
	switch {
	case c.was == nil:
	case c.same: // compared already
		copy(out, c.was)
	default:
		j := 0
		for i, f := range c.files {
			for j < len(c.old) && c.old[j].Path < f.Path {
				j++
			}
			if j < len(c.old) && c.old[j].Path == f.Path {
				out[i] = c.was[j]
			}
		}
	}
	return out
}
