package main

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
	"github.com/zk-claims/zk/vault/property"
	"github.com/zk-claims/zk/workspace"
)

// checkCached checks the whole vault through the metadata cache: when no
// file changed since the last check (and neither did zk, the config, the
// templates or today), the last result is printed again after one walk
// that stats every file. A cache that cannot be read or written costs a
// full check and a warning, never the check itself.
func checkCached(ctx context.Context, v *vault.Vault, cfg *config.Config, copts lint.Options, s *streams) (checkResult, error) {
	file, err := checkcache.File(v.Dir)
	if err != nil {
		return scanAndCheck(ctx, v, cfg, copts, nil)
	}
	key, err := cacheKey(v, cfg, copts)
	if err != nil {
		return checkResult{}, err
	}
	started := time.Now() // before the walk: the stamps are the walk's
	files, skips, err := v.Files(ctx)
	if err != nil {
		return checkResult{}, err
	}
	read := func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) }
	if b, rehashed, ok := checkcache.Load(file, key, files, read); ok {
		if notes, findings, err := checkcache.DecodeFindings(b); err == nil {
			res := checkResult{Findings: findings, Notes: notes}
			if rehashed > 0 { // touched but unchanged: stamp them again
				saveCheck(file, key, files, nil, res, started, s)
			}
			return res, nil
		}
	}
	var mu sync.Mutex
	hashes := map[string][sha256.Size]byte{}
	hash := func(n *vault.Note) {
		h := checkcache.Hash(n.Src)
		mu.Lock()
		hashes[n.Path] = h
		mu.Unlock()
	}
	res, err := checkVault(ctx, v, files, skips, cfg, copts, nil, hash) // the walk above, not a second one
	if err != nil {
		return res, err
	}
	saveCheck(file, key, files, hashes, res, started, s)
	return res, nil
}

// saveCheck writes the cache entry of a result. The stamps are those of
// the files the check read, and the entry is dated from before the walk,
// so that a note changed during the check is never trusted by its time.
// hashes are the notes' hashes; nil keeps those of the current entry.
func saveCheck(file string, key checkcache.Key, files []vault.File, hashes map[string][sha256.Size]byte, res checkResult, started time.Time, s *streams) {
	if hashes == nil {
		if old, err := loadStamps(file); err == nil {
			hashes = old
		}
	}
	stamps := checkcache.Stamps(files, func(p string) ([sha256.Size]byte, bool) {
		h, ok := hashes[p]
		return h, ok
	})
	e := checkcache.Entry{Key: key, Written: started.UnixNano(), Stamps: stamps, Result: checkcache.EncodeFindings(res.Notes, res.Findings)}
	if err := checkcache.Save(file, e); err != nil {
		fmt.Fprintf(s.err, "zk: warning: %v\n", err)
	}
}

// loadStamps reads the hashes of the current cache entry.
func loadStamps(file string) (map[string][sha256.Size]byte, error) {
	e, err := checkcache.Read(file)
	if err != nil {
		return nil, err
	}
	out := make(map[string][sha256.Size]byte, len(e.Stamps))
	for _, st := range e.Stamps {
		out[st.Path] = st.Hash
	}
	return out, nil
}

// cacheKey is everything a whole-vault result depends on besides the
// files: zk's version, the config, each type's template, today.
func cacheKey(v *vault.Vault, cfg *config.Config, copts lint.Options) (checkcache.Key, error) {
	parts := [][]byte{[]byte(buildVersion()), []byte(copts.Today.Format(time.DateOnly)), []byte(buildStamp())}
	raw, err := config.Read(v.Root())
	if err == nil {
		parts = append(parts, raw)
	}
	// The property types frontmatter/type-mismatch checks against.
	if raw, err := v.ReadFile(property.TypesFile, 1<<20); err == nil {
		parts = append(parts, []byte(property.TypesFile), raw)
	}
	// The run ledger: a run recorded, or its block saved aside, changes
	// what evidence/run-vanished finds.
	ledger, _ := workspace.ReadLedger(v)
	parts = append(parts, ledger)
	// The files under .zk/ zk will not act on, which file/untrusted reports.
	for _, u := range copts.Untrusted {
		parts = append(parts, []byte(u.Path), []byte(u.Reason))
	}
	for _, name := range cfg.TypeNames() {
		tmpl, _, err := cfg.Template(name, func(p string) ([]byte, error) { return v.ReadFile(p, v.MaxNoteSize) })
		if err != nil {
			return checkcache.Key{}, err
		}
		parts = append(parts, []byte(name), tmpl)
	}
	return checkcache.NewKey(parts...), nil
}

// buildStamp tells one development build from the next: a build that is
// not a release says "devel" (or a commit, +dirty) before and after an edit
// of the rules, so its cache key also takes the executable's size and
// modification time. A release's version says it all.
func buildStamp() string {
	if v := buildVersion(); !strings.HasPrefix(v, "devel") && !strings.Contains(v, "+dirty") {
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
