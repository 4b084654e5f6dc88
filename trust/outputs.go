package trust

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// A file a command writes is its output, not code it runs: hyperfine
// --export-json bench.json, tee out.txt, go test -coverprofile c.out. One
// named by an output option is not bound, or the command's own first run,
// writing it, would void its approval ("approved, but bench.json changed
// since"). One it writes and also runs or reads (named as an input too,
// or in the tree of code a tool runs) is refused: its first run would run
// the vault's copy, unbound, and then undo the approval.

// outputOpts are the options of programs whose value is a file they
// write: long ones (--export-json, and go's single-dash -coverprofile,
// written as the flag package takes them, - or --, with = or not) and
// short letters; operands: every operand is one (tee), or the first (a
// script's typescript).
var outputOpts = map[string]struct {
	short    string
	long     []string
	operands int // 0: none; 1: the first; -1: every one
	// valued and valuedLong are its other options that take a value, so
	// that the value is not counted as an operand.
	valued     string
	valuedLong []string
}{
	"hyperfine": {long: []string{"--export-json", "--export-markdown", "--export-csv", "--export-asciidoc", "--export-orgmode", "--output"}},
	"go":        {long: []string{"--o", "--coverprofile", "--cpuprofile", "--memprofile", "--blockprofile", "--mutexprofile", "--trace"}},
	"tee":       {operands: -1},
	"script": {short: "OIBT", long: []string{"--log-out", "--log-in", "--log-io", "--log-timing"}, operands: 1,
		valued: "cEmo", valuedLong: []string{"--command", "--echo", "--logging-format", "--output-limit"}},
	"pytest":   {long: []string{"--junitxml", "--junit-xml", "--html", "--json-report-file", "--report-log", "--result-log"}},
	"py.test":  {long: []string{"--junitxml", "--junit-xml", "--html", "--json-report-file", "--report-log", "--result-log"}},
	"jest":     {long: []string{"--outputFile"}},
	"vitest":   {long: []string{"--outputFile"}},
	"strace":   {short: "o", long: []string{"--output"}},
	"ltrace":   {short: "o", long: []string{"--output"}},
	"perf":     {short: "o", long: []string{"--output"}},
	"time":     {short: "o", long: []string{"--output"}},
	"gtime":    {short: "o", long: []string{"--output"}},
	"valgrind": {long: []string{"--log-file", "--xml-file"}},
	"curl":     {short: "o", long: []string{"--output"}},
	"wget":     {short: "Oo", long: []string{"--output-document", "--output-file"}},
	"sort":     {short: "o", long: []string{"--output"}},
}

// output is a file a command writes, as a word of it names it.
type output struct {
	name  string   // as the command names it
	paths []string // where, from each folder names are read from
	by    string   // the program and option that write it, for a message
}

// outputWords records the files the program base, given args, writes and
// returns the indices in args of the words that name them (an option's
// value, or the option=value word), which are not read as names.
func (in *inspector) outputWords(base string, args []string) map[int]bool {
	o, ok := outputOpts[base]
	if !ok {
		return nil
	}
	skip := map[int]bool{}
	add := func(j int, name, by string) {
		if name == "" || name == "-" || strings.HasPrefix(name, "/dev/") || strings.ContainsRune(name, 0) {
			return
		}
		if base == "hyperfine" && by == "--output" && slices.Contains([]string{"null", "pipe", "inherit"}, name) {
			return
		}
		skip[j] = true
		out := output{name: name, by: base + " " + by}
		for _, d := range in.dirs {
			p := name
			if !filepath.IsAbs(p) {
				p = d.path + string(filepath.Separator) + name
			}
			out.paths = append(out.paths, filepath.Clean(p))
		}
		in.outputs = append(in.outputs, out)
	}
	n := 0
	for j := 0; j < len(args); j++ {
		a := args[j]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if n++; o.operands < 0 || o.operands >= n {
				add(j, a, "")
			}
			continue
		}
		opt, v, eq := strings.Cut(a, "=")
		if base == "go" {
			opt = "--" + strings.TrimLeft(opt, "-") // go's flags take - or --
		}
		if k := slices.Index(o.long, opt); k >= 0 && strings.HasPrefix(opt, "--") {
			if eq {
				add(j, v, o.long[k])
			} else if j+1 < len(args) {
				add(j+1, args[j+1], o.long[k])
				j++
			}
			continue
		}
		if slices.Contains(o.valuedLong, opt) && !eq {
			j++
			continue
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		k := strings.IndexAny(a[1:], o.short+o.valued)
		if k >= 0 && strings.IndexByte(o.valued, a[k+1]) >= 0 {
			if k == len(a)-2 {
				j++ // its value is the next word
			}
			continue
		}
		if k >= 0 && o.short != "" {
			// The letter takes the rest of its word, or the next.
			if rest := a[k+2:]; rest != "" {
				add(j, strings.TrimPrefix(rest, "="), "-"+a[k+1:k+2])
			} else if j+1 < len(args) {
				add(j+1, args[j+1], "-"+a[k+1:k+2])
				j++
			}
		}
	}
	return skip
}

// checkOutputs refuses a command that writes a file it also binds: one
// hashed as a named file, or where a tree of code it runs binds its files.
func (in *inspector) checkOutputs() {
	if in.err != nil || len(in.outputs) == 0 {
		return
	}
	bound := map[string]bool{}
	for p := range in.bound {
		bound[p] = true
		if real, err := filepath.EvalSymlinks(p); err == nil {
			bound[real] = true
		}
	}
	for _, o := range in.outputs {
		for _, p := range o.paths {
			real := p
			if r, err := filepath.EvalSymlinks(p); err == nil {
				real = r
			} else if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
				real = filepath.Join(r, filepath.Base(p))
			}
			hit := bound[p] || bound[real]
			for _, r := range in.trees {
				hit = hit || treeBinds(r, real)
			}
			if hit {
				in.err = fmt.Errorf("trust: the command writes %s (%s) and also runs or reads it: zk does not approve a command that writes what its approval binds (its first run would run the copy it finds, then undo the approval); have it write elsewhere", in.display(real, in.realDir), strings.TrimSpace(o.by))
				return
			}
		}
	}
}

// treeBinds says whether the tree r asks for binds, or would bind once it
// is there, the file at the real path p: under its root, in a folder its
// walk enters, of a kind it keeps. Go's and Cargo's are read loosely (any
// source file under the module, anything under a testdata folder; a
// crate's file at any depth): a refusal too many over code run unbound.
func treeBinds(r *treeRequest, p string) bool {
	rel, ok := under(p, r.root)
	if !ok || rel == "." {
		return false
	}
	parts := strings.Split(rel, string(filepath.Separator))
	dir, name := r.root, parts[len(parts)-1]
	switch r.kind {
	case goTree:
		return slices.Contains(goSources, filepath.Ext(name)) || name == "go.mod" || name == "go.sum" ||
			slices.Contains(parts[:len(parts)-1], "testdata") || slices.Contains(parts[:len(parts)-1], "vendor")
	case cargoTree:
		for i := range parts {
			if cargoFile(filepath.Join(parts[i:]...)) {
				return true
			}
		}
		return false
	}
	f, ok := treeFilesOf[r.kind]
	if !ok {
		return false
	}
	for _, d := range parts[:len(parts)-1] {
		if f.skipDir(dir, d) {
			return false
		}
		dir = filepath.Join(dir, d)
	}
	return f.keep(dir, name)
}
