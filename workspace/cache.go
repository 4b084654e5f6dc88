package workspace

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/zk-claims/zk/checkcache"
	"github.com/zk-claims/zk/config"
	"github.com/zk-claims/zk/vault"
	"github.com/zk-claims/zk/vault/lint"
	"github.com/zk-claims/zk/vault/move"
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
	// InTemplates is each note type's name and template.
	InTemplates
	// InPropTypes is .obsidian/types.json, which frontmatter/type-mismatch
	// checks against.
	InPropTypes
	// InToday is the day notes are measured against.
	InToday
	// InLedger is the run ledger: a run recorded, or its block saved
	// aside, changes what evidence/run-vanished finds, and its numbers tie
	// run blocks recorded before falsifier ids to their falsifier.
	InLedger
	// InUntrusted is the files under .zk/ zk will not act on, which
	// file/untrusted reports.
	InUntrusted

	allInputs = InBuild | InConfig | InTemplates | InPropTypes | InToday | InLedger | InUntrusted
)

// The inputs of each cache.
const (
	// checkInputs: a whole-vault check's findings depend on all of them.
	checkInputs = allInputs
	// listInputs: a note's list record holds dates that a query compares
	// with today when it runs, and its verdicts read the ledger (runs
	// recorded before falsifier ids); no record reads the property types.
	listInputs = InBuild | InConfig | InTemplates | InLedger
	// detailInputs: a note's details (its links resolved, its
	// falsifiers' standing) read the ledger, whose numbers tie runs
	// recorded before falsifier ids; links resolve against the files,
	// which the stamps hold.
	detailInputs = InBuild | InLedger
	// indexInputs: the index's documents hold each note's Last tended
	// date, read under the config's keys and the type's section, and its
	// language; the index keeps its own format version, so zk's build is
	// not one.
	indexInputs = InConfig | InTemplates
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
	if set&InPropTypes != 0 {
		raw, _ := v.ReadFile(property.TypesFile, 1<<20) // none: no declared types
		add(property.TypesFile, raw)
	}
	if set&InLedger != 0 {
		ledger, _ := ReadLedger(v)
		add("ledger", ledger)
	}
	if set&InUntrusted != 0 {
		_, untrusted := ReadLedger(v)
		for _, u := range append(untrusted, move.SetAside(v)...) {
			add("untrusted", []byte(u.Path), []byte(u.Reason))
		}
	}
	if set&InTemplates != 0 {
		for _, name := range cfg.TypeNames() {
			tmpl, _, err := cfg.Template(name, func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) })
			if err != nil {
				return nil, err
			}
			add("template", []byte(name), tmpl)
		}
	}
	return parts, nil
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

// checkPurpose names check's cache in its key; another encoding of its
// result is another purpose.
const checkPurpose = "zk check v2"

// checkCached checks the whole vault through the metadata cache: when no
// file changed since the last check (and no input of checkInputs did),
// the last result is returned again after one walk that stats every file;
// when notes changed, only they and the notes they can change are checked
// again (lint.Recheck); a file added, removed or renamed checks the whole
// vault. A cache that cannot be read or written costs a full check and a
// warning, never the check itself.
func (w *Workspace) checkCached(ctx context.Context, copts lint.Options) (CheckResult, error) {
	v := w.Vault
	file, err := checkcache.File(v.Dir)
	if err != nil {
		files, skips, err := v.Files(ctx)
		if err != nil {
			return CheckResult{}, err
		}
		return w.checkVault(ctx, files, skips, copts, nil, nil)
	}
	key, err := w.inputKey(checkPurpose, checkInputs)
	if err != nil {
		return CheckResult{}, err
	}
	started := time.Now() // before the walk: the stamps are the walk's
	files, skips, err := v.Files(ctx)
	if err != nil {
		return CheckResult{}, err
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
	if e, err := checkcache.Read(file); err == nil && e.Key == key {
		read := func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) }
		changed, rehashed, same := e.Changed(files, read)
		switch {
		case same && len(changed) == 0:
			if notes, findings, err := checkcache.DecodeResultFindings(e.Result); err == nil {
				if rehashed > 0 || !stampsMatch(e.Stamps, files) { // touched but unchanged: stamp them again
					w.saveEntry(file, key, files, stampHashes(e.Stamps), nil, e.Result, started)
				}
				return CheckResult{Findings: findings, Notes: notes}, nil
			}
		default: // notes changed, or files came or went
			states, err := checkcache.ReadStates(file)
			if err != nil {
				break
			}
			before := make([]vault.File, len(e.Stamps))
			for i, st := range e.Stamps {
				before[i] = vault.File{Path: st.Path}
			}
			if prev, old, err := checkcache.DecodeResult(e.Result, states, before); err == nil {
				prev.Files = make([]string, len(before))
				for i, f := range before {
					prev.Files[i] = f.Path
				}
				if !same {
					old = nil // its states name files by their place among others
				}
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
					w.saveResult(file, key, files, stampHashes(e.Stamps), hashes, rep, old, started)
					return CheckResult{Findings: rep.Findings, Notes: rep.Notes, Read: rep.Read}, nil
				}
			}
		}
	}
	rep, err := lint.Check(ctx, v, files, skips, copts, hash) // the walk above, not a second one
	if err != nil {
		return CheckResult{}, err
	}
	w.saveResult(file, key, files, nil, hashes, rep, nil, started)
	return CheckResult{Findings: rep.Findings, Notes: rep.Notes, Read: rep.Read}, nil
}

// stampsMatch reports whether every file has the size and time its
// stamp says (an attachment changed is stamped again).
func stampsMatch(stamps []checkcache.Stamp, files []vault.File) bool {
	for i, f := range files {
		if stamps[i].Size != f.Size || stamps[i].ModTime != f.ModTime.UnixNano() {
			return false
		}
	}
	return true
}

// stampHashes are the notes' hashes of stamps, by path.
func stampHashes(stamps []checkcache.Stamp) map[string][sha256.Size]byte {
	out := make(map[string][sha256.Size]byte, len(stamps))
	for _, st := range stamps {
		if st.Hash != ([sha256.Size]byte{}) {
			out[st.Path] = st.Hash
		}
	}
	return out
}

// saveResult writes a check's states, then its cache entry (saveEntry).
// A recheck's states are the cached ones (old) but for the notes it read
// (hashes) or found changed.
func (w *Workspace) saveResult(file string, key checkcache.Key, files []vault.File, old map[string][sha256.Size]byte,
	hashes map[string][sha256.Size]byte, rep *lint.Report, cached *checkcache.Encoded, started time.Time) {
	again := func(i int) bool { _, ok := hashes[rep.States[i].Path]; return ok }
	result, states := checkcache.EncodeResult(files, rep.Notes, rep.Findings, rep.Spent, rep.States, cached, again)
	if err := checkcache.SaveStates(file, states); err != nil {
		w.warn("%v", err)
	}
	w.saveEntry(file, key, files, old, hashes, result, started)
}

// saveEntry writes the cache entry of a result. The stamps are those of
// the files the check read, and the entry is dated from before the walk,
// so that a note changed during the check is never trusted by its time.
// A note's hash is hashes' (the notes read), else its old stamp's (old,
// by path; nil for none).
func (w *Workspace) saveEntry(file string, key checkcache.Key, files []vault.File, old map[string][sha256.Size]byte,
	hashes map[string][sha256.Size]byte, result []byte, started time.Time) {
	stamps := checkcache.Stamps(files, func(p string) ([sha256.Size]byte, bool) {
		h, ok := hashes[p]
		return h, ok
	})
	for i := range stamps {
		if _, ok := hashes[stamps[i].Path]; !ok {
			stamps[i].Hash = old[stamps[i].Path]
		}
	}
	e := checkcache.Entry{Key: key, Written: started.UnixNano(), Stamps: stamps, Result: result}
	if err := checkcache.Save(file, e); err != nil {
		w.warn("%v", err)
	}
}
