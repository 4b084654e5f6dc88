// Package vaultgen writes synthetic vaults of permanent notes for
// benchmarks: n notes in the house format, spread over folders, with typed
// links between them, a few broken links, tags, and Last tended dates
// spread over a year. The same n and seed give the same bytes.
package vaultgen

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
)

var words = strings.Fields(`latency throughput aggregate stream user cache miss hit benchmark warm cold
percentile median tail request token queue batch server client denominator concurrency rate claim
evidence falsifier scope measurement honest vendor report number system metric window steady state`)

var relations = []string{"extends", "contrasts", "evidence-for", "applies-in", "refines", "supports"}

// Title returns the title of note i.
func Title(i int) string {
	return fmt.Sprintf("Claim %05d about %s", i, words[i%len(words)])
}

// Path returns the vault path of note i.
func Path(i int) string {
	return fmt.Sprintf("Permanent Notes/%02d/%s.md", i%50, Title(i))
}

// Generate writes n notes under dir.
func Generate(dir string, n int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 1))
	if err := os.MkdirAll(filepath.Join(dir, ".obsidian"), 0o755); err != nil {
		return err
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < n; i++ {
		p := filepath.Join(dir, filepath.FromSlash(Path(i)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(note(r, i, n, base)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func sentence(r *rand.Rand, k int) string {
	w := make([]string, k)
	for i := range w {
		w[i] = words[r.IntN(len(words))]
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func note(r *rand.Rand, i, n int, base time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n## Claim\n\n%s\n\n## Scope & conditions\n\n", Title(i), sentence(r, 25))
	for k := 0; k < 3; k++ {
		fmt.Fprintf(&b, "- %s\n", sentence(r, 18))
	}
	fmt.Fprintf(&b, "\n## Evidence\n\n%s %s #%s\n\n%s\n\n## Links\n\n", sentence(r, 40), sentence(r, 30), words[r.IntN(len(words))], sentence(r, 35))
	for k := 0; k < 4; k++ {
		target := Title(r.IntN(n))
		if r.IntN(50) == 0 {
			target = "Missing " + target // a broken link now and then
		}
		fmt.Fprintf(&b, "- [[%s]] — %s: %s\n", target, relations[r.IntN(len(relations))], sentence(r, 12))
	}
	fmt.Fprintf(&b, "\n## Tests / falsifiers\n\n- %s\n- %s\n\n## Maintenance\n\n- Last tended: %s\n",
		sentence(r, 15), sentence(r, 15), base.AddDate(0, 0, r.IntN(335)).Format(time.DateOnly))
	return b.String()
}

// AddProperties gives each of the n notes Generate wrote a frontmatter
// block: status (draft, review, done in turn), rating (0-9) and a created
// date, for benchmarks of property filters (zk list --where).
func AddProperties(dir string, n int) error {
	statuses := []string{"draft", "review", "done"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		p := filepath.Join(dir, filepath.FromSlash(Path(i)))
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fm := fmt.Sprintf("---\nstatus: %s\nrating: %d\ncreated: %s\n---\n", statuses[i%3], i%10, base.AddDate(0, 0, i%300).Format(time.DateOnly))
		if err := os.WriteFile(p, append([]byte(fm), src...), 0o644); err != nil {
			return err
		}
	}
	return nil
}
