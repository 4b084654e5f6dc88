package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/zk-claims/zk/vault/lint"
)

// Commented is the [claims] table with every setting at its default,
// each commented out, as zk init writes it: a user uncomments what they
// change. It is built from Default, so it cannot drift from it.
func Commented() []byte {
	d := Default()
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	w("# zk's settings (https://github.com/zk-claims/zk). zk reads only the\n")
	w("# [%s] table, so this file can also hold zk-org/zk's settings; each tool\n", Table)
	w("# ignores the other's tables. Every key shows its default, commented out.\n")
	w("[%s]\n", Table)
	w("# Vault paths zk does not read: globs with **, matched ignoring case. An\n")
	w("# ignored note is as if absent: links to it are broken. To check only some\n")
	w("# folders, name them: zk check FOLDER...\n")
	w("# ignore = %s\n\n", list(d.Ignore))
	w("# How often a note wants tending when neither its frontmatter (tend-every)\n")
	w("# nor its type says: a number and d, w, m or y.\n")
	w("# tend-every = %s\n\n", strconv.Quote(d.TendEvery))
	w("# Frontmatter properties read as the Last tended date, first found wins.\n")
	w("# tended-keys = %s\n\n", list(d.TendedKeys))
	w("# The relations a Links entry may name: - [[Target]] — relation: why\n")
	w("# The list replaces the default one: keep the relations you still use.\n")
	w("# relations = %s\n\n", list(d.Relations))
	w("# The relations by which a note rests on its target: a note whose Links\n")
	w("# entry names one, to a refuted note, is warned (links/rests-on-refuted).\n")
	w("# Each must be one of relations; rename them together.\n")
	w("# rests-on = %s\n\n", list(d.RestsOn))
	w("# The vault folder of note type templates, one NAME.md per type; a type\n")
	w("# without one there uses the template zk ships.\n")
	w("# templates = %s\n\n", strconv.Quote(d.Templates))
	w("# The search index's folder (\"\": one per vault in the user cache folder,\n")
	w("# outside the vault; a relative path is from the vault root and must stay\n")
	w("# inside it: a vault's config may not write elsewhere). $ZK_INDEX_DIR\n")
	w("# overrides it and may name any folder.\n")
	w("# index-dir = %s\n\n", strconv.Quote(d.IndexDir))
	w("# Check the links inside %%%% comments, which a reader never sees (Obsidian\n")
	w("# still records them).\n")
	w("# check-comments = %t\n\n", d.CheckComments)
	w("# How falsifiers' captures read numbers when the falsifier declares none\n")
	w("# (numbers: under it): \"1,234.5\" or \"1.234,5\"; \"\" reads only what both read alike.\n")
	w("# numbers = %s\n\n", strconv.Quote(d.Numbers))
	w("# The share of bootstrap resamples that must agree for a verdict when the\n")
	w("# falsifier does not say (confidence: under it); fewer: inconclusive, within noise.\n")
	w("# A verdict also needs enough samples for it: 6 at 95%%, 8 at 99%%.\n")
	w("# confidence = %s\n\n", strconv.Quote(d.Confidence))
	w("# Each rule's severity: \"error\", \"warning\" or \"off\"; a rule's group,\n")
	w("# \"links\", or \"all\" sets several, a rule's own id winning. To silence\n")
	w("# rules in one note instead, give it the property zk-ignore: [RULE, ...];\n")
	w("# in one block, a line <!-- zk-ignore RULE --> before it (named alike).\n")
	w("[%s.rules]\n", Table)
	for _, r := range lint.Rules() {
		w("# %s = %s\n", strconv.Quote(r.ID), strconv.Quote(r.Default.String()))
	}
	w("\n# Rules' severities in some vault paths or note types only, over\n")
	w("# [%s.rules]: paths are globs as ignore takes them; types = [\"literature\"]\n", Table)
	w("# names note types (with paths too: those types in those paths); where\n")
	w("# several overrides match, the last wins.\n")
	w("# Each [[%s.overrides]] adds one; uncomment these three lines for one.\n", Table)
	w("%s", OverrideExample)
	for _, name := range d.TypeNames() {
		t := d.Types[name]
		w("\n# The note type %q. A note is of the type when its vault path matches\n", name)
		w("# one of paths, or its frontmatter property has the value. [%s.types.NAME]\n", Table)
		w("# adds a type, with its template NAME.md in the templates folder.\n")
		w("[%s.types.%s]\n", Table, name)
		w("# template = %s\n", strconv.Quote(t.Template))
		w("# paths = %s\n", list(t.Paths))
		w("# property = %s\n", strconv.Quote(t.Property))
		w("# value = %s\n", strconv.Quote(t.Value))
		w("# How often a note of the type wants tending (\"\": tend-every above).\n")
		w("# tend-every = %s\n", strconv.Quote(t.TendEvery))
		w("# The folder zk new writes notes of the type to.\n")
		w("# folder = %s\n", strconv.Quote(t.Folder))
	}
	return []byte(b.String())
}

// OverrideExample is the override zk init writes, commented out: a vault
// that links to notes not yet written keeps links/broken where its
// claims live and turns it off in its inbox. Its keys are indented so
// that it is not read as a default.
const OverrideExample = `# [[claims.overrides]]
#   paths = ["Inbox/**"]
#   rules = { "links/broken" = "off" }
`

func list(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
