package trust

import (
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A repository's config runs programs of its own (core.fsmonitor on git
// status, core.pager, diff.external, an alias, a filter), and so does what
// it pulls in: a file [include] or [includeIf "..."] path= names (read
// whatever the condition: binding one more file costs a hash), and the
// hooks git commit, git checkout or git merge run, in .git/hooks or
// core.hooksPath's folder. A vault unzipped or copied with its .git brings
// all of them. gitRepo binds them as named files are bound: edited, added
// or gone after an approval, the command needs a new one.

// maxGitIncludes is how deep git follows includes (its own bound).
const maxGitIncludes = 10

// gitHooks are the hooks git and its commands run, by name: each is
// looked for, so that one added later is a change.
var gitHooks = []string{
	"applypatch-msg", "pre-applypatch", "post-applypatch", "pre-commit", "pre-merge-commit",
	"prepare-commit-msg", "commit-msg", "post-commit", "pre-rebase", "post-checkout", "post-merge",
	"pre-push", "pre-receive", "update", "proc-receive", "post-receive", "post-update",
	"reference-transaction", "push-to-checkout", "pre-auto-gc", "post-rewrite", "sendemail-validate",
	"fsmonitor-watchman", "p4-changelist", "p4-prepare-changelist", "p4-post-changelist",
	"p4-pre-submit", "post-index-change",
}

// gitRepo binds what the repository whose work tree is top runs on its
// own: its configs, what they include and name, and its hooks. A .git that
// is a file leads to the repository (gitdir: PATH), and a worktree's to
// its common folder (commondir).
func (in *inspector) gitRepo(top, base string) {
	in.gitRepoAt(top, top+string(filepath.Separator)+".git", base)
}

// gitRepoAt is gitRepo of the repository whose git folder (or .git file)
// is gitDir.
func (in *inspector) gitRepoAt(top, gitDir, base string) {
	// Stat, not Lstat: a .git that is a symlink to a folder is that
	// repository, its hooks and includes too.
	if st, err := os.Stat(gitDir); err == nil && !st.IsDir() {
		b, err := readFile(gitDir)
		if err != nil || b == nil {
			return // hashing it said why
		}
		d, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
		if !ok {
			return
		}
		gitDir = in.join(top, strings.TrimSpace(d))
	}
	common := gitDir
	if b, err := readFile(gitDir + string(filepath.Separator) + "commondir"); err == nil && b != nil {
		in.hash(gitDir+string(filepath.Separator)+"commondir", base)
		common = in.join(gitDir, strings.TrimSpace(string(b)))
	}
	hooks := common + string(filepath.Separator) + "hooks"
	seen := map[string]bool{}
	for _, c := range []string{common + string(filepath.Separator) + "config", gitDir + string(filepath.Separator) + "config", gitDir + string(filepath.Separator) + "config.worktree"} {
		if h := in.gitConfig(c, top, base, 0, seen); h != "" {
			hooks = in.join(top, h)
		}
	}
	for _, h := range gitHooks {
		in.hash(hooks+string(filepath.Separator)+h, base)
	}
}

// join is name read from dir, as git reads a path in its config: ~/ is the
// home folder, an absolute path itself.
func (in *inspector) join(dir, name string) string {
	if rest, ok := strings.CutPrefix(name, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	if filepath.IsAbs(name) {
		return name
	}
	return dir + string(filepath.Separator) + name
}

// gitConfig binds the config file at p (read for the work tree top), the
// files it includes, each to git's depth, and the files its values name,
// from top and from the folders names are read from. It returns the last
// core.hooksPath it sets, or "".
func (in *inspector) gitConfig(p, top, base string, depth int, seen map[string]bool) string {
	if depth > maxGitIncludes || seen[p] || in.err != nil {
		return ""
	}
	seen[p] = true
	in.hash(p, base)
	b, err := readFile(p)
	if err != nil || b == nil {
		return "" // hashing it said why, or it is not there
	}
	hooks := ""
	for kv := range gitConfigValues(string(b)) {
		switch {
		case (kv.section == "include" || kv.section == "includeif") && kv.key == "path":
			if h := in.gitConfig(in.join(filepath.Dir(p), kv.value), top, base, depth+1, seen); h != "" {
				hooks = h
			}
			continue
		case kv.section == "core" && kv.key == "hookspath":
			hooks = kv.value
		}
		// A value may name a program or script git runs (fsmonitor = sh
		// fsmon.sh, alias.t = !sh t.sh): bound as named ones are.
		if !in.readName(p) {
			return hooks
		}
		in.names(kv.value)
		for _, w := range append([]string{kv.value}, strings.Fields(kv.value)...) {
			if w = strings.Trim(strings.TrimPrefix(w, "!"), `'"`); w != "" && !strings.ContainsRune(w, 0) {
				in.hash(in.join(top, w), base)
			}
		}
	}
	return hooks
}

// gitValue is one variable of a git config: its section's name and its
// key, lower-cased (a subsection is left out), and its value unquoted.
type gitValue struct{ section, key, value string }

// gitConfigValues reads a git config's variables as git does, loosely: a
// section header ([core], [includeIf "gitdir:x"], [a.b]), a variable
// after it on the same line or on its own, comments after # or ; outside
// quotes, a line ending in \ continued on the next. They are read as
// they are asked for: a reader that stops reads no further.
func gitConfigValues(src string) iter.Seq[gitValue] {
	return func(yield func(gitValue) bool) {
		section := ""
		src = strings.ReplaceAll(src, "\\\r\n", "")
		src = strings.ReplaceAll(src, "\\\n", "")
		for line := range strings.Lines(src) {
			line = strings.TrimSpace(line)
			if strings.HasPrefix(line, "[") {
				end := closing(line)
				if end < 0 {
					continue
				}
				name := line[1:end]
				if i := strings.IndexAny(name, " \t\"."); i >= 0 {
					name = name[:i]
				}
				section = asciiLower(name)
				line = strings.TrimSpace(line[end+1:])
			}
			if line == "" || line[0] == '#' || line[0] == ';' {
				continue
			}
			key, value, _ := strings.Cut(line, "=")
			if !yield(gitValue{section, asciiLower(strings.TrimSpace(key)), unquoteGit(value)}) {
				return
			}
		}
	}
}

// asciiLower lower-cases s's ASCII letters, as git does its names; other
// bytes are left as they are (strings.ToLower would fold the Kelvin sign
// into k).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// closing is the index of the ] that ends a section header, past any
// quoted subsection, or -1.
func closing(line string) int {
	quoted := false
	for i := 1; i < len(line); i++ {
		switch {
		case line[i] == '\\' && quoted:
			i++
		case line[i] == '"':
			quoted = !quoted
		case line[i] == ']' && !quoted:
			return i
		}
	}
	return -1
}

// unquoteGit is a config value as git reads it: quotes removed, escapes
// read, a comment outside quotes cut, the ends trimmed.
func unquoteGit(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'b':
				b.WriteByte('\b')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// gitOptions reads git's options that name what it runs, which no
// config file in the repository found says: -c core.hooksPath=DIR (the
// hooks there run: git -c core.hooksPath=.h commit ran .h/pre-commit
// unbound), -c include.path=FILE (a config read as the repository's),
// --git-dir=DIR (another repository, its config and hooks); and
// --exec-path=DIR, where git finds its commands: opaque.
func (in *inspector) gitOptions(args []string) {
	for _, a := range args {
		if strings.HasPrefix(a, "--exec-path=") {
			in.opaque("`%s` has git run its commands from a folder zk does not read", a)
		}
	}
	for _, d := range slices.Clone(in.dirs) {
		for _, c := range optionValues(args, "c", nil) {
			key, v, ok := strings.Cut(c, "=")
			if !ok || v == "" || strings.ContainsRune(v, 0) {
				continue
			}
			key = asciiLower(key)
			switch {
			case key == "core.hookspath":
				for _, h := range gitHooks {
					in.hash(in.join(d.path, v)+string(filepath.Separator)+h, d.base)
				}
			case key == "include.path" || strings.HasPrefix(key, "includeif.") && strings.HasSuffix(key, ".path"):
				in.gitConfig(in.join(d.path, v), d.path, d.base, 1, map[string]bool{})
			}
		}
		for _, g := range optionValues(args, "", []string{"--git-dir"}) {
			if g != "" && !strings.ContainsRune(g, 0) {
				in.gitRepoAt(d.path, in.join(d.path, g), d.base)
			}
		}
	}
}
